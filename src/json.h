/*
 * json -- the little the --json outputs of the subcommands share.
 */
#ifndef JSON_H
#define JSON_H

#include <stdio.h>

/* Write @s to @f as a JSON string: quoted, with '"', '\\' and control
 * characters escaped.  Bytes above 0x7f pass through unchanged. */
void json_string(FILE *f, const char *s);

#endif /* JSON_H */

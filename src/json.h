/*
 * json -- the little the --json outputs of the subcommands share.
 *
 * Every string in a --json output goes through json_string(), so the
 * output is valid UTF-8 JSON whatever the file names, notes and strings
 * in a trace hold: a byte that is not part of valid UTF-8 is written as
 * \ufffd (U+FFFD, the replacement character), one per byte; controls and
 * the characters esc.h does not print as they are are written as \uXXXX.
 */
#ifndef JSON_H
#define JSON_H

#include <stdio.h>

/* Write @s to @f as a JSON string: quoted, escaped as above (NULL is
 * written as ""). */
void json_string(FILE *f, const char *s);

#endif /* JSON_H */

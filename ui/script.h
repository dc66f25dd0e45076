/* script -- --script FILE: a browser driven by a file of keys and
 * commands on a virtual screen (tests, screenshots, benchmarks). */
#ifndef SCRIPT_H
#define SCRIPT_H

struct ui;

/* Run script @path; @startup is the seconds the first screen took
 * (bench-startup prints it).  Returns the exit status: 0, or 1 if the
 * file cannot be read or has a line too long (said on stderr). */
int script_run(struct ui *ui, const char *path, double startup);

/* Seconds on the monotonic clock. */
double script_now(void);

#endif /* SCRIPT_H */

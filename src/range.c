/* range -- TRACE[:FROM[-TO]] and TRACE:NAME on the command line (see
 * range.h). */
#include "range.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "marks.h"
#include "ptdec.h"
#include "trace.h"

/* One offset of FROM-TO at @s: 0x hex or decimal, as the man page and the
 * marks file say (base 0 would read 0020 as octal and "-1" as 2^64-1).
 * Returns 0 with *@v and *@end set, or -1 if @s does not start with one or
 * it overflows. */
static int range_num(const char *s, uint64_t *v, char **end)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (!isdigit((unsigned char)s[0]) ||
	    (hex && !isxdigit((unsigned char)s[2])))
		return -1;
	errno = 0;
	*v = strtoull(s, end, hex ? 16 : 10);
	return errno ? -1 : 0;
}

/* Whether @arg cut at @colon is an existing file and the rest cannot be
 * a name from its marks (those start with a letter or '_'): a suffix
 * that was meant as a range but is not one. */
static int range_meant(char *arg, char *colon)
{
	struct stat st;
	int is_file;

	if ((!isdigit((unsigned char)colon[1]) && colon[1] != '-') ||
	    strchr(colon, '/'))
		return 0;
	*colon = 0;
	is_file = !stat(arg, &st) && S_ISREG(st.st_mode);
	*colon = ':';
	return is_file;
}

int range_split(char *arg, uint64_t *from, uint64_t *to, int *have_to)
{
	char *colon = strrchr(arg, ':'), *end;
	struct stat st;
	uint64_t a, b;

	*have_to = 0;
	/* A file whose own name holds the colon is that file. */
	if (!colon || !colon[1] || !stat(arg, &st))
		return 0;
	if (range_num(colon + 1, &a, &end) < 0)
		return range_meant(arg, colon) ? -1 : 0;
	if (*end == 0) {
		*from = a;
		*colon = 0;
		return 1;
	}
	if (*end != '-' || range_num(end + 1, &b, &end) < 0 || *end)
		return range_meant(arg, colon) ? -1 : 0;
	if (b <= a)
		return -1;
	*from = a;
	*to = b;
	*have_to = 1;
	*colon = 0;
	return 1;
}

int range_split_name(char *arg, const char **name)
{
	char *colon = strrchr(arg, ':');
	struct stat st;
	int is_file;

	*name = NULL;
	if (!colon || !colon[1] || strchr(colon, '/') || !stat(arg, &st))
		return 0;
	*colon = 0;
	is_file = !stat(arg, &st) && S_ISREG(st.st_mode);
	if (!is_file) {
		*colon = ':';
		return 0;
	}
	*name = colon + 1;
	return 1;
}

int range_of_name(const struct trace *t, size_t stream, const char *name,
		  uint64_t *from, uint64_t *to, char *err, size_t errlen)
{
	struct marks_opts o = { .flags = BM_NO_STATE };
	const struct marks_entry *e;
	struct marks_set *set;
	long i;
	int r;

	if (!t || stream >= t->nstreams || !name || !from || !to)
		return -pte_invalid;
	r = marks_open_trace(&set, t, stream, &o);
	if (r < 0) {
		snprintf(err, errlen, "%s: its marks cannot be read (%s)", t->path,
			 pte_strerror(r));
		return r;
	}
	i = marks_find(set, name);
	if (i < 0) {
		snprintf(err, errlen, "%s: no region, mark or bookmark '%s' "
			 "(ptbrowse marks lists them)", t->path, name);
		marks_close(set);
		return -pte_invalid;
	}
	e = marks_at(set, (size_t)i);
	*from = e->from;
	*to = e->kind == BM_REGION ? e->to : t->streams[stream].img.size;
	marks_close(set);
	return 0;
}

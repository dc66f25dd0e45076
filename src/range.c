/* range -- TRACE[:FROM[-TO]] and TRACE:NAME on the command line (see
 * range.h). */
#include "range.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "marks.h"
#include "ptdec.h"
#include "trace.h"

int range_split(char *arg, uint64_t *from, uint64_t *to, int *have_to)
{
	char *colon = strrchr(arg, ':'), *end;
	struct stat st;
	uint64_t a, b;

	*have_to = 0;
	/* A file whose own name holds the colon is that file. */
	if (!colon || !colon[1] || !stat(arg, &st))
		return 0;
	errno = 0;
	a = strtoull(colon + 1, &end, 0);
	if (errno || end == colon + 1)
		return 0;
	if (*end == 0) {
		*from = a;
		*colon = 0;
		return 1;
	}
	if (*end != '-')
		return 0;
	b = strtoull(end + 1, &end, 0);
	if (errno || *end)
		return 0;
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

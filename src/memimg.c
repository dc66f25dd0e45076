/* memimg -- code segments by address space (see memimg.h). */
#include "memimg.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptdec.h"

struct mi_seg {
	uint64_t asid;
	uint64_t addr;		/* first byte */
	uint64_t end;		/* one past the last byte */
	const uint8_t *data;
	uint64_t file_off;	/* the offset in its file of its first byte */
	char *name;
	void *map;		/* set if mi_add_raw() mapped it */
	size_t maplen;
};

struct mi {
	struct mi_seg *segs;	/* in the order added: later ones win */
	size_t n, cap;
	size_t last;		/* the segment the last read found (a hint) */
};

int mi_new(struct mi **out)
{
	struct mi *mi;

	if (!out)
		return -pte_invalid;
	mi = calloc(1, sizeof(*mi));
	if (!mi)
		return -pte_nomem;
	*out = mi;
	return 0;
}

void mi_free(struct mi *mi)
{
	size_t i;

	if (!mi)
		return;
	for (i = 0; i < mi->n; i++) {
		if (mi->segs[i].map)
			munmap(mi->segs[i].map, mi->segs[i].maplen);
		free(mi->segs[i].name);
	}
	free(mi->segs);
	free(mi);
}

static int seg_push(struct mi *mi, const struct mi_seg *s)
{
	if (mi->n == mi->cap) {
		size_t cap = mi->cap ? 2 * mi->cap : 16;
		struct mi_seg *p = realloc(mi->segs, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		mi->segs = p;
		mi->cap = cap;
	}
	mi->segs[mi->n++] = *s;
	return 0;
}

int mi_add(struct mi *mi, uint64_t asid, uint64_t addr, const uint8_t *data,
	   uint64_t size, const char *name)
{
	return mi_add_file(mi, asid, addr, data, size, name, 0);
}

int mi_add_file(struct mi *mi, uint64_t asid, uint64_t addr, const uint8_t *data,
		uint64_t size, const char *name, uint64_t file_off)
{
	struct mi_seg s = { 0 };
	int err;

	if (!mi || !data || !size || addr + size < addr)
		return -pte_invalid;
	s.asid = asid;
	s.addr = addr;
	s.end = addr + size;
	s.data = data;
	s.file_off = file_off;
	s.name = strdup(name ? name : "?");
	if (!s.name)
		return -pte_nomem;
	err = seg_push(mi, &s);
	if (err)
		free(s.name);
	return err;
}

static int asid_match(const struct mi_seg *s, uint64_t asid)
{
	return s->asid == MI_ASID_ANY || asid == MI_ASID_ANY || s->asid == asid;
}

int mi_raw_spec(const char *spec, unsigned long long *addr, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char *end;

	if (!colon || colon == spec || !colon[1]) {
		snprintf(err, errlen, "--raw %s: expected FILE:ADDR (e.g. code.bin:0x400000)",
			 spec);
		return -pte_invalid;
	}
	errno = 0;
	*addr = strtoull(colon + 1, &end, 0);
	if (errno || *end || colon[1] == '-') {
		snprintf(err, errlen, "--raw %s: bad address '%s' (expected a number such as 0x400000)",
			 spec, colon + 1);
		return -pte_invalid;
	}
	return 0;
}

int mi_add_raw(struct mi *mi, const char *spec, char *err, size_t errlen)
{
	const char *colon;
	unsigned long long addr;
	struct mi_seg s = { 0 };
	struct stat st;
	char *file;
	void *map;
	size_t i;
	int fd, ret;

	if (!mi || !spec || !err)
		return -pte_invalid;
	ret = mi_raw_spec(spec, &addr, err, errlen);
	if (ret < 0)
		return ret;
	colon = strrchr(spec, ':');
	file = strndup(spec, (size_t)(colon - spec));
	if (!file)
		return -pte_nomem;
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		ret = -pte_io;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", file);
		ret = -pte_invalid;
		goto out_close;
	}
	if (!st.st_size) {
		snprintf(err, errlen, "%s: empty file: no code to load at 0x%llx", file, addr);
		ret = -pte_invalid;
		goto out_close;
	}
	if (addr + (uint64_t)st.st_size < addr) {
		snprintf(err, errlen, "%s: %lld bytes at 0x%llx run past the end of the address space",
			 file, (long long)st.st_size, addr);
		ret = -pte_invalid;
		goto out_close;
	}
	for (i = 0; i < mi->n; i++) {
		const struct mi_seg *o = &mi->segs[i];

		if (o->asid == MI_ASID_ANY && addr < o->end &&
		    o->addr < addr + (uint64_t)st.st_size) {
			snprintf(err, errlen, "%s at 0x%llx-0x%llx overlaps %s at 0x%" PRIx64
				 "-0x%" PRIx64, file, addr,
				 addr + (uint64_t)st.st_size - 1, o->name, o->addr,
				 o->end - 1);
			ret = -pte_invalid;
			goto out_close;
		}
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map: %s", file, strerror(errno));
		ret = -pte_io;
		goto out_close;
	}
	s.asid = MI_ASID_ANY;
	s.addr = addr;
	s.end = addr + (uint64_t)st.st_size;
	s.data = map;
	s.name = file;
	s.map = map;
	s.maplen = (size_t)st.st_size;
	ret = seg_push(mi, &s);
	if (ret) {
		munmap(map, s.maplen);
		goto out_close;
	}
	file = NULL;	/* the segment owns it */
out_close:
	if (fd >= 0)
		close(fd);
	free(file);
	return ret;
}

/* The newest segment holding @ip in @asid, or -1. */
static long find(const struct mi *mi, uint64_t asid, uint64_t ip)
{
	/* read once: threads sharing the image (a decoding and a feeding
	 * one, the browser and a job) each move the hint */
	size_t i, last = __atomic_load_n(&mi->last, __ATOMIC_RELAXED);

	if (last < mi->n) {
		const struct mi_seg *s = &mi->segs[last];

		/* The hint holds only if no newer segment covers @ip too. */
		if (ip >= s->addr && ip < s->end && asid_match(s, asid) &&
		    last == mi->n - 1)
			return (long)last;
	}
	for (i = mi->n; i-- > 0;) {
		const struct mi_seg *s = &mi->segs[i];

		if (ip >= s->addr && ip < s->end && asid_match(s, asid))
			return (long)i;
	}
	return -1;
}

int mi_read(void *vmi, uint64_t asid, uint64_t ip, uint8_t *buf, size_t size)
{
	struct mi *mi = vmi;
	size_t done = 0;

	if (!mi || !buf)
		return -pte_invalid;
	while (done < size) {
		uint64_t at = ip + done, lim;
		long i = find(mi, asid, at);
		size_t j, n;

		if (i < 0)
			break;
		__atomic_store_n(&mi->last, (size_t)i, __ATOMIC_RELAXED);
		lim = mi->segs[i].end;
		/* A newer segment starting inside this one hides the rest. */
		for (j = (size_t)i + 1; j < mi->n; j++) {
			const struct mi_seg *o = &mi->segs[j];

			if (asid_match(o, asid) && o->addr > at && o->addr < lim)
				lim = o->addr;
		}
		n = size - done;
		if (lim - at < n)
			n = (size_t)(lim - at);
		memcpy(buf + done, mi->segs[i].data + (at - mi->segs[i].addr), n);
		done += n;
		if (at + n < at)	/* the top of the address space */
			break;
	}
	if (!done)
		return -pte_nomap;
	return (int)done;
}

const char *mi_name_at(const struct mi *mi, uint64_t asid, uint64_t ip,
		       uint64_t *start, uint64_t *end)
{
	return mi_name_span(mi, asid, ip, start, end, NULL, NULL);
}

const char *mi_name_span(const struct mi *mi, uint64_t asid, uint64_t ip,
			 uint64_t *start, uint64_t *end, uint64_t *until,
			 uint64_t *file_off)
{
	uint64_t u;
	size_t j;
	long i;

	if (!mi)
		return NULL;
	i = find(mi, asid, ip);
	if (i < 0)
		return NULL;
	/* any other segment starting inside may answer there instead (a
	 * newer one of this space, or one the caller falls back to): a
	 * walk over them all, made once per segment a caller resolves */
	u = mi->segs[i].end;
	for (j = 0; until && j < mi->n; j++)
		if ((long)j != i && mi->segs[j].addr > ip && mi->segs[j].addr < u)
			u = mi->segs[j].addr;
	if (start)
		*start = mi->segs[i].addr;
	if (end)
		*end = mi->segs[i].end;
	if (until)
		*until = u;
	if (file_off)
		*file_off = mi->segs[i].file_off;
	return mi->segs[i].name;
}

const char *mi_overlap(const struct mi *mi, uint64_t asid, uint64_t lo,
		       uint64_t hi, uint64_t *start, uint64_t *end, int *dump)
{
	const struct mi_seg *s;
	size_t i;

	if (!mi || lo >= hi)
		return NULL;
	for (i = mi->n; i-- > 0;) {
		s = &mi->segs[i];
		if (s->addr >= hi || s->end <= lo || !asid_match(s, asid))
			continue;
		if (start)
			*start = s->addr;
		if (end)
			*end = s->end;
		if (dump)
			*dump = s->map != NULL;
		return s->name;
	}
	return NULL;
}

size_t mi_count(const struct mi *mi)
{
	return mi ? mi->n : 0;
}

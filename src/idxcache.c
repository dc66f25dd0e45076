/* idxcache -- save and reload finished indexes, trusting nothing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "goto.h"
#include "identity.h"
#include "idxcache.h"
#include "ptdec.h"
#include "safefile.h"
#include "xdg.h"

#define CACHE_MAGIC	"PTBIDXC\n"
#define CACHE_VERSION	16	/* 6: index blob 9 (periods, gap packets);
				 * 7: index blob 11 (every carry written);
				 * 8: index blob 12 (time back at a bad TSC);
				 * 9: index blob 13 (its edges, MTCs after);
				 * 10: index blob 14 (periods to a PSB+ TSC);
				 * 11: index blob 15 (MTCFreq 9 and up);
				 * 12: index blob 16 (halted time bounded);
				 * 13: index blob 17 (cycle thresholds);
				 * 14: index blob 18 (longer periods);
				 * 15: index blob 19 (a PSB at a span's end);
				 * 16: index blob 20 (perf's TSC frequency) */
#define KEY_BYTES	(64u << 10)	/* the part of the file that names it */

struct cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint64_t file_size;	/* the trace's identity when saved */
	uint64_t file_hash;
	uint64_t content_hash;	/* XXH3 of all file_size bytes, 0: not hashed */
	int64_t mtime_ns;
	uint64_t body_len;
	uint64_t body_hash;
	char stream[32];
	uint64_t timing_hash;	/* of the timing configuration (timing_hash()) */
	uint64_t hdr_hash;	/* XXH3 of the fields above */
};

/*
 * The timing configuration the index's time pass used, field by field:
 * carries and time summaries made with another MTC period or core:bus
 * ratio are wrong for this one (`ptbrowse --nom-freq 24` after a run
 * with 12).
 */
static uint64_t timing_hash(const struct tm_config *c)
{
	uint64_t v[] = {
		c->have_mtc_freq, c->mtc_freq, c->have_nom_freq, c->nom_freq,
		c->have_cpuid_15, c->cpuid_15_eax, c->cpuid_15_ebx,
		c->have_tsc_hz, c->tsc_hz, c->have_perf_conv, c->time_shift,
		c->time_mult, c->time_zero, c->have_cpu, c->cpu_family,
		c->cpu_model, c->cpu_stepping, c->have_cyc_thresh,
		c->cyc_thresh, c->have_crystal_hz, c->crystal_hz,
	};

	return XXH3_64bits(v, sizeof(v));
}

struct key_args {
	const struct trace *t;
	uint64_t key;
};

static int key_body(void *arg)
{
	struct key_args *a = arg;
	size_t n = a->t->size < KEY_BYTES ? (size_t)a->t->size : KEY_BYTES;

	a->key = XXH3_64bits(a->t->map, n);
	return 0;
}

static uint64_t hdr_hash(const struct cache_hdr *h);

/*
 * Why the cache file @path, a sound one of stream @stream, is the index
 * of another trace than @t: one sharing @t's first 64 KiB (two ptgen runs
 * of one seed, recordings of one program) that is not @t nor a shorter
 * state of it (a recording before it grew).  Returns that
 * (IDXCACHE_OTHER), or NULL when it is @t's, or is not there,
 * or is not a sound cache file of this version (then it is overwritten
 * in place, as before).
 */
static const char *idxcache_other(const char *path, const struct trace *t,
				  int stream)
{
	struct cache_hdr h;
	struct identity id;
	int fd = safefile_open_read(path, 0), ok;

	if (fd < 0)
		return NULL;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h);
	close(fd);
	if (!ok || memcmp(h.magic, CACHE_MAGIC, 8) || h.hdr_hash != hdr_hash(&h) ||
	    h.version != CACHE_VERSION || h.hdr_size != sizeof(h) ||
	    strncmp(h.stream, t->streams[stream].name, sizeof(h.stream)))
		return NULL;
	/* Not "trace changed": @t may never have been indexed (the file
	 * holds the other trace's index, not an old one of @t's). */
	if (h.file_size > t->size ||
	    identity_of_prefix(&id, t, h.file_size) < 0 || id.hash != h.file_hash)
		return IDXCACHE_OTHER;
	return NULL;
}

/*
 * idxcache_path(), and in *@other (if not NULL) why the file named by the
 * first 64 KiB alone was passed over (NULL if it was not).  That name is
 * tried first, so that a copy or a renamed trace finds its cache; when it
 * holds another trace's index (idxcache_other()), the name adds the
 * trace file's device and inode, which an append keeps: the two traces
 * then no longer take each other's file, each rebuilding every time.
 */
static int idxcache_pick(const struct trace *t, int stream, const struct tm_config *tm,
			 char *buf, size_t size, const char **other, char *err,
			 size_t errlen)
{
	static const struct tm_config none;
	struct key_args ka = { t, 0 };
	const char *why;
	char dir[4096];
	uint64_t th = timing_hash(tm ? tm : &none);
	int ret, n;

	if (other)
		*other = NULL;
	if (!t || !buf || stream < 0 || (size_t)stream >= t->nstreams)
		return -pte_invalid;
	ret = xdg_path(XDG_CACHE, "index", dir, sizeof(dir), err, errlen);
	if (ret < 0)
		return ret;
	ret = trace_guard(key_body, &ka);
	if (ret < 0) {
		snprintf(err, errlen, "%s: the file shrank while being read", t->path);
		return ret;
	}
	/* The timing options in the name too: an index made with others
	 * (`index --nom-freq 10`, then the browser's defaults) is not this
	 * one's, and replacing it made the two take turns rebuilding. */
	n = snprintf(buf, size, "%s/%016" PRIx64 "-%016" PRIx64 "-%s.idx", dir, ka.key,
		     th, t->streams[stream].name);
	if (n >= 0 && (size_t)n < size && (why = idxcache_other(buf, t, stream))) {
		if (other)
			*other = why;
		n = snprintf(buf, size, "%s/%016" PRIx64 "-%016" PRIx64 "-%s.i%" PRIx64
			     "-%" PRIx64 ".idx", dir, ka.key, th, t->streams[stream].name,
			     (uint64_t)t->dev, (uint64_t)t->ino);
	}
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errlen, "%s: cache path too long", dir);
		return -pte_nomem;
	}
	return 0;
}

int idxcache_path(const struct trace *t, int stream, const struct tm_config *tm,
		  char *buf, size_t size, char *err, size_t errlen)
{
	return idxcache_pick(t, stream, tm, buf, size, NULL, err, errlen);
}

static uint64_t hdr_hash(const struct cache_hdr *h)
{
	return XXH3_64bits(h, offsetof(struct cache_hdr, hdr_hash));
}

struct check_args {
	struct cache_map *cm;
	int handed;		/* the index owns the mapping now */
	const struct cache_hdr *h;
	const uint8_t *body;
	struct idx *idx;
};

struct cache_map {
	void *map;
	size_t len;
};

static void cache_unmap(void *ctx)
{
	struct cache_map *cm = ctx;

	munmap(cm->map, cm->len);
	free(cm);
}

/* Under the guard: the body's hash, then the load (which keeps the
 * mapping: reopening a big index copies nothing). */
static int check_body(void *arg)
{
	struct check_args *a = arg;

	if (XXH3_64bits(a->body, (size_t)a->h->body_len) != a->h->body_hash)
		return -pte_bad_file;
	a->handed = 1;
	return idx_load_mapped(a->idx, (void *)a->body, (size_t)a->h->body_len,
			       cache_unmap, a->cm);
}

/*
 * Whether the cache file @fd can serve @t's stream @stream: its header
 * read into *@h (its stat into *@st), checked against the trace (the same,
 * or grown at the end; content hashed if touched and at most @max_hash
 * bytes, then *@hashed is set) and @idx's timing options.  Returns 1, or
 * 0 with *@why saying why not.
 */
static int idxcache_check_hdr(int fd, const struct trace *t, int stream,
			      struct idx *idx, uint64_t max_hash,
			      struct cache_hdr *h, struct stat *st, const char **why,
			      int *hashed)
{
	struct identity id;
	int ret;

	*hashed = 0;

	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) ||
	    (uint64_t)st->st_size < sizeof(*h) ||
	    pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h)) {
		*why = "truncated";
		return 0;
	}
	if (memcmp(h->magic, CACHE_MAGIC, 8) || h->hdr_hash != hdr_hash(h)) {
		*why = "corrupt header";
		return 0;
	}
	if (h->version != CACHE_VERSION || h->hdr_size != sizeof(*h)) {
		*why = "another version";
		return 0;
	}
	if (h->body_len != (uint64_t)st->st_size - sizeof(*h)) {
		/* cut short, or with bytes after the body */
		*why = "wrong length";
		return 0;
	}
	if (strncmp(h->stream, t->streams[stream].name, sizeof(h->stream))) {
		*why = "another stream";
		return 0;
	}
	if (h->timing_hash != timing_hash(idx_config(idx))) {
		*why = "other timing options";
		return 0;
	}
	/* The trace: the same, or the same with more at the end. */
	if (h->file_size > t->size) {
		*why = "trace changed (shrank)";
		return 0;
	}
	ret = identity_of_prefix(&id, t, h->file_size);
	if (ret < 0 || id.hash != h->file_hash) {
		*why = "trace changed";
		return 0;
	}
	/* A copy or a touched file: the sample matched, but only every byte
	 * can tell that nothing else changed.  A trace that grew is a
	 * recording that appended; hashing its old part would read it all
	 * before the first screen. */
	if (h->file_size == t->size && h->mtime_ns != t->mtime_ns) {
		uint64_t hash;

		if (h->file_size > max_hash) {
			*why = "trace touched (too big to check now)";
			return 0;
		}
		if (!h->content_hash) {
			/* the save was hurried (idxcache_save()) */
			*why = "trace touched (not hashed when cached)";
			return 0;
		}
		ret = identity_content_hash(t, h->file_size, NULL, &hash);
		if (ret < 0 || hash != h->content_hash) {
			*why = "trace changed";
			return 0;
		}
		*hashed = 1;
	}
	return 1;
}

/*
 * The cache file @fd (at @path, header @h, checked) again, with @t's
 * mtime: @t's whole content was just hashed and found to be the one @h
 * describes (a copy, a touched file).  Without it the header keeps the
 * old mtime, so every later load hashes the whole trace again, and one
 * that may not (the browser, past UI_CACHE_HASH_MAX) rebuilds: `ptbrowse
 * index` would check a big copy and serve no one.  The body is copied
 * from @fd, the file checked, and its hash checked again on the way;
 * the new file is written aside and renamed over the old one, so a
 * failure leaves the old one.  Best effort: returns 0 or negative.
 */
static int idxcache_restamp(int fd, const char *path, const struct cache_hdr *h,
			    const struct trace *t)
{
	struct safefile_keep keep = { t->dev, t->ino, "the trace" };
	struct safefile_opts so = { .flags = SAFEFILE_NOFOLLOW | SAFEFILE_NOSYNC,
				    .mode = 0600, .keep = &keep, .nkeep = 1 };
	struct safefile *f = NULL;
	struct cache_hdr nh = *h;
	XXH3_state_t *xs;
	char err[256], *buf;
	uint64_t off = 0;
	size_t bufsz = 1u << 20;
	int ret = -pte_io;

	/* the mtime stamped must be that of the bytes hashed */
	if (trace_since_mapped(t) != TRACE_SAME)
		return -pte_io;
	nh.mtime_ns = t->mtime_ns;
	nh.hdr_hash = hdr_hash(&nh);
	buf = malloc(bufsz);
	xs = XXH3_createState();
	if (!buf || !xs || XXH3_64bits_reset(xs) != XXH_OK) {
		ret = -pte_nomem;
		goto out;
	}
	if (safefile_create(&f, path, &so, err, sizeof(err)) < 0) {
		f = NULL;
		goto out;
	}
	if (safefile_write(f, &nh, sizeof(nh)) < 0)
		goto out;
	while (off < h->body_len) {
		size_t n = h->body_len - off < bufsz ? (size_t)(h->body_len - off) : bufsz;
		ssize_t r = pread(fd, buf, n, (off_t)(sizeof(*h) + off));

		if (r <= 0)
			goto out;
		XXH3_64bits_update(xs, buf, (size_t)r);
		if (safefile_write(f, buf, (uint64_t)r) < 0)
			goto out;
		off += (uint64_t)r;
	}
	if (XXH3_64bits_digest(xs) != h->body_hash)
		goto out;
	ret = safefile_commit(f, err, sizeof(err));
	f = NULL;
out:
	safefile_abort(f);
	XXH3_freeState(xs);
	free(buf);
	return ret;
}

/*
 * Mark the cache file @fd (opened at @path) used, and its code index
 * (@path.code) with it, which the browser loads after it: their mtime
 * becomes now, what idxcache_trim() removes the oldest by.  Nothing
 * reads a cache file's own mtime (its header says the trace's), so a
 * restamp or a content key is not changed by it.  Never a link's
 * target: only the file the name itself is.
 */
static void idxcache_touch(int fd, const char *path)
{
	struct stat st, lst;
	char code[4200];
	int cfd;

	if (!fstat(fd, &st) && !lstat(path, &lst) && S_ISREG(lst.st_mode) &&
	    lst.st_dev == st.st_dev && lst.st_ino == st.st_ino)
		(void)futimens(fd, NULL);
	if ((size_t)snprintf(code, sizeof(code), "%s.code", path) >= sizeof(code))
		return;
	cfd = open(code, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (cfd < 0)
		return;
	if (!fstat(cfd, &st) && S_ISREG(st.st_mode))
		(void)futimens(cfd, NULL);
	close(cfd);
}

int idxcache_load(struct idx *idx, const struct trace *t, int stream,
		  uint64_t max_hash, const char **why)
{
	struct check_args ca;
	struct cache_hdr h;
	struct stat st;
	char path[4096], err[256];
	const char *dummy, *other;
	void *map;
	int fd, ret, hashed, res = IDXCACHE_MISS;

	if (!why)
		why = &dummy;
	if (!idx || !t || stream < 0 || (size_t)stream >= t->nstreams)
		return -pte_invalid;
	if (idxcache_pick(t, stream, idx_config(idx), path, sizeof(path), &other, err,
			  sizeof(err)) < 0) {
		*why = "no cache directory";
		return IDXCACHE_MISS;
	}
	/* Never a FIFO or a device: opening or reading it could block. */
	fd = safefile_open_read(path, 0);
	if (fd < 0) {
		/* The file by content alone is another trace's, and this one
		 * has none of its own: say what was found. */
		*why = errno == ENOENT && other ? other : errno == ENOENT ? "not cached" :
		       /* $XDG_CACHE_HOME a file: there is no cache at all */
		       errno == ENOTDIR ? "no cache directory" :
		       errno == EINVAL || errno == EISDIR ? "not a regular file" :
		       "cannot be read";
		return IDXCACHE_MISS;
	}
	if (!idxcache_check_hdr(fd, t, stream, idx, max_hash, &h, &st, why, &hashed))
		goto out_close;
	/* Private and writable: a grown trace's index goes on in place,
	 * copy-on-write, without touching the file. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		*why = "cannot map";
		goto out_close;
	}
	/* Map it all in one go for reading (MAP_POPULATE would copy every
	 * page of a writable private mapping); only a hint. */
	(void)madvise(map, (size_t)st.st_size, MADV_POPULATE_READ);
	ca.cm = malloc(sizeof(*ca.cm));
	if (!ca.cm) {
		munmap(map, (size_t)st.st_size);
		res = -pte_nomem;
		goto out_close;
	}
	ca.cm->map = map;
	ca.cm->len = (size_t)st.st_size;
	ca.h = &h;
	ca.body = (const uint8_t *)map + sizeof(h);
	ca.idx = idx;
	ca.handed = 0;
	ret = trace_guard(check_body, &ca);
	if (ret < 0 && !ca.handed)
		cache_unmap(ca.cm);	/* the index never took it */
	if (ret < 0) {
		idx_reset(idx);
		*why = ret == -pte_sigbus ? "cache file shrank" : "corrupt";
		res = -ret == pte_nomem ? -pte_nomem : IDXCACHE_MISS;
		goto out_close;
	}
	idxcache_touch(fd, path);
	if (idx_complete(idx)) {
		*why = "hit";
		res = IDXCACHE_HIT;
		/* (one that is not complete is saved again once it is) */
		if (hashed)
			(void)idxcache_restamp(fd, path, &h, t);
	} else if (h.file_size == t->size) {
		*why = "no time pass";
		res = IDXCACHE_PARTIAL;
	} else {
		*why = "grown";
		res = IDXCACHE_GROWN;
	}
out_close:
	close(fd);
	return res;
}

int idxcache_identity(const struct trace *t, int stream, const struct tm_config *tm,
		      uint64_t *file_hash, uint64_t *content_hash)
{
	struct identity id;
	struct cache_hdr h;
	char path[4096], err[256];
	int fd, ok;

	if (!t || !file_hash || !content_hash || stream < 0 ||
	    (size_t)stream >= t->nstreams)
		return -pte_invalid;
	if (idxcache_path(t, stream, tm, path, sizeof(path), err, sizeof(err)) < 0)
		return -pte_bad_file;
	fd = safefile_open_read(path, 0);
	if (fd < 0)
		return -pte_bad_file;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h);
	close(fd);
	if (!ok || memcmp(h.magic, CACHE_MAGIC, 8) || h.hdr_hash != hdr_hash(&h) ||
	    h.version != CACHE_VERSION || h.hdr_size != sizeof(h) ||
	    strncmp(h.stream, t->streams[stream].name, sizeof(h.stream)) ||
	    h.file_size != t->size || h.mtime_ns != t->mtime_ns || !h.content_hash)
		return -pte_bad_file;
	if (identity_of_prefix(&id, t, h.file_size) < 0 || id.hash != h.file_hash)
		return -pte_bad_file;
	*file_hash = h.file_hash;
	*content_hash = h.content_hash;
	return 0;
}

struct save_args {
	struct safefile *out;
	XXH3_state_t st;
	uint64_t len;
};

static int emit_file(void *ctx, const void *p, size_t n)
{
	struct save_args *sa = ctx;

	XXH3_64bits_update(&sa->st, p, n);
	sa->len += n;
	return safefile_write(sa->out, p, n) < 0 ? -pte_io : 0;
}

/*
 * Whether identity @id, read from @t's mapping after its content hash,
 * is that of the bytes the index was built from: the file is as mapped,
 * or it only grew and the part mapped still has the identity @mapped
 * took before the index read it.  Size and mtime cannot tell an append
 * from a rewrite (both move the mtime); the sample can, but for bytes it
 * does not look at (idxcache_save_since()).  Read after the hash, @id
 * also covers a rewrite while the hash was read.
 * Returns 0, or -pte_io with a message in @err.
 */
static int idxcache_save_check(const struct trace *t, const struct identity *mapped,
			       const struct identity *id, char *err, size_t errlen)
{
	enum trace_since since = trace_since_mapped(t);

	if (since == TRACE_CHANGED || (since == TRACE_GREW && !mapped)) {
		snprintf(err, errlen, "%s changed since it was indexed", t->path);
		return -pte_io;
	}
	if (mapped && !identity_same(mapped, id)) {
		snprintf(err, errlen, "%s was rewritten since it was indexed", t->path);
		return -pte_io;
	}
	return 0;
}

int idxcache_save(const struct idx *idx, const struct trace *t, int stream,
		  const _Atomic int *hurry, char *err, size_t errlen)
{
	return idxcache_save_since(idx, t, stream, NULL, hurry, err, errlen);
}

int idxcache_load_or_build(struct idx *idx, const struct trace *t, int stream,
			   const struct identity *mapped)
{
	char err[512];
	int r;

	if (idxcache_load(idx, t, stream, UINT64_MAX, NULL) == IDXCACHE_HIT)
		return 1;
	r = idx_build(idx);
	if (r < 0)
		return r;
	(void)idxcache_save_since(idx, t, stream, mapped, NULL, err, sizeof(err));
	return 0;
}

/* idxcache_trim() after @t's index was saved at @path (@ret 0): its note
 * (if any) into @err, naming the trace, else "".  After a save that
 * failed writing (@ret -pte_io) too, @err (why) kept, nothing added: a
 * full disk (ENOSPC, EDQUOT) failed every save, and only a save that
 * succeeded trimmed, so a cache over its limit, the limit lowered to
 * make room, stayed so for good. */
static void idxcache_save_trim(const struct trace *t, const char *path, int ret,
			       char *err, size_t errlen)
{
	static const char pre[] = "index cache: ";
	char note[600];
	int e = errno;

	if (ret < 0) {
		if (ret == -pte_io)
			(void)idxcache_trim(path, NULL, 0);
		errno = e;
		return;
	}
	err[0] = 0;
	(void)idxcache_trim(path, note, sizeof(note));
	if (!strncmp(note, pre, sizeof(pre) - 1))
		snprintf(err, errlen, "%s%s: %s", pre, t->path, note + sizeof(pre) - 1);
	else
		snprintf(err, errlen, "%s", note);
}

int idxcache_save_since(const struct idx *idx, const struct trace *t, int stream,
			const struct identity *mapped, const _Atomic int *hurry,
			char *err, size_t errlen)
{
	/* A cache: no fsync; a file cut by a crash fails its hashes. */
	struct safefile_keep keep = { t ? t->dev : 0, t ? t->ino : 0, "the trace" };
	struct safefile_opts so = { .flags = SAFEFILE_NOFOLLOW | SAFEFILE_NOSYNC,
				    .mode = 0600, .keep = &keep, .nkeep = 1 };
	struct save_args *sa;
	struct safefile *f = NULL;
	struct identity id;
	struct cache_hdr h;
	char dir[4096], path[4096];
	uint64_t content;
	int ret;

	if (!idx || !t || !err || stream < 0 || (size_t)stream >= t->nstreams)
		return -pte_invalid;
	if (!idx_complete(idx))
		return -pte_invalid;
	ret = xdg_dir(XDG_CACHE, "index", dir, sizeof(dir), err, errlen);
	if (ret < 0)
		return ret;
	/* A save killed half way (SIGKILL, a crash) left its temporary
	 * file, often tens of MiB, which nothing else would remove: the
	 * index files' and the code index's (ctidx.c) of every trace. */
	(void)safefile_clean_dead(dir, NULL, ".idx");
	(void)safefile_clean_dead(dir, NULL, ".code");
	ret = idxcache_path(t, stream, idx_config(idx), path, sizeof(path), err, errlen);
	if (ret < 0)
		return ret;
	ret = identity_content_hash(t, t->size, hurry, &content);
	if (ret == -pte_canceled) {
		/* 0: not hashed (idxcache_check_hdr()) */
		content = 0;
		ret = 0;
	}
	if (!ret)
		ret = identity_of_trace(&id, t);
	if (ret < 0) {
		snprintf(err, errlen, "%s: the file shrank while being read", t->path);
		return ret;
	}
	/* After the hash and the identity were read from the mapping: what
	 * they describe must be what the index was built over. */
	ret = idxcache_save_check(t, mapped, &id, err, errlen);
	if (ret < 0)
		return ret;
	sa = malloc(sizeof(*sa));
	if (!sa)
		return -pte_nomem;
	XXH3_INITSTATE(&sa->st);
	XXH3_64bits_reset(&sa->st);
	sa->len = 0;
	ret = safefile_create(&f, path, &so, err, errlen);
	if (ret < 0) {
		ret = ret == -pte_nomem ? ret : -pte_io;
		goto out_trim;
	}
	sa->out = f;
	/* The body streams out behind a placeholder header, hashed on the
	 * way; the real header goes in last. */
	memset(&h, 0, sizeof(h));
	if (safefile_write(f, &h, sizeof(h)) < 0) {
		ret = -pte_io;
		goto out_err;
	}
	ret = idx_save_to(idx, emit_file, sa);
	if (ret < 0)
		goto out_err;
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.version = CACHE_VERSION;
	h.hdr_size = sizeof(h);
	h.file_size = id.size;
	h.file_hash = id.hash;
	h.content_hash = content;
	h.mtime_ns = t->mtime_ns;
	h.body_len = sa->len;
	h.body_hash = XXH3_64bits_digest(&sa->st);
	snprintf(h.stream, sizeof(h.stream), "%s", t->streams[stream].name);
	h.timing_hash = timing_hash(idx_config(idx));
	h.hdr_hash = hdr_hash(&h);
	if (pwrite(safefile_fd(f), &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		ret = -pte_io;
		goto out_err;
	}
	ret = safefile_commit(f, err, errlen);
	free(sa);
	/* (a cache too big is no reason to say the index is not cached) */
	idxcache_save_trim(t, path, ret, err, errlen);
	return ret;

out_err:
	if (ret == -pte_io)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else
		snprintf(err, errlen, "%s: %s", path, pte_strerror(ret));
	safefile_abort(f);
out_trim:
	free(sa);
	idxcache_save_trim(t, path, ret, err, errlen);
	return ret;
}

/* ---- the size limit (idxcache.h: idxcache_trim()) ---- */

/* The code index's magic (src/ctidx.c): what its files begin with. */
#define CODE_MAGIC	"PTBCODEX"

static _Atomic int max_given;		/* --cache-max was given */
static _Atomic uint64_t max_cmdline;
static _Atomic int told;		/* the note was given (once) */

/* The config files' limit, read once (idxcache_max()). */
static struct {
	pthread_once_t once;
	int have;
	uint64_t max;
	char err[512];		/* the last bad line, "" if none */
} cfg = { PTHREAD_ONCE_INIT, 0, 0, "" };

/* Whether size @s as written has a digit other than 0 in its number
 * (the part before its unit). */
static int size_nonzero(const char *s)
{
	const char *digits = "0123456789.";

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		digits = "0123456789abcdefABCDEF";
	}
	for (; *s && strchr(digits, *s); s++)
		if (*s != '0' && *s != '.')
			return 1;
	return 0;
}

int idxcache_parse_size(const char *s, uint64_t *out)
{
	struct goto_target t;
	char err[128];

	/* the sizes :goto takes (4KiB, 1.5GiB, 0x1000), absolute ones */
	if (!s || !out || !*s || goto_parse(s, &t, err, sizeof(err)) < 0 ||
	    t.kind != GOTO_OFFSET || t.rel)
		return -pte_invalid;
	/* 0 is no limit: a size written non-zero that rounds down to 0
	 * bytes (0.0001KiB) is refused, not taken for none */
	if (!t.value && size_nonzero(s))
		return -pte_invalid;
	*out = t.value;
	return 0;
}

void idxcache_set_max(uint64_t max)
{
	atomic_store(&max_cmdline, max);
	atomic_store(&max_given, 1);
}

/* @p past blanks. */
static const char *cfg_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* @p past the word @w if it is next, followed by a blank or the end;
 * else NULL. */
static const char *cfg_word(const char *p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(p, w, n) || (p[n] && !strchr(" \t\r\n", p[n])))
		return NULL;
	return cfg_blank(p + n);
}

int idxcache_config_line(const char *line, char *val, size_t size)
{
	const char *p = cfg_blank(line), *e;
	size_t n;

	if (!size)
		return 0;
	val[0] = 0;
	/* a ':' first, as a prompt command takes it */
	p = cfg_blank(p + (*p == ':'));
	if (!(p = cfg_word(p, "set")) || !(p = cfg_word(p, IDXCACHE_MAX_KEY)))
		return 0;
	e = p + strcspn(p, " \t\r\n");
	n = (size_t)(e - p);
	if (*p == '#')
		n = 0;	/* a comment, no value */
	e = cfg_blank(e);
	if (*e && *e != '#')
		n = size;	/* a word too many: bad */
	if (n >= size)
		snprintf(val, size, "?");
	else
		snprintf(val, size, "%.*s", (int)n, p);
	return 1;
}

/* One config file @path's "set cache-max" lines into cfg: the last good
 * one wins, the last bad one is said. */
static void cfg_read_file(const char *path)
{
	FILE *f = path[0] ? safefile_fopen_read(path, 0) : NULL;
	char line[1024], val[64];
	unsigned lineno = 0;
	uint64_t v;
	int c;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		lineno++;
		if (n && line[n - 1] != '\n' && !feof(f)) {
			/* longer than the browser reads: its error */
			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (!idxcache_config_line(line, val, sizeof(val)))
			continue;
		if (idxcache_parse_size(val, &v) < 0) {
			char *q;

			for (q = val; *q; q++)
				if ((unsigned char)*q < 0x20 || *q == 0x7f)
					*q = '?';
			snprintf(cfg.err, sizeof(cfg.err), "%.300s:%u: set %s: bad size: "
				 "%s (a size such as 2GiB or 500MB; 0: no limit)", path,
				 lineno, IDXCACHE_MAX_KEY, val[0] ? val : "(none)");
			continue;
		}
		cfg.have = 1;
		cfg.max = v;
	}
	fclose(f);
}

/* The config files, as the browser reads them (ui/options.c). */
static void cfg_read(void)
{
	char user[4200];

	cfg_read_file("/etc/ptbrowse/config");
	if (!xdg_path(XDG_CONFIG, "config", user, sizeof(user), NULL, 0))
		cfg_read_file(user);
}

int idxcache_max(uint64_t *max, char *err, size_t errlen)
{
	if (atomic_load(&max_given)) {
		*max = atomic_load(&max_cmdline);
		return 0;
	}
	pthread_once(&cfg.once, cfg_read);
	*max = cfg.have ? cfg.max : IDXCACHE_MAX_DEFAULT;
	if (!cfg.err[0])
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", cfg.err);
	return -pte_bad_config;
}

void idxcache_size_str(uint64_t v, char *buf, size_t size)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", v);
		return;
	}
	while (d >= 1024 && u < 3) {
		d /= 1024;
		u++;
	}
	snprintf(buf, size, d < 10 && d != (double)(uint64_t)d ? "%.1f %s" : "%.0f %s",
		 d, unit[u]);
}

/* One cache file of the directory, as its name and fstatat() say: its
 * header is read only when it is about to go (or counted for info). */
struct cfile {
	char *name;
	int kind;		/* cache_kind() */
	uint64_t size;
	struct timespec mtime;
	dev_t dev;
	ino_t ino;
};

/* The directory's cache files. */
struct clist {
	struct cfile *v;
	size_t n, cap;
	uint64_t bytes;
	int dfd;
};

/* Which cache file @name is by its name: 1 an index (HASH-HASH-...idx),
 * 2 a code index (the same plus .code), 0 none.  A temporary file being
 * written (NAME.tmp.PID.N) is none: it is never touched. */
static int cache_kind(const char *name)
{
	size_t n = strlen(name), i;

	if (n < 34 + 4 || name[16] != '-' || name[33] != '-')
		return 0;
	for (i = 0; i < 33; i++)
		if (i != 16 && !strchr("0123456789abcdef", name[i]))
			return 0;
	if (!strcmp(name + n - 4, ".idx"))
		return 1;
	if (n >= 34 + 9 && !strcmp(name + n - 9, ".idx.code"))
		return 2;
	return 0;
}

/* Whether @name in the directory @dfd may be a cache file of kind @kind
 * by what fstatat() says: a regular file (not a link), the user's.  Fills
 * *@cf but its name.  Only adding up sizes: a save under the limit, the
 * usual one, opens no file (it read every header, 0.3 s at 50,000). */
static int cache_stat(int dfd, const char *name, int kind, struct cfile *cf)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid())
		return 0;
	cf->kind = kind;
	cf->size = (uint64_t)st.st_size;
	cf->mtime = st.st_mtim;
	cf->dev = st.st_dev;
	cf->ino = st.st_ino;
	return 1;
}

/* Whether *@cf (cache_stat()) in @dfd is still that file and ours: opened
 * without following a link, the same inode, beginning with the magic of
 * its kind (any version: an old one is garbage to remove too). */
static int cfile_ours(int dfd, const struct cfile *cf)
{
	struct stat st;
	char magic[8];
	int fd, ok;

	fd = openat(dfd, cf->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_dev == cf->dev &&
	     st.st_ino == cf->ino &&
	     pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	     !memcmp(magic, cf->kind == 1 ? CACHE_MAGIC : CODE_MAGIC, sizeof(magic));
	close(fd);
	return ok;
}

static void clist_free(struct clist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	if (l->dfd >= 0)
		close(l->dfd);
}

/* The cache files of directory @dir into @l (l->dfd keeps it open), by
 * name and fstatat(); with @check only those whose header is ours
 * (cfile_ours()).  Returns 0, -pte_io (errno set: ENOENT if there is no
 * directory) or -pte_nomem. */
static int clist_scan(const char *dir, struct clist *l, int check)
{
	struct dirent *d;
	struct cfile cf;
	DIR *dp;
	int kind, ret = 0;

	memset(l, 0, sizeof(*l));
	l->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->dfd < 0)
		return -pte_io;
	dp = fdopendir(dup(l->dfd));
	if (!dp)
		return -pte_io;
	while (!ret && (d = readdir(dp))) {
		kind = cache_kind(d->d_name);
		if (!kind || !cache_stat(l->dfd, d->d_name, kind, &cf))
			continue;
		cf.name = d->d_name;
		if (check && !cfile_ours(l->dfd, &cf))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			struct cfile *v = realloc(l->v, cap * sizeof(*v));

			if (!v) {
				ret = -pte_nomem;
				break;
			}
			l->v = v;
			l->cap = cap;
		}
		cf.name = strdup(d->d_name);
		if (!cf.name) {
			ret = -pte_nomem;
			break;
		}
		l->v[l->n++] = cf;
		l->bytes += cf.size;
	}
	closedir(dp);
	return ret;
}

/* Least recently used first (the oldest mtime), then by name. */
static int cfile_cmp(const void *a, const void *b)
{
	const struct cfile *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Remove @cf if it is ours (cfile_ours()) and still the file judged: not
 * used since (its mtime) nor replaced by another process's save (its
 * inode).  Returns 1 if removed, 0 if kept, -1 if it is not ours (or
 * gone): its size is not the cache's. */
static int cfile_remove(int dfd, const struct cfile *cf)
{
	struct stat st;

	if (!cfile_ours(dfd, cf))
		return -1;
	if (fstatat(dfd, cf->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_dev != cf->dev || st.st_ino != cf->ino ||
	    st.st_mtim.tv_sec != cf->mtime.tv_sec || st.st_mtim.tv_nsec != cf->mtime.tv_nsec)
		return 0;
	return !unlinkat(dfd, cf->name, 0);
}

int idxcache_usage(struct idxcache_usage *u, char *dir, size_t dirlen,
		   char *err, size_t errlen)
{
	struct clist l;
	int ret;

	if (!u || !dir)
		return -pte_invalid;
	memset(u, 0, sizeof(*u));
	ret = xdg_path(XDG_CACHE, "index", dir, dirlen, err, errlen);
	if (ret < 0)
		return ret;
	ret = clist_scan(dir, &l, 1);
	if (ret == -pte_io && errno == ENOENT)
		ret = 0;	/* nothing cached yet */
	else if (ret < 0)
		snprintf(err, errlen, "%s: %s", dir, ret == -pte_io ? strerror(errno) :
			 pte_strerror(ret));
	u->bytes = l.bytes;
	u->files = l.n;
	clist_free(&l);
	return ret;
}

int idxcache_clear(struct idxcache_usage *u, char *err, size_t errlen)
{
	char dir[4096];
	struct clist l;
	size_t i;
	int ret;

	if (!u)
		return -pte_invalid;
	memset(u, 0, sizeof(*u));
	ret = xdg_path(XDG_CACHE, "index", dir, sizeof(dir), err, errlen);
	if (ret < 0)
		return ret;
	ret = clist_scan(dir, &l, 0);
	if (ret == -pte_io && errno == ENOENT) {
		clist_free(&l);
		return 0;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", dir, ret == -pte_io ? strerror(errno) :
			 pte_strerror(ret));
	for (i = 0; !ret && i < l.n; i++) {
		if (cfile_remove(l.dfd, &l.v[i]) <= 0)
			continue;
		u->files++;
		u->bytes += l.v[i].size;
	}
	clist_free(&l);
	return ret;
}

/*
 * Whether @name is kept with @saved's base name @base: every cache file
 * of the same trace, whatever the stream, code indexes too (the same
 * first 64 KiB's and timing's hashes begin the name: idxcache_pick()).
 * A perf.data's streams are saved one by one: each save removed the
 * streams saved before it, and the next run built them all again.
 * A @base not named as a cache file keeps itself and its partner only.
 */
static int cache_kept(const char *name, const char *base)
{
	size_t n = strlen(name), b = strlen(base);

	if (cache_kind(base))
		return !strncmp(name, base, 34);
	if (!strcmp(name, base))
		return 1;
	if (n == b + 5 && !strncmp(name, base, b) && !strcmp(name + b, ".code"))
		return 1;
	return b == n + 5 && !strncmp(base, name, n) && !strcmp(base + n, ".code");
}

/* What idxcache_trim() kept over the limit. */
struct trim_kept {
	uint64_t bytes;		/* the trace's files kept */
	uint64_t mine;		/* of which the file saved */
	size_t files;
};

/* The note for the files kept @k, over @max (idxcache_trim()). */
static void trim_note(const char *base, const struct trim_kept *k, uint64_t max,
		      char *note, size_t notelen)
{
	char a[32], b[32];

	if (!note || !notelen || atomic_exchange(&told, 1))
		return;
	idxcache_size_str(k->mine > max ? k->mine : k->bytes, a, sizeof(a));
	idxcache_size_str(max, b, sizeof(b));
	if (k->mine > max)
		snprintf(note, notelen, "index cache: %s (%s) alone is over the cache's "
			 "limit (%s; --cache-max, set %s): kept", base, a, b,
			 IDXCACHE_MAX_KEY);
	else
		snprintf(note, notelen, "index cache: %s and the trace's other cache "
			 "files (%s in %zu files) are over the cache's limit (%s; "
			 "--cache-max, set %s): kept", base, a, k->files, b,
			 IDXCACHE_MAX_KEY);
}

int idxcache_trim(const char *saved, char *note, size_t notelen)
{
	const char *slash = saved ? strrchr(saved, '/') : NULL;
	const char *base = slash ? slash + 1 : saved;
	struct trim_kept k = { 0, 0, 0 };
	uint64_t max;
	char dir[4096];
	struct clist l;
	size_t i;
	int ret, r, n = 0;

	if (note && notelen)
		note[0] = 0;
	if (!saved)
		return -pte_invalid;
	/* (a bad config line is the caller's to say, once: the browser
	 * says it at start-up, index before it begins; the limit stays) */
	(void)idxcache_max(&max, NULL, 0);
	if (!max)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - saved) : 1,
		 slash ? saved : ".");
	ret = clist_scan(dir, &l, 0);
	if (ret < 0 || l.bytes <= max) {
		clist_free(&l);
		return ret < 0 ? ret : 0;
	}
	qsort(l.v, l.n, sizeof(*l.v), cfile_cmp);
	for (i = 0; i < l.n && l.bytes > max; i++) {
		const struct cfile *cf = &l.v[i];

		if (cache_kept(cf->name, base)) {
			if (!cfile_ours(l.dfd, cf)) {
				l.bytes -= cf->size;	/* not the cache's */
				continue;
			}
			k.bytes += cf->size;
			k.files++;
			k.mine += strcmp(cf->name, base) ? 0 : cf->size;
			continue;
		}
		r = cfile_remove(l.dfd, cf);
		if (r)
			l.bytes -= cf->size;
		n += r > 0;
	}
	if (l.bytes > max && k.bytes > max)
		trim_note(base, &k, max, note, notelen);
	clist_free(&l);
	return n;
}

/* marks_sync -- a marks set and its file on disk: the first load, saves
 * under a lock, the three-way merge with another process's save, files
 * set aside, a trace that changed or grew (marks_int.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "esc.h"
#include "identity.h"
#include "marks_int.h"
#include "ptdec.h"
#include "trace.h"
#include "xdg.h"

static int marks_sync(struct marks_set *set);
static int marks_save_locked(struct marks_set *set, int was_dirty);
static int marks_synced(struct marks_set *set, const struct stat *st);

/*
 * Saving.
 */


/*
 * Saves of two processes are serialised by an advisory lock (flock) on
 * <file>.lock, held from reading what the other saved through the rename
 * of ours: without it both read the same file, each writes its own merge
 * and the later rename drops the other's change, which the next three-way
 * merge then takes for a deletion.  The lock file is never removed (that
 * would let two processes lock two different files); a dead holder's lock
 * goes with its process.
 */

/* Lock @set's lock file, waiting at most @wait_ms.  Returns the locked
 * descriptor; -1 if another process holds the lock that long; -2 if there
 * is no lock to take (no lock file can be made, or flock is not supported):
 * the save goes ahead unlocked and says why if writing fails too. */
static int marks_lock(const struct marks_set *set, int wait_ms)
{
	char lock[PATH_MAX + 8], dir[PATH_MAX], err[PATH_MAX + 128];
	struct timespec ts = { 0, 0 };
	int fd, waited = 0, step = 1;

	snprintf(lock, sizeof(lock), "%s.lock", set->file);
	marks_dirname(set->file, dir, sizeof(dir));
	if (xdg_mkdir_p(dir, 0700, err, sizeof(err)) < 0)
		return -2;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return -2;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited >= wait_ms) {
			int busy = errno == EWOULDBLOCK;

			close(fd);
			return busy ? -1 : -2;
		}
		ts.tv_nsec = (long)step * 1000000L;
		nanosleep(&ts, NULL);
		waited += step;
		if (step < 16)
			step *= 2;
	}
	return fd;
}

static void marks_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

/* marks_save(), waiting at most @wait_ms for another process's save. */
static int marks_save_wait(struct marks_set *set, int wait_ms)
{
	int was_dirty, lock, ret;

	if (!set)
		return -pte_invalid;
	if (!set->saving)
		return 0;
	was_dirty = set->dirty;
	set->warn[0] = '\0';
	lock = marks_lock(set, wait_ms);
	if (lock == -1) {
		set->dirty = 1;
		if (!set->busy)
			marks_report(set, "marks not saved yet: another ptbrowse is saving "
				  "%s; kept in memory, saving again shortly", set->file);
		set->busy = 1;
		return -pte_io;
	}
	set->busy = 0;
	ret = marks_save_locked(set, was_dirty);
	marks_unlock(lock);
	return ret;
}

/* The rest of a save, with the lock held (if there is one). */
static int marks_save_locked(struct marks_set *set, int was_dirty)
{
	char err[2 * PATH_MAX + 64];

	/* Another ptbrowse may have saved the same trace's marks meanwhile. */
	if (marks_sync(set) < 0)
		return -pte_io;
	if (marks_write(set, set->file, &(struct safefile_opts){
		     .flags = SAFEFILE_NOFOLLOW, .mode = 0600 }, err, sizeof(err)) < 0) {
		/* A command's set is not saved again at its close: the
		 * failure was said, and its caller fails. */
		set->dirty = !set->one_shot;
		snprintf(set->why, sizeof(set->why), "%s", err);
		marks_report(set, "marks not saved: %s%s", err,
			     set->one_shot || set->final ? "" :
			     "; they are kept in memory and saving is retried "
			     "on the next change");
		return -pte_io;
	}
	set->dirty = 0;
	if (was_dirty)
		marks_report(set, "marks saved to %s", set->file);
	/* Without a base the next save merges needlessly, harmlessly. */
	marks_synced(set, NULL);
	return 0;
}

int marks_save(struct marks_set *set)
{
	/* Once another process kept us waiting, only try: the browser
	 * retries when idle and must not stall a key on every try. */
	return marks_save_wait(set, set && set->busy ? 0 : BM_LOCK_WAIT_MS);
}

int marks_pending(const struct marks_set *set)
{
	return set && set->saving && set->busy;
}

int marks_flush(struct marks_set *set)
{
	int ret;

	if (!set || !set->saving || !set->dirty)
		return 0;
	ret = marks_save_wait(set, BM_LOCK_CLOSE_MS);
	if (ret < 0 && set->busy) {
		snprintf(set->why, sizeof(set->why), "another ptbrowse kept %s "
			 "locked for %d s", set->file, BM_LOCK_CLOSE_MS / 1000);
		marks_report(set, "marks not saved: %s%s", set->why, set->final ? "" :
			     "; kept in memory, saving again later");
	}
	return ret;
}

/* Write @set's entries in the marks file format to a new file in $TMPDIR
 * (never over one that is there: SAFEFILE_NEW), named in @name.  Returns
 * 0, or -1. */
static int marks_fallback(const struct marks_set *set, char *name, size_t size)
{
	const struct safefile_opts so = { SAFEFILE_NEW | SAFEFILE_NOFOLLOW, 0600,
					  NULL, 0, NULL, NULL };
	const char *dir = getenv("TMPDIR");
	struct safefile *sf;
	char err[256];
	FILE *f;
	int i;

	if (!dir || !*dir)
		dir = "/tmp";
	for (i = 0; i < 100; i++) {
		snprintf(name, size, "%s/ptbrowse-unsaved-%ld-%d.marks", dir,
			 (long)getpid(), i);
		if (!access(name, F_OK) || errno != ENOENT)
			continue;	/* there: another name */
		if (safefile_create(&sf, name, &so, err, sizeof(err)) < 0)
			return -1;
		f = safefile_stream(sf);
		if (!f || marks_export(set, f) < 0) {
			safefile_abort(sf);
			return -1;
		}
		if (!safefile_commit(sf, err, sizeof(err)))
			return 0;
		if (errno != EEXIST)
			return -1;	/* (made meanwhile: the next name) */
	}
	return -1;
}

int marks_flush_final(struct marks_set *set, FILE *err, const char *prefix)
{
	char fb[PATH_MAX + 64], stream[64] = "", for_stream[64] = "";

	if (!set)
		return 0;
	set->final = 1;
	if ((marks_flush(set) == 0 || !set->saving) && !set->lost)
		return 0;
	if (set->stream[0]) {
		snprintf(stream, sizeof(stream), " --stream %s", set->stream);
		snprintf(for_stream, sizeof(for_stream), " (stream %s)", set->stream);
	}
	esc_line(err, prefix, "marks not saved: %s", set->why[0] ? set->why :
		 "saving was off");
	if (marks_fallback(set, fb, sizeof(fb)) == 0)
		esc_line(err, prefix, "as ptbrowse has ended, all %zu marks of %s%s "
			 "were written to %s instead; 'ptbrowse marks --import %s%s "
			 "%s' takes them back", set->n, set->path, for_stream, fb,
			 fb, stream, set->path);
	else {
		esc_line(err, prefix, "as ptbrowse has ended (and %s could not be "
			 "written either: %s), all %zu marks of %s%s follow in the marks "
			 "file format:", fb, strerror(errno), set->n, set->path, for_stream);
		marks_export(set, err);
	}
	/* Said: marks_close() does not try (and wait) again. */
	set->dirty = set->lost = 0;
	return -pte_io;
}

/*
 * Broken files, changed traces, leftovers.
 */

/* Move the unparsable @file aside to .bad, .bad.1, ... without ever
 * replacing an existing file; the caller holds the lock (marks_lock()),
 * so no save of another process comes between.  Returns 0 and the new
 * name in @bad. */
static int marks_move_aside(const char *file, char *bad, size_t size)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (i)
			snprintf(bad, size, "%s.bad.%d", file, i);
		else
			snprintf(bad, size, "%s.bad", file);
		/* Never over a file there: RENAME_NOREPLACE, or where the
		 * filesystem lacks it, link() (which refuses to replace). */
		if (!renameat2(AT_FDCWD, file, AT_FDCWD, bad, RENAME_NOREPLACE))
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno != EINVAL && errno != ENOSYS)
			return -pte_io;
		if (!link(file, bad)) {
			unlink(file);
			return 0;
		}
		if (errno == EEXIST)
			continue;
		if (access(bad, F_OK) == 0)
			continue;
		/* Filesystems without hard links: check, then rename. */
		if (!rename(file, bad))
			return 0;
		return -pte_io;
	}
	errno = EEXIST;
	return -pte_io;
}

/* The stream of trace @t that was numbered first when the file was
 * @size bytes: the first with bytes in them (a perf.data numbers its
 * streams in an order of their own, not by where they lie).  NULL if
 * none. */
static const char *marks_first_stream_then(const struct trace *t, uint64_t size)
{
	size_t i, j;

	for (i = 0; i < t->nstreams; i++)
		for (j = 0; j < t->streams[i].img.nspans; j++)
			if (t->streams[i].img.spans[j].file_off < size)
				return t->streams[i].name;
	return NULL;
}

/* Whether marks file @name, whose trace line says @pk, holds the marks of
 * @set's stream (@grew: trace @t only grew since the file was saved).
 * Returns 1 if it does, 0 if another stream's, -1 if that cannot be told
 * (a perf.data's nameless file saved before the streams' files were all
 * named, for content that is not there now). */
static int marks_file_ours(const struct marks_set *set, const struct trace *t,
			   const char *name, const struct marks_peek *pk, int grew)
{
	const char *at = strchr(name, '@'), *first;
	size_t len;

	if (pk->stream[0])
		return !strcmp(pk->stream, set->stream);
	if (at) {
		len = strlen(set->stream);
		return len && !strncmp(at + 1, set->stream, len) &&
		       !strcmp(at + 1 + len, ".marks");
	}
	if (!set->stream[0])
		return 1;		/* a raw trace's, and this is one */
	/* The first stream's then: the streams may be numbered anew since. */
	if (!t || !grew)
		return -1;
	first = marks_first_stream_then(t, pk->size);
	return first ? !strcmp(first, set->stream) : -1;
}

/* Whether trace @t's first @size bytes have the identity @hex: the trace
 * only grew since then, so offsets below @size still mean the same. */
static int marks_grew_from(const struct trace *t, uint64_t size, const char *hex)
{
	struct identity old, now;

	return !identity_parse(&old, hex) && old.size == size &&
	       !identity_of_prefix(&now, t, size) && identity_same(&old, &now);
}

/* Whether @file was modified after @set's own file was last read or
 * written (@set has none: always). */
static int marks_newer(const struct marks_set *set, const char *file)
{
	struct stat st;

	if (stat(file, &st) < 0)
		return 0;
	if (!set->disk.present)
		return 1;
	return st.st_mtim.tv_sec > set->disk.mtime.tv_sec ||
	       (st.st_mtim.tv_sec == set->disk.mtime.tv_sec &&
		st.st_mtim.tv_nsec > set->disk.mtime.tv_nsec);
}

/* Merge into @set the marks of @file, another file of the same marks
 * saved after @set's own (@why says by whom): identical entries are the
 * same, one of the same name elsewhere stays @set's (said), one past the
 * end is named and not kept.  @file is never written.  @set is saved even
 * if nothing was added: its file is then newer than @file, and the next
 * open neither merges nor says it again. */
static void marks_merge_newer(struct marks_set *set, const char *file, const char *why)
{
	struct marks_parse ps = { .fname = file };
	FILE *f = marks_fopen(file);

	if (!f)
		return;
	marks_read(set, f, &ps);
	fclose(f);
	free(ps.trace_path);
	marks_sort(set);
	if (ps.changed)
		marks_report(set, "%s: its marks (%s) merged in: %d added; that file "
			  "is left as it is", file, why, ps.added);
	marks_save(set);
}

void marks_legacy_merge(struct marks_set *set, const struct trace *t)
{
	char dir[PATH_MAX], *file;
	struct marks_peek pk;
	size_t len = strlen(set->file);

	/* Only the first stream's named file: ID.marks itself is read as it. */
	if (!t->nstreams || strcmp(t->streams[0].name, set->stream) || len < 7 ||
	    strcmp(set->file + len - 6, ".marks") || !strchr(set->file, '@'))
		return;
	marks_dirname(set->file, dir, sizeof(dir));
	if (asprintf(&file, "%s/%s.marks", dir, set->id) < 0)
		return;
	if (marks_peek(file, &pk) == 0 && (!pk.stream[0] || !strcmp(pk.stream, set->stream)) &&
	    (!pk.id[0] || !strcmp(pk.id, set->id)) && marks_newer(set, file))
		marks_merge_newer(set, file, "saved for this stream by a ptbrowse "
				  "that names no stream's file for the first");
	free(pk.path);
	free(file);
}

void marks_legacy_file(struct marks_set *set, const struct trace *t)
{
	char dir[PATH_MAX], *file;
	struct marks_peek pk;
	struct stat st;

	if (!t->nstreams || strcmp(t->streams[0].name, set->stream) ||
	    !stat(set->file, &st) || errno != ENOENT)
		return;
	marks_dirname(set->file, dir, sizeof(dir));
	if (asprintf(&file, "%s/%s.marks", dir, set->id) < 0)
		return;
	/* The same identity numbers the streams the same: its first was
	 * this one, unless the file says otherwise.  (A file that cannot be
	 * read is taken too: loading it says why.) */
	marks_peek(file, &pk);
	if (!access(file, F_OK) && (!pk.stream[0] || !strcmp(pk.stream, set->stream)) &&
	    (!pk.id[0] || !strcmp(pk.id, set->id))) {
		free(set->file);
		set->file = file;
		file = NULL;
	}
	free(pk.path);
	free(file);
}

/* A shorter state's marks file marks_check_changed() found. */
struct marks_shorter {
	char file[PATH_MAX + 256];
	char id[80];
	uint64_t size;
	int newer;		/* saved after our file */
};

/* Take the shorter state's file @sh as our file: the trace grew since it
 * was saved (a recording; R, or a start after it grew), and every state
 * of it shares that file, its entries past one state's end kept for the
 * longer ones (set->beyond): two sessions on two states then merge their
 * changes as on one file, deletions too.  Returns 1 if the file must be
 * saved (the growth is said once for each size: the file remembers the
 * largest), else 0. */
static int marks_adopt(struct marks_set *set, const struct marks_shorter *sh)
{
	char *file = strdup(sh->file);
	uint64_t now = set->size;

	if (!file)
		return 0;
	free(set->file);
	set->file = file;
	strcpy(set->id, sh->id);
	set->size = sh->size;
	marks_load(set);
	if (now <= set->grown)
		return 0;
	set->grown = now;
	if (!set->n && !set->nbeyond)
		return 0;
	marks_report(set, "%s grew since its marks were saved (then %" PRIu64
		  " bytes, now %" PRIu64 "); they still apply", set->path,
		  sh->size, now);
	return 1;
}

/* Add marks file @file, whose trace line says @pk, to the @n files of
 * shorter states in *@v.  Returns 0, or -1 if out of memory. */
static int marks_shorter_add(struct marks_shorter **v, size_t *n, const char *file,
			     const struct marks_peek *pk)
{
	struct marks_shorter *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	*v = nv;
	memset(&nv[*n], 0, sizeof(nv[*n]));
	snprintf(nv[*n].file, sizeof(nv[*n].file), "%s", file);
	snprintf(nv[*n].id, sizeof(nv[*n].id), "%s", pk->id);
	nv[*n].size = pk->size;
	(*n)++;
	return 0;
}

static int marks_shorter_cmp(const void *pa, const void *pb)
{
	const struct marks_shorter *a = pa, *b = pb;

	return a->size < b->size ? 1 : a->size > b->size ? -1 : strcmp(a->file, b->file);
}

/*
 * A trace that grew keeps its marks in the file of the identity it had
 * (marks_adopt()), which names its path; moved or copied, only its
 * content can find that file again.  Of the files @mv of other paths
 * that a grown state shared (grown=), the largest whose identity is that
 * of trace @t's first bytes is taken (hashing costs a few MiB of reads
 * each: at most BM_MERGE_FILES are looked at, the largest first).
 * Returns its index in @mv, or -1.
 */
static long marks_moved_find(struct marks_shorter *mv, size_t nmv, const struct trace *t)
{
	size_t i;

	qsort(mv, nmv, sizeof(*mv), marks_shorter_cmp);
	for (i = 0; i < nmv && i < BM_MERGE_FILES; i++)
		if (marks_grew_from(t, mv[i].size, mv[i].id))
			return (long)i;
	return -1;
}

/* Marks files in our directory saved for the same path under another
 * identity: the file at that path changed since.  If trace @t (may be
 * NULL) only grew, take the largest such file of this stream as ours
 * when we have none (or, if there is none, such a file of a grown state
 * of this content under another path: it moved), and merge the others
 * saved after ours; else warn. */
void marks_check_changed(struct marks_set *set, const struct trace *t)
{
	char dir[PATH_MAX], file[PATH_MAX + 256];
	char warn[PATH_MAX + 256] = "";
	struct marks_shorter *sh = NULL, *mv = NULL;
	uint64_t warn_size = 0;
	size_t nsh = 0, nmv = 0, i, big = 0, left = 0;
	int save = 0, only_grew, ours, same;
	struct marks_peek pk;
	const char *base;
	struct dirent *d;
	long moved;
	DIR *dp;

	marks_dirname(set->file, dir, sizeof(dir));
	base = strrchr(set->file, '/');
	base = base ? base + 1 : set->file;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);

		if (len < 7 || strcmp(d->d_name + len - 6, ".marks") ||
		    !strcmp(d->d_name, base))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, d->d_name);
		/* Other streams of the same trace share its id. */
		if (marks_peek(file, &pk) < 0 || !pk.id[0] || !strcmp(pk.id, set->id)) {
			free(pk.path);
			continue;
		}
		same = !strcmp(pk.path, set->path);
		free(pk.path);
		if (!same) {
			/* (the content is compared only if nothing else is found) */
			if (t && pk.grown && pk.size < set->size &&
			    marks_file_ours(set, t, d->d_name, &pk, 1) > 0)
				marks_shorter_add(&mv, &nmv, file, &pk);
			continue;
		}
		only_grew = t && pk.size < set->size && marks_grew_from(t, pk.size, pk.id);
		ours = marks_file_ours(set, t, d->d_name, &pk, only_grew);
		if (ours == 0)
			continue;	/* another stream's: said when it is shown */
		if (only_grew && ours > 0) {
			/* An earlier, shorter state of this trace. */
			if (nsh == BM_MERGE_FILES) {
				left++;
				continue;
			}
			if (marks_shorter_add(&sh, &nsh, file, &pk) < 0)
				continue;
			sh[nsh - 1].newer = set->disk.present && marks_newer(set, file);
			if (pk.size > sh[big].size)
				big = nsh - 1;
		} else if (!warn[0]) {
			snprintf(warn, sizeof(warn), "%s", file);
			warn_size = pk.size;
		}
	}
	closedir(dp);
	if (!nsh && nmv && !set->n && !set->disk.present &&
	    (moved = marks_moved_find(mv, nmv, t)) >= 0)
		save = marks_adopt(set, &mv[moved]);
	free(mv);
	if (nsh && !set->n && !set->disk.present) {
		save = marks_adopt(set, &sh[big]);
		/* The others, all: files two sessions began each before the
		 * other saved, in whichever order they were saved. */
		for (i = 0; i < nsh; i++)
			sh[i].newer = i != big;
	}
	/* Saved after ours: a session still on a shorter state (it shrank
	 * and came back, or has its own file from before they shared one). */
	for (i = 0; i < nsh; i++) {
		char why[96];

		if (!sh[i].newer)
			continue;
		snprintf(why, sizeof(why), "saved for it when it had %" PRIu64 " bytes",
			 sh[i].size);
		marks_merge_newer(set, sh[i].file, why);
		save = 0;	/* (it saved) */
	}
	if (save)
		marks_save(set);
	free(sh);
	if (left)
		marks_report(set, "%zu more marks files of shorter states of %s not "
			  "looked at (at most %d)", left, set->path, BM_MERGE_FILES);
	if (warn[0])
		marks_report(set, "warning: %s changed since marks were saved for it "
			  "(then %" PRIu64 " bytes, now %" PRIu64 "); those marks "
			  "stay in %s and are not applied", set->path, warn_size,
			  set->size, warn);
}

/* Remove temporary files left by saves of processes that died. */
void marks_clean_tmp(struct marks_set *set)
{
	char dir[PATH_MAX];
	const char *base;

	marks_dirname(set->file, dir, sizeof(dir));
	base = strrchr(set->file, '/');
	base = base ? base + 1 : set->file;
	(void)safefile_clean_dead(dir, base, NULL);
}

/*
 * Two ptbrowse processes on one trace each rewrite the whole file, so a
 * save first merges what the other one saved since our last load or
 * save: a three-way merge against the entries as they were then (base),
 * so additions, moves and deletions on either side survive.  On a clash
 * ours wins and the other version is reported.
 */

/* The identity of @file now, or of @st (the file as it was read). */
static void marks_disk_stat(const char *file, const struct stat *stp,
			 struct marks_disk *d)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (stp)
		st = *stp;
	else if (stat(file, &st))
		return;
	d->present = 1;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->size = st.st_size;
	d->mtime = st.st_mtim;
}

static int marks_disk_same(const struct marks_disk *a, const struct marks_disk *b)
{
	if (a->present != b->present)
		return 0;
	return !a->present ||
	       (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime.tv_sec == b->mtime.tv_sec &&
		a->mtime.tv_nsec == b->mtime.tv_nsec);
}

/* Record the file (@st: as it was read; NULL: as it is now) and the
 * entries as they are now, those kept past the end too (marks_grow()
 * takes them in as they were then): our base. */
static int marks_synced(struct marks_set *set, const struct stat *st)
{
	struct marks_entry *v = NULL;
	size_t i, n = set->n + set->nbeyond;

	marks_disk_stat(set->file, st, &set->disk);
	if (n) {
		v = calloc(n, sizeof(*v));
		if (!v)
			goto out_nomem;
		for (i = 0; i < n; i++) {
			const struct marks_entry *e = i < set->n ? &set->v[i] :
					&set->beyond[i - set->n];

			v[i] = *e;
			if (marks_dup_note(e->note, &v[i].note) < 0) {
				marks_entries_free(v, i);
				goto out_nomem;
			}
		}
	}
	marks_entries_free(set->base, set->nbase);
	set->base = v;
	set->nbase = n;
	return 0;
out_nomem:
	/* No base: a later merge treats everything on disk as added. */
	marks_entries_free(set->base, set->nbase);
	set->base = NULL;
	set->nbase = 0;
	return -pte_nomem;
}

/* Whether @a and @b are the same mark, bookmark or region (by name, or
 * by offset for anonymous bookmarks). */
static int marks_same_key(const struct marks_entry *a, const struct marks_entry *b)
{
	if (a->kind != b->kind || strcmp(a->name, b->name))
		return 0;
	return a->name[0] || a->from == b->from;
}

static int marks_same_value(const struct marks_entry *a, const struct marks_entry *b)
{
	return a->from == b->from && a->to == b->to &&
	       !strcmp(a->color, b->color) &&
	       !strcmp(a->note ? a->note : "", b->note ? b->note : "");
}

static long marks_lookup(const struct marks_entry *v, size_t n, const struct marks_entry *e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (marks_same_key(&v[i], e))
			return (long)i;
	return -1;
}

/* Merge @theirs (the file now) into the set, against the base; with
 * @deleted, what is in the base and not in @theirs was deleted there
 * (not if the file had bad lines: one may be an entry mistyped). */
static void marks_merge3(struct marks_set *set, const struct marks_entry *theirs,
			 size_t nt, int deleted)
{
	const struct marks_entry *t, *b;
	long ib, io;
	size_t i;

	for (i = 0; i < nt; i++) {
		t = &theirs[i];
		ib = marks_lookup(set->base, set->nbase, t);
		io = marks_lookup(set->v, set->n, t);
		b = ib >= 0 ? &set->base[ib] : NULL;
		if (b && marks_same_value(b, t))
			continue;		/* they did not change it */
		/* The base holds the marks past our end too: one we still
		 * keep there was never shown here, so not deleted here; the
		 * longer state moved it into our part (marks_merge_beyond()
		 * then drops it from beyond: their file no longer has it
		 * there). */
		if (io < 0 && b && marks_lookup(set->beyond, set->nbeyond, b) < 0)
			continue;		/* we deleted it */
		if (io < 0) {
			/* They added it; a name we gave to another kind wins. */
			if (t->name[0] && marks_find(set, t->name) >= 0)
				marks_report(set, "%s: another ptbrowse saved %s %s; "
					  "the name is taken here, kept ours",
					  set->file, marks_kind_name(t->kind), t->name);
			else if (marks_append(set, t) < 0)
				marks_report(set, "%s: another ptbrowse saved %s %s; "
					  "no room for it", set->file,
					  marks_kind_name(t->kind), t->name);
			continue;
		}
		if (b && marks_same_value(b, &set->v[io])) {
			/* Only they changed it. */
			if (!marks_replace_note(&set->v[io], t->note)) {
				set->v[io].from = t->from;
				set->v[io].to = t->to;
				strcpy(set->v[io].color, t->color);
			}
		} else if (!marks_same_value(t, &set->v[io])) {
			marks_report(set, "%s: another ptbrowse changed %s %s too; "
				  "kept this one's", set->file,
				  marks_kind_name(t->kind), t->name[0] ? t->name : "-");
		}
	}
	/* What they deleted and we left alone goes. */
	for (i = 0; deleted && i < set->nbase; i++) {
		b = &set->base[i];
		if (marks_lookup(theirs, nt, b) >= 0)
			continue;
		io = marks_lookup(set->v, set->n, b);
		if (io >= 0 && marks_same_value(b, &set->v[io]))
			marks_remove(set, (size_t)io);
	}
	marks_sort(set);
}

/* The longer states' marks, past our end: as @theirs (the file now) has
 * them, but for those we took in or moved here since our last sync (in
 * the base as they are there, kept no more), and those whose name we gave
 * one here meanwhile (ours wins, as in marks_merge3(); another kind's
 * loss is said). */
static void marks_merge_beyond(struct marks_set *set, struct marks_set *theirs)
{
	size_t i, k = 0;

	for (i = 0; i < theirs->nbeyond; i++) {
		struct marks_entry *t = &theirs->beyond[i];
		long ib = marks_lookup(set->base, set->nbase, t);
		long io = t->name[0] ? marks_find(set, t->name) : -1;

		if (ib >= 0 && marks_same_value(&set->base[ib], t) &&
		    marks_lookup(set->beyond, set->nbeyond, t) < 0)
			io = -2;	/* taken in or moved here */
		if (io >= 0 && set->v[io].kind != t->kind)
			marks_report(set, "%s: %s %s past the end of this state of the "
				  "trace (another session's) gave its name to the %s "
				  "here", set->file, marks_kind_name(t->kind), t->name,
				  marks_kind_name(set->v[io].kind));
		if (io != -1) {
			free(t->note);
			continue;
		}
		theirs->beyond[k++] = *t;
	}
	marks_entries_free(set->beyond, set->nbeyond);
	set->beyond = theirs->beyond;
	set->nbeyond = k;
	theirs->beyond = NULL;
	theirs->nbeyond = 0;
}

/* Take the comments of the file read into @theirs: with @all, as they are
 * there (only hand edits change them: the file has the latest), else
 * those of entries that have none here. */
static void marks_comments_take(struct marks_set *set, struct marks_set *theirs, int all)
{
	size_t i;

	if (!all) {
		for (i = 0; i < theirs->ncm; i++) {
			struct marks_entry key = { .kind = theirs->cm[i].kind,
						   .from = theirs->cm[i].from };

			strcpy(key.name, theirs->cm[i].name);
			marks_comment_add(set, &key, theirs->cm[i].before,
					  theirs->cm[i].after);
		}
		return;
	}
	marks_comments_clear(set);
	set->cm = theirs->cm;
	set->ncm = theirs->ncm;
	set->cm_head = theirs->cm_head;
	set->cm_trace = theirs->cm_trace;
	set->cm_tail = theirs->cm_tail;
	theirs->cm = NULL;
	theirs->ncm = 0;
	theirs->cm_head = theirs->cm_trace = theirs->cm_tail = NULL;
}

/* The file @ps read into @theirs changed since our last sync and has bad
 * lines (@parsed: else it is no marks file at all): move it aside and,
 * if @parsed, merge its good entries (no deletions: a bad line may be an
 * entry mistyped).  The one message says both and stays for the caller
 * (marks_warning()): the change's own message would hide it. */
static void marks_sync_broken(struct marks_set *set, struct marks_set *theirs,
			      const struct marks_parse *ps, int parsed)
{
	char bad[PATH_MAX + 32], what[96];
	size_t before = set->n;

	if (marks_move_aside(set->file, bad, sizeof(bad)) < 0) {
		snprintf(set->warn, sizeof(set->warn), "%s has bad lines and cannot "
			 "be moved aside: %s", set->file, strerror(errno));
		marks_report(set, "%s", set->warn);
		return;
	}
	if (parsed) {
		marks_merge3(set, theirs->v, theirs->n, 0);
		marks_comments_take(set, theirs, 0);
	}
	if (ps->errors)
		snprintf(what, sizeof(what), "line %lu bad%s", ps->first_error,
			 ps->errors > 1 ? " (and more, said above)" : "");
	else
		snprintf(what, sizeof(what), "%s", ps->full ? "too many marks" :
			 parsed ? "names used twice" : "not a marks file");
	snprintf(set->warn, sizeof(set->warn), "%s: %s; the file is kept as %s%s",
		 set->file, what, bad, parsed ? ", its other lines merged" : "");
	if (parsed && set->n > before)
		snprintf(set->warn + strlen(set->warn), sizeof(set->warn) -
			 strlen(set->warn), " (%zu added)", set->n - before);
	marks_report(set, "%s", set->warn);
}

/* If the file changed since we last read or wrote it, merge it in.
 * Returns 0 (also when a broken file was moved aside), or -pte_io if it
 * must not be overwritten (a newer version; saving is then off). */
static int marks_sync(struct marks_set *set)
{
	struct marks_set theirs = { .file = set->file, .size = set->size,
				 .end = set->end,
				 .report = set->report,
				 .report_ctx = set->report_ctx };
	struct marks_parse ps = { .fname = set->file, .keep_beyond = 1 };
	struct marks_disk now;
	FILE *f;
	int ret;

	marks_disk_stat(set->file, NULL, &now);
	if (marks_disk_same(&now, &set->disk) || !now.present)
		return 0;
	f = marks_fopen(set->file);
	if (!f)
		return 0;
	ret = marks_read(&theirs, f, &ps);
	fclose(f);
	if (ps.version > BM_VERSION) {
		marks_saving_off(set, "a newer ptbrowse wrote %s", set->file);
		marks_report(set, "%s: a newer ptbrowse wrote it; marks are no longer "
			  "saved", set->file);
		ret = -pte_io;
		goto out_free;
	}
	if (ret < 0 || ps.errors || ps.conflicts || ps.full) {
		/* Someone broke it meanwhile (a hand edit): keep it for them,
		 * take in its good lines as marks_load() does, write ours. */
		marks_sync_broken(set, &theirs, &ps, ret == 0);
		ret = 0;
		goto out_free;
	}
	marks_merge3(set, theirs.v, theirs.n, 1);
	if (ps.trace_grown > set->grown)
		set->grown = ps.trace_grown;
	marks_merge_beyond(set, &theirs);
	marks_comments_take(set, &theirs, 1);
	ret = 0;
out_free:
	marks_comments_clear(&theirs);
	free(ps.trace_path);
	marks_entries_free(theirs.v, theirs.n);
	marks_entries_free(theirs.beyond, theirs.nbeyond);
	return ret;
}

/*
 * Loading.
 */

/*
 * Move the broken file we loaded (@st: as read; NULL: unknown) aside and
 * write its good lines (@added loaded) back at once, so nothing depends
 * on .bad: both under the lock, so that another process's save cannot
 * put a fresh file in place between (it would be taken for the broken
 * one and lost).  Busy: the next save, which the browser retries, moves
 * it aside (the file is not our base).  Replaced meanwhile by another's
 * save: that one is merged, not moved.
 */
static void marks_load_aside(struct marks_set *set, const struct stat *st, int added)
{
	char bad[PATH_MAX + 32];
	struct marks_disk was, now;
	int lock = marks_lock(set, BM_LOCK_WAIT_MS);

	if (lock == -1) {
		set->dirty = set->busy = 1;
		marks_report(set, "%s: bad lines; another ptbrowse is saving it: moved "
			  "aside and %d marks loaded from it written back shortly",
			  set->file, added);
		return;
	}
	marks_disk_stat(set->file, st, &was);
	marks_disk_stat(set->file, NULL, &now);
	if (!marks_disk_same(&was, &now)) {
		marks_save_locked(set, 0);
	} else if (marks_move_aside(set->file, bad, sizeof(bad)) < 0) {
		int e = errno;

		marks_report(set, "cannot move %s aside: %s; marks will not be saved",
			  set->file, strerror(e));
		marks_saving_off(set, "cannot move %s aside: %s", set->file, strerror(e));
	} else {
		marks_report(set, "%s: kept as %s; loaded %d marks from it",
			  set->file, bad, added);
		if (set->n)
			marks_save_locked(set, 0);
	}
	marks_unlock(lock);
}

/* Load our marks file if it exists. */
int marks_load(struct marks_set *set)
{
	struct marks_parse ps = { .fname = set->file, .keep_beyond = 2 };
	struct stat st;
	int ret, have_st;
	size_t i;
	FILE *f;

	/* Saves never write through a link (SAFEFILE_NOFOLLOW: the state
	 * directory's names are ours); said once here rather than failing
	 * at every change.  Changes made are written elsewhere at the end
	 * (marks_flush_final()). */
	if (set->saving && !lstat(set->file, &st) && S_ISLNK(st.st_mode)) {
		/* (a one-shot command, marks --import, has no end to write
		 * them at: it fails, said by its own message) */
		if (!set->one_shot)
			marks_report(set, "%s is a symbolic link: its marks are read, but "
				     "ptbrowse does not write through links, so changes are "
				     "not saved to it (they are written to a new file named "
				     "when ptbrowse ends)", set->file);
		marks_saving_off(set, "%s is a symbolic link; not writing through it",
				 set->file);
	}
	f = marks_fopen(set->file);
	if (!f) {
		/* ENOTDIR: a file is in the way of the directory; saving will say so. */
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		marks_report(set, "cannot read %s: %s; marks will not be saved",
			  set->file, strerror(errno));
		marks_saving_off(set, "cannot read %s: %s", set->file, strerror(errno));
		return 0;
	}
	/* The base is the file we read: another process may rename a newer
	 * one into place before we could stat the name. */
	have_st = !fstat(fileno(f), &st);
	ret = marks_read(set, f, &ps);
	fclose(f);
	marks_sort(set);
	if (ps.trace_grown > set->grown)
		set->grown = ps.trace_grown;
	if (ps.beyond > BM_ERRORS_SHOWN)
		marks_report(set, "%s: %d more marks past the end kept in the file",
			  set->file, ps.beyond - BM_ERRORS_SHOWN);
	if (ret == -pte_nomem)
		goto out_free;
	if (ret == -pte_io) {
		marks_report(set, "%s: marks will not be saved", set->file);
		marks_saving_off(set, "%s could not be read", set->file);
		ret = 0;
		goto out_free;
	}
	if (ps.version > BM_VERSION) {
		marks_saving_off(set, "%s is of a newer version", set->file);
		ret = 0;
		goto out_free;
	}
	if (ps.has_trace && ps.trace_size && ps.trace_size != set->size) {
		marks_report(set, "warning: %s was saved for a trace of %" PRIu64
			  " bytes, this one has %" PRIu64 "; its marks are not "
			  "applied and not overwritten", set->file, ps.trace_size,
			  set->size);
		for (i = 0; i < set->n; i++)
			free(set->v[i].note);
		set->n = 0;
		marks_entries_free(set->beyond, set->nbeyond);
		set->beyond = NULL;
		set->nbeyond = 0;
		marks_saving_off(set, "%s was saved for a trace of another size",
				 set->file);
		ret = 0;
		goto out_free;
	}
	if (ret < 0 || ps.errors || ps.conflicts || ps.full) {
		if (ps.errors > BM_ERRORS_SHOWN)
			marks_report(set, "%s: %d more bad lines", set->file,
				  ps.errors - BM_ERRORS_SHOWN);
		ret = 0;
		if (!set->saving) {
			marks_report(set, "%s: fix the lines above; loaded %d marks",
				  set->file, ps.added);
			goto out_free;
		}
		marks_load_aside(set, have_st ? &st : NULL, ps.added);
		goto out_free;
	}
	if (marks_synced(set, have_st ? &st : NULL) < 0) {
		ret = -pte_nomem;
		goto out_free;
	}
	if (set->saving && ps.trace_path && strcmp(ps.trace_path, set->path))
		marks_save(set);	/* record the path it was opened as */
out_free:
	free(ps.trace_path);
	return ret;
}

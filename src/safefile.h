/*
 * safefile -- the one way ptbrowse writes a file, and reads one it did not
 * ask the user for (config, history, keymaps, marks, the index cache).
 *
 * Every output (export, extract, marks export, :save-screen, the history,
 * the index cache, the marks file, the tools' -o) goes through
 * safefile_create() and safefile_commit():
 *
 *   - an empty name is refused; "-" is standard output where the caller
 *     allows it (SAFEFILE_STDOUT), else refused;
 *   - an existing target that is not a regular file (a FIFO, a device, a
 *     directory) is refused, and so is any file the caller protects (the
 *     input trace: same device and inode, so through symbolic and hard
 *     links too), and an existing file that does not start as the caller
 *     says its own files do (a marks export never replaces a trace);
 *   - a symbolic link named by the user is followed to its file, which is
 *     replaced (the link stays); a dangling one is refused.  Names
 *     ptbrowse makes up itself inside a directory (SAFEFILE_NOFOLLOW:
 *     extract's outputs, the state files) are never followed: a link there
 *     is refused, so the file it points to is never written;
 *   - the bytes go to a new temporary file beside the target (O_EXCL, the
 *     mode the target has or a new file would get), which is fsynced and
 *     renamed over the target only when everything was written: a failure
 *     removes the temporary file and nothing else, so a file that existed
 *     before the command is never truncated, half written or removed;
 *   - an existing file we may not write is refused, as the shell's >
 *     refuses it (the rename needs only the directory's permission), and
 *     so is one that no one may write, even by root;
 *   - every error is one line naming the file.
 *
 * A process killed before it committed (SIGKILL, a crash) leaves its
 * temporary file; safefile_clean_dead() removes such files of dead
 * processes where we save (the marks, the index cache).
 *
 * Reading: safefile_open_read() and safefile_fopen_read() open only a
 * regular file (opening a FIFO would block, a device never end), checked on
 * the open descriptor.
 */
#ifndef SAFEFILE_H
#define SAFEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Flags of struct safefile_opts. */
enum {
	SAFEFILE_STDOUT = 1 << 0,	/* "-" is standard output */
	SAFEFILE_NOFOLLOW = 1 << 1,	/* refuse a symbolic link at the name */
	SAFEFILE_NOSYNC = 1 << 2,	/* no fsync (a cache, generated data) */
	SAFEFILE_NEW = 1 << 3,		/* a new name only: safefile_commit()
					 * fails (EEXIST) where a file is */
};

/* A file that must never be replaced: the input trace, a file it read. */
struct safefile_keep {
	dev_t dev;
	ino_t ino;
	const char *what;	/* for the message: "the trace" */
};

/* Add the file @path names (a symbolic link followed) to @keep, which
 * holds *@n of @max entries, as @what (kept, not copied), if it exists.
 * Returns 1 if added (*@n grew), 0 if there is no such file or @path is
 * NULL, -pte_nomem if @keep is full (nothing added). */
int safefile_keep_add(struct safefile_keep *keep, size_t *n, size_t max,
		      const char *path, const char *what);

/* How safefile_create() writes. */
struct safefile_opts {
	unsigned int flags;		/* SAFEFILE_* */
	unsigned int mode;		/* of a new file, before the umask; 0: 0666 */
	const struct safefile_keep *keep;	/* never replaced */
	size_t nkeep;
	const char *magic;	/* a non-empty existing target must begin so */
	const char *kind;	/* what a file beginning with @magic is, for
				 * the message: "a marks file" */
};

struct safefile;

/* Check @path as an output (see the top of this file) and open a temporary
 * file beside it, or standard output for "-".  @o may be NULL (defaults).
 * Nothing existing is touched until safefile_commit().
 * Returns 0 and sets *@out.
 * Returns -pte_invalid if @path is refused (empty, "-" not allowed, not a
 * regular file, protected, write-protected, a symbolic link where none is
 * followed, not what @o->magic says); @err says why, naming the file.
 * Returns -pte_io if the temporary file cannot be made (errno set).
 * Returns -pte_nomem if out of memory. */
int safefile_create(struct safefile **out, const char *path,
		    const struct safefile_opts *o, char *err, size_t errlen);

/* The descriptor to write to. */
int safefile_fd(const struct safefile *f);

/* A stdio stream on safefile_fd(), made on the first call and owned by
 * @f.  Returns NULL if out of memory. */
FILE *safefile_stream(struct safefile *f);

/* Write all of [@buf, @buf + @n) to @f's descriptor (retrying short
 * writes and EINTR).  Returns 0, or -1 with errno set. */
int safefile_write(struct safefile *f, const void *buf, uint64_t n);

/* Whether @f writes to standard output. */
int safefile_is_stdout(const struct safefile *f);

/* Flush, fsync and close @f's temporary file and rename it over the
 * target (fsyncing the directory); or flush standard output.  Frees @f,
 * whatever happens (NULL is fine: returns -pte_invalid).
 * Returns 0 if the target now holds everything written.
 * Returns -pte_io if anything failed (errno set): the temporary file is
 * removed, the target is as it was; @err says why, naming the file. */
int safefile_commit(struct safefile *f, char *err, size_t errlen);

/* The first half of safefile_commit(): flush, fsync and close @f's
 * temporary file (standard output: flush it), so that safefile_commit()
 * then only renames it.  For files that belong together (a trace and its
 * options file): all are written to disk before any is renamed.
 * Returns 0; @f then takes only safefile_commit() or safefile_abort().
 * Returns -pte_io if a write failed (errno set; @err says why, naming the
 * file): @f is not freed, give it up with safefile_abort().
 * Returns -pte_invalid if @f is NULL. */
int safefile_finish(struct safefile *f, char *err, size_t errlen);

/* Put two files that belong together in place (a trace and its options
 * file): both are written to disk (safefile_finish()) before either is
 * renamed, then @first is renamed, then @second.  @first may be NULL.
 * Frees both, whatever happens.
 * Returns 0 if both targets now hold everything written.
 * Returns -pte_io if a write failed (both targets are as they were) or a
 * rename did (if @second's, @first is in place already); errno is set
 * and @err says why, naming the file.
 * Returns -pte_invalid if @second is NULL (@first is given up). */
int safefile_commit_pair(struct safefile *first, struct safefile *second,
			 char *err, size_t errlen);

/* Give up @f: remove its temporary file, leave the target alone, free @f.
 * NULL is fine.  Keeps errno. */
void safefile_abort(struct safefile *f);

/* Have SIGINT, SIGTERM, SIGHUP and SIGXFSZ remove the temporary files
 * being written before they end the process as they would have (an
 * ignored one stays ignored).  For commands; the browser handles its
 * signals itself (with safefile_remove_pending()). */
void safefile_remove_on_signals(void);

/* Remove every temporary file being written (not yet committed or given
 * up), as a fatal signal's handler must before the process dies of it:
 * async-signal-safe (atomic loads and unlink() only).  The files' owners
 * may still abort or commit them (that then fails). */
void safefile_remove_pending(void);

/* Remove, in directory @dir, the temporary files that saves of processes
 * no longer running left (killed before they committed or gave up): the
 * names safefile_create() makes, NAME.tmp.PID.N (or NAME.tmp.PID, an
 * older shape), where NAME is @name or, if @name is NULL, any name ending
 * in @suffix (".idx"), and PID is no process (kill() says ESRCH).  Only
 * our regular files are removed; a symbolic link is left alone.  For a
 * directory where such names are ours alone (@suffix: the cache's), or
 * beside a file we save (@name).
 * Returns the number of files removed.
 * Returns -pte_invalid if @dir is NULL or both @name and @suffix are.
 * Returns -pte_io if @dir cannot be read (errno set). */
int safefile_clean_dead(const char *dir, const char *name, const char *suffix);

/* Open @path read-only (close-on-exec) if it is a regular file of at most
 * @max bytes (0: any size), without blocking on a FIFO on the way.
 * Returns the descriptor.
 * Returns -1 with errno set: from open() (ENOENT, EACCES, ...), EISDIR
 * for a directory, EINVAL for any other file that is not regular (a FIFO,
 * a device, a socket), EFBIG if it is too big. */
int safefile_open_read(const char *path, uint64_t max);

/* safefile_open_read() as a stdio stream.  Returns NULL as it does. */
FILE *safefile_fopen_read(const char *path, uint64_t max);

/* strerror(@errnum), but what safefile_open_read() means by EINVAL:
 * "not a regular file". */
const char *safefile_strerror(int errnum);

#endif /* SAFEFILE_H */

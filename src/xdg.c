/* xdg -- XDG base directories for config, state and cache. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ptdec.h"
#include "xdg.h"

static const struct xdg_base {
	const char *var;	/* the environment variable */
	const char *fallback;	/* below $HOME */
} xdg_bases[] = {
	[XDG_CONFIG] = { "XDG_CONFIG_HOME", ".config" },
	[XDG_STATE] = { "XDG_STATE_HOME", ".local/state" },
	[XDG_CACHE] = { "XDG_CACHE_HOME", ".cache" },
};

static void xdg_err(char *err, size_t errlen, const char *fmt, const char *a,
		    const char *b)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, a, b);
}

int xdg_path(enum xdg_kind kind, const char *sub, char *buf, size_t size,
	     char *err, size_t errlen)
{
	const char *base, *home;
	int n;

	if (!buf || !size || (unsigned int)kind > XDG_CACHE)
		return -pte_invalid;
	base = getenv(xdg_bases[kind].var);
	/* The spec says relative values are invalid and must be ignored. */
	if (base && base[0] == '/') {
		n = snprintf(buf, size, "%s/ptbrowse", base);
	} else {
		home = getenv("HOME");
		if (!home || home[0] != '/') {
			xdg_err(err, errlen, "neither $%s nor $HOME%s "
				"is set to an absolute path",
				xdg_bases[kind].var, "");
			return -pte_bad_config;
		}
		n = snprintf(buf, size, "%s/%s/ptbrowse", home,
			     xdg_bases[kind].fallback);
	}
	if (n < 0 || (size_t)n >= size)
		goto too_long;
	if (sub && *sub) {
		size_t len = (size_t)n;

		n = snprintf(buf + len, size - len, "/%s", sub);
		if (n < 0 || (size_t)n >= size - len)
			goto too_long;
	}
	return 0;
too_long:
	xdg_err(err, errlen, "the $%s directory path is too long%s",
		xdg_bases[kind].var, "");
	return -pte_nomem;
}

int xdg_mkdir_p(const char *path, unsigned int mode, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	struct stat st;
	size_t len;
	char *p;

	if (!path || !*path)
		return -pte_invalid;
	len = strlen(path);
	if (len >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		xdg_err(err, errlen, "%s: %s", path, strerror(errno));
		return -pte_io;
	}
	memcpy(tmp, path, len + 1);
	/* Walk the components, creating each one that is missing. */
	for (p = tmp + 1; ; p++) {
		char c = *p;

		if (c != '/' && c)
			continue;
		*p = '\0';
		if (mkdir(tmp, (mode_t)mode) && errno != EEXIST) {
			int e = errno;

			xdg_err(err, errlen, "cannot create directory %s: %s",
				tmp, strerror(e));
			errno = e;
			return -pte_io;
		}
		*p = c;
		if (!c)
			break;
	}
	if (stat(path, &st)) {
		int e = errno;

		xdg_err(err, errlen, "cannot create directory %s: %s", path,
			strerror(e));
		errno = e;
		return -pte_io;
	}
	if (!S_ISDIR(st.st_mode)) {
		xdg_err(err, errlen, "cannot create directory %s: %s", path,
			"a file of that name is in the way");
		errno = ENOTDIR;
		return -pte_io;
	}
	return 0;
}

int xdg_dir(enum xdg_kind kind, const char *sub, char *buf, size_t size,
	    char *err, size_t errlen)
{
	int ret;

	ret = xdg_path(kind, sub, buf, size, err, errlen);
	if (ret < 0)
		return ret;
	return xdg_mkdir_p(buf, 0700, err, errlen);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime directory (sd_rundir.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/sd_log.h"
#include "sd_env.h"
#include "sd_rundir.h"

SD_LOG_REGISTER(util.rundir);

/*
 * Every directory above dir: another user must not be able to rename or replace
 * what lies below it (owned by root or us; not writable by others unless sticky).
 */
static bool
ancestors_safe(const char *dir, char *path, size_t size)
{
	struct stat st;
	char *slash;

	if (snprintf(path, size, "%s", dir) >= (int)size)
		return false;
	while ((slash = strrchr(path, '/')) != NULL) {
		*(slash == path ? slash + 1 : slash) = '\0';
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
		    ((st.st_mode & 0022) != 0 && (st.st_mode & S_ISVTX) == 0)) {
			return false;
		}
		if (slash == path)
			break;
	}
	return true;
}

/*
 * mkdir dir 0700 if missing, then require it private: a directory (not a
 * symlink) of this user that no one else may read, write or enter, below
 * directories no one else may change.
 */
static doca_error_t
make_private_dir(const char *what, const char *dir)
{
	char bad[PATH_MAX];
	struct stat st;
	int fd;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		DOCA_LOG_ERR("Failed to create the %s runtime directory %s: %s; set SOFTDOCA_RUNTIME_DIR to a "
			     "writable directory",
			     what, dir, strerror(errno));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 0077) != 0) {
		DOCA_LOG_ERR("%s runtime directory %s is not a private directory of this user (a directory, not a "
			     "symlink, owned by uid %u, mode 0700 - it is %s%04o); chmod 0700 it, remove it or set "
			     "SOFTDOCA_RUNTIME_DIR",
			     what, dir, (unsigned)geteuid(), fd < 0 ? "not openable as one, " : "",
			     fd < 0 ? 0 : (unsigned)(st.st_mode & 07777));
		if (fd >= 0)
			close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	close(fd);
	if (dir[0] == '/' && !ancestors_safe(dir, bad, sizeof(bad))) {
		DOCA_LOG_ERR("%s runtime directory %s lies under %s, which another user may change; choose a "
			     "directory under ones only root or this user can write (SOFTDOCA_RUNTIME_DIR)",
			     what, dir, bad);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_rundir(const char *what, char *dir, size_t size)
{
	const char *env = sd_env_str("SOFTDOCA_RUNTIME_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env != NULL && env[0] != '\0')
		n = snprintf(dir, size, "%s", env);
	else if (xdg != NULL && xdg[0] != '\0')
		n = snprintf(dir, size, "%s/softdoca", xdg);
	else
		n = snprintf(dir, size, "/tmp/softdoca-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= size) {
		DOCA_LOG_ERR("%s runtime directory path is too long (%d bytes, at most %zu); set "
			     "SOFTDOCA_RUNTIME_DIR to a shorter path",
			     what, n, size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return make_private_dir(what, dir);
}

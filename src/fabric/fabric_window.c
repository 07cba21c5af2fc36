/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared windows: the page-aligned interior of a registered range moved onto
 * a sealed memfd, so a same-host initiator can map it and write or read with
 * a plain memcpy (what ucx_perftest gets from UCX-allocated shm segments)
 * instead of a kernel copy that pins the target's pages on every call.
 *
 * Exporter: fabric_window_create() copies the pages into a memfd and maps it
 * MAP_FIXED over the same addresses; the application keeps its pointers and
 * bytes.  fabric_window_destroy() puts private anonymous pages back (with the
 * bytes) if the range is still ours, so after deregistration nothing the
 * peer still has mapped reaches the application.
 * Importer: fabric_window_map() fetches the memfd from the peer through its
 * pidfd (the same ptrace permission process_vm_writev needs) and maps it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(fabric.window);

/* Smaller interiors stay with process_vm_writev: not worth an fd and a copy. */
#define WINDOW_MIN_BYTES (64u << 10)

static size_t
page_size(void)
{
	static size_t pg;

	if (pg == 0)
		pg = (size_t)sysconf(_SC_PAGESIZE);
	return pg;
}

bool
fabric_window_enabled(void)
{
	const char *e = getenv("SD_FABRIC_WINDOW");

	return !(e != NULL && e[0] == '0');
}

/*
 * Does every byte of [start, end) lie in mappings of the kind `want`?
 * want_ino == 0: private anonymous read-write (heap or unnamed, not the
 * stack); else: shared mappings of the file with that device and inode.
 */
static bool
range_is(uintptr_t start, uintptr_t end, uint64_t want_ino, uint64_t want_dev)
{
	char line[512];
	uintptr_t covered = start;
	FILE *f = fopen("/proc/self/maps", "re");

	if (f == NULL)
		return false;
	while (covered < end && fgets(line, sizeof(line), f) != NULL) {
		uintptr_t lo, hi;
		char perms[8], path[256] = "";
		unsigned long long off, ino;
		unsigned int maj, min;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %llx %x:%x %llu %255[^\n]", &lo, &hi, perms, &off,
			   &maj, &min, &ino, path) < 7)
			continue;
		if (hi <= covered)
			continue;
		if (lo > covered)
			break; /* a hole */
		if (want_ino == 0) {
			const char *p = path + strspn(path, " ");

			if (strncmp(perms, "rw-p", 4) != 0 || ino != 0 || (p[0] != '\0' && strcmp(p, "[heap]") != 0))
				break;
		} else if (perms[3] != 's' || ino != want_ino || makedev(maj, min) != want_dev) {
			break;
		}
		covered = hi;
	}
	fclose(f);
	return covered >= end;
}

doca_error_t
fabric_window_create(void *addr, size_t len, struct fabric_window *w)
{
	size_t pg = page_size();
	uintptr_t start = ((uintptr_t)addr + pg - 1) & ~(uintptr_t)(pg - 1);
	uintptr_t end = ((uintptr_t)addr + len) & ~(uintptr_t)(pg - 1);
	size_t wlen;
	struct stat st;
	void *tmp;
	int fd;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (!fabric_window_enabled() || end <= start || end - start < WINDOW_MIN_BYTES)
		return DOCA_ERROR_NOT_SUPPORTED;
	wlen = end - start;
	if (!range_is(start, end, 0, 0)) {
		DOCA_LOG_DBG("No shared window for [%p, +%zu): not private anonymous memory", addr, len);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	fd = memfd_create("softdoca-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		goto refused;
	if (ftruncate(fd, (off_t)wlen) != 0 || fstat(fd, &st) != 0)
		goto close_fd;
	tmp = mmap(NULL, wlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (tmp == MAP_FAILED)
		goto close_fd;
	memcpy(tmp, (void *)start, wlen);
	/* Replaces the pages in one step; the application's pointers stay valid. */
	if (mmap((void *)start, wlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		int e = errno;

		/*
		 * A failed MAP_FIXED may already have dropped the old pages: put
		 * private ones back from the copy, so the bytes survive either way.
		 */
		if (mmap((void *)start, wlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    MAP_FAILED)
			memcpy((void *)start, tmp, wlen);
		munmap(tmp, wlen);
		errno = e;
		goto close_fd;
	}
	munmap(tmp, wlen);
	/* A peer holding the fd must not be able to shrink it under us (SIGBUS). */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		DOCA_LOG_WARN("Shared window at %#" PRIxPTR ": cannot seal its memfd (%s)", start, strerror(errno));
	w->addr = start;
	w->len = wlen;
	w->fd = fd;
	w->ino = (uint64_t)st.st_ino;
	w->dev = (uint64_t)st.st_dev;
	DOCA_LOG_DBG("Shared window [%#" PRIxPTR ", +%zu) on memfd %d", start, wlen, fd);
	return DOCA_SUCCESS;

close_fd:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
refused:
	DOCA_LOG_INFO("No shared window for [%p, +%zu): %s; same-host peers use process_vm_writev", addr, len,
		      strerror(errno));
	return DOCA_ERROR_NOT_SUPPORTED;
}

void
fabric_window_destroy(struct fabric_window *w)
{
	void *tmp;

	if (w->fd < 0)
		return;
	/*
	 * Put private pages back only where our memfd is still mapped: if the
	 * application freed the memory first, the addresses may belong to
	 * someone else by now.
	 */
	if (range_is(w->addr, w->addr + w->len, w->ino, w->dev)) {
		tmp = mmap(NULL, w->len, PROT_READ, MAP_SHARED, w->fd, 0);
		if (tmp != MAP_FAILED &&
		    mmap((void *)w->addr, w->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) != MAP_FAILED)
			memcpy((void *)w->addr, tmp, w->len);
		else
			DOCA_LOG_WARN("Shared window at %#" PRIxPTR ": cannot restore private pages (%s); the range "
				      "stays shared",
				      w->addr, strerror(errno));
		if (tmp != MAP_FAILED)
			munmap(tmp, w->len);
	}
	close(w->fd);
	w->fd = -1;
}

void *
fabric_window_map(int pidfd, int remote_fd, uint64_t ino, uint64_t len)
{
	struct stat st;
	void *view;
	int fd;

	fd = (int)syscall(SYS_pidfd_getfd, pidfd, remote_fd, 0);
	if (fd < 0) {
		DOCA_LOG_INFO("Cannot fetch the peer's shared window (%s); using process_vm_writev/readv",
			      strerror(errno));
		return NULL;
	}
	/* The fd number may have been reused since the export: check it is that memfd. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != ino || (uint64_t)st.st_size != len) {
		DOCA_LOG_INFO("The peer's fd %d is no longer its shared window; using process_vm_writev/readv",
			      remote_fd);
		close(fd);
		return NULL;
	}
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (view == MAP_FAILED) {
		DOCA_LOG_INFO("Cannot map the peer's shared window of %" PRIu64 " bytes (%s)", len, strerror(errno));
		return NULL;
	}
	return view;
}

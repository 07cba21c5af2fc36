/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapped path (xproc.h "shareable memory"): the owner finds the shared
 * object behind a registered range and keeps a descriptor of it; the peer
 * takes that descriptor, checks it and maps the range; copies are memcpy,
 * guarded against the object shrinking under the mapping.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xproc.h"
#include "xproc_maps.h"

/* --- the owner's side ----------------------------------------------------------------- */

/* The mapping(s) of /proc/self/maps that hold [lo, hi): one object, contiguous in it. */
struct share_span {
	struct sd_maps_ent first;
	char path[512]; /* first's path, NUL-terminated ("" when none or too long) */
	uint64_t reach; /* where the span's last mapping ends */
};

static bool
span_continues(const struct share_span *s, const struct sd_maps_ent *e)
{
	return e->start == s->reach && e->shared && e->ino == s->first.ino && e->dev_major == s->first.dev_major &&
	       e->dev_minor == s->first.dev_minor && e->off == s->first.off + (e->start - s->first.start) &&
	       e->writable == s->first.writable;
}

static void
span_begin(struct share_span *s, const struct sd_maps_ent *e)
{
	s->first = *e;
	s->reach = e->end;
	s->path[0] = '\0';
	if (e->path != NULL && e->path_len < sizeof(s->path)) {
		memcpy(s->path, e->path, e->path_len);
		s->path[e->path_len] = '\0';
	}
	s->first.path = NULL;
}

/* Find the span holding [lo, hi); false with *what when the range is not in one shared object. */
static bool
span_find(uint64_t lo, uint64_t hi, struct share_span *s, const char **what)
{
	FILE *f = fopen("/proc/self/maps", "re");
	struct sd_maps_ent e;
	bool found = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	*what = "the process's map (/proc/self/maps) cannot be read";
	if (f == NULL)
		return false;
	/* the kernel writes the map a page per read: one large buffer reads it in two or three */
	(void)setvbuf(f, NULL, _IOFBF, 64 * 1024);
	*what = "the range is not mapped";
	while ((n = getline(&line, &cap, f)) > 0) {
		if (sd_maps_line_parse(line, (size_t)n, &e, NULL) != DOCA_SUCCESS)
			continue;
		if (!found) {
			if (lo < e.start || lo >= e.end)
				continue;
			found = true;
			span_begin(s, &e);
		} else if (span_continues(s, &e)) {
			s->reach = e.end;
		} else {
			break;
		}
		if (hi <= s->reach)
			break;
	}
	free(line);
	fclose(f);
	if (!found)
		return false;
	if (!s->first.shared || s->first.ino == 0) {
		*what = "private memory (not a MAP_SHARED mapping of a file, memfd or shared memory)";
		return false;
	}
	if (hi > s->reach) {
		*what = "the range spans more than one shared object";
		return false;
	}
	return true;
}

/* fd is the span's object and holds [off, off + len): keep it; else close it. */
static bool
fd_is_span(int fd, const struct share_span *s, uint64_t off, uint64_t len, struct sd_xproc_share *share)
{
	struct stat st;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != s->first.ino ||
	    major(st.st_dev) != s->first.dev_major || minor(st.st_dev) != s->first.dev_minor ||
	    (uint64_t)st.st_size < off + len) {
		close(fd);
		return false;
	}
	share->fd = fd;
	share->off = off;
	share->ino = (uint64_t)st.st_ino;
	share->dev = (uint64_t)st.st_dev;
	return true;
}

/* Open the object read-write when we map it writable, read-only otherwise (or when that is all we may). */
static int
open_mode(const char *path, bool writable)
{
	int fd = -1;

	if (writable)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd;
}

/* One of the process's own descriptors is the object (a memfd the program keeps open, say): reopen it. */
static bool
share_from_fds(const struct share_span *s, uint64_t off, uint64_t len, struct sd_xproc_share *share)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	bool ok = false;

	if (d == NULL)
		return false;
	while (!ok && (de = readdir(d)) != NULL) {
		char path[64];
		struct stat st;
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end != '\0' || end == de->d_name || fd < 0 || fd == dirfd(d))
			continue;
		if (fstat((int)fd, &st) != 0 || (uint64_t)st.st_ino != s->first.ino)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
		ok = fd_is_span(open_mode(path, s->first.writable), s, off, len, share);
	}
	closedir(d);
	return ok;
}

void
sd_xproc_share_find(const void *addr, size_t len, struct sd_xproc_share *share, const char **what)
{
	uint64_t lo = (uintptr_t)addr, off;
	struct share_span s;
	char path[80];

	*share = SD_XPROC_SHARE_NONE;
	if (!span_find(lo, lo + len, &s, what))
		return;
	off = s.first.off + (lo - s.first.start);
	/* the kernel's own link to the mapped object (needs CAP_CHECKPOINT_RESTORE), then its name, then our fds */
	snprintf(path, sizeof(path), "/proc/self/map_files/%llx-%llx", (unsigned long long)s.first.start,
		 (unsigned long long)s.first.end);
	if (fd_is_span(open_mode(path, s.first.writable), &s, off, len, share))
		return;
	if (s.path[0] == '/' && strstr(s.path, " (deleted)") == NULL &&
	    fd_is_span(open_mode(s.path, s.first.writable), &s, off, len, share))
		return;
	if (share_from_fds(&s, off, len, share))
		return;
	*what = "no descriptor of the shared object can be opened (a memfd the program closed, SysV shared memory "
		"without CAP_CHECKPOINT_RESTORE)";
}

void
sd_xproc_share_drop(struct sd_xproc_share *share)
{
	if (share->fd >= 0)
		close(share->fd);
	*share = SD_XPROC_SHARE_NONE;
}

/* --- the peer's side ------------------------------------------------------------------ */

static doca_error_t
refuse(const char **reason, const char *why, doca_error_t err)
{
	*reason = why;
	return err;
}

/* Take the owner's descriptor; it must be the object the record names, holding the range. */
static doca_error_t
take_fd(const struct sd_xproc_peer *peer, const struct sd_xproc_share *share, uint64_t len, int *out, struct stat *st,
	const char **reason)
{
	int fd;

	if (peer->pidfd < 0 || share->fd < 0)
		return refuse(reason, "no pidfd of the peer or no descriptor named", DOCA_ERROR_NOT_SUPPORTED);
	fd = (int)syscall(SYS_pidfd_getfd, peer->pidfd, share->fd, 0);
	if (fd < 0) {
		if (errno == EPERM || errno == EACCES)
			return refuse(reason, "the kernel refused the peer's descriptor (ptrace rule)",
				      DOCA_ERROR_NOT_PERMITTED);
		return refuse(reason, "the peer has no such descriptor (gone, or closed it)", DOCA_ERROR_NOT_FOUND);
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || (uint64_t)st->st_ino != share->ino ||
	    (uint64_t)st->st_dev != share->dev) {
		close(fd);
		return refuse(reason, "the peer's descriptor is not the object its record names", DOCA_ERROR_NOT_FOUND);
	}
	if ((uint64_t)st->st_size < share->off || (uint64_t)st->st_size - share->off < len) {
		close(fd);
		return refuse(reason, "the shared object is smaller than the registered range",
			      DOCA_ERROR_INVALID_VALUE);
	}
	*out = fd;
	return DOCA_SUCCESS;
}

doca_error_t
sd_xproc_window_map(const struct sd_xproc_peer *peer, const struct sd_xproc_share *share, uint64_t len,
		    struct sd_xproc_window *win, const char **reason)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), aoff;
	int fd, seals, acc;
	struct stat st;
	doca_error_t err;
	void *map;

	memset(win, 0, sizeof(*win));
	err = take_fd(peer, share, len, &fd, &st, reason);
	if (err != DOCA_SUCCESS)
		return err;
	/* hugetlbfs maps only whole huge pages: its block size is the page size */
	if ((uint64_t)st.st_blksize > pg && ((uint64_t)st.st_blksize & ((uint64_t)st.st_blksize - 1)) == 0)
		pg = (uint64_t)st.st_blksize;
	acc = fcntl(fd, F_GETFL) & O_ACCMODE;
	seals = fcntl(fd, F_GET_SEALS);
	win->writable = acc == O_RDWR && (seals < 0 || (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) == 0);
	win->guarded = seals < 0 || (seals & F_SEAL_SHRINK) == 0;
	aoff = share->off & ~(pg - 1);
	win->map_len = (size_t)((share->off - aoff + len + pg - 1) & ~(pg - 1));
	map = mmap(NULL, win->map_len, PROT_READ | (win->writable ? PROT_WRITE : 0), MAP_SHARED, fd, (off_t)aoff);
	close(fd);
	if (map == MAP_FAILED) {
		memset(win, 0, sizeof(*win));
		return refuse(reason, "the shared object cannot be mapped here", DOCA_ERROR_NO_MEMORY);
	}
	/* a child we fork gets no view of the peer's memory */
	(void)madvise(map, win->map_len, MADV_DONTFORK);
	win->map = map;
	win->base = (uint8_t *)map + (share->off - aoff);
	win->len = len;
	return DOCA_SUCCESS;
}

void
sd_xproc_window_unmap(struct sd_xproc_window *win)
{
	if (win->map != NULL)
		munmap(win->map, win->map_len);
	memset(win, 0, sizeof(*win));
}

/*
 * A copy into an object that shrank (its owner truncated the file) faults
 * with SIGBUS.  A guarded copy notes its window in a thread-local guard; the
 * handler jumps back out of a fault inside it and passes every other SIGBUS
 * to what the program had installed (or the default action).  Installed once,
 * at the first guarded copy; a guarded copy is done only while it is still
 * the process's handler (the program may install its own later: then the
 * copy goes through the kernel instead).
 */
struct copy_guard {
	sigjmp_buf jmp;
	uintptr_t lo, hi;
};

/*
 * The handler runs with SIGBUS unblocked (SA_NODEFER), so jumping out of it
 * needs no signal mask restored: no system call per guarded copy.
 * ThreadSanitizer tracks handler nesting through the saved mask and takes
 * the next fault for a fault inside a handler without it.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define __SANITIZE_THREAD__ 1 /* clang's spelling of gcc's macro */
#endif
#endif
#ifdef __SANITIZE_THREAD__
#define GUARD_SAVEMASK 1
#else
#define GUARD_SAVEMASK 0
#endif

static __thread struct copy_guard *volatile active_guard;
static struct sigaction prev_sigbus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct copy_guard *g = active_guard;
	uintptr_t a = (uintptr_t)si->si_addr;
	struct sigaction dfl;

	if (g != NULL && a >= g->lo && a < g->hi) {
		active_guard = NULL;
		siglongjmp(g->jmp, 1);
	}
	if ((prev_sigbus.sa_flags & SA_SIGINFO) != 0 && prev_sigbus.sa_sigaction != NULL) {
		prev_sigbus.sa_sigaction(sig, si, uc);
		return;
	}
	if (prev_sigbus.sa_handler != SIG_DFL && prev_sigbus.sa_handler != SIG_IGN) {
		prev_sigbus.sa_handler(sig);
		return;
	}
	/* the faulting access runs again on return and ends the process as it would have without us */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGBUS, &dfl, NULL);
}

static void
guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &prev_sigbus) != 0)
		memset(&prev_sigbus, 0, sizeof(prev_sigbus));
}

static bool
guard_in_place(void)
{
	struct sigaction cur;

	pthread_once(&guard_once, guard_install);
	return sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) != 0 && cur.sa_sigaction == on_sigbus;
}

static doca_error_t
guarded_copy(void *dst, const void *src, size_t len, const struct sd_xproc_window *win)
{
	struct copy_guard g;

	if (!guard_in_place())
		return DOCA_ERROR_NOT_SUPPORTED;
	g.lo = (uintptr_t)win->map;
	g.hi = g.lo + win->map_len;
	if (sigsetjmp(g.jmp, GUARD_SAVEMASK) != 0)
		return DOCA_ERROR_DRIVER;
	active_guard = &g;
	memcpy(dst, src, len);
	active_guard = NULL;
	return DOCA_SUCCESS;
}

doca_error_t
sd_xproc_window_copy(const struct sd_xproc_window *win, bool write, uint64_t off, void *local, size_t len)
{
	void *dst = write ? (void *)(win->base + off) : local;
	const void *src = write ? (const void *)local : (const void *)(win->base + off);

	if (!win->guarded) {
		memcpy(dst, src, len);
		return DOCA_SUCCESS;
	}
	return guarded_copy(dst, src, len, win);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-process copies (xproc.h): who the peer is, the one process_vm_readv /
 * writev loop of softdoca, and which peer Yama lets trace this process.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sd_log.h"
#include "xproc.h"
#include "../util/sd_errno.h"

SD_LOG_REGISTER(core.xproc);

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5: a pidfd of the socket's peer, taken at connect */
#endif

doca_error_t
sd_xproc_peer_from_socket(int fd, struct sd_xproc_peer *peer, const char **reason)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred) || cred.pid <= 0) {
		*reason = "the kernel does not say which process is at the other end of the socket (SO_PEERCRED)";
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (cred.uid != geteuid()) {
		*reason = "the peer process runs as another user; both sides must run as the same user";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	/*
	 * The pidfd names the process that connected even if it dies and its pid
	 * is reused; on kernels before 6.5 it is opened by pid, which is that
	 * process while the connection is up.
	 */
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0)
		pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
	peer->pid = cred.pid;
	peer->uid = cred.uid;
	peer->pidfd = pidfd;
	return DOCA_SUCCESS;
}

void
sd_xproc_peer_fini(struct sd_xproc_peer *peer)
{
	if (peer->pidfd >= 0)
		close(peer->pidfd);
	*peer = SD_XPROC_PEER_NONE;
}

/*
 * Is pid a process (a thread group's leader)?  /proc/<tid> of any thread exists
 * too and names its process's memory, with the start time of the thread: a
 * descriptor naming a thread of the exporter (pid + 1 is often one) must not
 * pass for the exporter.
 */
static bool
is_process(pid_t pid)
{
	char path[64], buf[4096], *t;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	t = strstr(buf, "\nTgid:");
	return t != NULL && strtol(t + 6, NULL, 10) == (long)pid;
}

/*
 * The comm field (2) of /proc/<pid>/stat may hold spaces and parentheses, so
 * parsing starts after its last ')'.  A thread's id is NOT_FOUND: it is not a
 * process.
 */
doca_error_t
sd_xproc_start_time(pid_t pid, uint64_t *start_time)
{
	char path[64], buf[4096], *p, *end;
	ssize_t n;
	int fd, field;

	if (!is_process(pid))
		return DOCA_ERROR_NOT_FOUND;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : sd_errno_to_doca(errno);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH ? DOCA_ERROR_NOT_FOUND : sd_errno_to_doca(errno);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL)
		return DOCA_ERROR_OPERATING_SYSTEM;
	p++;
	/* p is before field 3; skip fields 3..21. */
	for (field = 3; field < 22; field++) {
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')
			p++;
		if (*p == '\0')
			return DOCA_ERROR_OPERATING_SYSTEM;
	}
	errno = 0;
	*start_time = strtoull(p, &end, 10);
	if (errno != 0 || end == p)
		return DOCA_ERROR_OPERATING_SYSTEM;
	return DOCA_SUCCESS;
}

/* Drop the first n bytes of an iovec array; returns the new start index. */
static size_t
iov_advance(struct iovec *iov, size_t cnt, size_t first, size_t n)
{
	while (first < cnt && n >= iov[first].iov_len) {
		n -= iov[first].iov_len;
		first++;
	}
	if (first < cnt) {
		iov[first].iov_base = (uint8_t *)iov[first].iov_base + n;
		iov[first].iov_len -= n;
	}
	return first;
}

static doca_error_t
copy_error(int e, const char **reason)
{
	switch (e) {
	case ESRCH:
		*reason = "the peer process has exited";
		return DOCA_ERROR_NOT_FOUND;
	case EPERM:
		*reason = "the kernel refused access to the peer's memory (EPERM): run both sides as the same user; "
			  "with Yama ptrace_scope 2 the copier needs CAP_SYS_PTRACE, with 3 no copy is possible";
		return DOCA_ERROR_NOT_PERMITTED;
	case ENOSYS:
		*reason = "this kernel has no process_vm_readv / process_vm_writev";
		return DOCA_ERROR_NOT_SUPPORTED;
	default:
		*reason = "the peer no longer maps the memory it granted";
		return DOCA_ERROR_DRIVER;
	}
}

doca_error_t
sd_xproc_copy(const struct sd_xproc_peer *peer, bool write, struct iovec *liov, size_t ln, struct iovec *riov,
	      size_t rn, size_t len, const char **reason)
{
	size_t li = 0, ri = 0;

	while (len > 0) {
		unsigned long lc = (unsigned long)SD_MIN(ln - li, (size_t)IOV_MAX);
		unsigned long rc = (unsigned long)SD_MIN(rn - ri, (size_t)IOV_MAX);
		ssize_t n;

		if (lc == 0 || rc == 0)
			return copy_error(EFAULT, reason);
		n = write ? process_vm_writev(peer->pid, liov + li, lc, riov + ri, rc, 0)
			  : process_vm_readv(peer->pid, liov + li, lc, riov + ri, rc, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return copy_error(n == 0 ? EFAULT : errno, reason);
		/* A partial transfer (a page the peer unmapped ends it): continue where the kernel stopped. */
		li = iov_advance(liov, ln, li, (size_t)n);
		ri = iov_advance(riov, rn, ri, (size_t)n);
		len -= SD_MIN(len, (size_t)n);
	}
	return DOCA_SUCCESS;
}

/* --- Yama ---------------------------------------------------------------------------- */

#define PTRACER_PEERS 64

static pthread_mutex_t ptracer_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	pid_t pid;
	uint32_t refs;
} ptracer_peers[PTRACER_PEERS];
static uint32_t ptracer_overflow; /* holds of peers beyond the table: they mean "any" anyway */
static long ptracer_now;	  /* what prctl was last asked for */
static bool widened_logged;

/* Tell Yama what the held peers need (ptracer_lock held). */
static void
ptracer_apply(void)
{
	unsigned distinct = ptracer_overflow != 0 ? 2 : 0;
	long want = 0;

	for (unsigned i = 0; i < PTRACER_PEERS; i++) {
		if (ptracer_peers[i].refs != 0) {
			distinct++;
			want = ptracer_peers[i].pid;
		}
	}
	if (distinct > 1) {
		want = -1;
		if (!widened_logged) {
			widened_logged = true;
			DOCA_LOG_WARN(
				"Yama keeps one tracer exception per process and several peers copy this "
				"process's memory at once: any process of this user may trace it while they do "
				"(set kernel.yama.ptrace_scope=0 or give the peers CAP_SYS_PTRACE to avoid this)");
		}
	}
	if (want == ptracer_now)
		return;
	ptracer_now = want;
	if (prctl(PR_SET_PTRACER, want == -1 ? PR_SET_PTRACER_ANY : (unsigned long)want, 0, 0, 0) != 0)
		DOCA_LOG_DBG("prctl(PR_SET_PTRACER, %ld): %s (no Yama LSM: nothing to change)", want, strerror(errno));
}

/* The slot holding pid, else a free one (pid 0 held there), else NULL. */
static unsigned
ptracer_slot(pid_t pid, bool take_free)
{
	unsigned i, free_slot = PTRACER_PEERS;

	for (i = 0; i < PTRACER_PEERS; i++) {
		if (ptracer_peers[i].refs != 0 && ptracer_peers[i].pid == pid)
			return i;
		if (ptracer_peers[i].refs == 0 && free_slot == PTRACER_PEERS)
			free_slot = i;
	}
	return take_free ? free_slot : PTRACER_PEERS;
}

void
sd_xproc_ptracer_hold(pid_t pid)
{
	unsigned i;

	pthread_mutex_lock(&ptracer_lock);
	i = ptracer_slot(pid, true);
	if (i == PTRACER_PEERS) {
		ptracer_overflow++;
	} else {
		ptracer_peers[i].pid = pid;
		ptracer_peers[i].refs++;
	}
	ptracer_apply();
	pthread_mutex_unlock(&ptracer_lock);
}

void
sd_xproc_ptracer_release(pid_t pid)
{
	unsigned i;

	pthread_mutex_lock(&ptracer_lock);
	i = ptracer_slot(pid, false);
	if (i != PTRACER_PEERS)
		ptracer_peers[i].refs--;
	else if (ptracer_overflow != 0)
		ptracer_overflow--;
	ptracer_apply();
	pthread_mutex_unlock(&ptracer_lock);
}

long
sd_xproc_ptracer_current(void)
{
	long v;

	pthread_mutex_lock(&ptracer_lock);
	v = ptracer_now;
	pthread_mutex_unlock(&ptracer_lock);
	return v;
}

int
sd_xproc_yama_scope(void)
{
	char buf[8] = {0};
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && buf[0] >= '0' && buf[0] <= '3' ? buf[0] - '0' : -1;
}

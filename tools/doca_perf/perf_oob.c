/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma, out of band: the descriptor files of --oob-dir, and the forked
 * server of a both-sides run.  Every wait here is bounded and also ends, with the
 * reason, as soon as the process it waits for (the forked server) is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"

static pid_t child = -1; /* the forked server, until reaped */
static int child_status; /* its wait status once reaped */
static bool child_reaped;

static void
nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* "exited with status N" / "was killed by signal N (NAME)" */
static void
describe_status(int st, char *out, size_t size)
{
	if (WIFEXITED(st))
		snprintf(out, size, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(out, size, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(out, size, "ended (wait status 0x%x)", st);
}

void
perf_child_set(pid_t pid)
{
	child = pid;
	child_reaped = false;
}

/* Reap the child if it has ended; true if it has. */
static bool
child_ended(void)
{
	pid_t r;

	if (child <= 0)
		return false;
	if (child_reaped)
		return true;
	do {
		r = waitpid(child, &child_status, WNOHANG);
	} while (r < 0 && errno == EINTR);
	if (r == child) {
		child_reaped = true;
		return true;
	}
	if (r < 0) {
		/* Not our child any more (reaped elsewhere): count it as gone, status unknown. */
		child_status = 0x7f00;
		child_reaped = true;
		return true;
	}
	return false;
}

void
perf_child_check(const char *waiting_for)
{
	char how[96];

	if (!child_ended())
		return;
	describe_status(child_status, how, sizeof(how));
	fprintf(stderr, "doca_perf: the server process (pid %d) %s while the client was waiting for %s\n", (int)child,
		how, waiting_for);
	exit(1);
}

int
perf_child_finish(double timeout, bool client_failed)
{
	double t0 = perf_now();
	char how[96];

	if (child <= 0)
		return 0;
	/*
	 * A client that failed may never have sent the server its end-of-run
	 * message: the server would wait for it forever.  Give it a moment to see
	 * the failure itself, then stop it.
	 */
	if (client_failed)
		timeout = timeout < 2 ? timeout : 2;
	while (!child_ended()) {
		if (perf_now() - t0 > timeout) {
			fprintf(stderr,
				"doca_perf: the server process (pid %d) did not exit within %.0f s %s; killing it\n",
				(int)child, timeout, client_failed ? "after the client failed" : "after the run");
			kill(child, SIGKILL);
			while (waitpid(child, &child_status, 0) < 0 && errno == EINTR)
				;
			child_reaped = true;
			return 1;
		}
		nap_ms(5);
	}
	if (WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0)
		return 0;
	describe_status(child_status, how, sizeof(how));
	fprintf(stderr, "doca_perf: the server process (pid %d) %s\n", (int)child, how);
	return 1;
}

int
perf_child_wait_byte(int fd, char *c, double timeout, const char *what)
{
	double t0 = perf_now();
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char how[96];
	ssize_t n;

	for (;;) {
		if (perf_now() - t0 > timeout) {
			fprintf(stderr, "doca_perf: no sign of %s after %.0f s\n", what, timeout);
			return -1;
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, c, 1);
		if (n == 1)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	/* EOF: the server's end closed, so it is exiting; give the reason once it is reaped. */
	t0 = perf_now();
	while (!child_ended() && perf_now() - t0 < 2)
		nap_ms(5);
	if (child_reaped) {
		describe_status(child_status, how, sizeof(how));
		fprintf(stderr, "doca_perf: the server process (pid %d) %s while the client was waiting for %s\n",
			(int)child, how, what);
	} else {
		fprintf(stderr, "doca_perf: the server process closed its pipe while the client was waiting for %s\n",
			what);
	}
	return -1;
}

int
perf_oob_dir_check(const char *dir)
{
	char probe[4200];
	struct stat st;
	int fd;

	if (stat(dir, &st) != 0) {
		fprintf(stderr, "doca_perf: --oob-dir %s: %s%s\n", dir, strerror(errno),
			errno == ENOENT ? " (create it, on a file system both sides see)" : "");
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "doca_perf: --oob-dir %s: not a directory\n", dir);
		return -1;
	}
	/* access() says yes to root on a read-only mount: create a file as the run will. */
	snprintf(probe, sizeof(probe), "%s/.doca_perf.probe.XXXXXX", dir);
	fd = mkstemp(probe);
	if (fd < 0) {
		fprintf(stderr, "doca_perf: --oob-dir %s: cannot create files there: %s\n", dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

void
perf_oob_put(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096], tmp[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "doca_perf: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

void *
perf_oob_get(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	struct stat st;
	uint8_t *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* Never block on a FIFO someone put there. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20) ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL) {
		fprintf(stderr, "doca_perf: cannot read %s: not a regular file of at most 1 MiB\n", path);
		exit(1);
	}
	if (read(fd, buf, (size_t)st.st_size) != st.st_size) {
		fprintf(stderr, "doca_perf: cannot read %s\n", path);
		exit(1);
	}
	close(fd);
	buf[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return buf;
}

void
perf_oob_remove(const char *dir, uint32_t max_conns)
{
	static const char *const fixed[] = {"server.ready", "server.mmap", "client.ready"};
	char path[4200];

	for (const char *side = "server"; side != NULL; side = side[0] == 's' ? "client" : NULL)
		for (uint32_t i = 0; i < max_conns; i++) {
			snprintf(path, sizeof(path), "%s/%s.conn.%u", dir, side, i);
			if (unlink(path) != 0 && errno == ENOENT)
				break;
		}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fixed[i]);
		unlink(path);
	}
}

void *
perf_oob_wait(const char *dir, const char *name, size_t *len, double timeout, const char *peer)
{
	double t0 = perf_now();
	char what[4200];
	void *p;

	snprintf(what, sizeof(what), "%s/%s", dir, name);
	while ((p = perf_oob_get(dir, name, len)) == NULL) {
		perf_child_check(what);
		if (perf_now() - t0 > timeout) {
			fprintf(stderr, "doca_perf: no %s after %.0f s (is the %s running?)\n", what, timeout, peer);
			exit(1);
		}
		nap_ms(2);
	}
	return p;
}

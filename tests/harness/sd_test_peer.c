/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer processes of a test case (sd_test_peer.h): the fork with its socketpair and
 * the wait that turns the peer's end into a verdict.
 */
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "sd_test_peer.h"

bool
sd_test_fork_peer(pid_t *pid, int *sock)
{
	int sv[2];

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fflush(NULL); /* nothing buffered is printed twice */
	*pid = fork();
	ASSERT(*pid >= 0);
	if (*pid == 0) {
		close(sv[0]);
		*sock = sv[1];
		return true;
	}
	close(sv[1]);
	*sock = sv[0];
	return false;
}

static int
exit_value(int status)
{
	return WIFSIGNALED(status) ? SD_TEST_EXIT_SIGNAL(WTERMSIG(status)) : WEXITSTATUS(status);
}

int
sd_test_wait_exit(pid_t pid)
{
	int status = 0;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return exit_value(status);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
sd_test_reap_at(const char *file, int line, pid_t pid, unsigned timeout_s)
{
	double end = now_s() + timeout_s;
	int status = 0;
	pid_t r;

	if (timeout_s == 0) {
		r = waitpid(pid, &status, 0);
	} else {
		while ((r = waitpid(pid, &status, WNOHANG)) == 0 && now_s() < end)
			usleep(1000);
		if (r == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			sd_test_fail(file, line, "peer %d did not finish within %u s (killed)", (int)pid, timeout_s);
		}
	}
	if (r != pid)
		sd_test_fail(file, line, "waitpid(%d): %s", (int)pid, strerror(errno));
	if (WIFSIGNALED(status))
		sd_test_fail(file, line, "peer %d killed by signal %d (%s)", (int)pid, WTERMSIG(status),
			     strsignal(WTERMSIG(status)));
	if (exit_value(status) != 0)
		sd_test_fail(file, line, "peer %d exited with status %d", (int)pid, exit_value(status));
}

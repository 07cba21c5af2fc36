/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer processes in a test case: fork one joined to the case by a socketpair,
 * check things inside it, and wait for its end.
 *
 *   pid_t pid;
 *   int sock;
 *
 *   if (sd_test_fork_peer(&pid, &sock)) {    the peer
 *           CHECK_ERR(do_peer_side(sock), DOCA_SUCCESS);
 *           _exit(0);
 *   }
 *   ...                                      the case
 *   sd_test_reap(pid);                       fails unless the peer exited 0
 *
 * The ASSERT_* macros work in a peer too (a failed one exits 1); CHECK and CHECK_ERR
 * also name the peer's pid and exit with 100 / 101, so the case's failure says which
 * process saw what.
 */
#ifndef SD_TEST_PEER_H_
#define SD_TEST_PEER_H_

#include <stdbool.h>
#include <sys/types.h>
#include <unistd.h>

#include "sd_test.h"

#define CHECK(cond)                                                                                                    \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "peer %d: %s:%d: check failed: %s\n", (int)getpid(), __FILE__, __LINE__,       \
				#cond);                                                                                \
			_exit(100);                                                                                    \
		}                                                                                                      \
	} while (0)

#define CHECK_ERR(expr, exp)                                                                                           \
	do {                                                                                                           \
		doca_error_t e_ = (expr);                                                                              \
		if (e_ != (exp)) {                                                                                     \
			fprintf(stderr, "peer %d: %s:%d: %s = %s, expected %s\n", (int)getpid(), __FILE__, __LINE__,   \
				#expr, doca_error_get_name(e_), doca_error_get_name(exp));                             \
			_exit(101);                                                                                    \
		}                                                                                                      \
	} while (0)

/*
 * Fork a peer joined to this process by a stream socketpair.  Returns true in the
 * peer; *pid is the peer's pid in the parent, 0 in the peer; *sock is this side's end.
 */
bool sd_test_fork_peer(pid_t *pid, int *sock);

/* sd_test_wait_exit()'s value for a peer killed by signal sig. */
#define SD_TEST_EXIT_SIGNAL(sig) (1000 + (sig))

/* Wait for the peer: its exit status, SD_TEST_EXIT_SIGNAL(sig) if a signal killed it, -1 if waitpid failed. */
int sd_test_wait_exit(pid_t pid);

/*
 * Wait for the peer and fail the case unless it exited with status 0, naming its
 * status or signal.  sd_test_reap_within() kills it and fails after timeout_s seconds.
 */
#define sd_test_reap(pid) sd_test_reap_at(__FILE__, __LINE__, (pid), 0)
#define sd_test_reap_within(pid, timeout_s) sd_test_reap_at(__FILE__, __LINE__, (pid), (timeout_s))
void sd_test_reap_at(const char *file, int line, pid_t pid, unsigned timeout_s);

#endif /* SD_TEST_PEER_H_ */

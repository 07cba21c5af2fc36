/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The door of src/core/xproc.h: a peer that knocks with a grant that stands
 * is held as this process's Yama tracer until it hangs up or the door closes;
 * a wrong or revoked key, garbage, no door, and a door some other process
 * listens on are refused and hold nothing (the registry is observed with
 * sd_xproc_ptracer_current, which works with or without Yama); doors of processes that are
 * gone are swept when a door opens or closes.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sd_test.h"
#include "xproc.h"
#include "xproc_door_proto.h"

static uint8_t area[4096] __attribute__((aligned(4096)));
static char rundir[64];

/* Until the tracer exception is want, for up to 2 s. */
static bool
exception_becomes(long want)
{
	for (int i = 0; i < 200; i++) {
		if (sd_xproc_ptracer_current() == want)
			return true;
		usleep(10000);
	}
	return false;
}

static uint64_t
my_start_time(void)
{
	uint64_t t = 0;

	if (sd_xproc_start_time(getpid(), &t) != DOCA_SUCCESS)
		abort();
	return t;
}

static int
reap(pid_t pid, int to_child)
{
	int ws = 0;

	if (write(to_child, "x", 1) != 1)
		return -1;
	close(to_child);
	waitpid(pid, &ws, 0);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/*
 * A child that knocks on this process's door with ref (and this process's start
 * time), reports the status in *status, and keeps the connection until reap().
 */
static pid_t
knock_child(const struct sd_xproc_ref *ref, char *status, int *to_child)
{
	uint64_t start = my_start_time();
	int down[2], up[2];
	pid_t pid;

	if (pipe(down) != 0 || pipe(up) != 0)
		abort();
	pid = fork();
	if (pid == 0) {
		const char *why = "";
		int fd = -1;
		char st, c;

		close(down[1]);
		close(up[0]);
		st = (char)sd_xproc_door_knock(getppid(), start, ref, &fd, &why);
		if (write(up[1], &st, 1) != 1 || read(down[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	if (read(up[0], status, 1) != 1)
		*status = -1;
	close(up[0]);
	*to_child = down[1];
	return pid;
}

TEST(a_knock_with_the_key_holds_the_knocker_while_connected)
{
	struct sd_xproc_ref ref;
	const char *why = "";
	int to_child;
	pid_t child;
	char st;

	ASSERT_OK(sd_xproc_grant(area, sizeof(area), SD_XPROC_READ, 0, &ref));
	ASSERT_OK(sd_xproc_door_open(&why));
	child = knock_child(&ref, &st, &to_child);
	ASSERT_EQ(st, DOCA_SUCCESS);
	/* held before the answer was sent */
	ASSERT_EQ(sd_xproc_ptracer_current(), (long)child);
	ASSERT_EQ(reap(child, to_child), 0);
	ASSERT(exception_becomes(0));
	sd_xproc_door_close();
	sd_xproc_revoke(&ref);
}

TEST(a_wrong_or_revoked_key_is_refused_and_holds_nothing)
{
	struct sd_xproc_ref ref, wrong, revoked;
	const char *why = "";
	int to_child;
	pid_t child;
	char st;

	ASSERT_OK(sd_xproc_grant(area, sizeof(area), SD_XPROC_READ, 0, &ref));
	ASSERT_OK(sd_xproc_grant(area, sizeof(area), SD_XPROC_READ, 0, &revoked));
	wrong = ref;
	wrong.key[0] ^= 0x80;
	ASSERT_OK(sd_xproc_door_open(&why));
	child = knock_child(&wrong, &st, &to_child);
	ASSERT_EQ(st, DOCA_ERROR_NOT_PERMITTED);
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	ASSERT_EQ(reap(child, to_child), 0);

	wrong = revoked;
	sd_xproc_revoke(&revoked);
	child = knock_child(&wrong, &st, &to_child);
	ASSERT_EQ(st, DOCA_ERROR_NOT_PERMITTED);
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	ASSERT_EQ(reap(child, to_child), 0);

	/* a record address inside this process but not a record: no read of it */
	wrong.rec_addr = (uint64_t)(uintptr_t)area;
	child = knock_child(&wrong, &st, &to_child);
	ASSERT_EQ(st, DOCA_ERROR_NOT_PERMITTED);
	ASSERT_EQ(reap(child, to_child), 0);
	sd_xproc_door_close();
	sd_xproc_revoke(&ref);
}

static int
door_connect(pid_t pid, uint64_t start)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/door-%d-%llu", rundir, (int)pid, (unsigned long long)start);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

TEST(garbage_at_the_door_is_answered_invalid_and_hung_up)
{
	uint8_t junk[40] = {1, 2, 3}, ans[16];
	struct pollfd p;
	const char *why = "";
	doca_error_t st = DOCA_SUCCESS;
	ssize_t n;
	int fd;

	ASSERT_OK(sd_xproc_door_open(&why));
	fd = door_connect(getpid(), my_start_time());
	ASSERT(fd >= 0);
	ASSERT_EQ(send(fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	p = (struct pollfd){.fd = fd, .events = POLLIN};
	ASSERT_EQ(poll(&p, 1, 2000), 1);
	n = recv(fd, ans, sizeof(ans), 0);
	ASSERT_OK(sd_xproc_door_answer_parse(ans, (size_t)n, &st, &why));
	ASSERT_EQ(st, DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(poll(&p, 1, 2000), 1);
	ASSERT_EQ(recv(fd, ans, sizeof(ans), 0), 0); /* hung up */
	close(fd);
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	sd_xproc_door_close();
}

TEST(closing_the_door_releases_its_holders)
{
	struct sd_xproc_ref ref;
	const char *why = "";
	int to_child;
	pid_t child;
	char st;

	ASSERT_OK(sd_xproc_grant(area, sizeof(area), SD_XPROC_READ, 0, &ref));
	ASSERT_OK(sd_xproc_door_open(&why));
	ASSERT_OK(sd_xproc_door_open(&why)); /* counted: two exports */
	child = knock_child(&ref, &st, &to_child);
	ASSERT_EQ(st, DOCA_SUCCESS);
	ASSERT_EQ(sd_xproc_ptracer_current(), (long)child);
	sd_xproc_door_close();
	ASSERT_EQ(sd_xproc_ptracer_current(), (long)child); /* one export still stands */
	sd_xproc_door_close();
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	ASSERT_EQ(door_connect(getpid(), my_start_time()), -1); /* gone from the runtime directory */
	ASSERT_EQ(reap(child, to_child), 0);
	sd_xproc_revoke(&ref);
}

TEST(no_door_is_not_found)
{
	struct sd_xproc_ref ref = {.rec_addr = 64};
	const char *why = "";
	int fd = -1;

	ASSERT_ERR(sd_xproc_door_knock(getpid(), my_start_time(), &ref, &fd, &why), DOCA_ERROR_NOT_FOUND);
	ASSERT(strstr(why, "no door") != NULL);
	/* an open door is named by the start time too: a reused pid's descriptor finds none */
	ASSERT_OK(sd_xproc_door_open(&why));
	ASSERT_ERR(sd_xproc_door_knock(getpid(), my_start_time() + 1, &ref, &fd, &why), DOCA_ERROR_NOT_FOUND);
	sd_xproc_door_close();
	ASSERT_EQ(fd, -1);
}

TEST(a_door_another_process_listens_on_gets_no_key)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct sd_xproc_ref ref;
	const char *why = "";
	int up[2], fd = -1, lfd = -1;
	pid_t squatter;
	char got = -1;

	memset(&ref, 0x5a, sizeof(ref));
	ref.rec_addr = 4096;
	/* the squatter listens where this process's door would be for start time 1 */
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/door-%d-1", rundir, (int)getpid());
	ASSERT_EQ(pipe(up), 0);
	squatter = fork();
	ASSERT(squatter >= 0);
	if (squatter == 0) {
		uint8_t buf[64];
		char n = 'L';
		int c;

		/* listen() here: the kernel names the process that listened as the peer of who connects */
		lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 4) != 0 ||
		    write(up[1], &n, 1) != 1)
			_exit(3);
		c = accept(lfd, NULL, NULL);
		n = (char)(c < 0 ? -2 : recv(c, buf, sizeof(buf), 0));
		_exit(write(up[1], &n, 1) == 1 ? 0 : 3);
	}
	close(up[1]);
	ASSERT_EQ(read(up[0], &got, 1), 1);
	ASSERT_EQ(got, 'L');
	/* the listener is the squatter, not the pid the descriptor names (this one) */
	ASSERT_ERR(sd_xproc_door_knock(getpid(), 1, &ref, &fd, &why), DOCA_ERROR_NOT_PERMITTED);
	ASSERT(strstr(why, "not the owner's") != NULL);
	ASSERT_EQ(read(up[0], &got, 1), 1);
	ASSERT_EQ(got, 0); /* it read end of file: not one byte of the knock */
	close(up[0]);
	waitpid(squatter, NULL, 0);
	unlink(a.sun_path);
}

/* A file named like a door in the runtime directory; true if it exists now. */
static bool
door_file(pid_t pid, uint64_t start, bool create)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/door-%d-%llu", rundir, (int)pid, (unsigned long long)start);
	if (create) {
		f = fopen(path, "w");
		ASSERT_NOT_NULL(f);
		fclose(f);
	}
	return access(path, F_OK) == 0;
}

TEST(doors_of_processes_that_are_gone_are_swept)
{
	const char *why = "";
	uint64_t parent_start;
	pid_t dead = fork();

	ASSERT(dead >= 0);
	if (dead == 0)
		_exit(0);
	ASSERT_EQ(waitpid(dead, NULL, 0), dead);
	ASSERT_OK(sd_xproc_start_time(getppid(), &parent_start));
	/* a SIGKILLed exporter's door, one of a pid now running another process, one of a live process */
	ASSERT(door_file(dead, 12345, true));
	ASSERT(door_file(getpid(), my_start_time() + 7, true));
	ASSERT(door_file(getppid(), parent_start, true));
	ASSERT_OK(sd_xproc_door_open(&why));
	ASSERT(!door_file(dead, 12345, false));
	ASSERT(!door_file(getpid(), my_start_time() + 7, false));
	ASSERT(door_file(getppid(), parent_start, false));
	ASSERT(door_file(getpid(), my_start_time(), false)); /* its own */
	sd_xproc_door_close();
	ASSERT(!door_file(getpid(), my_start_time(), false));
	ASSERT(door_file(getppid(), parent_start, false));
	/* closing sweeps too */
	ASSERT_OK(sd_xproc_door_open(&why));
	ASSERT(door_file(dead, 12345, true));
	sd_xproc_door_close();
	ASSERT(!door_file(dead, 12345, false));
	{
		char path[160];

		snprintf(path, sizeof(path), "%s/door-%d-%llu", rundir, (int)getppid(),
			 (unsigned long long)parent_start);
		ASSERT_EQ(unlink(path), 0);
	}
}

int
main(int argc, char **argv)
{
	snprintf(rundir, sizeof(rundir), "/tmp/sd-door-XXXXXX");
	if (mkdtemp(rundir) == NULL)
		return 1;
	setenv("SOFTDOCA_RUNTIME_DIR", rundir, 1);
	int rc = sd_test_main(argc, argv);

	rmdir(rundir);
	return rc;
}

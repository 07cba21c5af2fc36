/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The door (xproc.h): the owner's listening socket and the thread that serves
 * it, and the peer's knock.  The thread owns every connection; the only state
 * shared with API threads is the open count and the eventfd that stops it.
 *
 * Per connection: accepted -> the peer identified by the kernel (same user)
 * -> one knock within DOOR_KNOCK_NS -> answered; held as a tracer while it
 * stays open when the grant stood, closed otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sd_log.h"
#include "xproc.h"
#include "xproc_door_proto.h"
#include "../util/sd_rundir.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(core.xproc_door);

#define DOOR_CONNS 64			     /* peers at once; more wait in the backlog */
#define DOOR_KNOCK_NS (5ull * 1000000000ull) /* a connection that does not knock by then is dropped */
#define DOOR_ANSWER_MS 2000		     /* how long a knocker waits for the answer */

struct door_conn {
	int fd;
	bool held;	   /* answered SUCCESS: pid is held as a tracer */
	pid_t pid;	   /* the kernel's word for who connected */
	uint64_t deadline; /* to knock by (not yet held) */
};

static struct {
	pthread_mutex_t lock;
	unsigned opens;
	int lfd, evfd;
	pthread_t thread;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/* the thread's own */
	struct door_conn conns[DOOR_CONNS];
	unsigned nconns;
} door = {.lock = PTHREAD_MUTEX_INITIALIZER, .lfd = -1, .evfd = -1};

/* <runtime dir>/door-<pid>-<start time>: *reason on failure (the directory's own failure is logged there). */
static doca_error_t
door_path(pid_t pid, uint64_t start_time, char *path, size_t size, const char **reason)
{
	char dir[sizeof(door.path) - 48];
	doca_error_t err;

	err = sd_rundir("PCI export", dir, sizeof(dir));
	if (err != DOCA_SUCCESS) {
		*reason = "the runtime directory is unusable (see the line before)";
		return err;
	}
	if (snprintf(path, size, "%s/door-%d-%" PRIu64, dir, (int)pid, start_time) >= (int)size) {
		*reason = "the door's path is too long for a Unix socket (set SOFTDOCA_RUNTIME_DIR shorter)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/*
 * Remove the doors of processes that are gone: a SIGKILLed exporter cannot remove its own.
 * A door names its pid and start time, so one whose pid is dead or now runs another process
 * (another start time) can be no one's.  Run when a door opens and when one closes.
 */
static void
door_sweep(const char *own)
{
	const char *slash = strrchr(own, '/');
	char dir[sizeof(door.path)], path[sizeof(door.path) + 256];
	struct dirent *e;
	DIR *d;

	if (slash == NULL || (size_t)(slash - own) >= sizeof(dir))
		return;
	memcpy(dir, own, (size_t)(slash - own));
	dir[slash - own] = '\0';
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		uint64_t start, now_start;
		int pid;

		if (sscanf(e->d_name, "door-%d-%" SCNu64, &pid, &start) != 2 || pid <= 0)
			continue;
		if (sd_xproc_start_time((pid_t)pid, &now_start) == DOCA_SUCCESS && now_start == start)
			continue; /* its process lives */
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (strcmp(path, own) != 0 && unlink(path) == 0)
			DOCA_LOG_DBG("Removed the door of pid %d, which is gone: %s", pid, path);
	}
	closedir(d);
}

static void
conn_drop(unsigned i)
{
	struct door_conn *c = &door.conns[i];

	if (c->held)
		sd_xproc_ptracer_release(c->pid);
	close(c->fd);
	door.conns[i] = door.conns[--door.nconns];
}

static void
door_accept(void)
{
	struct sd_xproc_peer peer;
	const char *reason = "";
	int fd;

	while ((fd = accept4(door.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (door.nconns == DOOR_CONNS || sd_xproc_peer_from_socket(fd, &peer, &reason) != DOCA_SUCCESS) {
			DOCA_LOG_DBG("door: connection refused (%s)",
				     door.nconns == DOOR_CONNS ? "too many peers at once" : reason);
			close(fd);
			continue;
		}
		door.conns[door.nconns++] =
			(struct door_conn){.fd = fd, .pid = peer.pid, .deadline = sd_now_ns() + DOOR_KNOCK_NS};
		sd_xproc_peer_fini(&peer); /* the pid is what Yama takes; the connection keeps it the peer's */
	}
}

/* Conn i is readable or hung up: its knock, or its end. */
static void
door_serve(unsigned i)
{
	struct door_conn *c = &door.conns[i];
	uint8_t buf[SD_XPROC_DOOR_KNOCK_LEN + 1], answer[SD_XPROC_DOOR_ANSWER_LEN];
	const char *reason = "";
	struct sd_xproc_ref ref;
	doca_error_t st;
	ssize_t n;

	n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || c->held) {
		conn_drop(i); /* gone, or a second record: either ends it */
		return;
	}
	st = sd_xproc_door_knock_parse(buf, (size_t)n, &ref, &reason);
	if (st == DOCA_SUCCESS && !sd_xproc_grant_live(&ref)) {
		st = DOCA_ERROR_NOT_PERMITTED;
		reason = "no grant of this process stands with that record and key";
	}
	if (st == DOCA_SUCCESS) {
		sd_xproc_ptracer_hold(c->pid);
		c->held = true;
	} else {
		DOCA_LOG_DBG("door: pid %d refused: %s", (int)c->pid, reason);
	}
	explicit_bzero(&ref, sizeof(ref));
	sd_xproc_door_answer_encode(st, answer);
	if (send(c->fd, answer, sizeof(answer), MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(answer) ||
	    st != DOCA_SUCCESS)
		conn_drop(i);
}

static void *
door_thread(void *arg)
{
	struct pollfd pfd[2 + DOOR_CONNS];
	bool stop = false;

	(void)arg;
	while (!stop) {
		unsigned n = door.nconns;
		uint64_t now;

		pfd[0] = (struct pollfd){.fd = door.evfd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = door.lfd, .events = POLLIN};
		for (unsigned i = 0; i < n; i++)
			pfd[2 + i] = (struct pollfd){.fd = door.conns[i].fd, .events = POLLIN};
		if (poll(pfd, 2 + n, 1000) < 0 && errno != EINTR) {
			DOCA_LOG_ERR("door: poll failed: %s; peers that knock from now on are not answered",
				     strerror(errno));
			break;
		}
		stop = (pfd[0].revents & POLLIN) != 0;
		/* from the last: conn_drop moves the last connection into the freed slot */
		now = sd_now_ns();
		for (unsigned i = n; i-- > 0;) {
			if (pfd[2 + i].revents != 0)
				door_serve(i);
			else if (!door.conns[i].held && now > door.conns[i].deadline)
				conn_drop(i);
		}
		if ((pfd[1].revents & POLLIN) != 0)
			door_accept();
	}
	while (door.nconns > 0)
		conn_drop(door.nconns - 1);
	return NULL;
}

/* The listening socket at door.path (opens == 0, lock held). */
static doca_error_t
door_listen(const char **reason)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	uint64_t start_time;
	doca_error_t err;

	err = sd_xproc_start_time(getpid(), &start_time);
	if (err != DOCA_SUCCESS) {
		*reason = "cannot read this process's start time from /proc/self/stat";
		return err;
	}
	err = door_path(getpid(), start_time, door.path, sizeof(door.path), reason);
	if (err != DOCA_SUCCESS)
		return err;
	door.lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (door.lfd < 0) {
		*reason = "cannot create a Unix socket";
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* a door of this pid and start time can only be this process's own, left by a program it exec'd from */
	(void)unlink(door.path);
	door_sweep(door.path);
	memcpy(addr.sun_path, door.path, sizeof(door.path));
	if (bind(door.lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || chmod(door.path, 0600) != 0 ||
	    listen(door.lfd, SOMAXCONN) != 0) {
		*reason = "cannot listen on the door's path in the runtime directory";
		(void)unlink(door.path);
		close(door.lfd);
		door.lfd = -1;
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

static void
door_unlisten(void)
{
	(void)unlink(door.path);
	door_sweep(door.path);
	close(door.lfd);
	door.lfd = -1;
}

doca_error_t
sd_xproc_door_open(const char **reason)
{
	sigset_t all, old;
	doca_error_t err = DOCA_SUCCESS;
	int rc;

	pthread_mutex_lock(&door.lock);
	if (door.opens > 0)
		goto counted;
	err = door_listen(reason);
	if (err != DOCA_SUCCESS)
		goto out;
	door.evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (door.evfd < 0) {
		*reason = "cannot create an eventfd";
		err = DOCA_ERROR_OPERATING_SYSTEM;
		door_unlisten();
		goto out;
	}
	/* the application's signals are its threads' business, not the door's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&door.thread, NULL, door_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		*reason = "cannot start the door's thread";
		err = DOCA_ERROR_OPERATING_SYSTEM;
		close(door.evfd);
		door.evfd = -1;
		door_unlisten();
		goto out;
	}
counted:
	door.opens++;
out:
	pthread_mutex_unlock(&door.lock);
	return err;
}

void
sd_xproc_door_close(void)
{
	uint64_t one = 1;

	pthread_mutex_lock(&door.lock);
	if (door.opens == 0 || --door.opens > 0) {
		pthread_mutex_unlock(&door.lock);
		return;
	}
	if (write(door.evfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		DOCA_LOG_ERR("door: cannot wake its thread (%s)", strerror(errno));
	pthread_join(door.thread, NULL);
	close(door.evfd);
	door.evfd = -1;
	door_unlisten();
	pthread_mutex_unlock(&door.lock);
}

/* Wait up to DOOR_ANSWER_MS for the answer on fd. */
static doca_error_t
knock_answer(int fd, const char **reason)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	uint8_t buf[SD_XPROC_DOOR_ANSWER_LEN + 1];
	doca_error_t err, st;
	ssize_t n;
	int rc;

	uint64_t until = sd_now_ns() + DOOR_ANSWER_MS * 1000000ull;

	do
		rc = poll(&pfd, 1, (int)((until - SD_MIN(until, sd_now_ns())) / 1000000ull));
	while (rc < 0 && errno == EINTR);
	if (rc == 0) {
		*reason = "the owner's door did not answer within 2 s";
		return DOCA_ERROR_TIME_OUT;
	}
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n <= 0) {
		*reason = "the owner's door closed without an answer";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = sd_xproc_door_answer_parse(buf, (size_t)n, &st, reason);
	if (err != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_PERMITTED;
	if (st != DOCA_SUCCESS)
		*reason = "the owner refused the knock: no grant of it stands with the descriptor's record and key";
	return st == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_NOT_PERMITTED;
}

doca_error_t
sd_xproc_door_knock(pid_t pid, uint64_t start_time, const struct sd_xproc_ref *ref, int *fd_out, const char **reason)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	uint8_t knock[SD_XPROC_DOOR_KNOCK_LEN];
	struct sd_xproc_peer owner;
	doca_error_t err;
	int fd;

	err = door_path(pid, start_time, addr.sun_path, sizeof(addr.sun_path), reason);
	if (err != DOCA_SUCCESS)
		return err;
	/* non-blocking: a door whose backlog is full fails the knock instead of holding the DOCA call */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*reason = "cannot create a Unix socket";
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		err = errno == ENOENT || errno == ECONNREFUSED ? DOCA_ERROR_NOT_FOUND
		      : errno == EAGAIN			       ? DOCA_ERROR_TIME_OUT
							       : DOCA_ERROR_OPERATING_SYSTEM;
		*reason = err == DOCA_ERROR_NOT_FOUND
				  ? "the owner has no door in this runtime directory (another SOFTDOCA_RUNTIME_DIR, or "
				    "an older softdoca)"
			  : err == DOCA_ERROR_TIME_OUT ? "the owner's door has more callers waiting than it queues"
						       : "cannot connect to the owner's door";
		close(fd);
		return err;
	}
	/* the key goes only to the process the descriptor names */
	err = sd_xproc_peer_from_socket(fd, &owner, reason);
	if (err == DOCA_SUCCESS && owner.pid != pid) {
		*reason = "the door is not the owner's (another process listens there)";
		err = DOCA_ERROR_NOT_PERMITTED;
	}
	sd_xproc_peer_fini(&owner);
	if (err != DOCA_SUCCESS) {
		close(fd);
		return err;
	}
	sd_xproc_door_knock_encode(ref, knock);
	if (send(fd, knock, sizeof(knock), MSG_NOSIGNAL) != (ssize_t)sizeof(knock)) {
		*reason = "the owner's door closed before the knock";
		err = DOCA_ERROR_NOT_PERMITTED;
	} else {
		err = knock_answer(fd, reason);
	}
	explicit_bzero(knock, sizeof(knock));
	if (err != DOCA_SUCCESS) {
		close(fd);
		return err;
	}
	*fd_out = fd;
	return DOCA_SUCCESS;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Verbs address service (src/fabric/fabric_addr.h) over loopback: QPN
 * layout, publish / bind / remove as a resolver sees them, two processes
 * resolving each other, slot collisions, a killed or silent owner, and
 * garbage, slow and spoofing clients next to a good one.  The default
 * topology's devices sit on lo (127.0.0.1).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>

#include "dev_internal.h"
#include "sd_test.h"
#include "fabric/fabric_addr.h"
#include "fabric/fabric_addr_proto.h"

#define TMO_SHORT 150 /* ms: resolves that must fail */

/* A device with an IPv4 address (devinfos live as long as the process). */
static const struct doca_devinfo *
local_dev(void)
{
	const struct doca_devinfo *found = NULL;
	struct doca_devinfo **list;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && found == NULL; i++)
		if (list[i]->has_ipv4)
			found = list[i];
	ASSERT_OK(doca_devinfo_destroy_list(list));
	if (found == NULL)
		SKIP("no device with an IPv4 address in the topology");
	return found;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint16_t
port_of(uint32_t qpn)
{
	const char *b = getenv("SOFTDOCA_VERBS_PORT_BASE");
	unsigned base = b != NULL && b[0] != '\0' ? (unsigned)atoi(b) : SD_FABRIC_ADDR_PORT_BASE_DEFAULT;

	return (uint16_t)(base + sd_fabric_addr_qpn_slot(qpn));
}

static size_t
make_blob(uint8_t *buf, uint32_t tag, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(tag * 31 + i * 7);
	return len;
}

/* resolve from dev with src_qpn; returns the error, checks *len untouched on failure. */
static doca_error_t
resolve(const struct doca_devinfo *dev, uint32_t qpn, uint32_t src_qpn, uint8_t *out, size_t *len, uint32_t tmo,
	const char **why)
{
	size_t l = 0xdead;
	doca_error_t err =
		sd_fabric_addr_resolve(dev, dev->gid, qpn, src_qpn, out, SD_FABRIC_ADDR_BLOB_MAX, &l, tmo, why);

	if (err != DOCA_SUCCESS)
		ASSERT_EQ(l, 0xdead);
	if (len != NULL)
		*len = l;
	return err;
}

/* A plain TCP connection to 127.0.0.1:port from src (NULL: any). */
static int
raw_connect(uint16_t port, const char *src)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ASSERT(fd >= 0);
	if (src != NULL) {
		struct sockaddr_in s = {.sin_family = AF_INET};

		inet_pton(AF_INET, src, &s.sin_addr);
		ASSERT_EQ(bind(fd, (struct sockaddr *)&s, sizeof(s)), 0);
	}
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	ASSERT_EQ(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* True when the server closed fd (EOF or reset) within ms, without sending anything. */
static bool
closed_within(int fd, int ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
	char c;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ssize_t n = recv(fd, &c, 1, 0);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

static pid_t
fork_child(int sv[2])
{
	pid_t pid;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ASSERT(pid >= 0);
	return pid;
}

static void
put32(int fd, uint32_t v)
{
	ASSERT_EQ(write(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
}

static uint32_t
get32(int fd)
{
	uint32_t v = 0;

	ASSERT_EQ(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	return v;
}

static void
reap_ok(pid_t pid)
{
	int status;

	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

TEST(qpn_layout_and_round_robin)
{
	const struct doca_devinfo *dev = local_dev();
	uint32_t a, b, c;

	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_OK(sd_fabric_addr_add(dev, &b));
	ASSERT(sd_fabric_addr_qpn_valid(a) && sd_fabric_addr_qpn_valid(b));
	ASSERT_EQ(sd_fabric_addr_qpn_slot(a), sd_fabric_addr_qpn_slot(b));
	ASSERT_NE(a, b);
	/* A QPN given back is not the next one handed out. */
	sd_fabric_addr_remove(b);
	ASSERT_OK(sd_fabric_addr_add(dev, &c));
	ASSERT_NE(c, b);
	ASSERT_NE(c, a);
	sd_fabric_addr_remove(a);
	sd_fabric_addr_remove(c);
	/* ... nor after the service stopped and restarted with the last QPN. */
	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_NE(a, b);
	ASSERT_NE(a, c);
	sd_fabric_addr_remove(a);
}

TEST(argument_checks)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[SD_FABRIC_ADDR_BLOB_MAX + 1] = {0}, out[8];
	uint8_t mcast[16] = {0xff, 0x02}, unspec[16] = {0};
	const char *why = NULL;
	uint32_t q;
	size_t len = 0;

	ASSERT_ERR(sd_fabric_addr_add(NULL, &q), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_addr_add(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(sd_fabric_addr_add(dev, &q));
	ASSERT_ERR(sd_fabric_addr_publish(q, blob, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_addr_publish(q, blob, SD_FABRIC_ADDR_BLOB_MAX + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_addr_publish(q, NULL, 4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_addr_publish(q ^ 0x3fff, blob, 4), DOCA_ERROR_NOT_FOUND);
	ASSERT_ERR(sd_fabric_addr_publish(0, blob, 4), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(sd_fabric_addr_publish(q, blob, SD_FABRIC_ADDR_BLOB_MAX));
	ASSERT_ERR(sd_fabric_addr_resolve(dev, mcast, q, q, out, sizeof(out), &len, 10, &why),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_NOT_NULL(why);
	ASSERT_ERR(sd_fabric_addr_resolve(dev, unspec, q, q, out, sizeof(out), &len, 10, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_addr_resolve(dev, dev->gid, q, 0, out, sizeof(out), &len, 10, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_addr_resolve(dev, dev->gid, q & SD_FABRIC_ADDR_INDEX_MASK, q, out, sizeof(out), &len, 10,
					  NULL),
		   DOCA_ERROR_NOT_FOUND);
	/* 4096 bytes do not fit 8. */
	ASSERT_ERR(sd_fabric_addr_resolve(dev, dev->gid, q, q, out, sizeof(out), &len, 1000, &why), DOCA_ERROR_TOO_BIG);
	ASSERT_EQ(len, 0);
	sd_fabric_addr_remove(q);
}

TEST(publish_resolve_one_process)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[300], out[SD_FABRIC_ADDR_BLOB_MAX];
	const char *why = NULL;
	uint32_t a, b;
	size_t len;

	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_OK(sd_fabric_addr_add(dev, &b));
	ASSERT_OK(sd_fabric_addr_publish(a, blob, make_blob(blob, 1, sizeof(blob))));
	ASSERT_OK(resolve(dev, a, b, out, &len, 1000, &why));
	ASSERT_EQ(len, sizeof(blob));
	ASSERT_MEM_EQ(out, blob, sizeof(blob));
	/* A later publish replaces the blob. */
	ASSERT_OK(sd_fabric_addr_publish(a, blob, make_blob(blob, 2, 17)));
	ASSERT_OK(resolve(dev, a, b, out, &len, 1000, &why));
	ASSERT_EQ(len, 17);
	ASSERT_MEM_EQ(out, blob, 17);
	sd_fabric_addr_remove(a);
	sd_fabric_addr_remove(b);
}

TEST(unpublished_is_not_found_after_timeout)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t out[SD_FABRIC_ADDR_BLOB_MAX];
	const char *why = NULL;
	uint64_t t0;
	uint32_t a;

	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	t0 = now_ms();
	ASSERT_ERR(resolve(dev, a, a, out, NULL, TMO_SHORT, &why), DOCA_ERROR_NOT_FOUND);
	ASSERT(now_ms() - t0 >= TMO_SHORT);
	ASSERT(now_ms() - t0 < TMO_SHORT + 1000);
	ASSERT_NOT_NULL(why);
	ASSERT(strstr(why, "not ready") != NULL);
	sd_fabric_addr_remove(a);
}

struct late {
	uint32_t qpn;
	uint8_t blob[64];
};

static void *
publish_later(void *arg)
{
	struct late *l = arg;
	struct timespec ts = {0, 60 * 1000000};

	nanosleep(&ts, NULL);
	sd_fabric_addr_publish(l->qpn, l->blob, sizeof(l->blob));
	return NULL;
}

TEST(not_ready_is_retried_until_published)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t out[SD_FABRIC_ADDR_BLOB_MAX];
	struct late l;
	pthread_t t;
	size_t len;

	ASSERT_OK(sd_fabric_addr_add(dev, &l.qpn));
	make_blob(l.blob, 9, sizeof(l.blob));
	ASSERT_EQ(pthread_create(&t, NULL, publish_later, &l), 0);
	ASSERT_OK(resolve(dev, l.qpn, l.qpn, out, &len, 2000, NULL));
	ASSERT_EQ(len, sizeof(l.blob));
	ASSERT_MEM_EQ(out, l.blob, sizeof(l.blob));
	pthread_join(t, NULL);
	sd_fabric_addr_remove(l.qpn);
}

TEST(bound_to_another_peer_is_refused)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[32], out[SD_FABRIC_ADDR_BLOB_MAX], other_gid[16];
	const char *why = NULL;
	uint32_t a, peer, stranger;
	size_t len;

	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_OK(sd_fabric_addr_add(dev, &peer));
	ASSERT_OK(sd_fabric_addr_add(dev, &stranger));
	ASSERT_OK(sd_fabric_addr_publish(a, blob, make_blob(blob, 3, sizeof(blob))));
	sd_fabric_addr_bind(a, dev->gid, peer);
	ASSERT_ERR(resolve(dev, a, stranger, out, NULL, 1000, &why), DOCA_ERROR_CONNECTION_ABORTED);
	ASSERT(strstr(why, "bound to another peer") != NULL);
	ASSERT_OK(resolve(dev, a, peer, out, &len, 1000, NULL));
	ASSERT_MEM_EQ(out, blob, sizeof(blob));
	/* The GID counts too: same QPN, another GID. */
	memcpy(other_gid, dev->gid, 16);
	other_gid[15] ^= 1;
	sd_fabric_addr_bind(a, other_gid, peer);
	ASSERT_ERR(resolve(dev, a, peer, out, NULL, 1000, NULL), DOCA_ERROR_CONNECTION_ABORTED);
	sd_fabric_addr_remove(a);
	sd_fabric_addr_remove(peer);
	sd_fabric_addr_remove(stranger);
}

TEST(removed_is_not_found)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[32], out[SD_FABRIC_ADDR_BLOB_MAX];
	const char *why = NULL;
	uint32_t a, keep;

	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_OK(sd_fabric_addr_add(dev, &keep));
	ASSERT_OK(sd_fabric_addr_publish(a, blob, make_blob(blob, 4, sizeof(blob))));
	sd_fabric_addr_remove(a);
	ASSERT_ERR(resolve(dev, a, keep, out, NULL, TMO_SHORT, &why), DOCA_ERROR_NOT_FOUND);
	ASSERT(strstr(why, "has no QP") != NULL);
	ASSERT_ERR(sd_fabric_addr_publish(a, blob, 4), DOCA_ERROR_NOT_FOUND);
	/* The last QPN gone, the listener is closed: nobody listens on the port. */
	sd_fabric_addr_remove(keep);
	ASSERT_ERR(resolve(dev, keep, keep, out, NULL, TMO_SHORT, &why), DOCA_ERROR_NOT_FOUND);
	/* (another process may have taken the port meanwhile: then it has no such QP either) */
	ASSERT(strstr(why, "refused") != NULL || strstr(why, "has no QP") != NULL);
}

TEST(three_hundred_qpns)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[100], out[SD_FABRIC_ADDR_BLOB_MAX];
	uint32_t q[300];
	size_t len;

	for (int i = 0; i < 300; i++) {
		ASSERT_OK(sd_fabric_addr_add(dev, &q[i]));
		for (int j = 0; j < i; j++)
			ASSERT_NE(q[i], q[j]);
		ASSERT_OK(sd_fabric_addr_publish(q[i], blob, make_blob(blob, (uint32_t)i, 20 + (size_t)i % 80)));
	}
	for (int i = 0; i < 300; i++) {
		ASSERT_OK(resolve(dev, q[i], q[(i + 1) % 300], out, &len, 1000, NULL));
		make_blob(blob, (uint32_t)i, sizeof(blob));
		ASSERT_EQ(len, 20 + i % 80);
		ASSERT_MEM_EQ(out, blob, len);
	}
	for (int i = 0; i < 300; i++)
		sd_fabric_addr_remove(q[i]);
}

/* Child: one published QPN; sends it, resolves the parent's, checks the blob, exits. */
static void
peer_child(int sock)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[64], out[SD_FABRIC_ADDR_BLOB_MAX];
	uint32_t mine, theirs;
	size_t len;

	ASSERT_OK(sd_fabric_addr_add(dev, &mine));
	ASSERT_OK(sd_fabric_addr_publish(mine, blob, make_blob(blob, mine, sizeof(blob))));
	put32(sock, mine);
	theirs = get32(sock);
	ASSERT_OK(resolve(dev, theirs, mine, out, &len, 3000, NULL));
	make_blob(blob, theirs, sizeof(blob));
	ASSERT_EQ(len, sizeof(blob));
	ASSERT_MEM_EQ(out, blob, sizeof(blob));
	sd_fabric_addr_bind(mine, dev->gid, theirs);
	put32(sock, 1);
	(void)get32(sock); /* the parent resolved ours: leave */
	sd_fabric_addr_remove(mine);
	_exit(0);
}

TEST(two_processes_resolve_each_other)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[64], out[SD_FABRIC_ADDR_BLOB_MAX];
	uint32_t mine, theirs;
	int sv[2];
	size_t len;
	pid_t pid = fork_child(sv);

	if (pid == 0) {
		close(sv[0]);
		peer_child(sv[1]);
	}
	close(sv[1]);
	ASSERT_OK(sd_fabric_addr_add(dev, &mine));
	ASSERT_OK(sd_fabric_addr_publish(mine, blob, make_blob(blob, mine, sizeof(blob))));
	theirs = get32(sv[0]);
	/* Different processes on one IP: different slots, so different ports. */
	ASSERT_NE(sd_fabric_addr_qpn_slot(mine), sd_fabric_addr_qpn_slot(theirs));
	put32(sv[0], mine);
	ASSERT_EQ(get32(sv[0]), 1);
	/* The child bound its QP to us: we (mine) get it, another QPN of ours does not. */
	ASSERT_OK(resolve(dev, theirs, mine, out, &len, 3000, NULL));
	make_blob(blob, theirs, sizeof(blob));
	ASSERT_MEM_EQ(out, blob, sizeof(blob));
	ASSERT_ERR(resolve(dev, theirs, mine ^ 1, out, NULL, 1000, NULL), DOCA_ERROR_CONNECTION_ABORTED);
	put32(sv[0], 2);
	reap_ok(pid);
	sd_fabric_addr_remove(mine);
}

/*
 * Two processes whose first-choice port is the same one: the child takes it,
 * the parent (its port base shifted so its pid-derived slot lands there)
 * skips it.
 */
TEST(slot_collision_between_processes)
{
	const struct doca_devinfo *dev = local_dev();
	uint32_t child_qpn, mine, start = (uint32_t)getpid() % SD_FABRIC_ADDR_MAX_SLOT + 1;
	char base[16];
	int sv[2];
	pid_t pid;

	setenv("SOFTDOCA_VERBS_PORT_BASE", "20000", 1);
	pid = fork_child(sv);
	if (pid == 0) {
		uint32_t q;

		ASSERT_OK(sd_fabric_addr_add(dev, &q));
		put32(sv[1], q);
		(void)get32(sv[1]);
		_exit(0);
	}
	child_qpn = get32(sv[0]);
	snprintf(base, sizeof(base), "%u", (unsigned)port_of(child_qpn) - start);
	setenv("SOFTDOCA_VERBS_PORT_BASE", base, 1);
	ASSERT_OK(sd_fabric_addr_add(dev, &mine));
	ASSERT_NE(port_of(mine), 20000 + sd_fabric_addr_qpn_slot(child_qpn));
	ASSERT_NE(sd_fabric_addr_qpn_slot(mine), start);
	put32(sv[0], 0);
	reap_ok(pid);
	sd_fabric_addr_remove(mine);
}

/* A port of our own that some other program holds: add() moves on. */
TEST(slot_in_use_by_a_foreign_listener_is_skipped)
{
	const struct doca_devinfo *dev = local_dev();
	uint32_t start = (uint32_t)getpid() % SD_FABRIC_ADDR_MAX_SLOT + 1, q;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(21500 + start))};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	setenv("SOFTDOCA_VERBS_PORT_BASE", "21500", 1);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0)
		SKIP("the test's port is taken by someone else");
	ASSERT_OK(sd_fabric_addr_add(dev, &q));
	ASSERT_NE(sd_fabric_addr_qpn_slot(q), start);
	sd_fabric_addr_remove(q);
	close(fd);
}

/* A fake owner: listens on the port, accepts, never answers; killed by the parent. */
static void
silent_owner(int sock, uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	put32(sock, bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 8) == 0);
	for (;;)
		(void)accept(fd, NULL, NULL); /* kept open, never answered */
}

struct killer {
	pid_t pid;
	int ms;
};

static void *
kill_later(void *arg)
{
	struct killer *k = arg;
	struct timespec ts = {k->ms / 1000, (k->ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
	kill(k->pid, SIGKILL);
	return NULL;
}

TEST(owner_killed_mid_way_does_not_hang)
{
	const struct doca_devinfo *dev = local_dev();
	uint32_t qpn = sd_fabric_addr_qpn(SD_FABRIC_ADDR_MAX_SLOT - (uint32_t)getpid() % 100, 5);
	uint8_t out[SD_FABRIC_ADDR_BLOB_MAX];
	struct killer k = {.ms = 200};
	const char *why = NULL;
	pthread_t t;
	uint64_t t0;
	int sv[2];

	setenv("SOFTDOCA_VERBS_PORT_BASE", "22500", 1);
	k.pid = fork_child(sv);
	if (k.pid == 0)
		silent_owner(sv[1], port_of(qpn));
	if (get32(sv[0]) != 1) {
		kill(k.pid, SIGKILL);
		waitpid(k.pid, NULL, 0);
		SKIP("the test's port is taken by someone else");
	}
	/* Connected and waiting for an answer when the owner dies: refused from then on. */
	ASSERT_EQ(pthread_create(&t, NULL, kill_later, &k), 0);
	t0 = now_ms();
	ASSERT_ERR(sd_fabric_addr_resolve(dev, dev->gid, qpn, 7, out, sizeof(out), &(size_t){0}, 1000, &why),
		   DOCA_ERROR_NOT_FOUND);
	ASSERT(now_ms() - t0 >= 200);
	ASSERT(now_ms() - t0 < 2500);
	ASSERT(strstr(why, "refused") != NULL);
	pthread_join(t, NULL);
	waitpid(k.pid, NULL, 0);
}

TEST(silent_owner_is_a_time_out)
{
	const struct doca_devinfo *dev = local_dev();
	uint32_t qpn = sd_fabric_addr_qpn(SD_FABRIC_ADDR_MAX_SLOT - (uint32_t)getpid() % 100, 6);
	uint8_t out[SD_FABRIC_ADDR_BLOB_MAX];
	const char *why = NULL;
	uint64_t t0;
	int sv[2];
	pid_t pid;

	setenv("SOFTDOCA_VERBS_PORT_BASE", "23500", 1);
	pid = fork_child(sv);
	if (pid == 0)
		silent_owner(sv[1], port_of(qpn));
	if (get32(sv[0]) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP("the test's port is taken by someone else");
	}
	t0 = now_ms();
	ASSERT_ERR(sd_fabric_addr_resolve(dev, dev->gid, qpn, 7, out, sizeof(out), &(size_t){0}, 300, &why),
		   DOCA_ERROR_TIME_OUT);
	ASSERT(now_ms() - t0 >= 300);
	ASSERT(now_ms() - t0 < 1500);
	ASSERT(strstr(why, "did not answer") != NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST(garbage_and_slow_clients_do_not_block_a_good_one)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[48], out[SD_FABRIC_ADDR_BLOB_MAX], junk[40];
	struct sd_fabric_addr_req req = {0};
	int slow[8], partial, garbage, spoof;
	uint64_t t0;
	uint32_t a;
	size_t len;

	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_OK(sd_fabric_addr_publish(a, blob, make_blob(blob, 5, sizeof(blob))));
	for (int i = 0; i < 8; i++)
		slow[i] = raw_connect(port_of(a), NULL); /* never send */
	partial = raw_connect(port_of(a), NULL);
	ASSERT_EQ(send(partial, "VADR", 4, 0), 4);
	garbage = raw_connect(port_of(a), NULL);
	memset(junk, 0x5a, sizeof(junk));
	ASSERT_EQ(send(garbage, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	/* A well-formed request whose source GID is not the connection's source: refused. */
	spoof = raw_connect(port_of(a), "127.0.0.2");
	req.dest_qpn = a;
	req.src_qpn = 3;
	memcpy(req.src_gid, dev->gid, 16);
	sd_fabric_addr_req_encode(&req, junk);
	ASSERT_EQ(send(spoof, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));

	t0 = now_ms();
	ASSERT_OK(resolve(dev, a, a, out, &len, 400, NULL));
	ASSERT(now_ms() - t0 < 300); /* well before the slow ones' 500 ms deadline */
	ASSERT_MEM_EQ(out, blob, sizeof(blob));
	ASSERT(closed_within(garbage, 1000));
	ASSERT(closed_within(spoof, 1000));
	/* The slow ones are cut at their deadline. */
	ASSERT(closed_within(partial, 2000));
	for (int i = 0; i < 8; i++) {
		ASSERT(closed_within(slow[i], 2000));
		close(slow[i]);
	}
	close(partial);
	close(garbage);
	close(spoof);
	ASSERT_OK(resolve(dev, a, a, out, &len, 400, NULL));
	sd_fabric_addr_remove(a);
}

static void *
churn(void *arg)
{
	const struct doca_devinfo *dev = arg;
	uint8_t blob[40], out[SD_FABRIC_ADDR_BLOB_MAX];
	uint32_t q[20];
	size_t len;

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 20; i++) {
			if (sd_fabric_addr_add(dev, &q[i]) != DOCA_SUCCESS)
				return (void *)1;
			sd_fabric_addr_publish(q[i], blob, make_blob(blob, q[i], sizeof(blob)));
		}
		for (int i = 0; i < 20; i++) {
			if (resolve(dev, q[i], q[0], out, &len, 2000, NULL) != DOCA_SUCCESS)
				return (void *)2;
			make_blob(blob, q[i], sizeof(blob));
			if (len != sizeof(blob) || memcmp(out, blob, len) != 0)
				return (void *)3;
		}
		for (int i = 0; i < 20; i++)
			sd_fabric_addr_remove(q[i]);
	}
	return NULL;
}

/* Threads adding, resolving and removing at once; the service starts and stops under them. */
TEST(threads_add_resolve_remove_at_once)
{
	const struct doca_devinfo *dev = local_dev();
	pthread_t t[8];
	void *res;

	for (int i = 0; i < 8; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, churn, (void *)dev), 0);
	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(pthread_join(t[i], &res), 0);
		ASSERT_PTR_EQ(res, NULL);
	}
}

TEST(fork_child_starts_its_own_service)
{
	const struct doca_devinfo *dev = local_dev();
	uint8_t blob[64], out[SD_FABRIC_ADDR_BLOB_MAX];
	const char *why = NULL;
	int status = 0;
	uint32_t a;
	size_t len;
	pid_t pid;
#ifdef __SANITIZE_THREAD__
	/* TSan refuses threads in a child of a threaded process ("dup thread with used id") */
	SKIP("ThreadSanitizer cannot run a forked child that starts threads (make test-tsan)");
#endif

	/* earlier cases' slow clients are gone (their 500 ms), the service is up and idle */
	usleep(600 * 1000);
	ASSERT_OK(sd_fabric_addr_add(dev, &a));
	ASSERT_OK(sd_fabric_addr_publish(a, blob, make_blob(blob, 3, sizeof(blob))));
	ASSERT_OK(resolve(dev, a, a, out, &len, 1000, &why));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		/* the child's own QPN resolves (a service of its own), and so does the parent's */
		uint32_t c;

		alarm(20); /* a hang ends the child, and the parent's check says so */
		uint8_t mine[32];
		bool ok = sd_fabric_addr_add(dev, &c) == DOCA_SUCCESS &&
			  sd_fabric_addr_qpn_slot(c) != sd_fabric_addr_qpn_slot(a) &&
			  sd_fabric_addr_publish(c, mine, make_blob(mine, 4, sizeof(mine))) == DOCA_SUCCESS &&
			  sd_fabric_addr_resolve(dev, dev->gid, c, c, out, sizeof(out), &len, 2000, &why) ==
				  DOCA_SUCCESS &&
			  len == sizeof(mine) &&
			  sd_fabric_addr_resolve(dev, dev->gid, a, c, out, sizeof(out), &len, 2000, &why) ==
				  DOCA_SUCCESS &&
			  len == sizeof(blob);

		sd_fabric_addr_remove(a); /* the parent's: a no-op here */
		sd_fabric_addr_remove(c);
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		sd_test_fail(__FILE__, __LINE__, "the forked child %s %d",
			     WIFEXITED(status) ? "exited with" : "died of signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	/* the parent's service kept running */
	ASSERT_OK(resolve(dev, a, a, out, &len, 1000, &why));
	ASSERT_EQ(len, sizeof(blob));
	sd_fabric_addr_remove(a);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

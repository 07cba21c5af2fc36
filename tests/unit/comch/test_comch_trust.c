/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Comch fast path as an attacker sees it (docs/security.md "One rule for
 * every cross-process copy").  A raw client speaks the wire format to a real
 * server whose producer sends to every consumer announced: whatever the
 * announcement names, the producer writes only into the connected process and
 * only inside what that process granted, and a broken rule ends that one
 * connection while the server keeps serving.  Also: a real consumer's slot
 * outside its grant, the runtime directory and socket modes, a client of
 * another user.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>

#include "comch_internal.h"
#include "comch_pair.h"
#include "dev_test.h"
#include "xproc.h"

#define PAYLOAD "written by the server's producer"

/*
 * A consumer's memory as the raw client lays it out.  Every process of the test
 * is a fork of the first, so this object has the same address in the server, in
 * the attacker and in the bystander: a forged announcement can name it exactly.
 */
static struct {
	struct sd_comch_ring ring;
	struct sd_comch_ring_slot slot;
	uint8_t buf[4096];
	struct sd_xproc_rec fake[2]; /* records the attacker writes into its own memory */
} target __attribute__((aligned(64)));

static void
target_init(void)
{
	memset(&target, 0, sizeof(target));
	target.ring.posted = 1;
	target.ring.cap = 1;
	target.slot.addr = (uint64_t)(uintptr_t)target.buf;
	target.slot.len = sizeof(target.buf);
	memset(target.buf, 0x5a, sizeof(target.buf));
}

static bool
target_untouched(const uint8_t *buf)
{
	for (size_t i = 0; i < sizeof(target.buf); i++)
		if (buf[i] != 0x5a)
			return false;
	return true;
}

/* --- the raw client ----------------------------------------------------------------- */

static struct sockaddr_un server_addr = {.sun_family = AF_UNIX};

static int
raw_connect(void)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&server_addr, sizeof(server_addr)) != 0)
		_exit(20);
	return fd;
}

static void
raw_send(int fd, enum sd_comch_type type, uint16_t version, uint32_t arg, const void *p, uint32_t len)
{
	uint8_t rec[SD_COMCH_MAX_RECORD];
	struct sd_comch_hdr h;

	sd_comch_hdr_init(&h, type, len, arg);
	h.version = htole16(version);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), p, len);
	if (send(fd, rec, sizeof(h) + len, MSG_NOSIGNAL) < 0)
		_exit(21);
}

/* HELLO as a client of the fixture's service; returns the WELCOME status. */
static uint32_t
raw_hello(int fd)
{
	uint8_t p[sizeof(struct sd_comch_hello) + sizeof(PAIR_NAME) - 1] = {0}, in[SD_COMCH_MAX_RECORD];
	struct sd_comch_hello h = {0};
	struct sd_comch_msg m;
	const char *why;
	ssize_t n;

	h.pid = htole32(1); /* a lie, which nobody believes */
	h.max_msg = htole32(4080);
	h.recv_queue = htole32(16);
	h.name_len = htole32(sizeof(PAIR_NAME) - 1);
	snprintf(h.pci_addr, sizeof(h.pci_addr), "0000:b1:00.0");
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), PAIR_NAME, sizeof(PAIR_NAME) - 1);
	raw_send(fd, SD_COMCH_HELLO, SD_COMCH_PROTO_VERSION, 0, p, sizeof(p));
	n = recv(fd, in, sizeof(in), 0);
	if (n <= 0 || sd_comch_parse(in, (size_t)n, &m, &why) != DOCA_SUCCESS || m.type != SD_COMCH_WELCOME)
		_exit(22);
	return m.u.welcome.status;
}

/* Wait up to ms for the server to end the connection: 0 closed, 1 still open. */
static int
raw_wait_closed(int fd, int ms)
{
	uint8_t in[SD_COMCH_MAX_RECORD];
	struct pollfd p = {.fd = fd, .events = POLLIN};

	while (poll(&p, 1, ms) == 1) {
		if (recv(fd, in, sizeof(in), MSG_DONTWAIT) <= 0)
			return 0;
	}
	return 1;
}

enum forgery {
	FORGE_V1_THIRD_PID, /* the old layout: another process's pid and a ring in it */
	FORGE_NO_RECORDS,   /* the new layout, grant addresses that hold no record */
	FORGE_OWN_RECORDS,  /* valid-looking records in the attacker's own memory */
};

/* The attacker: announce consumer 7 as the forgery says; exit 0 if the server hung up, 2 if it wrote us. */
static void
attacker(enum forgery how, pid_t bystander)
{
	uint8_t c[64] = {0};
	uint64_t v;
	int fd = raw_connect();

	if (raw_hello(fd) != 0)
		_exit(23);
	if (how == FORGE_V1_THIRD_PID) {
		uint32_t pid = htole32((uint32_t)bystander), cap = htole32(1);

		memcpy(c, &pid, 4);
		memcpy(c + 4, &cap, 4);
		v = htole64((uint64_t)(uintptr_t)&target.ring);
		memcpy(c + 8, &v, 8);
		raw_send(fd, SD_COMCH_CONSUMER_NEW, 1, 7, c, 16);
		_exit(raw_wait_closed(fd, 3000));
	}
	v = htole32(1);
	memcpy(c, &v, 4);
	v = htole64((uint64_t)(uintptr_t)&target.ring);
	memcpy(c + 8, &v, 8);
	v = htole64((uint64_t)(uintptr_t)&target.fake[0]);
	memcpy(c + 16, &v, 8);
	v = htole64((uint64_t)(uintptr_t)&target.fake[1]);
	memcpy(c + 40, &v, 8);
	if (how == FORGE_OWN_RECORDS) {
		/* This process grants itself its ring and buffer: writing here is allowed, and only here. */
		for (int i = 0; i < 2; i++) {
			target.fake[i].magic = SD_XPROC_REC_MAGIC;
			target.fake[i].live = 1;
			target.fake[i].perm = i == 0 ? SD_XPROC_READ : SD_XPROC_WRITE;
			target.fake[i].addr =
				i == 0 ? (uint64_t)(uintptr_t)&target.ring : (uint64_t)(uintptr_t)target.buf;
			target.fake[i].len = i == 0 ? sizeof(target.ring) + sizeof(target.slot) : sizeof(target.buf);
			memset(target.fake[i].key, 0x11 * (i + 1), SD_XPROC_KEY_LEN);
			memcpy(c + (i == 0 ? 24 : 48), target.fake[i].key, SD_XPROC_KEY_LEN);
		}
	}
	raw_send(fd, SD_COMCH_CONSUMER_NEW, SD_COMCH_PROTO_VERSION, 7, c, sizeof(c));
	if (how == FORGE_NO_RECORDS)
		_exit(raw_wait_closed(fd, 3000));
	for (int i = 0; i < 300; i++) {
		if (memcmp(target.buf, PAYLOAD, sizeof(PAYLOAD)) == 0)
			_exit(2);
		usleep(10000);
	}
	_exit(3);
}

/* --- the server: a producer for every consumer announced ------------------------------- */

static struct doca_comch_connection *announced_conn;
static uint32_t announced_id;
static int num_sent, num_send_failed;

static void
on_consumer_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	announced_conn = conn;
	announced_id = id;
}

static void
on_consumer_gone(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

static void
sent_ok(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	num_sent++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void
sent_err(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	num_send_failed++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

struct server {
	struct doca_dev *dpu, *host;
	struct doca_dev_rep *rep;
	struct side s;
	struct doca_mmap *tx_mmap;
	struct doca_buf_inventory *inv;
	uint8_t tx[4096];
};

static void
server_up(struct server *sv)
{
	pair_env();
	sv->host = open_dev("b1:00.0");
	sv->dpu = open_dev("03:00.0");
	sv->rep = open_rep(sv->dpu, "b1:00.0");
	server_init(&sv->s, sv->dpu, sv->rep, PAIR_NAME);
	ASSERT_OK(doca_comch_server_event_consumer_register(sv->s.server, on_consumer_new, on_consumer_gone));
	ASSERT_OK(doca_ctx_start(sv->s.ctx));
	ASSERT_OK(sd_comch_sock_path("0000:b1:00.0", PAIR_NAME, server_addr.sun_path, sizeof(server_addr.sun_path)));
	memcpy(sv->tx, PAYLOAD, sizeof(PAYLOAD));
	ASSERT_OK(doca_mmap_create(&sv->tx_mmap));
	ASSERT_OK(doca_mmap_add_dev(sv->tx_mmap, sv->dpu));
	ASSERT_OK(doca_mmap_set_memrange(sv->tx_mmap, sv->tx, sizeof(sv->tx)));
	ASSERT_OK(doca_mmap_set_permissions(sv->tx_mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(sv->tx_mmap));
	ASSERT_OK(doca_buf_inventory_create(8, &sv->inv));
	ASSERT_OK(doca_buf_inventory_start(sv->inv));
}

/* Send PAYLOAD to the announced consumer with a fresh producer, as DOCA's data-path sample does. */
static void
server_produce(struct server *sv)
{
	struct doca_comch_producer *prod;
	struct doca_comch_producer_task_send *t;
	struct doca_buf *buf;
	struct doca_pe *pe;
	doca_error_t r;

	ASSERT_OK(doca_comch_producer_create(announced_conn, &prod));
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(prod)));
	ASSERT_OK(doca_comch_producer_task_send_set_conf(prod, sent_ok, sent_err, 4));
	ASSERT_OK(doca_ctx_start(doca_comch_producer_as_ctx(prod)));
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(sv->inv, sv->tx_mmap, sv->tx, sizeof(PAYLOAD), &buf));
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(prod, buf, NULL, 0, announced_id, &t));
	r = doca_task_submit(doca_comch_producer_task_send_as_task(t));
	ASSERT_OK(r);
	for (int i = 0; i < 1000 && num_sent + num_send_failed == 0; i++)
		(void)doca_pe_progress(pe);
	ASSERT_OK(doca_buf_dec_refcount(buf, NULL));
	(void)doca_ctx_stop(doca_comch_producer_as_ctx(prod));
	for (int i = 0; i < 1000; i++)
		(void)doca_pe_progress(pe);
	ASSERT_OK(doca_comch_producer_destroy(prod));
	ASSERT_OK(doca_pe_destroy(pe));
}

/* Run one attacker against the server; returns its exit status. */
static int
attack(struct server *sv, enum forgery how, pid_t bystander)
{
	struct side *all[1] = {&sv->s};
	int64_t polls = 0;
	int status = -1;
	pid_t a;

	announced_conn = NULL;
	a = fork();
	ASSERT(a >= 0);
	if (a == 0)
		attacker(how, bystander);
	while (waitpid(a, &status, WNOHANG) == 0) {
		progress_for(all, 1, 5);
		if (announced_conn != NULL) {
			server_produce(sv);
			announced_conn = NULL;
		}
		ASSERT(++polls < 2000); /* 10 s */
	}
	ASSERT(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static bool
client_running(void *arg)
{
	return ((struct side *)arg)->state == DOCA_CTX_STATE_RUNNING && ((struct side *)arg)->num_recv > 0;
}

/* A real client still gets served: connect, send, receive the echo. */
static void
still_serving(struct server *sv)
{
	struct side c = {0};
	struct side *all[2] = {&sv->s, &c};

	sv->s.reply = true;
	client_init(&c, sv->host, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(c.ctx), DOCA_ERROR_IN_PROGRESS);
	while (c.state != DOCA_CTX_STATE_RUNNING)
		progress_for(all, 2, 1);
	ASSERT_OK(side_send(&c, c.conn, "ping", 4));
	progress_until(all, 2, client_running, &c, 5000);
	ASSERT_EQ(c.last_len, 4);
	ASSERT_MEM_EQ(c.last_msg, "ping", 4);
	side_fini(&c);
}

TEST(forged_consumer_touches_no_other_process)
{
	struct server sv = {0};
	uint8_t seen[sizeof(target.buf)];
	struct iovec l = {seen, sizeof(seen)}, r = {target.buf, sizeof(seen)};
	int pipefd[2];
	pid_t bystander;
	char c;

	target_init();
	/* a process that never joins the channel, with a "ring" at the address the forgeries name */
	ASSERT_EQ(pipe(pipefd), 0);
	bystander = fork();
	ASSERT(bystander >= 0);
	if (bystander == 0) {
		close(pipefd[1]);
		(void)read(pipefd[0], &c, 1);
		_exit(0);
	}
	close(pipefd[0]);
	server_up(&sv);

	/* the old announcement naming the bystander: refused as another protocol, connection ended */
	ASSERT_EQ(attack(&sv, FORGE_V1_THIRD_PID, bystander), 0);
	/* grants that do not exist in the announcing process: connection ended, nothing written */
	ASSERT_EQ(attack(&sv, FORGE_NO_RECORDS, bystander), 0);
	ASSERT_EQ(num_sent + num_send_failed, 0);
	/* grants the attacker made itself: the producer writes there - into the attacker - and nowhere else */
	ASSERT_EQ(attack(&sv, FORGE_OWN_RECORDS, bystander), 2);
	ASSERT_EQ(num_sent, 1);

	/* the bystander's memory and the server's own copy of the same addresses are untouched */
	ASSERT_EQ(process_vm_readv(bystander, &l, 1, &r, 1, 0), (ssize_t)sizeof(seen));
	ASSERT(target_untouched(seen));
	ASSERT(target_untouched(target.buf));
	still_serving(&sv);

	close(pipefd[1]);
	ASSERT_EQ(waitpid(bystander, NULL, 0), bystander);
}

static int num_received, num_recv_failed;

static void
received(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	num_received++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
recv_failed(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	num_recv_failed++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static bool
announced(void *arg)
{
	(void)arg;
	return announced_conn != NULL;
}

/* How a consumer's own process breaks its shared ring after posting one buffer of rx_mem (the fault, undone after). */
enum ring_forgery {
	FORGE_OUTSIDE, /* the slot points outside the grant */
	FORGE_COUNT,   /* the posted count runs past the ring */
	FORGE_TORN,    /* a slot whose room wraps the address space (a torn or forged entry) */
	FORGE_DONE,    /* the producer's half: more completions than posted, a larger ring size */
	FORGE_STAGED,  /* the producer's half: a completion whose staged bytes run past the staging area */
};

static void
forge(struct doca_comch_consumer *cons, enum ring_forgery how, bool undo)
{
	static struct sd_comch_ring_slot saved;

	if (!undo)
		saved = cons->ring->slot[0];
	if (how == FORGE_COUNT)
		cons->ring->posted = undo ? 1 : 100;
	else if (undo)
		cons->ring->slot[0] = saved;
	else if (how == FORGE_OUTSIDE)
		cons->ring->slot[0].addr = (uint64_t)(uintptr_t)target.buf;
	else
		cons->ring->slot[0].len = UINT64_MAX - 64;
}

static void
real_consumer_forges(enum ring_forgery how, const char *refusal)
{
	struct server sv = {0};
	struct side c = {0}, cons_side = {0};
	struct side *all[3] = {&sv.s, &c, &cons_side};
	struct doca_comch_consumer *cons;
	struct doca_comch_consumer_task_post_recv *rt;
	static uint8_t rx_mem[4096];
	struct doca_mmap *rx_mmap;
	struct doca_buf *rx;
	int fd;

	target_init();
	memset(rx_mem, 0x5a, sizeof(rx_mem));
	server_up(&sv);
	fd = capture_sdk_log();
	client_init(&c, sv.host, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(c.ctx), DOCA_ERROR_IN_PROGRESS);
	while (c.state != DOCA_CTX_STATE_RUNNING)
		progress_for(all, 2, 1);

	/* the client's consumer, with a real grant of rx_mem, posts one buffer */
	ASSERT_OK(doca_mmap_create(&rx_mmap));
	ASSERT_OK(doca_mmap_add_dev(rx_mmap, sv.host));
	ASSERT_OK(doca_mmap_set_memrange(rx_mmap, rx_mem, sizeof(rx_mem)));
	ASSERT_OK(doca_mmap_set_permissions(rx_mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(rx_mmap));
	ASSERT_OK(doca_comch_consumer_create(c.conn, rx_mmap, &cons));
	ASSERT_OK(doca_pe_create(&cons_side.pe));
	cons_side.ctx = doca_comch_consumer_as_ctx(cons);
	ASSERT_OK(doca_pe_connect_ctx(cons_side.pe, cons_side.ctx));
	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(cons, received, recv_failed, 2));
	ASSERT_ERR(doca_ctx_start(cons_side.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(all, 3, announced, NULL, 5000);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(sv.inv, rx_mmap, rx_mem, sizeof(rx_mem), &rx));
	ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(cons, rx, &rt));
	ASSERT_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)));

	ASSERT(cons->shared);
	if (how == FORGE_DONE) {
		/* what a lying producer could write into the shared ring: the consumer reads back neither */
		((struct sd_comch_shring_tail *)((uintptr_t)cons->ring + sd_comch_shring_tail(2)))->done = 5;
		cons->ring->cap = 65536;
	} else if (how == FORGE_STAGED) {
		/* a lying producer's staged completion: the consumer copies nothing from outside its area */
		struct sd_comch_shring_tail *tail =
			(struct sd_comch_shring_tail *)((uintptr_t)cons->ring + sd_comch_shring_tail(2));
		struct sd_comch_shring_comp *comp = (struct sd_comch_shring_comp *)(tail + 1);

		ASSERT(cons->staged);
		comp->len = 100;
		comp->staged = 1;
		comp->stage_at = SD_COMCH_STAGE_LEN - 10;
		tail->done = 1;
	} else {
		/* its process now breaks its own (shared) ring */
		forge(cons, how, false);
		server_produce(&sv);
		forge(cons, how, true);
		ASSERT_EQ(num_sent, 0);
		ASSERT_EQ(num_send_failed, 1);
	}
	ASSERT(target_untouched(target.buf));
	ASSERT(target_untouched(rx_mem));
	/* the connection is over: the client stops, its consumer's post is flushed */
	for (int i = 0; i < 2000 && (c.state == DOCA_CTX_STATE_RUNNING || num_recv_failed == 0); i++)
		progress_for(all, 3, 1);
	ASSERT_LOG_HAS(fd, refusal);
	ASSERT_NE(c.state, DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(num_recv_failed, 1);
	ASSERT_EQ(num_received, 0);
	still_serving(&sv);
}

TEST(real_consumer_slot_outside_its_grant)
{
	real_consumer_forges(FORGE_OUTSIDE, "the range lies outside what the peer granted");
}

TEST(real_consumer_count_past_its_ring)
{
	real_consumer_forges(FORGE_COUNT, "the consumer's shared ring claims more posted buffers than it has slots");
}

TEST(producer_half_forged)
{
	real_consumer_forges(FORGE_DONE, "completed 5 receives of consumer");
}

TEST(producer_staged_outside_the_area)
{
	real_consumer_forges(FORGE_STAGED, "a completion's staged bytes run past the staging area");
}

TEST(real_consumer_torn_slot)
{
	real_consumer_forges(FORGE_TORN, "the range lies outside what the peer granted");
}

TEST(runtime_directory_must_be_private)
{
	char dir[512], link[600], cmd[700];
	struct doca_dev *dpu;
	struct doca_dev_rep *rep;
	struct side s = {0};
	int fd = capture_sdk_log();

	pair_env();
	dpu = open_dev("03:00.0");
	rep = open_rep(dpu, "b1:00.0");
	snprintf(dir, sizeof(dir), "%s/open", sd_test_tmpdir());
	ASSERT_EQ(mkdir(dir, 0755), 0);
	ASSERT_EQ(chmod(dir, 0755), 0);
	setenv("SOFTDOCA_RUNTIME_DIR", dir, 1);
	server_init(&s, dpu, rep, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(s.ctx), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "is not a private directory of this user");
	/* a symlink to a private directory is not one */
	snprintf(link, sizeof(link), "%s/link", sd_test_tmpdir());
	ASSERT_EQ(chmod(dir, 0700), 0);
	ASSERT_EQ(symlink(dir, link), 0);
	setenv("SOFTDOCA_RUNTIME_DIR", link, 1);
	ASSERT_ERR(doca_ctx_start(s.ctx), DOCA_ERROR_NOT_PERMITTED);
	/* a private directory below one anyone may change */
	snprintf(cmd, sizeof(cmd), "%s/wide", sd_test_tmpdir());
	ASSERT_EQ(mkdir(cmd, 0777), 0);
	ASSERT_EQ(chmod(cmd, 0777), 0);
	strcat(cmd, "/rt");
	setenv("SOFTDOCA_RUNTIME_DIR", cmd, 1);
	ASSERT_ERR(doca_ctx_start(s.ctx), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "which another user may change");
	/* and a private one works, its socket 0600 even under umask 0 */
	setenv("SOFTDOCA_RUNTIME_DIR", dir, 1);
	umask(0);
	ASSERT_OK(doca_ctx_start(s.ctx));
	{
		char path[108];
		struct stat st;

		ASSERT_OK(sd_comch_sock_path("0000:b1:00.0", PAIR_NAME, path, sizeof(path)));
		ASSERT_EQ(stat(path, &st), 0);
		ASSERT(S_ISSOCK(st.st_mode));
		ASSERT_EQ(st.st_mode & 0777, 0600);
	}
	side_fini(&s);
}

/* Keep CAP_DAC_OVERRIDE (to reach the 0700 directory) while becoming another user. */
static bool
become_nobody_keeping_dac(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2] = {{0}};

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		return false;
	d[0].permitted = d[0].effective = 1u << CAP_DAC_OVERRIDE;
	return syscall(SYS_capset, &h, d) == 0;
}

TEST(client_of_another_user_is_refused)
{
	struct server sv = {0};
	struct side *all[1] = {&sv.s};
	int status = -1, fd;
	pid_t a;

	if (geteuid() != 0)
		SKIP("needs root to run a client as another user");
	fd = capture_sdk_log();
	server_up(&sv);
	a = fork();
	ASSERT(a >= 0);
	if (a == 0) {
		if (!become_nobody_keeping_dac())
			_exit(30);
		_exit(raw_hello(raw_connect()) == (uint32_t)DOCA_ERROR_NOT_PERMITTED ? 0 : 31);
	}
	while (waitpid(a, &status, WNOHANG) == 0)
		progress_for(all, 1, 5);
	ASSERT(WIFEXITED(status));
	if (WEXITSTATUS(status) == 30)
		SKIP("cannot become uid 65534 with CAP_DAC_OVERRIDE here");
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_LOG_HAS(fd, "runs as another user");
	still_serving(&sv);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch against its plain peers, between the same two processes (a fork: the
 * child is the DPU side, the parent the host side).  Prints one JSON object.
 *
 *   comch_bench lat SIZE ITERS   P23: control-path round trip vs a Unix-socket ping-pong
 *   comch_bench bw SIZE SECONDS [private|memfd]
 *                                P24: producer -> consumer vs a shared-memory ring; memfd puts both
 *                                sides' buffers in a sealed memfd (the mapped path, docs/comch.md)
 *
 * The Unix-socket peer is a socketpair ping-pong run twice, with blocking
 * read/write and busy-polling with MSG_DONTWAIT (as Comch busy-polls
 * doca_pe_progress, like DOCA's samples); the faster of the two is the peer.  The ring is 16 slots of SIZE bytes in a
 * MAP_SHARED mapping: the producer copies into a slot, the consumer copies it out
 * into its own buffer (where a consumer's posted buffer would be); head and tail
 * are C11 atomics, both sides spin.  bw alternates BW_SLICES slices of the ring
 * and of Comch between the same two processes (the child serves whichever the
 * parent names) and prints each one's median, with the slices.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <softdoca_dev.h> /* the forked server plays the DPU: softdoca_process_set_side() */

#define NAME "comch_bench"
#define RING_SLOTS 16
#define FP_BUFS 16
#define BW_SLICES 6 /* bw: slices of each peer, alternated */

/* The producer's count of sends written through the consumer's mapped buffers (libdoca_comch, tests and bench). */
extern uint64_t sd_comch_mapped_copies(void);
/* ... and of sends it staged in the consumer's ring (private buffers). */
extern uint64_t sd_comch_staged_sends(void);

static uint64_t fp_sent; /* bw: sends completed successfully (their bytes are in the consumer's buffer) */

static bool use_memfd; /* bw: buffers in a sealed memfd instead of private memory */

/* len bytes of buffer memory: private (aligned_alloc), or a sealed memfd mapped MAP_SHARED. */
static uint8_t *
bench_mem(size_t len)
{
	void *p;
	int fd;

	if (!use_memfd)
		return aligned_alloc(4096, len);
	fd = memfd_create("comch_bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)len) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		perror("comch_bench: memfd");
		exit(1);
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("comch_bench: mmap");
		exit(1);
	}
	return p; /* fd stays open: the consumer's softdoca names it to the producer */
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
die(const char *what, doca_error_t r)
{
	fprintf(stderr, "comch_bench: %s: %s\n", what, doca_error_get_descr(r));
	exit(1);
}

#define CHECK(x)                                                                                                       \
	do {                                                                                                           \
		doca_error_t r_ = (x);                                                                                 \
		if (r_ != DOCA_SUCCESS)                                                                                \
			die(#x, r_);                                                                                   \
	} while (0)

static struct doca_dev *
open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t is = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			CHECK(doca_dev_open(list[i], &dev));
	}
	doca_devinfo_destroy_list(list);
	if (dev == NULL)
		die("no such device", DOCA_ERROR_NOT_FOUND);
	return dev;
}

/* --- one side of a Comch connection ------------------------------------------------- */

struct side {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	uint8_t msg[4096];
	uint32_t len;
	long received;
	bool echo;
	volatile uint32_t remote_consumer;
};

static struct side *the_side;

static void
send_msg(struct side *s, struct doca_comch_connection *conn, const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;
	doca_error_t r;

	do {
		r = s->server ? doca_comch_server_task_send_alloc_init(s->server, conn, msg, len, &t)
			      : doca_comch_client_task_send_alloc_init(s->client, conn, msg, len, &t);
		if (r == DOCA_ERROR_NO_MEMORY)
			continue; /* completions come with the next progress */
		if (r != DOCA_SUCCESS)
			die("send alloc", r);
		r = doca_task_submit(doca_comch_task_send_as_task(t));
		if (r != DOCA_SUCCESS)
			doca_task_free(doca_comch_task_send_as_task(t));
	} while (r == DOCA_ERROR_AGAIN || r == DOCA_ERROR_NO_MEMORY);
	if (r != DOCA_SUCCESS)
		die("send", r);
}

static void
sent(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void
recv_cb(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	(void)ev;
	the_side->received++;
	if (the_side->echo)
		send_msg(the_side, conn, buf, len);
}

static void
connected(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c, uint8_t ok)
{
	(void)ev;
	(void)ok;
	the_side->conn = c;
}

static void
disconnected(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c, uint8_t ok)
{
	(void)ev;
	(void)c;
	(void)ok;
}

static void
new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	(void)ev;
	(void)c;
	the_side->remote_consumer = id;
}

static void
gone_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	(void)ev;
	(void)c;
	(void)id;
}

static void
side_open(struct side *s, bool server)
{
	struct doca_ctx *ctx;

	the_side = s;
	CHECK(doca_pe_create(&s->pe));
	if (server) {
		struct doca_devinfo_rep **reps;
		uint32_t n;

		softdoca_process_set_side(SOFTDOCA_SIDE_DPU);
		s->dev = open_dev("03:00.0");
		CHECK(doca_devinfo_rep_create_list(s->dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n));
		CHECK(doca_dev_rep_open(reps[0], &s->rep));
		doca_devinfo_rep_destroy_list(reps);
		CHECK(doca_comch_server_create(s->dev, s->rep, NAME, &s->server));
		ctx = doca_comch_server_as_ctx(s->server);
		CHECK(doca_comch_server_task_send_set_conf(s->server, sent, sent, 1024));
		CHECK(doca_comch_server_event_msg_recv_register(s->server, recv_cb));
		CHECK(doca_comch_server_event_connection_status_changed_register(s->server, connected, disconnected));
		CHECK(doca_comch_server_event_consumer_register(s->server, new_consumer, gone_consumer));
	} else {
		s->dev = open_dev("b1:00.0");
		CHECK(doca_comch_client_create(s->dev, NAME, &s->client));
		ctx = doca_comch_client_as_ctx(s->client);
		CHECK(doca_comch_client_task_send_set_conf(s->client, sent, sent, 1024));
		CHECK(doca_comch_client_event_msg_recv_register(s->client, recv_cb));
		CHECK(doca_comch_client_event_consumer_register(s->client, new_consumer, gone_consumer));
	}
	CHECK(doca_pe_connect_ctx(s->pe, ctx));
	(void)doca_ctx_start(ctx);
	while (s->conn == NULL) {
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

		(void)doca_pe_progress(s->pe);
		if (s->client != NULL && doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st == DOCA_CTX_STATE_RUNNING)
			CHECK(doca_comch_client_get_connection(s->client, &s->conn));
	}
}

/* --- P23: round trips ------------------------------------------------------------------ */

static int
lat_mode(uint32_t size, long iters)
{
	uint8_t buf[4096] = {0};
	int sv[2];
	pid_t child;
	double t0, unix_rtt, unix_spin_rtt, comch_rtt;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		return 1;
	child = fork();
	if (child == 0) {
		struct side s = {.echo = true};

		close(sv[0]);
		for (long i = 0; i < iters; i++) {
			if (read(sv[1], buf, size) != (ssize_t)size || write(sv[1], buf, size) != (ssize_t)size)
				_exit(1);
		}
		for (long i = 0; i < iters; i++) {
			while (recv(sv[1], buf, size, MSG_DONTWAIT) != (ssize_t)size)
				;
			if (write(sv[1], buf, size) != (ssize_t)size)
				_exit(1);
		}
		side_open(&s, true);
		while (s.received < iters + 100)
			(void)doca_pe_progress(s.pe);
		/* let the last echo be reported, then wait for the client to leave */
		for (int i = 0; i < 1000; i++)
			(void)doca_pe_progress(s.pe);
		_exit(0);
	}
	close(sv[1]);
	t0 = now();
	for (long i = 0; i < iters; i++)
		if (write(sv[0], buf, size) != (ssize_t)size || read(sv[0], buf, size) != (ssize_t)size)
			return 1;
	unix_rtt = (now() - t0) / (double)iters;
	t0 = now();
	for (long i = 0; i < iters; i++) {
		if (write(sv[0], buf, size) != (ssize_t)size)
			return 1;
		while (recv(sv[0], buf, size, MSG_DONTWAIT) != (ssize_t)size)
			;
	}
	unix_spin_rtt = (now() - t0) / (double)iters;
	{
		struct side s = {0};

		side_open(&s, false);
		for (long i = 0; i < iters + 100; i++) {
			long want = s.received + 1;

			if (i == 100)
				t0 = now();
			send_msg(&s, s.conn, buf, size);
			while (s.received < want)
				(void)doca_pe_progress(s.pe);
		}
		comch_rtt = (now() - t0) / (double)iters;
	}
	waitpid(child, NULL, 0);
	printf("{\"size\": %u, \"iters\": %ld, \"unix_blocking_rtt_ns\": %.1f, \"unix_spin_rtt_ns\": %.1f, "
	       "\"unix_rtt_ns\": %.1f, \"comch_rtt_ns\": %.1f}\n",
	       size, iters, unix_rtt * 1e9, unix_spin_rtt * 1e9,
	       (unix_rtt < unix_spin_rtt ? unix_rtt : unix_spin_rtt) * 1e9, comch_rtt * 1e9);
	return 0;
}

/* --- P24: bandwidth ------------------------------------------------------------------- */

/* Which peer the child serves now (bw: the parent alternates them). */
enum { PHASE_IDLE, PHASE_RING, PHASE_COMCH, PHASE_EXIT };

struct ring {
	_Atomic uint64_t head; /* slots produced */
	char pad1[56];
	_Atomic uint64_t tail; /* slots consumed */
	char pad2[56];
	_Atomic int stop;
	_Atomic int order;     /* the parent's: (orders given << 2) | phase, one word so both change at once */
	_Atomic int acked;     /* the child's: the last order it took */
	_Atomic int ring_done; /* the child's: the last ring order it finished consuming */
	char pad3[48];
	uint8_t data[];
};

static double
ring_run(struct ring *ring, uint32_t size, double seconds, bool producer)
{
	uint8_t *mine = malloc(size);
	uint64_t n = 0;
	double t0 = now(), t;

	memset(mine, 0x5a, size);
	if (producer) {
		while ((t = now()) - t0 < seconds) {
			while (n - atomic_load_explicit(&ring->tail, memory_order_acquire) >= RING_SLOTS)
				;
			memcpy(ring->data + (n % RING_SLOTS) * (size_t)size, mine, size);
			atomic_store_explicit(&ring->head, ++n, memory_order_release);
		}
		atomic_store(&ring->stop, 1);
		/* wait until the consumer drained: the bytes counted are the bytes delivered */
		while (atomic_load(&ring->tail) != n)
			;
		t = now();
		free(mine);
		return (double)n * size / (t - t0);
	}
	for (;;) {
		uint64_t h = atomic_load_explicit(&ring->head, memory_order_acquire);

		if (h == n) {
			if (atomic_load(&ring->stop) && atomic_load(&ring->head) == n)
				break;
			continue;
		}
		memcpy(mine, ring->data + (n % RING_SLOTS) * (size_t)size, size);
		atomic_store_explicit(&ring->tail, ++n, memory_order_release);
	}
	free(mine);
	return 0;
}

/* Parent: the child serves phase from now on (it acknowledges the order once it does). */
static void
phase_set(struct ring *ring, int phase)
{
	int order = (((atomic_load(&ring->order) >> 2) + 1) << 2) | phase;

	if (phase == PHASE_RING) {
		atomic_store(&ring->head, 0);
		atomic_store(&ring->tail, 0);
		atomic_store(&ring->stop, 0);
	}
	atomic_store(&ring->order, order);
	while (phase != PHASE_EXIT && atomic_load(&ring->acked) != order)
		;
}

static void
posted_done(struct doca_comch_consumer_task_post_recv *t, union doca_data a, union doca_data b)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);
	doca_error_t r;

	(void)a;
	(void)b;
	the_side->received++;
	(void)doca_buf_reset_data_len(buf);
	r = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)); /* post it again */
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
sent_fp(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	(void)a;
	(void)b;
	if (doca_task_get_status(doca_comch_producer_task_send_as_task(t)) == DOCA_SUCCESS)
		fp_sent++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

/* One slice of producer sends for seconds: bytes per second of the sends completed (landed), in-flight drained. */
static double
comch_slice(struct doca_comch_producer *prod, struct doca_pe *ppe, struct doca_buf *b, uint32_t consumer, uint32_t size,
	    double seconds)
{
	uint64_t sent0 = fp_sent, submitted = 0;
	double t0 = now();

	while (now() - t0 < seconds) {
		struct doca_comch_producer_task_send *t;
		doca_error_t r;

		if (doca_comch_producer_task_send_alloc_init(prod, b, NULL, 0, consumer, &t) != DOCA_SUCCESS) {
			(void)doca_pe_progress(ppe);
			continue;
		}
		while ((r = doca_task_submit(doca_comch_producer_task_send_as_task(t))) == DOCA_ERROR_AGAIN)
			;
		if (r != DOCA_SUCCESS)
			die("producer submit", r);
		submitted++;
		(void)doca_pe_progress(ppe);
	}
	/* a send completes once its bytes are in the consumer's buffer: wait for the last */
	while (fp_sent - sent0 < submitted)
		(void)doca_pe_progress(ppe);
	return (double)submitted * size / (now() - t0);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(const double *v, int n)
{
	double s[BW_SLICES];

	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(s[0]), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static struct doca_mmap *
make_mmap(struct doca_dev *dev, void *mem, size_t len)
{
	struct doca_mmap *m;

	CHECK(doca_mmap_create(&m));
	CHECK(doca_mmap_add_dev(m, dev));
	CHECK(doca_mmap_set_memrange(m, mem, len));
	CHECK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	CHECK(doca_mmap_start(m));
	return m;
}

static int
bw_mode(uint32_t size, double seconds)
{
	size_t ring_len = sizeof(struct ring) + (size_t)RING_SLOTS * size;
	struct ring *ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2];
	pid_t child;
	double ring_bps[BW_SLICES], comch_bps[BW_SLICES];
	char c = 0;

	if (ring == MAP_FAILED || pipe(go) != 0)
		return 1;
	memset(ring, 0, sizeof(*ring));
	child = fork();
	if (child == 0) {
		struct side s = {0};
		struct doca_comch_consumer *cons;
		struct doca_pe *cpe;
		struct doca_buf_inventory *inv;
		struct doca_mmap *mm;
		uint8_t *mem = bench_mem((size_t)FP_BUFS * size);
		enum doca_ctx_states st = DOCA_CTX_STATE_STARTING;

		(void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* never a spinning orphan */
		side_open(&s, true);
		mm = make_mmap(s.dev, mem, (size_t)FP_BUFS * size);
		CHECK(doca_buf_inventory_create(FP_BUFS, &inv));
		CHECK(doca_buf_inventory_start(inv));
		CHECK(doca_pe_create(&cpe));
		CHECK(doca_comch_consumer_create(s.conn, mm, &cons));
		CHECK(doca_pe_connect_ctx(cpe, doca_comch_consumer_as_ctx(cons)));
		CHECK(doca_comch_consumer_task_post_recv_set_conf(cons, posted_done, posted_done, FP_BUFS));
		(void)doca_ctx_start(doca_comch_consumer_as_ctx(cons));
		while (st != DOCA_CTX_STATE_RUNNING) {
			(void)doca_pe_progress(cpe);
			(void)doca_ctx_get_state(doca_comch_consumer_as_ctx(cons), &st);
		}
		for (int i = 0; i < FP_BUFS; i++) {
			struct doca_comch_consumer_task_post_recv *t;
			struct doca_buf *b;

			CHECK(doca_buf_inventory_buf_get_by_addr(inv, mm, mem + (size_t)i * size, size, &b));
			CHECK(doca_comch_consumer_task_post_recv_alloc_init(cons, b, &t));
			CHECK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
		}
		/* ready; serve the phase the parent names until it says exit (or kills us) */
		if (write(go[1], &c, 1) != 1)
			_exit(1);
		for (int order, ph; (ph = (order = atomic_load(&ring->order)) & 3) != PHASE_EXIT;) {
			atomic_store(&ring->acked, order);
			if (ph == PHASE_RING) {
				ring_run(ring, size, 0, false);
				atomic_store(&ring->ring_done, order);
				while (atomic_load(&ring->order) == order) /* the next order */
					;
			} else if (ph == PHASE_COMCH) {
				(void)doca_pe_progress(s.pe);
				(void)doca_pe_progress(cpe);
			}
		}
		_exit(0);
	}
	{
		struct side s = {0};
		struct doca_comch_producer *prod;
		struct doca_pe *ppe;
		struct doca_buf_inventory *inv;
		struct doca_mmap *mm;
		struct doca_buf *b;
		uint8_t *mem = bench_mem(size);

		memset(mem, 0xa5, size);
		side_open(&s, false);
		mm = make_mmap(s.dev, mem, size);
		CHECK(doca_buf_inventory_create(1, &inv));
		CHECK(doca_buf_inventory_start(inv));
		CHECK(doca_buf_inventory_buf_get_by_data(inv, mm, mem, size, &b));
		CHECK(doca_pe_create(&ppe));
		CHECK(doca_comch_producer_create(s.conn, &prod));
		CHECK(doca_pe_connect_ctx(ppe, doca_comch_producer_as_ctx(prod)));
		CHECK(doca_comch_producer_task_send_set_conf(prod, sent_fp, sent_fp, 64));
		CHECK(doca_ctx_start(doca_comch_producer_as_ctx(prod)));
		if (read(go[0], &c, 1) != 1)
			return 1;
		phase_set(ring, PHASE_COMCH); /* the announcement arrives through the child's progress */
		while (s.remote_consumer == 0)
			(void)doca_pe_progress(s.pe);
		/*
		 * Slices of each, alternated ABBA: this guest's two-process copies flip
		 * between speeds every few seconds, and a peer timed apart from us
		 * would meet another speed.
		 */
		for (int k = 0; k < BW_SLICES; k++) {
			bool ring_first = (k & 1) == 0;

			for (int j = 0; j < 2; j++) {
				if (ring_first == (j == 0)) {
					phase_set(ring, PHASE_RING);
					ring_bps[k] = ring_run(ring, size, seconds / BW_SLICES, true);
					/* the child is out of its loop before the next order resets the ring */
					while (atomic_load(&ring->ring_done) != atomic_load(&ring->order))
						;
					continue;
				}
				phase_set(ring, PHASE_COMCH);
				comch_bps[k] = comch_slice(prod, ppe, b, s.remote_consumer, size, seconds / BW_SLICES);
			}
		}
		phase_set(ring, PHASE_EXIT);
	}
	waitpid(child, NULL, 0);
	printf("{\"size\": %u, \"seconds\": %.2f, \"memory\": \"%s\", \"ring_bps\": %.0f, \"comch_bps\": %.0f, "
	       "\"mapped_sends\": %llu, \"staged_sends\": %llu, \"ring_slices\": [",
	       size, seconds, use_memfd ? "memfd" : "private", median(ring_bps, BW_SLICES),
	       median(comch_bps, BW_SLICES), (unsigned long long)sd_comch_mapped_copies(),
	       (unsigned long long)sd_comch_staged_sends());
	for (int k = 0; k < BW_SLICES; k++)
		printf("%s%.0f", k ? ", " : "", ring_bps[k]);
	printf("], \"comch_slices\": [");
	for (int k = 0; k < BW_SLICES; k++)
		printf("%s%.0f", k ? ", " : "", comch_bps[k]);
	printf("]}\n");
	return 0;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/comch_bench.XXXXXX";

	if (argc != 4 && !(argc == 5 && strcmp(argv[1], "bw") == 0 &&
			   (strcmp(argv[4], "private") == 0 || strcmp(argv[4], "memfd") == 0))) {
		fprintf(stderr, "usage: comch_bench lat SIZE ITERS | bw SIZE SECONDS [private|memfd]\n");
		return 2;
	}
	use_memfd = argc == 5 && strcmp(argv[4], "memfd") == 0;
	/* a private rendezvous so parallel runs never meet */
	if (getenv("SOFTDOCA_RUNTIME_DIR") == NULL && mkdtemp(dir) != NULL)
		setenv("SOFTDOCA_RUNTIME_DIR", dir, 1);
	if (strcmp(argv[1], "lat") == 0)
		return lat_mode((uint32_t)atoi(argv[2]), atol(argv[3]));
	if (strcmp(argv[1], "bw") == 0)
		return bw_mode((uint32_t)atoi(argv[2]), atof(argv[3]));
	return 2;
}

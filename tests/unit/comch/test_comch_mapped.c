/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The producer's copy paths of the Comch fast path (docs/comch.md "The mapped
 * path", "The staged path"): a consumer whose buffers lie in a memfd gets the
 * exact bytes through the producer's window (sd_comch_mapped_copies counts it;
 * after the first, the grant comes from the ring's granted flag, no system
 * call); private buffers get the first message through the kernel and the
 * next ones through the ring's staging area (sd_comch_staged_sends), a staged
 * send completing only once the consumer copied it; SOFTDOCA_COMCH_MAPPED=0 and
 * SOFTDOCA_COMCH_STAGE=0 turn the paths off; a consumer that stopped (its grant
 * revoked, its granted flag cleared) and destroyed its mmap is never written,
 * though the producer still maps its buffers.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>

#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>

#include "comch_internal.h"
#include "comch_pair.h"

#define RX_LEN (1u << 20)
#define MSG_LEN 65536u

static int num_new, recv_done;

static void
consumer_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
	num_new++;
}

static void
consumer_gone(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

static void
recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	recv_done++;
	doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(t), NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(t), NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static bool
flag_set(void *arg)
{
	return *(int *)arg != 0;
}

/* A server's consumer receiving into rx (RX_LEN bytes), a client's producer sending from tx. */
struct rig {
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep;
	struct side s, c, cons_side, prod_side;
	struct side *all[4];
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_buf_inventory *inv;
	struct doca_mmap *rx_mmap, *tx_mmap;
	struct doca_buf *tx;
	uint8_t *rx;
	uint32_t cid;
};

static uint8_t tx_mem[MSG_LEN];

static void
rig_connect(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	r->all[0] = &r->s, r->all[1] = &r->c, r->all[2] = &r->cons_side, r->all[3] = &r->prod_side;
	pair_connect_fastpath(&r->s, &r->c, &r->host, &r->dpu, &r->rep, consumer_new, consumer_gone);
	for (unsigned i = 0; i < sizeof(tx_mem); i++)
		tx_mem[i] = (uint8_t)(i * 31 + 7);
}

/* Consumer over r->rx (set by the caller), producer, send buffer; the client heard of the consumer. */
static void
rig_start(struct rig *r)
{
	num_new = 0;
	r->rx_mmap = pair_mmap(r->dpu, r->rx, RX_LEN);
	r->tx_mmap = pair_mmap(r->host, tx_mem, sizeof(tx_mem));
	ASSERT_OK(doca_buf_inventory_create(8, &r->inv));
	ASSERT_OK(doca_buf_inventory_start(r->inv));
	ASSERT_OK(doca_comch_consumer_create(r->s.conn, r->rx_mmap, &r->cons));
	ASSERT_OK(doca_pe_create(&r->cons_side.pe));
	r->cons_side.ctx = doca_comch_consumer_as_ctx(r->cons);
	ASSERT_OK(doca_pe_connect_ctx(r->cons_side.pe, r->cons_side.ctx));
	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(r->cons, recv_ok, recv_err, 4));
	ASSERT_ERR(doca_ctx_start(r->cons_side.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(r->all, 3, flag_set, &num_new, 5000);
	ASSERT_OK(doca_comch_consumer_get_id(r->cons, &r->cid));
	ASSERT_OK(doca_comch_producer_create(r->c.conn, &r->prod));
	ASSERT_OK(doca_pe_create(&r->prod_side.pe));
	r->prod_side.ctx = doca_comch_producer_as_ctx(r->prod);
	ASSERT_OK(doca_pe_connect_ctx(r->prod_side.pe, r->prod_side.ctx));
	ASSERT_OK(doca_comch_producer_task_send_set_conf(r->prod, pair_fp_send_ok, pair_fp_send_err, 4));
	ASSERT_OK(doca_ctx_start(r->prod_side.ctx));
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(r->inv, r->tx_mmap, tx_mem, MSG_LEN, &r->tx));
}

static void
post(struct rig *r, uint32_t at)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_buf *b;

	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(r->inv, r->rx_mmap, r->rx + at, MSG_LEN, &b));
	ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(r->cons, b, &t));
	ASSERT_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
}

static doca_error_t
send_one(struct rig *r)
{
	struct doca_comch_producer_task_send *st;
	doca_error_t err;

	ASSERT_OK(doca_comch_producer_task_send_alloc_init(r->prod, r->tx, NULL, 0, r->cid, &st));
	err = doca_task_submit(doca_comch_producer_task_send_as_task(st));
	if (err != DOCA_SUCCESS)
		doca_task_free(doca_comch_producer_task_send_as_task(st));
	return err;
}

/* Everything but the rx memory goes; the consumer may be gone already (cons NULL). */
static void
rig_fini(struct rig *r)
{
	if (r->cons == NULL)
		r->all[2] = &r->prod_side; /* its PE is gone */
	progress_for(r->all, r->cons != NULL ? 4 : 3, 20);
	if (r->cons != NULL) {
		pair_stop_idle(&r->cons_side);
		ASSERT_OK(doca_comch_consumer_destroy(r->cons));
		ASSERT_OK(doca_pe_destroy(r->cons_side.pe));
		ASSERT_OK(doca_mmap_destroy(r->rx_mmap));
	}
	progress_for(r->all, 2, 20);
	pair_stop_idle(&r->prod_side);
	ASSERT_OK(doca_comch_producer_destroy(r->prod));
	ASSERT_OK(doca_pe_destroy(r->prod_side.pe));
	doca_buf_dec_refcount(r->tx, NULL);
	ASSERT_OK(doca_mmap_destroy(r->tx_mmap));
	ASSERT_OK(doca_buf_inventory_destroy(r->inv));
	side_fini(&r->c);
	side_fini(&r->s);
}

static uint8_t *
memfd_rx(int *fd)
{
	void *p;

	*fd = memfd_create("test-comch-rx", MFD_CLOEXEC);
	ASSERT(*fd >= 0);
	ASSERT_EQ(ftruncate(*fd, RX_LEN), 0);
	p = mmap(NULL, RX_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	ASSERT(p != MAP_FAILED);
	return p;
}

/* Both receives and both sends were reported. */
static bool
two_done(void *arg)
{
	(void)arg;
	return recv_done == 2 && pair_fp_sends_ok == 2;
}

/*
 * Send twice into two posted buffers; the bytes arrive, and *via says how many
 * went through a window (*staged, when not NULL, how many were staged).
 */
static void
send_two_staged(struct rig *r, uint64_t *via, uint64_t *staged)
{
	uint64_t before = sd_comch_mapped_copies(), staged_before = sd_comch_staged_sends();

	memset(r->rx, 0x5a, RX_LEN);
	recv_done = 0;
	pair_fp_sends_ok = 0;
	post(r, 0);
	post(r, MSG_LEN);
	ASSERT_OK(send_one(r));
	ASSERT_OK(send_one(r));
	progress_until(r->all, 4, two_done, NULL, 5000);
	ASSERT_MEM_EQ(r->rx, tx_mem, MSG_LEN);
	ASSERT_MEM_EQ(r->rx + MSG_LEN, tx_mem, MSG_LEN);
	ASSERT_EQ(r->rx[2 * MSG_LEN], 0x5a);
	*via = sd_comch_mapped_copies() - before;
	if (staged != NULL)
		*staged = sd_comch_staged_sends() - staged_before;
}

static void
send_two(struct rig *r, uint64_t *via)
{
	send_two_staged(r, via, NULL);
}

TEST(memfd_buffers_take_the_mapped_path)
{
	struct rig r;
	uint64_t via = 0, flagged;
	int fd;

	rig_connect(&r);
	r.rx = memfd_rx(&fd);
	rig_start(&r);
	flagged = sd_comch_mapped_flag_grants();
	send_two(&r, &via);
	ASSERT_EQ(via, 2);
	/* the first copy read the grant through the kernel and mapped the window; the second trusted the flag */
	ASSERT_EQ(sd_comch_mapped_flag_grants() - flagged, 1);
	rig_fini(&r);
	ASSERT_EQ(pair_fp_sends_err, 0);
	munmap(r.rx, RX_LEN);
	close(fd);
}

/* A rig over private rx: its first send learned there is no window (through the kernel), the second was staged. */
static void
rig_staging(struct rig *r, uint8_t *rx)
{
	uint64_t via = 1, staged = 0;

	rig_connect(r);
	r->rx = rx;
	rig_start(r);
	send_two_staged(r, &via, &staged);
	ASSERT_EQ(via, 0);
	ASSERT_EQ(staged, 1);
}

/* One buffer posted at rx's start, rx and the counters reset. */
static void
post_one(struct rig *r)
{
	memset(r->rx, 0x5a, RX_LEN);
	recv_done = 0;
	pair_fp_sends_ok = 0;
	post(r, 0);
}

TEST(private_buffers_are_staged)
{
	static uint8_t rx_mem[RX_LEN];
	struct rig r;
	uint64_t via = 1, staged = 0;

	rig_staging(&r, rx_mem);
	/* from then on every send is staged */
	send_two_staged(&r, &via, &staged);
	ASSERT_EQ(staged, 2);
	rig_fini(&r);
	ASSERT_EQ(pair_fp_sends_err, 0);
}

TEST(staging_turned_off)
{
	static uint8_t rx_mem[RX_LEN];
	struct rig r;
	uint64_t via = 1, staged = 1;

	setenv("SOFTDOCA_COMCH_STAGE", "0", 1);
	rig_connect(&r);
	r.rx = rx_mem;
	rig_start(&r);
	send_two_staged(&r, &via, &staged);
	send_two_staged(&r, &via, &staged);
	unsetenv("SOFTDOCA_COMCH_STAGE");
	ASSERT_EQ(via, 0);
	ASSERT_EQ(staged, 0);
	rig_fini(&r);
}

/* A staged send completes only after its bytes landed: not while the consumer does not progress. */
TEST(staged_send_completes_after_the_consumer_copied_it)
{
	static uint8_t rx_mem[RX_LEN];
	struct side *producer_only[1];
	doca_notification_handle_t handle;
	struct pollfd pfd = {.events = POLLIN};
	struct rig r;
	uint64_t before;

	rig_staging(&r, rx_mem);
	producer_only[0] = &r.prod_side;
	post_one(&r);
	before = sd_comch_staged_sends();
	ASSERT_OK(send_one(&r));
	ASSERT_EQ(sd_comch_staged_sends() - before, 1);
	progress_for(producer_only, 1, 50);
	ASSERT_EQ(pair_fp_sends_ok, 0);
	ASSERT_EQ(r.rx[0], 0x5a); /* not in the buffer yet: the consumer copies it when it reaps */
	/* the producer's PE must not sleep meanwhile: nobody wakes it when the consumer copies */
	ASSERT_OK(doca_pe_get_notification_handle(r.prod_side.pe, &handle));
	ASSERT_OK(doca_pe_request_notification(r.prod_side.pe));
	pfd.fd = handle;
	ASSERT_EQ(poll(&pfd, 1, 0), 1);
	ASSERT_OK(doca_pe_clear_notification(r.prod_side.pe, handle));
	progress_until(r.all, 4, flag_set, &pair_fp_sends_ok, 5000);
	ASSERT_EQ(recv_done, 1);
	ASSERT_MEM_EQ(r.rx, tx_mem, MSG_LEN);
	rig_fini(&r);
	ASSERT_EQ(pair_fp_sends_err, 0);
}

/* The consumer copies staged bytes into its own task's buffer: an address in the ring is never used. */
TEST(staged_send_ignores_the_slot_address)
{
	static uint8_t rx_mem[RX_LEN], decoy[MSG_LEN];
	struct rig r;

	rig_staging(&r, rx_mem);
	memset(decoy, 0x5a, sizeof(decoy));
	post_one(&r);
	r.cons->ring->slot[(r.cons->posted - 1) & (r.cons->cap - 1)].addr = (uint64_t)(uintptr_t)decoy;
	ASSERT_OK(send_one(&r));
	progress_until(r.all, 4, flag_set, &pair_fp_sends_ok, 5000);
	ASSERT_EQ(recv_done, 1);
	ASSERT_MEM_EQ(r.rx, tx_mem, MSG_LEN);
	for (unsigned i = 0; i < MSG_LEN; i++)
		ASSERT_EQ(decoy[i], 0x5a);
	rig_fini(&r);
	ASSERT_EQ(pair_fp_sends_err, 0);
}

TEST(mapped_path_turned_off)
{
	struct rig r;
	uint64_t via = 1;
	int fd;

	setenv("SOFTDOCA_COMCH_MAPPED", "0", 1);
	rig_connect(&r);
	r.rx = memfd_rx(&fd);
	rig_start(&r);
	send_two(&r, &via);
	unsetenv("SOFTDOCA_COMCH_MAPPED");
	ASSERT_EQ(via, 0);
	rig_fini(&r);
	munmap(r.rx, RX_LEN);
	close(fd);
}

TEST(revoked_consumer_is_not_written)
{
	struct rig r;
	uint8_t check[MSG_LEN];
	uint64_t via = 0, before, flagged;
	int fd;

	rig_connect(&r);
	r.rx = memfd_rx(&fd);
	rig_start(&r);
	send_two(&r, &via);
	ASSERT_EQ(via, 2); /* the producer maps the consumer's buffers */
	/* A posted buffer the producer still sees in the ring; then the consumer stops and its mmap goes. */
	memset(r.rx + 2 * MSG_LEN, 0x5a, MSG_LEN);
	post(&r, 2 * MSG_LEN);
	pair_stop_idle(&r.cons_side);
	ASSERT_OK(doca_comch_consumer_destroy(r.cons));
	ASSERT_OK(doca_pe_destroy(r.cons_side.pe));
	ASSERT_OK(doca_mmap_destroy(r.rx_mmap));
	r.cons = NULL;
	r.all[2] = &r.prod_side;
	munmap(r.rx, RX_LEN);
	/*
	 * The client has not yet read CONSUMER_GONE: the consumer cleared its
	 * granted flag before revoking, so the send reads the grant and is
	 * refused by the revocation, or finds no consumer.
	 */
	before = sd_comch_mapped_copies();
	flagged = sd_comch_mapped_flag_grants();
	pair_fp_sends_err = 0;
	(void)send_one(&r);
	progress_for(r.all, 3, 20);
	ASSERT_EQ(sd_comch_mapped_copies(), before);
	ASSERT_EQ(sd_comch_mapped_flag_grants(), flagged);
	ASSERT_EQ(pair_fp_sends_err, 1);
	ASSERT(pair_fp_send_status == DOCA_ERROR_NOT_CONNECTED || pair_fp_send_status == DOCA_ERROR_NOT_FOUND);
	ASSERT_EQ(pread(fd, check, sizeof(check), 2 * MSG_LEN), (ssize_t)sizeof(check));
	for (unsigned i = 0; i < sizeof(check); i++)
		ASSERT_EQ(check[i], 0x5a);
	rig_fini(&r);
	close(fd);
}

/* The producer's view of the consumer's shared ring (one consumer on the connection). */
static const struct sd_comch_remote_consumer *
remote_consumer(const struct rig *r)
{
	const struct sd_list *first = r->prod->conn->fp->remote_consumers.next;

	ASSERT(first != &r->prod->conn->fp->remote_consumers);
	return sd_container_of(first, const struct sd_comch_remote_consumer, link);
}

/* A rig whose consumer's buffers are a memfd the producer maps (two sends made the window); *fd the memfd. */
static const struct sd_comch_remote_consumer *
rig_mapped(struct rig *r, int *fd)
{
	uint64_t via = 0;

	rig_connect(r);
	r->rx = memfd_rx(fd);
	rig_start(r);
	send_two(r, &via);
	ASSERT_EQ(via, 2);
	return remote_consumer(r);
}

TEST(stopped_consumer_clears_its_granted_flag)
{
	const struct sd_comch_remote_consumer *rc;
	struct rig r;
	int fd;

	rc = rig_mapped(&r, &fd);
	ASSERT_NOT_NULL(rc->shared);
	ASSERT(sd_comch_shring_granted(rc->shared, rc->info.ring_cap));
	/* The consumer's map of the ring goes with it; the producer's stays until CONSUMER_GONE. */
	pair_stop_idle(&r.cons_side);
	ASSERT(!sd_comch_shring_granted(rc->shared, rc->info.ring_cap));
	rig_fini(&r);
	munmap(r.rx, RX_LEN);
	close(fd);
}

/*
 * The granted word stands for the grant only for copies through the window.
 * A consumer that revoked its buffer grant but left the word set, and whose
 * object then shrank (the window copy faults) while fresh private memory took
 * the same addresses: the producer must read the grant before falling back to
 * the kernel's copy - the send fails NOT_CONNECTED and that memory keeps its
 * bytes.
 */
TEST(window_fault_reads_the_grant_before_the_kernel_copy)
{
	const struct sd_comch_remote_consumer *rc;
	struct rig r;
	uint64_t flagged;
	void *p;
	int fd;

	/* the kernel's copy is what is under test: with staging, the fallback would write nothing of theirs */
	setenv("SOFTDOCA_COMCH_STAGE", "0", 1);
	rc = rig_mapped(&r, &fd);
	post(&r, 2 * MSG_LEN);
	sd_xproc_revoke(&r.cons->buf_grant); /* revoked, the word still 1: the consumer lies */
	ASSERT(sd_comch_shring_granted(rc->shared, rc->info.ring_cap));
	ASSERT_EQ(ftruncate(fd, 0), 0);
	p = mmap(r.rx, RX_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT(p == r.rx);
	memset(r.rx, 0x5a, RX_LEN);
	flagged = sd_comch_mapped_flag_grants();
	pair_fp_sends_err = 0;
	(void)send_one(&r);
	progress_for(r.all, 4, 20);
	ASSERT_EQ(sd_comch_mapped_flag_grants() - flagged, 1); /* the window was tried, and faulted */
	ASSERT_EQ(pair_fp_sends_err, 1);
	ASSERT_EQ(pair_fp_send_status, DOCA_ERROR_NOT_CONNECTED);
	for (unsigned i = 0; i < MSG_LEN; i++)
		ASSERT_EQ(r.rx[2 * MSG_LEN + i], 0x5a);
	unsetenv("SOFTDOCA_COMCH_STAGE");
	rig_fini(&r);
	munmap(r.rx, RX_LEN);
	close(fd);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Comch consumer: a context on a connection that posts receive buffers.
 * Posting writes the buffer's free room into the post ring (struct sd_comch_ring,
 * read by the peer's producers in place) and queues the task; the producer's
 * completion in the shared ring, or the connection's FP_DATA record, completes
 * it (comch_fastpath.c).
 *
 * Start: a new ring (a shared memfd when the kernel makes one: the producer
 * then posts its completions there, comch_shring.c), the peer is told
 * (CONSUMER_NEW, with the ring's descriptor) and the context is STARTING
 * (doca_ctx_start returns IN_PROGRESS), then RUNNING from its next progress call.
 * Stop: the peer is told (CONSUMER_GONE); posted tasks are flushed.  The ring
 * stays allocated until the next start or destroy, since a peer may still read it.
 *
 * Freeing a posted task drops it (DOCA programs free their posted receives
 * before they stop the consumer): the task leaves slots[] and returns to its
 * pool, and is never completed.  Its ring slot cannot be taken back from a peer
 * that may be reading it, so it stays posted until the stop: data the peer writes
 * there lands in the buffer's memory (the mmap, pinned while announced) and is
 * discarded; the freed buf is never touched again.
 */
#include <endian.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.consumer);

static inline struct doca_comch_consumer *
consumer_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct doca_comch_consumer, ctx);
}

/* The peer may read the ring and write the buffer mmap, and nothing else of ours, until ungrant. */
static void
consumer_ungrant(struct doca_comch_consumer *c)
{
	/* First: a producer that maps the buffers reads the grant through the kernel from now on (comch_proto.h). */
	if (c->shared)
		sd_comch_shring_set_granted(c->ring, c->cap, false);
	sd_xproc_revoke(&c->ring_grant);
	sd_xproc_revoke(&c->buf_grant);
	sd_xproc_share_drop(&c->share); /* after the revocation: a producer that still maps it checks the grant */
	sd_xproc_ptracer_release(c->tracer);
	c->tracer = 0;
	sd_mmap_peer_write_release(c->mmap);
}

static doca_error_t
consumer_grant(struct doca_comch_consumer *c, uint32_t cap, struct sd_comch_consumer *rec)
{
	size_t ring_len = sizeof(*c->ring) + cap * sizeof(c->ring->slot[0]), buf_len = 0;
	void *buf_addr = NULL;
	doca_error_t err;

	err = doca_mmap_get_memrange(c->mmap, &buf_addr, &buf_len);
	if (err == DOCA_SUCCESS)
		err = sd_xproc_grant(c->ring, ring_len, SD_XPROC_READ, 0, &c->ring_grant);
	if (err == DOCA_SUCCESS) {
		err = sd_xproc_grant(buf_addr, buf_len, SD_XPROC_WRITE, 0, &c->buf_grant);
		if (err != DOCA_SUCCESS)
			sd_xproc_revoke(&c->ring_grant);
	}
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_ctx_start: cannot grant the peer the consumer's ring and buffers: %s; give the "
			     "consumer a started mmap with a memory range (doca_mmap_set_memrange, doca_mmap_start)",
			     doca_error_get_descr(err));
		return err;
	}
	sd_comch_mapped_name(c, buf_addr, buf_len);
	/*
	 * The grant is made: a producer that maps the buffers (comch_mapped.c) or
	 * stages (comch_staged.c) may rely on the granted word until ungrant.
	 */
	if (c->shared)
		sd_comch_shring_set_granted(c->ring, c->cap, c->share.fd >= 0 || c->staged);
	/* Yama ptrace scope 1: the peer's producers copy into this process (and take the share's descriptor). */
	c->tracer = c->conn->peer.pid;
	sd_xproc_ptracer_hold(c->tracer);
	/* The peer may write into the mmap until ungrant: it cannot be stopped or destroyed before. */
	sd_mmap_peer_write_hold(c->mmap);
	memset(rec, 0, sizeof(*rec));
	rec->ring_cap = htole32(cap);
	rec->ring_addr = htole64((uint64_t)(uintptr_t)c->ring);
	rec->ring_rec = htole64(c->ring_grant.rec_addr);
	memcpy(rec->ring_key, c->ring_grant.key, sizeof(rec->ring_key));
	rec->buf_rec = htole64(c->buf_grant.rec_addr);
	memcpy(rec->buf_key, c->buf_grant.key, sizeof(rec->buf_key));
	return DOCA_SUCCESS;
}

static void
consumer_ring_free(struct doca_comch_consumer *c)
{
	if (c->ring != NULL && c->shared)
		sd_comch_shring_unmap(c->ring, c->cap, c->staged);
	else
		free(c->ring);
	free(c->slots);
	c->ring = NULL;
	c->slots = NULL;
	c->shared = false;
	c->staged = false;
}

/*
 * A new post ring for this start (a peer may still hold the previous one): a
 * shared memfd ring when the kernel makes one (*ring_fd), else process memory
 * the peer reads through the kernel (*ring_fd -1).
 */
static doca_error_t
consumer_ring_new(struct doca_comch_consumer *c, uint32_t cap, int *ring_fd)
{
	consumer_ring_free(c);
	c->cap = cap;
	c->staged = sd_comch_staged_offer();
	c->ring = sd_comch_shring_create(cap, c->staged, ring_fd);
	c->shared = c->ring != NULL;
	c->staged = c->staged && c->shared;
	if (c->ring == NULL) {
		DOCA_LOG_DBG("Comch consumer %u: no shared ring (memfd refused); the peer reads the ring through the "
			     "kernel",
			     c->id);
		c->ring = calloc(1, sizeof(*c->ring) + cap * sizeof(c->ring->slot[0]));
	}
	c->slots = calloc(cap, sizeof(c->slots[0]));
	if (c->ring == NULL || c->slots == NULL) {
		sd_comch_close_fd(ring_fd);
		consumer_ring_free(c);
		DOCA_LOG_ERR(
			"doca_ctx_start: out of memory for the consumer's post ring; free memory or ask for fewer");
		return DOCA_ERROR_NO_MEMORY;
	}
	c->ring->cap = cap;
	return DOCA_SUCCESS;
}

static doca_error_t
consumer_start(struct doca_ctx *ctx, bool *running)
{
	struct doca_comch_consumer *c = consumer_from_ctx(ctx);
	struct sd_comch_fp *fp = sd_comch_fp_get(c->conn);
	struct sd_comch_consumer rec;
	uint32_t cap = 1;
	doca_error_t err;
	int ring_fd = -1;

	if (c->recv_pool == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: Comch consumer has no post_recv tasks; call "
			     "doca_comch_consumer_task_post_recv_set_conf() first");
		return DOCA_ERROR_BAD_STATE;
	}
	if (c->conn->state != SD_COMCH_CONN_OPEN || fp == NULL) {
		DOCA_LOG_ERR(
			"doca_ctx_start: the consumer's connection has ended; create consumers on a live connection");
		return DOCA_ERROR_NOT_CONNECTED;
	}
	while (cap < sd_task_pool_size(c->recv_pool))
		cap <<= 1;
	err = consumer_ring_new(c, cap, &ring_fd);
	if (err != DOCA_SUCCESS)
		return err;
	err = consumer_grant(c, cap, &rec);
	if (err != DOCA_SUCCESS) {
		sd_comch_close_fd(&ring_fd);
		return err;
	}
	/* The shared ring's descriptor travels with the announcement; the peer's copy keeps it alive. */
	err = sd_comch_send_record_fd(c->conn->fd, SD_COMCH_CONSUMER_NEW, c->id, &rec, sizeof(rec), NULL, 0, ring_fd);
	sd_comch_close_fd(&ring_fd);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_ctx_start: could not announce the consumer to the peer: %s; start consumers while "
			     "the connection is open",
			     doca_error_get_descr(err));
		consumer_ungrant(c);
		return err;
	}
	sd_list_insert_tail(&fp->local_consumers, &c->link);
	c->announced = true;
	*running = false;
	return DOCA_ERROR_IN_PROGRESS;
}

static unsigned
consumer_progress(struct doca_ctx *ctx)
{
	if (sd_ctx_state(ctx) == DOCA_CTX_STATE_STARTING) {
		sd_ctx_set_running(ctx);
		return 1;
	}
	/* Completions the producer published in the shared ring (no system call). */
	return sd_comch_fp_reap(consumer_from_ctx(ctx));
}

/* The program sleeps on the PE: the producer rings the doorbell (FP_DOORBELL) after its next completion. */
static bool
consumer_arm(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_from_ctx(ctx);

	return c->shared && c->announced && sd_comch_shring_arm(c->ring, c->cap, c->arrived);
}

void
sd_comch_consumer_unannounce(struct doca_comch_consumer *c)
{
	if (!c->announced)
		return;
	sd_list_del(&c->link);
	sd_list_init(&c->link);
	c->announced = false;
	consumer_ungrant(c);
	if (c->conn->state == SD_COMCH_CONN_OPEN)
		(void)sd_comch_send_record(c->conn->fd, SD_COMCH_CONSUMER_GONE, c->id, NULL, 0, NULL, 0);
}

/* The peer no longer sees the ring: every posted slot is withdrawn, the dropped ones said once. */
static void
consumer_withdraw(struct doca_comch_consumer *c)
{
	sd_comch_consumer_unannounce(c);
	if (c->dropped != 0)
		DOCA_LOG_INFO("Comch consumer %u: the program freed %u posted post_recv task%s before stopping the "
			      "consumer; %s dropped (never completed, no callback)",
			      c->id, c->dropped, c->dropped == 1 ? "" : "s", c->dropped == 1 ? "it was" : "they were");
	c->dropped = 0;
}

static void
consumer_flush(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_from_ctx(ctx);

	consumer_withdraw(c);
	if (c->ring == NULL)
		return;
	/* Oldest first: what the peer did not fill, in ring order. */
	for (uint64_t pos = c->arrived, end = c->posted; pos != end; pos++) {
		struct doca_comch_consumer_task_post_recv *t = c->slots[pos & (c->cap - 1)];

		c->slots[pos & (c->cap - 1)] = NULL;
		if (t != NULL)
			sd_task_complete(&t->task, SD_TASK_FLUSH_STATUS);
	}
	c->arrived = c->posted;
}

static void
consumer_stopped(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_from_ctx(ctx);

	/* Stopped with nothing in flight (only dropped tasks, if any): no flush came first. */
	consumer_withdraw(c);
	/* The next start begins a new ring: the peer forgets this one with CONSUMER_GONE. */
	if (c->ring != NULL) {
		atomic_store_explicit((_Atomic uint64_t *)&c->ring->posted, 0, memory_order_relaxed);
		memset(c->slots, 0, c->cap * sizeof(c->slots[0]));
	}
	c->posted = 0;
	c->arrived = 0;
}

static doca_error_t
consumer_submit(struct doca_task *task)
{
	struct doca_comch_consumer_task_post_recv *t =
		sd_container_of(task, struct doca_comch_consumer_task_post_recv, task);
	struct doca_comch_consumer *c = consumer_from_ctx(sd_task_ctx(task));
	struct sd_comch_ring *ring = c->ring;
	uint64_t posted = c->posted;
	size_t head_len, data_len;
	void *head, *data;

	if (t->buf == NULL) {
		DOCA_LOG_ERR("doca_task_submit: post_recv task has no buffer; set one with "
			     "doca_comch_consumer_task_post_recv_set_buf()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Only dropped receives can fill the ring beyond the pool: their slots come back as the peer fills them. */
	if (sd_unlikely(posted - c->arrived >= c->cap))
		return DOCA_ERROR_AGAIN;
	(void)doca_buf_get_head(t->buf, &head);
	(void)doca_buf_get_len(t->buf, &head_len);
	(void)doca_buf_get_data(t->buf, &data);
	(void)doca_buf_get_data_len(t->buf, &data_len);
	t->producer_id = 0;
	t->imm_len = 0;
	ring->slot[posted & (c->cap - 1)].addr = (uint64_t)(uintptr_t)data + data_len;
	ring->slot[posted & (c->cap - 1)].len = (uint64_t)(uintptr_t)head + head_len - (uintptr_t)data - data_len;
	t->pos = posted;
	c->slots[posted & (c->cap - 1)] = t;
	sd_list_init(sd_task_link(task));
	/* The slot is complete before a producer can see the new count. */
	atomic_store_explicit((_Atomic uint64_t *)&ring->posted, posted + 1, memory_order_release);
	c->posted = posted + 1;
	return DOCA_SUCCESS;
}

/* doca_task_free() of a posted task: forget it (its slot stays posted until the stop, see the top). */
static bool
consumer_drop(struct doca_task *task)
{
	struct doca_comch_consumer_task_post_recv *t =
		sd_container_of(task, struct doca_comch_consumer_task_post_recv, task);
	struct doca_comch_consumer *c = consumer_from_ctx(sd_task_ctx(task));
	struct doca_comch_consumer_task_post_recv **slot;

	/* A task the peer filled (in the shared ring, not yet reaped), or a flushed one, is reported soon. */
	if (c->ring == NULL || t->pos < c->arrived || t->pos >= c->posted)
		return false;
	if (c->shared && c->announced && t->pos < sd_comch_shring_done(c->ring, c->cap))
		return false;
	slot = &c->slots[t->pos & (c->cap - 1)];
	if (*slot != t)
		return false;
	*slot = NULL;
	c->dropped++;
	DOCA_LOG_TRC("Comch consumer %u: posted task %p freed by the program; dropped", c->id, (void *)task);
	return true;
}

/* SOFTDOCA_FAULTS comch.peer=vanish: its connection ends as when the peer's process dies (EOF). */
static void
consumer_vanish(struct doca_ctx *ctx)
{
	sd_comch_conn_fail(consumer_from_ctx(ctx)->conn);
}

static const struct sd_ctx_ops consumer_ctx_ops = {
	.name = "comch_consumer",
	.start = consumer_start,
	.flush = consumer_flush,
	.stopped = consumer_stopped,
	.progress = consumer_progress,
	.arm = consumer_arm,
	.submit = consumer_submit,
	.drop = consumer_drop,
	.vanish = consumer_vanish,
};

/* --- public API ------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
			   struct doca_comch_consumer **consumer)
{
	struct doca_comch_consumer *c;
	struct sd_comch_fp *fp;

	if (comch_connection == NULL || buf_mmap == NULL || consumer == NULL) {
		DOCA_LOG_ERR("doca_comch_consumer_create: NULL argument; pass non-NULL pointers");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (comch_connection->state != SD_COMCH_CONN_OPEN) {
		DOCA_LOG_ERR("doca_comch_consumer_create: the connection is not established; create consumers once "
			     "the client is RUNNING or the server got the connect event");
		return DOCA_ERROR_BAD_STATE;
	}
	fp = sd_comch_fp_get(comch_connection);
	c = sd_fault_create("comch", "doca_comch_consumer_create") ? NULL : calloc(1, sizeof(*c));
	if (fp == NULL || c == NULL) {
		free(c);
		DOCA_LOG_ERR("doca_comch_consumer_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	c->conn = comch_connection;
	c->mmap = buf_mmap;
	c->share = SD_XPROC_SHARE_NONE;
	c->id = ++fp->next_id == 0xffff ? ++fp->next_id : fp->next_id;
	sd_list_init(&c->link);
	sd_ctx_init(&c->ctx, &consumer_ctx_ops, sd_ctx_dev(&comch_connection->ep->ctx));
	comch_connection->fp_users++;
	*consumer = c;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	doca_error_t err;

	if (consumer == NULL) {
		DOCA_LOG_ERR("doca_comch_consumer_destroy: consumer is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_ctx_fini(&consumer->ctx, "doca_comch_consumer_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_comch_fp_user_put(consumer->conn);
	consumer_ring_free(consumer);
	free(consumer);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
	return consumer == NULL ? NULL : &consumer->ctx;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
	if (consumer == NULL || id == NULL) {
		DOCA_LOG_ERR("doca_comch_consumer_get_id: NULL argument; pass non-NULL pointers");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*id = consumer->id;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len)
{
	if (consumer == NULL || imm_data_len > SD_COMCH_MAX_IMM) {
		DOCA_LOG_ERR("doca_comch_consumer_set_imm_data_len: NULL consumer or length over %u; pass the consumer "
			     "and a "
			     "length <= %u",
			     SD_COMCH_MAX_IMM, SD_COMCH_MAX_IMM);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&consumer->ctx) != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_comch_consumer_set_imm_data_len: allowed only while IDLE; set it before "
			     "doca_ctx_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	consumer->imm_data_len = imm_data_len;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len)
{
	if (consumer == NULL || imm_data_len == NULL) {
		DOCA_LOG_ERR("doca_comch_consumer_get_imm_data_len: NULL argument; pass non-NULL pointers");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*imm_data_len = consumer->imm_data_len;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_task_post_recv_set_conf(struct doca_comch_consumer *consumer,
					    doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
					    doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
					    uint32_t num_post_recv_tasks)
{
	static const char api[] = "doca_comch_consumer_task_post_recv_set_conf";

	if (consumer == NULL || task_completion_cb == NULL || task_error_cb == NULL) {
		DOCA_LOG_ERR("%s: the consumer and both callbacks are required; pass all three", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_task_pool_configure(&consumer->ctx, &consumer->recv_pool, "post_recv",
				      sizeof(struct doca_comch_consumer_task_post_recv), num_post_recv_tasks,
				      SD_COMCH_FP_MAX_TASKS, SD_TASK_CB(task_completion_cb), SD_TASK_CB(task_error_cb),
				      api);
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer, struct doca_buf *buf,
					      struct doca_comch_consumer_task_post_recv **task)
{
	static const char api[] = "doca_comch_consumer_task_post_recv_alloc_init";
	struct doca_task *t;
	doca_error_t err;

	if (consumer == NULL || task == NULL) {
		DOCA_LOG_ERR("%s: NULL argument; pass non-NULL pointers", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(consumer->recv_pool, (union doca_data){.u64 = 0}, api, &t);
	if (err != DOCA_SUCCESS)
		return err;
	*task = sd_container_of(t, struct doca_comch_consumer_task_post_recv, task);
	(*task)->buf = buf;
	(*task)->producer_id = 0;
	(*task)->imm_len = 0;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : task->buf;
}

DOCA_EXPERIMENTAL void
doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

DOCA_EXPERIMENTAL uint32_t
doca_comch_consumer_task_post_recv_get_producer_id(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? 0 : task->producer_id;
}

DOCA_EXPERIMENTAL uint8_t *
doca_comch_consumer_task_post_recv_get_imm_data(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL || task->imm_len == 0 ? NULL : task->imm;
}

DOCA_EXPERIMENTAL uint32_t
doca_comch_consumer_task_post_recv_get_imm_data_len(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? 0 : task->imm_len;
}

DOCA_EXPERIMENTAL struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : &task->task;
}

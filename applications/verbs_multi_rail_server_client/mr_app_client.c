/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client (sender) of verbs_multi_rail_server_client.  One data thread:
 *
 *   todo (chunks to post) --get_post_split--> each rail's queue --post--> its QPs, round robin
 *   poll each UP rail's CQ --update_qp--> the library's bandwidth estimate; done or lost
 *
 * Each rail keeps up to max_inflight_bytes posted (enough to keep its link busy) and posts from
 * its own queue, which the split fills by the rails' measured bandwidth; a rail whose queue runs
 * dry while it has room takes the newest chunk queued on another rail, so no rail idles while
 * work waits (when the shares are right, that seldom happens).
 * Two iterations are in flight (buffer slots, MR_ITER_SLOTS): the next one moves while the
 * server verifies the last.  Chunk g (0 .. slots x chunks) is chunk g % chunks of the iteration
 * in slot g / chunks, at offset g x chunk_size in both buffers; its bytes are written when it is
 * first handed to a rail.  When a pass finds nothing to do the thread sleeps MR_IDLE_SLEEP_NS,
 * leaving the CPU to the network stack and the peer.
 *
 * A rail is lost when a completion fails with a recoverable error, or when it has work in
 * flight and no completion for stall_timeout_ms (a silent cut).  Its queued and in-flight
 * chunks go back to todo at once (posted on the other rails), the server is told to fence the
 * rail, and the recovery thread takes its QPs.  A chunk posted twice lands twice with the same
 * bytes; a stale copy is told by its (iteration, chunk) header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_log.h>
#include <doca_verbs_bridge.h>
#include <doca_verbs_multi_rail.h>

#include "mr_app.h"

DOCA_LOG_REGISTER(MR_APP_CLIENT);

#define MR_POLL_BATCH 32
#define MR_UPDATE_NS 5000000ULL /* library update() period */
#define MR_NOWHERE 0xff
#define MR_DONE 0xfe
#define MR_IDLE_SPINS 8	       /* passes without a completion or a post before sleeping */
#define MR_IDLE_SLEEP_NS 50000 /* then sleep this long per pass */

/* A FIFO of chunk numbers with room for every chunk. */
struct fifo {
	uint32_t *v;
	uint32_t cap, head, n;
};

/* One iteration in flight, in buffer slot iter % MR_ITER_SLOTS. */
struct iter_slot {
	uint32_t iter;
	uint32_t done; /* chunks completed */
	bool active;
	bool done_sent; /* ITER_DONE sent since the last chunk came back (NACK) */
};

struct client_state {
	struct mr_app *app;
	uint32_t n; /* chunks of all slots: MR_ITER_SLOTS x num_chunks */
	struct fifo todo;
	struct fifo queue[MR_MAX_RAILS];
	uint32_t next_qp[MR_MAX_RAILS];
	uint8_t *where;	 /* rail a chunk is queued or in flight on, MR_NOWHERE or MR_DONE */
	uint8_t *filled; /* its bytes are those of its slot's iteration */
	uint16_t *seq;
	uint64_t *post_ns;
	struct iter_slot slot[MR_ITER_SLOTS];
	uint32_t next_iter; /* the next iteration to start */
	bool stop_starting;
	bool busy; /* this pass polled a completion or posted a chunk */
	uint64_t t0, last_success_ns, longest_stall_ns, all_down_since;
	uint64_t reposted, nacks, iters_ok, stolen;
	uint64_t last_update, last_progress, progress_bytes[MR_MAX_RAILS];
};

static void
fifo_push(struct fifo *f, uint32_t x)
{
	f->v[(f->head + f->n++) % f->cap] = x;
}

static uint32_t
fifo_pop(struct fifo *f)
{
	uint32_t x = f->v[f->head];

	f->head = (f->head + 1) % f->cap;
	f->n--;
	return x;
}

/* The newest entry (a rail with room takes it from another rail's queue). */
static uint32_t
fifo_pop_back(struct fifo *f)
{
	return f->v[(f->head + --f->n) % f->cap];
}

static doca_error_t
send_msg(struct mr_app *app, uint32_t type, uint32_t rail, uint64_t a, uint64_t b)
{
	struct mr_msg msg = {.type = type, .rail = rail, .a = a, .b = b};

	return mr_oob_send(app->conn_fd, &msg, NULL, 0);
}

static void
start_iteration(struct client_state *st)
{
	struct mr_app *app = st->app;
	uint32_t iter = st->next_iter++, s = iter % MR_ITER_SLOTS, c, g;

	st->slot[s] = (struct iter_slot){.iter = iter, .active = true};
	for (c = 0; c < app->num_chunks; c++) {
		g = s * app->num_chunks + c;
		st->where[g] = MR_NOWHERE;
		st->filled[g] = 0;
		fifo_push(&st->todo, g);
	}
}

/* Chunk g's bytes: those of its slot's iteration (written when first handed to a rail). */
static void
fill_chunk(struct client_state *st, uint32_t g)
{
	struct mr_app *app = st->app;
	uint32_t cs = app->cfg->rail.chunk_size;

	if (st->filled[g])
		return;
	mr_chunk_fill(app->buf + (uint64_t)g * cs, cs, st->slot[g / app->num_chunks].iter, g % app->num_chunks);
	st->filled[g] = 1;
}

/* The rail is lost: its chunks go back to todo, the server fences it, recovery takes it. */
static doca_error_t
rail_lost(struct client_state *st, uint32_t r, const char *why)
{
	struct mr_app *app = st->app;
	struct mr_rail *rail = &app->rails[r];
	uint32_t c, moved = 0;

	pthread_mutex_lock(&app->lock);
	rail->state = MR_RAIL_DOWN;
	pthread_mutex_unlock(&app->lock);
	rail->lost_count++;
	rail->up_ns_total += mr_now_ns() - rail->up_since_ns;
	atomic_fetch_add(&app->rails_lost, 1);
	st->queue[r].n = 0;
	for (c = 0; c < st->n; c++)
		if (st->where[c] == r) {
			st->where[c] = MR_NOWHERE;
			fifo_push(&st->todo, c);
			moved++;
		}
	st->reposted += moved;
	rail->inflight_bytes = 0;
	if (app->mr != NULL)
		(void)doca_verbs_multi_rail_update_qp(app->mr, r, 0, 0, IBV_WC_RETRY_EXC_ERR);
	printf("rail %u (%s) lost at %.3f s: %s; %u chunk(s) go to the other rail(s)\n", r, rail->ibdev,
	       (double)(mr_now_ns() - st->t0) / 1e9, why, moved);
	fflush(stdout);
	return send_msg(app, MR_MSG_RAIL_DOWN, r, 0, 0);
}

static uint32_t
rails_up(struct mr_app *app)
{
	uint32_t r, n = 0;

	for (r = 0; r < app->num_rails; r++)
		n += app->rails[r].state == MR_RAIL_UP;
	return n;
}

/*
 * Hand todo chunks to the rails' queues: when less than half of one window per UP rail is
 * queued, top the queues up to a window per rail, cut by the library's split when multi-rail
 * (shares by measured bandwidth), else all on rail 0.  Each rail posts from its queue as its
 * window allows; when the shares are right the queues drain together.
 */
static void
assign(struct client_state *st)
{
	struct mr_app *app = st->app;
	uint32_t cs = app->cfg->rail.chunk_size, r, i, cnt, up = 0, queued = 0, target, n;
	uint32_t window = (uint32_t)(app->cfg->rail.max_inflight_bytes / cs), first_up = MR_MAX_RAILS;
	struct doca_verbs_multi_rail_chunk split[MR_MAX_RAILS];
	uint64_t j;

	if (st->todo.n == 0)
		return;
	for (r = 0; r < app->num_rails; r++) {
		if (app->rails[r].state != MR_RAIL_UP)
			continue;
		if (first_up == MR_MAX_RAILS)
			first_up = r;
		up++;
		queued += st->queue[r].n;
	}
	target = (window == 0 ? 1 : window) * up;
	if (up == 0 || queued > target / 2)
		return;
	n = target - queued < st->todo.n ? target - queued : st->todo.n;
	if (app->mr == NULL || doca_verbs_multi_rail_get_post_split(app->mr, (uint64_t)n * cs, split, MR_MAX_RAILS,
								    &cnt) != DOCA_SUCCESS) {
		split[0] = (struct doca_verbs_multi_rail_chunk){.rail = first_up, .length = (uint64_t)n * cs};
		cnt = 1;
	}
	for (i = 0; i < cnt; i++) {
		r = split[i].rail < app->num_rails && app->rails[split[i].rail].state == MR_RAIL_UP ? split[i].rail
												    : first_up;
		for (j = 0; j < split[i].length / cs && st->todo.n > 0; j++) {
			uint32_t c = fifo_pop(&st->todo);

			fill_chunk(st, c);
			st->where[c] = (uint8_t)r;
			fifo_push(&st->queue[r], c);
		}
	}
}

/* Rail r has room and nothing queued: take the newest chunk of the longest other queue. */
static bool
steal(struct client_state *st, uint32_t r)
{
	struct mr_app *app = st->app;
	uint32_t o, from = MR_MAX_RAILS, c;

	for (o = 0; o < app->num_rails; o++)
		if (o != r && st->queue[o].n > 0 && (from == MR_MAX_RAILS || st->queue[o].n > st->queue[from].n))
			from = o;
	if (from == MR_MAX_RAILS)
		return false;
	c = fifo_pop_back(&st->queue[from]);
	st->where[c] = (uint8_t)r;
	fifo_push(&st->queue[r], c);
	st->stolen++;
	return true;
}

static doca_error_t
post_rail(struct client_state *st, uint32_t r)
{
	struct mr_app *app = st->app;
	struct mr_rail *rail = &app->rails[r];
	uint32_t cs = app->cfg->rail.chunk_size, sq = app->cfg->qp.sq_depth, tried;
	uint64_t window = app->cfg->rail.max_inflight_bytes < cs ? cs : app->cfg->rail.max_inflight_bytes;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret;

	while (rail->inflight_bytes + cs <= window && (st->queue[r].n > 0 || steal(st, r))) {
		struct mr_qp *q = NULL;
		uint32_t c, qi;

		for (tried = 0; tried < rail->num_qps; tried++) {
			qi = st->next_qp[r]++ % rail->num_qps;
			if (rail->qps[qi].outstanding < sq) {
				q = &rail->qps[qi];
				break;
			}
		}
		if (q == NULL)
			return DOCA_SUCCESS;
		c = fifo_pop(&st->queue[r]);
		st->seq[c]++;
		sge = (struct ibv_sge){.addr = (uint64_t)(uintptr_t)(app->buf + (uint64_t)c * cs),
				       .length = cs,
				       .lkey = rail->mr->lkey};
		wr = (struct ibv_send_wr){.wr_id = c | (uint64_t)qi << 32 | (uint64_t)st->seq[c] << 48,
					  .sg_list = &sge,
					  .num_sge = 1,
					  .opcode = app->cfg->traffic == MR_TRAFFIC_WRITE ? IBV_WR_RDMA_WRITE
											  : IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED};
		if (app->cfg->traffic == MR_TRAFFIC_WRITE) {
			wr.wr.rdma.remote_addr = app->remote_va + (uint64_t)c * cs;
			wr.wr.rdma.rkey = app->remote_rkey[r];
		}
		if (rail->inflight_bytes == 0)
			rail->last_completion_ns = mr_now_ns();
		st->post_ns[c] = mr_now_ns();
		bad = NULL;
		ret = doca_verbs_bridge_post_send(q->qp, &wr, &bad);
		if (ret != 0) {
			st->where[c] = MR_NOWHERE;
			fifo_push(&st->todo, c);
			return rail_lost(st, r, "a post was refused");
		}
		q->outstanding++;
		rail->inflight_bytes += cs;
		st->busy = true;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
poll_rail(struct client_state *st, uint32_t r)
{
	struct mr_app *app = st->app;
	struct mr_rail *rail = &app->rails[r];
	uint32_t cs = app->cfg->rail.chunk_size;
	struct ibv_wc wc[MR_POLL_BATCH];
	uint8_t recoverable = 1;
	uint64_t now;
	int n, i;

	n = doca_verbs_bridge_poll_cq(rail->cq, MR_POLL_BATCH, wc);
	if (n <= 0)
		return DOCA_SUCCESS;
	now = mr_now_ns();
	for (i = 0; i < n; i++) {
		uint32_t c = (uint32_t)wc[i].wr_id, qi = (uint32_t)(wc[i].wr_id >> 32) & 0xffff;
		uint16_t sq = (uint16_t)(wc[i].wr_id >> 48);

		if (qi < rail->num_qps && rail->qps[qi].outstanding > 0)
			rail->qps[qi].outstanding--;
		if (c >= st->n || sq != st->seq[c] || st->where[c] != r)
			continue; /* a copy already posted elsewhere */
		if (app->mr != NULL)
			(void)doca_verbs_multi_rail_update_qp(app->mr, r, cs, now - st->post_ns[c], wc[i].status);
		rail->inflight_bytes -= cs;
		if (wc[i].status != IBV_WC_SUCCESS) {
			if (app->mr != NULL)
				(void)doca_verbs_multi_rail_error_is_recoverable(app->mr, wc[i].status, &recoverable);
			if (!recoverable && wc[i].status != IBV_WC_WR_FLUSH_ERR) {
				DOCA_LOG_ERR("Chunk %u on rail %u completed with %s: not a rail failure", c, r,
					     ibv_wc_status_str(wc[i].status));
				return DOCA_ERROR_IO_FAILED;
			}
			return rail_lost(st, r, ibv_wc_status_str(wc[i].status));
		}
		st->where[c] = MR_DONE;
		st->slot[c / app->num_chunks].done++;
		st->busy = true;
		rail->bytes_done += cs;
		rail->last_completion_ns = now;
		if (st->last_success_ns != 0 && now - st->last_success_ns > st->longest_stall_ns)
			st->longest_stall_ns = now - st->last_success_ns;
		st->last_success_ns = now;
	}
	return DOCA_SUCCESS;
}

static void
take_recovered(struct client_state *st)
{
	struct mr_app *app = st->app;
	uint32_t r;

	pthread_mutex_lock(&app->lock);
	for (r = 0; r < app->num_rails; r++) {
		struct mr_rail *rail = &app->rails[r];

		if (rail->state != MR_RAIL_RECOVERING)
			continue;
		rail->qps = rail->new_qps;
		rail->new_qps = NULL;
		rail->state = MR_RAIL_UP;
		rail->recovered_count++;
		rail->up_since_ns = mr_now_ns();
		rail->inflight_bytes = 0;
		st->next_qp[r] = 0;
		printf("rail %u (%s) recovered at %.3f s\n", r, rail->ibdev, (double)(mr_now_ns() - st->t0) / 1e9);
		fflush(stdout);
	}
	pthread_mutex_unlock(&app->lock);
}

static void
progress(struct client_state *st, uint64_t now)
{
	struct mr_app *app = st->app;
	double dt = (double)(now - st->last_progress) / 1e9, total = 0, bw;
	uint32_t r;

	printf("progress t=%.3f", (double)(now - st->t0) / 1e9);
	for (r = 0; r < app->num_rails; r++) {
		bw = (double)(app->rails[r].bytes_done - st->progress_bytes[r]) / dt;
		total += bw;
		st->progress_bytes[r] = app->rails[r].bytes_done;
		printf(" rail%u=%.2fMB/s%s", r, bw / 1e6, app->rails[r].state == MR_RAIL_UP ? "" : "(down)");
	}
	printf(" total=%.2fMB/s", total / 1e6);
	for (r = 0; app->mr != NULL && r < app->num_rails; r++) {
		double share = 0;

		(void)doca_verbs_multi_rail_get_rail_share(app->mr, r, &share);
		printf("%s%.2f", r == 0 ? " share=" : "/", share);
	}
	printf("\n");
	fflush(stdout);
	st->last_progress = now;
}

static doca_error_t
handle_server(struct client_state *st)
{
	struct mr_app *app = st->app;
	struct iter_slot *slot;
	struct mr_msg msg;
	doca_error_t result;
	uint32_t g;

	for (;;) {
		result = mr_oob_recv(app->conn_fd, &msg, 0);
		if (result == DOCA_ERROR_TIME_OUT)
			return DOCA_SUCCESS;
		if (result != DOCA_SUCCESS)
			return result;
		slot = &st->slot[msg.a % MR_ITER_SLOTS];
		if (msg.type == MR_MSG_ABORT) {
			DOCA_LOG_ERR("The server gave up: %s", doca_error_get_descr((doca_error_t)msg.a));
			return (doca_error_t)msg.a;
		}
		if (!slot->active || slot->iter != msg.a)
			continue;
		if (msg.type == MR_MSG_ITER_OK) {
			slot->active = false;
			st->iters_ok++;
		} else if (msg.type == MR_MSG_NACK && msg.b < app->num_chunks) {
			g = (uint32_t)(msg.a % MR_ITER_SLOTS) * app->num_chunks + (uint32_t)msg.b;
			if (st->where[g] == MR_DONE) {
				st->where[g] = MR_NOWHERE;
				slot->done--;
				slot->done_sent = false;
				fifo_push(&st->todo, g);
				st->nacks++;
			}
		}
	}
}

static void
report(struct client_state *st, doca_error_t result)
{
	struct mr_app *app = st->app;
	double secs = (double)(mr_now_ns() - st->t0) / 1e9, total = 0;
	uint64_t bytes = st->iters_ok * app->cfg->chunks_total;
	uint32_t r;

	printf("== verbs_multi_rail_server_client: %s, %s, %u QP(s), %u rail(s)\n",
	       app->cfg->traffic == MR_TRAFFIC_WRITE ? "write" : "send",
	       app->cfg->use_multi_rail ? "multi-rail" : "plain RC", app->cfg->num_qps, app->num_rails);
	for (r = 0; r < app->num_rails; r++) {
		printf("rail %u (%s): %llu bytes, %.2f MB/s, lost %llu, recovered %llu\n", r, app->rails[r].ibdev,
		       (unsigned long long)app->rails[r].bytes_done, (double)app->rails[r].bytes_done / secs / 1e6,
		       (unsigned long long)app->rails[r].lost_count, (unsigned long long)app->rails[r].recovered_count);
		total += (double)app->rails[r].bytes_done;
	}
	printf("total: %llu bytes verified in %llu iteration(s), %.3f s, %.2f MB/s (%.2f MB/s posted incl. copies)\n",
	       (unsigned long long)bytes, (unsigned long long)st->iters_ok, secs, (double)bytes / secs / 1e6,
	       total / secs / 1e6);
	printf("rails lost %u, recovered %u, longest stall %.1f ms, chunks re-posted %llu, NACKed %llu, taken from "
	       "another rail's queue %llu\n",
	       atomic_load(&app->rails_lost), atomic_load(&app->rails_recovered), (double)st->longest_stall_ns / 1e6,
	       (unsigned long long)st->reposted, (unsigned long long)st->nacks, (unsigned long long)st->stolen);
	printf("MR_RESULT {\"status\": \"%s\", \"bytes\": %llu, \"seconds\": %.6f, \"bps\": %.1f, \"rails\": [",
	       doca_error_get_name(result), (unsigned long long)bytes, secs, (double)bytes / secs);
	for (r = 0; r < app->num_rails; r++)
		printf("%s{\"ibdev\": \"%s\", \"bytes\": %llu, \"bps\": %.1f}", r ? ", " : "", app->rails[r].ibdev,
		       (unsigned long long)app->rails[r].bytes_done, (double)app->rails[r].bytes_done / secs);
	printf("], \"rails_lost\": %u, \"rails_recovered\": %u, \"longest_stall_ms\": %.3f, \"reposted\": %llu, "
	       "\"nacks\": %llu, \"corrupt\": 0}\n",
	       atomic_load(&app->rails_lost), atomic_load(&app->rails_recovered), (double)st->longest_stall_ns / 1e6,
	       (unsigned long long)st->reposted, (unsigned long long)st->nacks);
	fflush(stdout);
}

static doca_error_t
create_multi_rail(struct mr_app *app)
{
	struct doca_verbs_multi_rail_cfg *mcfg;
	uint32_t cs = app->cfg->rail.chunk_size;
	doca_error_t result;

	if ((cs & (cs - 1)) != 0) {
		DOCA_LOG_ERR("chunk_size (%u) must be a power of two with --use-multi-rail", cs);
		return DOCA_ERROR_BAD_CONFIG;
	}
	result = mr_config_library(&app->cfg->rail, &mcfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure the multi-rail object: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_verbs_multi_rail_create(app->num_rails, &app->mr);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_apply_cfg(app->mr, mcfg);
	(void)doca_verbs_multi_rail_cfg_destroy(mcfg);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to set up the multi-rail object: %s", doca_error_get_descr(result));
	return result;
}

/* Whether another iteration may start: --iterations or --duration not reached yet. */
static bool
may_start(struct client_state *st, uint64_t now)
{
	const struct mr_config *cfg = st->app->cfg;

	if (st->stop_starting)
		return false;
	if (cfg->duration > 0 ? (double)(now - st->t0) / 1e9 >= cfg->duration : st->next_iter >= cfg->iterations)
		st->stop_starting = true;
	return !st->stop_starting;
}

/* Iteration bookkeeping: ITER_DONE for complete ones, start new ones in free slots; *finished at the end. */
static doca_error_t
iterations(struct client_state *st, uint64_t now, bool *finished)
{
	struct mr_app *app = st->app;
	doca_error_t result = DOCA_SUCCESS;
	uint32_t s, active = 0;

	for (s = 0; s < MR_ITER_SLOTS && result == DOCA_SUCCESS; s++) {
		struct iter_slot *slot = &st->slot[s];

		if (slot->active && slot->done == app->num_chunks && !slot->done_sent) {
			result = send_msg(app, MR_MSG_ITER_DONE, 0, slot->iter, slot->done);
			slot->done_sent = true;
		}
	}
	if (result == DOCA_SUCCESS)
		result = handle_server(st);
	for (s = 0; s < MR_ITER_SLOTS && result == DOCA_SUCCESS; s++) {
		if (!st->slot[st->next_iter % MR_ITER_SLOTS].active && may_start(st, now))
			start_iteration(st);
		active += st->slot[s].active;
	}
	if (result == DOCA_SUCCESS && active == 0) {
		*finished = true;
		result = send_msg(app, MR_MSG_FINISH, 0, 0, 0);
	}
	return result;
}

static doca_error_t
client_loop(struct client_state *st)
{
	struct mr_app *app = st->app;
	const struct mr_config *cfg = app->cfg;
	uint64_t now, stall_ns = (uint64_t)cfg->rail.stall_timeout_ms * 1000000ULL;
	const struct timespec idle = {.tv_nsec = MR_IDLE_SLEEP_NS};
	doca_error_t result = DOCA_SUCCESS;
	bool finished = false;
	uint32_t r, spins = 0, idle_passes = 0;

	while (result == DOCA_SUCCESS && st->next_iter < MR_ITER_SLOTS && may_start(st, mr_now_ns()))
		start_iteration(st);
	while (result == DOCA_SUCCESS && !finished) {
		st->busy = false;
		take_recovered(st);
		assign(st);
		for (r = 0; r < app->num_rails && result == DOCA_SUCCESS; r++) {
			if (app->rails[r].state != MR_RAIL_UP)
				continue;
			result = post_rail(st, r);
			if (result == DOCA_SUCCESS && app->rails[r].state == MR_RAIL_UP)
				result = poll_rail(st, r);
		}
		idle_passes = st->busy ? 0 : idle_passes + 1;
		if (idle_passes >= MR_IDLE_SPINS)
			nanosleep(&idle, NULL);
		if (result != DOCA_SUCCESS || (++spins % 64 != 0 && !(idle_passes >= MR_IDLE_SPINS && spins % 8 == 0)))
			continue;
		now = mr_now_ns();
		for (r = 0; r < app->num_rails && result == DOCA_SUCCESS; r++)
			if (app->rails[r].state == MR_RAIL_UP && app->rails[r].inflight_bytes > 0 &&
			    now - app->rails[r].last_completion_ns > stall_ns)
				result = rail_lost(st, r, "no completion within stall_timeout_ms");
		if (rails_up(app) == 0) {
			if (st->all_down_since == 0)
				st->all_down_since = now;
			if (now - st->all_down_since > (uint64_t)cfg->rail.all_down_timeout_ms * 1000000ULL) {
				DOCA_LOG_ERR("Every rail has been lost for %u ms (all_down_timeout_ms): giving up",
					     cfg->rail.all_down_timeout_ms);
				result = DOCA_ERROR_NOT_CONNECTED;
				(void)send_msg(app, MR_MSG_ABORT, 0, (uint64_t)result, 0);
				break;
			}
		} else {
			st->all_down_since = 0;
		}
		if (app->mr != NULL && now - st->last_update > MR_UPDATE_NS) {
			(void)doca_verbs_multi_rail_update(app->mr, now);
			st->last_update = now;
		}
		if (cfg->progress_ms != 0 && now - st->last_progress > (uint64_t)cfg->progress_ms * 1000000ULL)
			progress(st, now);
		if (result == DOCA_SUCCESS)
			result = iterations(st, now, &finished);
	}
	return result;
}

doca_error_t
mr_client_run(struct mr_app *app)
{
	struct client_state st = {.app = app, .n = MR_ITER_SLOTS * app->num_chunks};
	doca_error_t result = DOCA_SUCCESS;
	uint32_t r, n = st.n;

	st.todo = (struct fifo){.v = calloc(n, sizeof(uint32_t)), .cap = n};
	for (r = 0; r < app->num_rails; r++)
		st.queue[r] = (struct fifo){.v = calloc(n, sizeof(uint32_t)), .cap = n};
	st.where = calloc(n, 1);
	st.filled = calloc(n, 1);
	st.seq = calloc(n, sizeof(uint16_t));
	st.post_ns = calloc(n, sizeof(uint64_t));
	if (st.todo.v == NULL || st.where == NULL || st.filled == NULL || st.seq == NULL || st.post_ns == NULL)
		result = DOCA_ERROR_NO_MEMORY;
	for (r = 0; r < app->num_rails; r++)
		if (st.queue[r].v == NULL)
			result = DOCA_ERROR_NO_MEMORY;
	if (result == DOCA_SUCCESS && app->cfg->use_multi_rail)
		result = create_multi_rail(app);
	if (result == DOCA_SUCCESS)
		result = mr_recovery_start(app);
	st.t0 = st.last_progress = st.last_update = mr_now_ns();
	if (result == DOCA_SUCCESS)
		result = client_loop(&st);
	mr_recovery_stop(app);
	report(&st, result);
	if (app->mr != NULL)
		(void)doca_verbs_multi_rail_destroy(app->mr);
	app->mr = NULL;
	free(st.todo.v);
	for (r = 0; r < app->num_rails; r++)
		free(st.queue[r].v);
	free(st.where);
	free(st.filled);
	free(st.seq);
	free(st.post_ns);
	return result;
}

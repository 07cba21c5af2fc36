/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server (receiver) of verbs_multi_rail_server_client and the chunk format both sides use.
 *
 * A chunk is chunk_size bytes at offset chunk * chunk_size of the buffer:
 *   [0, 4) iteration  [4, 8) chunk number  [8, 16) checksum of [24, chunk_size)  [16, 24) 0
 * and a payload derived from (iteration, chunk), so a chunk of another iteration, a misplaced
 * one or a changed byte fails the check.  Write traffic: the client's RDMA writes land in the
 * buffer slot of their iteration (iteration i at i % MR_ITER_SLOTS x chunks_total); at ITER_DONE
 * the server checks every chunk of that slot in place.  Send traffic: each chunk arrives in a
 * receive buffer of the QP it was sent on and is checked there.  A chunk that fails is NACKed
 * over TCP and sent again by the client; ITER_OK tells the client the iteration is whole.  Up to
 * MR_ITER_SLOTS iterations are open at once (the oldest unverified, st->iter, and the next),
 * verified in any order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>
#include <doca_verbs_bridge.h>

#include "mr_app.h"

DOCA_LOG_REGISTER(MR_APP_SERVER);

#define MR_POLL_BATCH 32

static inline uint64_t
splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t
checksum(const uint8_t *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	return h;
}

void
mr_chunk_fill(uint8_t *p, uint32_t len, uint32_t iter, uint32_t chunk)
{
	uint64_t seed = ((uint64_t)iter << 32 | chunk) * 0x2545f4914f6cdd1dULL, w, sum;
	uint32_t i;

	for (i = MR_CHUNK_HDR; i + 8 <= len; i += 8) {
		w = splitmix64(seed + i);
		memcpy(p + i, &w, 8);
	}
	sum = checksum(p + MR_CHUNK_HDR, len - MR_CHUNK_HDR);
	memcpy(p, &iter, 4);
	memcpy(p + 4, &chunk, 4);
	memcpy(p + 8, &sum, 8);
	memset(p + 16, 0, 8);
}

doca_error_t
mr_chunk_check(const uint8_t *p, uint32_t len, uint32_t iter, uint32_t chunk, char *why, size_t why_len)
{
	uint32_t got_iter, got_chunk;
	uint64_t sum;

	memcpy(&got_iter, p, 4);
	memcpy(&got_chunk, p + 4, 4);
	memcpy(&sum, p + 8, 8);
	if (got_iter != iter || got_chunk != chunk) {
		snprintf(why, why_len, "it holds chunk %u of iteration %u", got_chunk, got_iter);
		return DOCA_ERROR_UNEXPECTED;
	}
	if (checksum(p + MR_CHUNK_HDR, len - MR_CHUNK_HDR) != sum) {
		snprintf(why, why_len, "its checksum does not match its bytes");
		return DOCA_ERROR_UNEXPECTED;
	}
	return DOCA_SUCCESS;
}

/* What the server knows of one open iteration (slot iter % MR_ITER_SLOTS). */
struct srv_slot {
	uint8_t *got; /* send traffic: chunk verified */
	uint32_t got_count;
	bool verified;	   /* ITER_OK sent */
	bool done_pending; /* ITER_DONE received, ITER_OK not sent */
	uint64_t done_at_ns;
};

struct server_state {
	struct mr_app *app;
	uint32_t iter; /* the oldest iteration not verified; iter + 1 may be open too */
	struct srv_slot slot[MR_ITER_SLOTS];
	uint64_t verified_chunks, nacks, stale;
};

static uint8_t *
recv_slot(struct mr_app *app, uint32_t rail, uint32_t qpi, uint32_t s)
{
	uint64_t global_qp = (uint64_t)qpi * app->num_rails + rail;

	return app->recv_buf + (global_qp * app->recv_slots_per_qp + s) * app->cfg->rail.chunk_size;
}

/* Send traffic: fill every receive queue of a rail's QPs (qps: the rail's current or new QPs). */
doca_error_t
mr_server_post_receives(struct mr_app *app, struct mr_rail *rail, struct mr_qp *qps)
{
	doca_error_t result;
	uint32_t i, s;

	if (app->recv_buf == NULL)
		return DOCA_SUCCESS;
	for (i = 0; i < rail->num_qps; i++)
		for (s = 0; s < app->recv_slots_per_qp; s++) {
			result = mr_post_recv(qps[i].qp, (uint64_t)i << 32 | s, recv_slot(app, rail->index, i, s),
					      app->cfg->rail.chunk_size, rail->recv_mr->lkey);
			if (result != DOCA_SUCCESS)
				return result;
		}
	return DOCA_SUCCESS;
}

static doca_error_t
nack(struct server_state *st, uint32_t iter, uint32_t chunk, const char *why)
{
	struct mr_msg msg = {.type = MR_MSG_NACK, .a = iter, .b = chunk};

	DOCA_LOG_WARN("Chunk %u of iteration %u failed its check (%s): asking the client to post it again", chunk, iter,
		      why);
	st->nacks++;
	return mr_oob_send(st->app->conn_fd, &msg, NULL, 0);
}

/* Iteration iter is whole: tell the client, and close the oldest open iterations that are. */
static doca_error_t
iter_ok(struct server_state *st, uint32_t iter)
{
	struct mr_msg msg = {.type = MR_MSG_ITER_OK, .a = iter, .b = st->nacks};
	struct srv_slot *slot = &st->slot[iter % MR_ITER_SLOTS];

	st->verified_chunks += st->app->num_chunks;
	slot->verified = true;
	slot->done_pending = false;
	while (st->slot[st->iter % MR_ITER_SLOTS].verified) {
		slot = &st->slot[st->iter % MR_ITER_SLOTS];
		slot->verified = false;
		slot->got_count = 0;
		if (slot->got != NULL)
			memset(slot->got, 0, st->app->num_chunks);
		st->iter++;
	}
	return mr_oob_send(st->app->conn_fd, &msg, NULL, 0);
}

/* Whether iteration iter is open (not verified, at most MR_ITER_SLOTS - 1 after the oldest). */
static bool
is_open(const struct server_state *st, uint32_t iter)
{
	return iter - st->iter < MR_ITER_SLOTS && !st->slot[iter % MR_ITER_SLOTS].verified;
}

/* Write traffic: every chunk of the iteration's slot in place. */
static doca_error_t
verify_in_place(struct server_state *st, uint32_t iter)
{
	struct mr_app *app = st->app;
	uint32_t cs = app->cfg->rail.chunk_size, c, bad = 0;
	const uint8_t *base = app->buf + (uint64_t)(iter % MR_ITER_SLOTS) * app->cfg->chunks_total;
	doca_error_t result;
	char why[96];

	for (c = 0; c < app->num_chunks; c++) {
		if (mr_chunk_check(base + (uint64_t)c * cs, cs, iter, c, why, sizeof(why)) == DOCA_SUCCESS)
			continue;
		bad++;
		result = nack(st, iter, c, why);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return bad == 0 ? iter_ok(st, iter) : DOCA_SUCCESS;
}

/* Send traffic: one received chunk. */
static doca_error_t
receive_one(struct server_state *st, struct mr_rail *rail, const struct ibv_wc *wc)
{
	struct mr_app *app = st->app;
	uint32_t cs = app->cfg->rail.chunk_size, qpi = (uint32_t)(wc->wr_id >> 32), s = (uint32_t)wc->wr_id;
	struct srv_slot *slot;
	uint32_t iter, chunk;
	uint8_t *p;
	char why[96];

	if (wc->status != IBV_WC_SUCCESS)
		return DOCA_SUCCESS; /* flushed by a rail's loss: the client posts the chunk elsewhere */
	if (qpi >= rail->num_qps || s >= app->recv_slots_per_qp || rail->qps == NULL)
		return DOCA_SUCCESS;
	p = recv_slot(app, rail->index, qpi, s);
	memcpy(&iter, p, 4);
	memcpy(&chunk, p + 4, 4);
	slot = &st->slot[iter % MR_ITER_SLOTS];
	if (!is_open(st, iter) || chunk >= app->num_chunks || slot->got[chunk]) {
		st->stale++; /* a copy of a chunk posted twice (its rail was lost): already counted */
	} else if (wc->byte_len != cs || mr_chunk_check(p, cs, iter, chunk, why, sizeof(why)) != DOCA_SUCCESS) {
		if (wc->byte_len != cs)
			snprintf(why, sizeof(why), "%u bytes arrived, not %u", wc->byte_len, cs);
		if (nack(st, iter, chunk, why) != DOCA_SUCCESS)
			return DOCA_ERROR_CONNECTION_RESET;
	} else {
		slot->got[chunk] = 1;
		slot->got_count++;
	}
	return mr_post_recv(rail->qps[qpi].qp, wc->wr_id, p, cs, rail->recv_mr->lkey);
}

static void
take_recovered(struct mr_app *app)
{
	uint32_t r;

	pthread_mutex_lock(&app->lock);
	for (r = 0; r < app->num_rails; r++) {
		struct mr_rail *rail = &app->rails[r];

		if (rail->state == MR_RAIL_RECOVERING) {
			rail->qps = rail->new_qps;
			rail->new_qps = NULL;
			rail->state = MR_RAIL_UP;
		}
	}
	pthread_mutex_unlock(&app->lock);
}

static doca_error_t
poll_rails(struct server_state *st)
{
	struct mr_app *app = st->app;
	struct ibv_wc wc[MR_POLL_BATCH];
	doca_error_t result;
	uint32_t r;
	int n, i;

	for (r = 0; r < app->num_rails; r++) {
		struct mr_rail *rail = &app->rails[r];

		if (rail->state != MR_RAIL_UP)
			continue;
		n = doca_verbs_bridge_poll_cq(rail->cq, MR_POLL_BATCH, wc);
		for (i = 0; i < n; i++) {
			result = receive_one(st, rail, &wc[i]);
			if (result != DOCA_SUCCESS)
				return result;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t
handle_msg(struct server_state *st, const struct mr_msg *msg, bool *finished)
{
	struct mr_app *app = st->app;

	switch (msg->type) {
	case MR_MSG_ITER_DONE:
		if (!is_open(st, (uint32_t)msg->a)) {
			DOCA_LOG_ERR("The client finished iteration %llu while this side has %u and %u open",
				     (unsigned long long)msg->a, st->iter, st->iter + MR_ITER_SLOTS - 1);
			return DOCA_ERROR_UNEXPECTED;
		}
		if (app->recv_buf == NULL)
			return verify_in_place(st, (uint32_t)msg->a);
		st->slot[msg->a % MR_ITER_SLOTS].done_pending = true;
		st->slot[msg->a % MR_ITER_SLOTS].done_at_ns = mr_now_ns();
		return DOCA_SUCCESS;
	case MR_MSG_RAIL_DOWN:
		if (msg->rail < app->num_rails) {
			pthread_mutex_lock(&app->lock);
			if (app->rails[msg->rail].state == MR_RAIL_UP)
				app->rails[msg->rail].state = MR_RAIL_DOWN;
			pthread_mutex_unlock(&app->lock);
			atomic_fetch_add(&app->rails_lost, 1);
			printf("rail %u lost (client's report)\n", msg->rail);
			fflush(stdout);
		}
		return DOCA_SUCCESS;
	case MR_MSG_FINISH:
		*finished = true;
		return DOCA_SUCCESS;
	case MR_MSG_ABORT:
		DOCA_LOG_ERR("The client gave up: %s", doca_error_get_descr((doca_error_t)msg->a));
		return (doca_error_t)msg->a;
	default:
		DOCA_LOG_ERR("Unexpected message type %u from the client", msg->type);
		return DOCA_ERROR_UNEXPECTED;
	}
}

/* Send traffic: close whole iterations; NACK what is still missing 0.5 s after ITER_DONE. */
static doca_error_t
check_open(struct server_state *st)
{
	struct mr_app *app = st->app;
	doca_error_t result = DOCA_SUCCESS;
	uint32_t k, c, iter;
	char why[96];

	for (k = 0; k < MR_ITER_SLOTS && result == DOCA_SUCCESS; k++) {
		struct srv_slot *slot = &st->slot[(st->iter + k) % MR_ITER_SLOTS];

		iter = st->iter + k;
		if (!slot->done_pending)
			continue;
		if (slot->got_count == app->num_chunks) {
			result = iter_ok(st, iter);
			break; /* st->iter may have moved: look again next pass */
		}
		/* Every completion reached the client, so what is missing a while later was lost. */
		if (mr_now_ns() - slot->done_at_ns > 500000000ULL) {
			snprintf(why, sizeof(why), "it did not arrive");
			for (c = 0; c < app->num_chunks && result == DOCA_SUCCESS; c++)
				if (!slot->got[c])
					result = nack(st, iter, c, why);
			slot->done_at_ns = mr_now_ns();
		}
	}
	return result;
}

doca_error_t
mr_server_run(struct mr_app *app)
{
	struct server_state st = {.app = app};
	bool finished = false;
	doca_error_t result = DOCA_SUCCESS;
	struct mr_msg msg;
	uint64_t t0 = mr_now_ns();
	uint32_t r, k, spins = 0;

	if (app->recv_buf != NULL) {
		for (k = 0; k < MR_ITER_SLOTS; k++) {
			st.slot[k].got = calloc(app->num_chunks, 1);
			if (st.slot[k].got == NULL)
				result = DOCA_ERROR_NO_MEMORY;
		}
		for (r = 0; r < app->num_rails && result == DOCA_SUCCESS; r++)
			result = mr_server_post_receives(app, &app->rails[r], app->rails[r].qps);
	}
	if (result == DOCA_SUCCESS)
		result = mr_recovery_start(app);
	while (result == DOCA_SUCCESS && !finished) {
		take_recovered(app);
		if (app->recv_buf != NULL) {
			result = poll_rails(&st);
			if (result == DOCA_SUCCESS)
				result = check_open(&st);
			if (result != DOCA_SUCCESS)
				break;
			if (++spins % 256 != 0)
				continue;
		}
		result = mr_oob_recv(app->conn_fd, &msg, app->recv_buf != NULL ? 0 : 100);
		if (result == DOCA_ERROR_TIME_OUT) {
			result = DOCA_SUCCESS;
			continue;
		}
		if (result == DOCA_SUCCESS)
			result = handle_msg(&st, &msg, &finished);
	}
	for (k = 0; k < MR_ITER_SLOTS; k++)
		free(st.slot[k].got);
	printf("server: %u iteration(s), %llu chunk(s) verified (%llu bytes), %llu NACK(s), %llu duplicate(s), "
	       "%u rail loss(es), %u recovery(ies), %.3f s: %s\n",
	       st.iter, (unsigned long long)st.verified_chunks,
	       (unsigned long long)st.verified_chunks * app->cfg->rail.chunk_size, (unsigned long long)st.nacks,
	       (unsigned long long)st.stale, atomic_load(&app->rails_lost), atomic_load(&app->rails_recovered),
	       (double)(mr_now_ns() - t0) / 1e9, result == DOCA_SUCCESS ? "every byte verified" : "FAILED");
	fflush(stdout);
	return result;
}

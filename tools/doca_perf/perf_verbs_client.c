/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs, the client: for every size, write / read keep --tx-depth
 * work requests in flight, posted in chains of --cq-mod of which only the last
 * is signaled (RC completes in order, so its completion retires the chain);
 * send --lat is a ping-pong, latency = half the round trip.  Then DONE with the
 * checksum of what it wrote, and the server's verdict.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <doca_verbs_bridge.h>

#include "perf_verbs.h"

/* One size's run. */
struct vrun {
	size_t size, slots;
	uint64_t posted, done, limit, done0;
	uint64_t *stamp;	  /* by wr_id % depth */
	struct ibv_send_wr *pend; /* the part of a chain a full queue did not take yet */
	uint32_t npend;
	bool measuring;
	double t0, cpu0;
	struct perf_result *r;
};

static void
run_start(struct vrun *s, uint64_t done)
{
	s->measuring = true;
	s->done0 = done;
	s->t0 = perf_now();
	perf_cpu_seconds(&s->cpu0);
}

/*
 * Post the chain s->pend (s->npend requests).  A full queue (ENOMEM; under
 * SOFTDOCA_FAULTS verbs.submit=again too) took the requests before *bad and
 * nothing from it on: the rest stays in s->pend, posted again after the next
 * poll.  Any other refusal ends the run.
 */
static void
post_pending(struct perf_verbs *v, struct vrun *s)
{
	struct ibv_send_wr *bad = NULL;
	int ret = doca_verbs_bridge_post_send(v->qp, s->pend, &bad);
	uint32_t took = s->npend;

	if (ret == ENOMEM && bad != NULL) {
		took = (uint32_t)(bad - s->pend);
		v->again++;
	} else if (ret != 0) {
		perf_verbs_die(v, strerror(ret));
	}
	s->posted += took;
	s->pend += took;
	s->npend -= took;
}

/* A chain of n write/read requests from s->posted on; only the last is signaled. */
static void
post_chain(struct perf_verbs *v, struct vrun *s, uint32_t n, struct ibv_send_wr *wrs, struct ibv_sge *sges)
{
	uint64_t now = perf_ticks();

	for (uint32_t i = 0; i < n; i++) {
		uint64_t id = s->posted + i;
		size_t off = (size_t)(id % s->slots) * s->size;

		sges[i] = (struct ibv_sge){
			.addr = (uint64_t)(uintptr_t)(v->mem + off), .length = (uint32_t)s->size, .lkey = v->mr->lkey};
		wrs[i] = (struct ibv_send_wr){
			.wr_id = id,
			.next = i + 1 < n ? &wrs[i + 1] : NULL,
			.sg_list = &sges[i],
			.num_sge = 1,
			.opcode = v->op == PERF_VERBS_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
			.send_flags = i + 1 == n ? IBV_SEND_SIGNALED : 0,
		};
		wrs[i].wr.rdma.remote_addr = v->remote.va + off;
		wrs[i].wr.rdma.rkey = v->remote.rkey;
		s->stamp[id % v->depth] = now;
	}
	s->pend = wrs;
	s->npend = n;
	post_pending(v, s);
}

static void
run_bw(struct perf_verbs *v, struct vrun *s)
{
	struct ibv_send_wr *wrs = calloc(v->cq_mod, sizeof(*wrs));
	struct ibv_sge *sges = calloc(v->cq_mod, sizeof(*sges));
	uint64_t next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	uint64_t warmup = v->o->warmup;
	bool running = true;
	struct ibv_wc wc[16];

	if (wrs == NULL || sges == NULL)
		perf_verbs_die(v, "out of memory");
	if (warmup == 0)
		run_start(s, 0);
	while (running || s->done < s->posted || s->npend != 0) {
		if (s->npend != 0)
			post_pending(v, s);
		/*
		 * Every whole chain the window has room for before the next poll: the
		 * soft NIC hands what was posted between two polls to the fabric together.
		 */
		while (running && s->npend == 0) {
			uint64_t room = v->depth - (s->posted - s->done);

			if (s->limit != 0 && s->limit - s->posted < room)
				room = s->limit - s->posted;
			/* Whole chains, except the tail of a -n run. */
			if (room == 0 || (room < v->cq_mod && (s->limit == 0 || s->posted + room != s->limit)))
				break;
			post_chain(v, s, room < v->cq_mod ? (uint32_t)room : v->cq_mod, wrs, sges);
		}

		int n = doca_verbs_bridge_poll_cq(v->cq, 16, wc);

		if (n < 0)
			perf_verbs_die(v, "doca_verbs_bridge_poll_cq failed");
		for (int i = 0; i < n; i++) {
			uint64_t now = perf_ticks();

			perf_verbs_check_wc(v, &wc[i]);
			if (wc[i].opcode != IBV_WC_RDMA_WRITE && wc[i].opcode != IBV_WC_RDMA_READ)
				continue;
			if (s->measuring)
				perf_hist_add(&s->r->lat, now - s->stamp[wc[i].wr_id % v->depth]);
			s->done = wc[i].wr_id + 1;
			if (!s->measuring && s->done >= warmup)
				run_start(s, s->done);
		}
		if (!running || perf_ticks() < next_check)
			continue;
		next_check = perf_ticks() + ms_ticks;
		if (s->limit != 0 && s->posted >= s->limit)
			running = false;
		else if (s->measuring && !perf_keep_going(v->o, s->size, s->done - s->done0, s->t0, perf_now()))
			running = false;
	}
	free(wrs);
	free(sges);
}

/* ---- client: ping-pong --------------------------------------------------------------------- */

static void
run_lat(struct perf_verbs *v, struct vrun *s)
{
	uint8_t *ping = perf_verbs_send_slot(v);
	uint32_t n8 = s->size < 8 ? (uint32_t)s->size : 8;
	uint64_t warmup = v->o->warmup, next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	struct ibv_wc wc;

	if (warmup == 0)
		run_start(s, 0);
	for (;;) {
		uint64_t seq = s->posted, echo = 0, t;
		uint32_t slot;

		memcpy(ping, &seq, n8);
		s->stamp[0] = perf_ticks();
		perf_verbs_post_send(v, ping, (uint32_t)s->size, 0, (seq + 1) % PERF_VERBS_LAT_SIGNAL == 0, seq);
		s->posted++;
		perf_verbs_wait_recv(v, &wc, 30, false);
		t = perf_ticks();
		slot = (uint32_t)wc.wr_id;
		memcpy(&echo, perf_verbs_rslot(v, slot), n8);
		if (wc.byte_len != s->size || memcmp(&echo, &seq, n8) != 0)
			perf_verbs_die(v, "the echo does not carry the ping's bytes");
		perf_verbs_post_recv_slot(v, slot);
		if (s->measuring)
			perf_hist_add(&s->r->lat, (t - s->stamp[0]) / 2);
		s->done++;
		if (!s->measuring && s->done >= warmup)
			run_start(s, s->done);
		if (s->limit != 0 && s->done >= s->limit)
			break;
		if (t < next_check)
			continue;
		next_check = t + ms_ticks;
		if (s->measuring && !perf_keep_going(v->o, s->size, s->done - s->done0, s->t0, perf_now()))
			break;
	}
}

static void
run_size(struct perf_verbs *v, size_t size, struct perf_result *r)
{
	struct vrun s = {.size = size, .r = r};
	double cpu1;

	memset(r, 0, sizeof(*r));
	s.slots = v->op == PERF_VERBS_SEND ? 1 : perf_slots(v->o, size, v->depth);
	if (v->op != PERF_VERBS_SEND && s.slots * size > v->remote.len)
		perf_verbs_die(
			v, "the server's area is smaller than this size's buffers: give both sides the same -s and -t");
	if (v->op != PERF_VERBS_SEND && s.slots * size > v->covered)
		v->covered = s.slots * size;
	s.stamp = calloc(v->depth, sizeof(*s.stamp));
	if (s.stamp == NULL)
		perf_verbs_die(v, "out of memory");
	s.limit = v->o->iters ? v->o->iters + v->o->warmup : 0;
	if (v->op == PERF_VERBS_SEND)
		run_lat(v, &s);
	else
		run_bw(v, &s);
	r->seconds = perf_now() - s.t0;
	perf_cpu_seconds(&cpu1);
	r->size = size;
	r->tasks = s.done - s.done0;
	r->cpu_seconds = cpu1 - s.cpu0;
	free(s.stamp);
}

int
perf_verbs_client_main(struct perf_verbs *v)
{
	struct perf_result *r = malloc(sizeof(*r));
	struct perf_verbs_ctl *ctl = (struct perf_verbs_ctl *)(void *)perf_verbs_send_slot(v);
	char title[256], cfg[512];
	struct ibv_wc wc;
	struct perf_verbs_ctl verdict;

	if (r == NULL)
		perf_verbs_die(v, "out of memory");
	perf_verbs_exchange(v);
	snprintf(title, sizeof(title), "verbs %s%s  depth %u  cq-mod %u  OOB files", v->opname,
		 v->op == PERF_VERBS_SEND ? " (ping-pong, half round trip)" : "",
		 v->op == PERF_VERBS_SEND ? 1 : v->depth, v->op == PERF_VERBS_SEND ? PERF_VERBS_LAT_SIGNAL : v->cq_mod);
	snprintf(cfg, sizeof(cfg),
		 "\"api\":\"verbs\",\"op\":\"%s\",\"lat\":%s,\"connections\":1,\"depth\":%u,\"cq_mod\":%u,"
		 "\"connect\":\"oob\",\"iters\":%llu,\"duration\":%.3f",
		 v->opname, v->op == PERF_VERBS_SEND ? "true" : "false", v->op == PERF_VERBS_SEND ? 1 : v->depth,
		 v->op == PERF_VERBS_SEND ? PERF_VERBS_LAT_SIGNAL : v->cq_mod, (unsigned long long)v->o->iters,
		 v->o->duration);
	perf_report_begin(v->o, title, cfg);
	for (unsigned i = 0; i < v->o->nsizes; i++) {
		run_size(v, v->o->sizes[i], r);
		perf_progress_end(v->o);
		perf_report_row(v->o, r);
	}
	free(r);
	/* DONE with the checksum of the source (write); the verdict comes back on the ring. */
	memset(ctl, 0, sizeof(*ctl));
	ctl->covered = v->covered;
	ctl->csum = perf_verbs_checksum(v->mem, v->covered);
	perf_verbs_post_send(v, (const uint8_t *)ctl, sizeof(*ctl), PERF_VERBS_DONE_IMM, true, PERF_VERBS_CTL_WR_ID);
	do
		perf_verbs_wait_recv(v, &wc, 30 + (double)v->covered / 1e8, false);
	while (!((wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) == PERF_VERBS_VERDICT_IMM));
	memcpy(&verdict, perf_verbs_rslot(v, (uint32_t)wc.wr_id), sizeof(verdict));
	if (!verdict.ok)
		perf_verbs_die(v, "the server found the written data wrong (checksum mismatch)");
	if (v->op == PERF_VERBS_READ &&
	    perf_verbs_checksum(v->mem, v->covered) != perf_verbs_pattern_checksum(v->remote.seed, v->covered))
		perf_verbs_die(v, "the data read is wrong (checksum mismatch)");
	perf_report_end(v->o);
	return 0;
}

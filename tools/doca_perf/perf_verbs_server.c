/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs, the server: the target of write / read (it only waits for
 * DONE) or the echo of the ping-pong, then the data check: for write it
 * checksums what arrived and answers DONE with a verdict.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <doca_verbs_bridge.h>

#include "perf_verbs.h"

/* Until DONE, echoing pings (send): its completion, the DONE message in its slot. */
static void
serve(struct perf_verbs *v, struct ibv_wc *wc)
{
	uint32_t echoes = 0;

	for (;;) {
		uint32_t slot;

		perf_verbs_wait_recv(v, wc, 0, v->op != PERF_VERBS_SEND);
		slot = (uint32_t)wc->wr_id;
		if ((wc->wc_flags & IBV_WC_WITH_IMM) && ntohl(wc->imm_data) == PERF_VERBS_DONE_IMM)
			return;
		if (v->op != PERF_VERBS_SEND)
			perf_verbs_die(v, "unexpected message from the client");
		/* Echo the ping from where it landed, then give the slot back. */
		perf_verbs_post_send(v, perf_verbs_rslot(v, slot), wc->byte_len, 0,
				     ++echoes % PERF_VERBS_LAT_SIGNAL == 0, slot);
		perf_verbs_post_recv_slot(v, slot);
	}
}

/* The verdict on DONE: for write, the bytes written here against the client's checksum and the pattern's. */
static void
judge(const struct perf_verbs *v, const struct perf_verbs_ctl *ctl, struct perf_verbs_ctl *verdict)
{
	memset(verdict, 0, sizeof(*verdict));
	verdict->ok = 1;
	if (v->op != PERF_VERBS_WRITE)
		return;
	verdict->covered = ctl->covered > v->area ? v->area : ctl->covered;
	verdict->csum = perf_verbs_checksum(v->mem, verdict->covered);
	verdict->ok = ctl->covered <= v->area && verdict->csum == ctl->csum &&
		      verdict->csum == perf_verbs_pattern_checksum(v->remote.seed, verdict->covered);
	if (!verdict->ok)
		fprintf(stderr,
			"doca_perf: server: the written data is wrong: checksum %016llx of %llu bytes, the "
			"client's %016llx\n",
			(unsigned long long)verdict->csum, (unsigned long long)verdict->covered,
			(unsigned long long)ctl->csum);
}

int
perf_verbs_server_main(struct perf_verbs *v)
{
	struct perf_verbs_ctl ctl, *verdict = (struct perf_verbs_ctl *)(void *)perf_verbs_send_slot(v);
	struct ibv_wc wc;

	perf_verbs_exchange(v);
	serve(v, &wc);
	memcpy(&ctl, perf_verbs_rslot(v, (uint32_t)wc.wr_id), sizeof(ctl));
	judge(v, &ctl, verdict);
	perf_verbs_post_send(v, (const uint8_t *)verdict, sizeof(*verdict), PERF_VERBS_VERDICT_IMM, true,
			     PERF_VERBS_CTL_WR_ID);
	/* The verdict's own completion: it has reached the client. */
	for (;;) {
		struct ibv_wc w;
		int n = doca_verbs_bridge_poll_cq(v->cq, 1, &w);

		if (n < 0)
			perf_verbs_die(v, "doca_verbs_bridge_poll_cq failed");
		if (n == 1) {
			perf_verbs_check_wc(v, &w);
			if (w.wr_id == PERF_VERBS_CTL_WR_ID && w.opcode == IBV_WC_SEND)
				break;
		}
	}
	return verdict->ok ? 0 : 1;
}

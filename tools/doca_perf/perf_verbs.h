/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs internals: the run context one side holds, the descriptor
 * and control messages the sides exchange, and the functions the files share.
 * perf_verbs_run() (perf_verbs.c) makes the context and hands it to every
 * function; nothing calls back, completions are polled.
 */
#ifndef DOCA_PERF_VERBS_H
#define DOCA_PERF_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <doca_verbs.h>

#include "perf.h"

#define PERF_VERBS_NRECV 16		   /* receive ring of each side */
#define PERF_VERBS_CTL_SZ 64		   /* control message slot */
#define PERF_VERBS_DONE_IMM 0x454e4f44u	   /* "DONE" */
#define PERF_VERBS_VERDICT_IMM 0x54445256u /* "VRDT" */
#define PERF_VERBS_LAT_SIGNAL 16	   /* ping-pong: every 16th send signaled */
#define PERF_VERBS_CTL_WR_ID UINT64_MAX	   /* wr_id of the DONE message and the verdict */

enum perf_verbs_op { PERF_VERBS_WRITE, PERF_VERBS_READ, PERF_VERBS_SEND };

/* What a side tells the other in its descriptor file. */
struct perf_verbs_desc {
	uint32_t magic;
	uint32_t nonce; /* the server's; the client's file repeats it */
	uint64_t va;	/* data area */
	uint64_t len;
	uint64_t seed; /* the pattern this side's data area holds (write: client, read: server) */
	uint32_t rkey;
	uint32_t qpn;
	uint8_t gid[16];
	uint16_t lid;
	uint16_t pad[3];
};

/* The DONE message and the verdict. */
struct perf_verbs_ctl {
	uint64_t covered; /* bytes of the data area the run touched */
	uint64_t csum;	  /* checksum of them (write: the client's source) */
	uint32_t ok;	  /* verdict */
	uint32_t pad;
};

/* One side of a run, set up by perf_verbs.c. */
struct perf_verbs {
	const struct perf_opts *o;
	enum perf_verbs_op op;
	const char *opname; /* in the title and the JSON config */
	bool server;
	size_t max_size;
	uint32_t depth, cq_mod;

	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_qp *qp;
	enum doca_verbs_addr_type addr_type;
	struct ibv_mr *mr;
	uint8_t *mem; /* data area | PERF_VERBS_NRECV receive slots | send control slot */
	size_t area, rslot, mem_len;
	struct perf_verbs_desc local, remote;
	uint64_t covered; /* client: bytes of the data area the sizes touched */
	uint64_t again;	  /* posts a full queue refused (ENOMEM), posted again */
};

/* perf_verbs_data.c: the seeded pattern of a data area and the checksum that checks it. */
uint64_t perf_verbs_mix64(uint64_t x);
void perf_verbs_pattern_fill(uint8_t *p, size_t len, uint64_t seed);
uint64_t perf_verbs_checksum(const uint8_t *p, size_t len);
/* perf_verbs_checksum() of perf_verbs_pattern_fill(seed) over len bytes, without the buffer. */
uint64_t perf_verbs_pattern_checksum(uint64_t seed, size_t len);

/* perf_verbs_qp.c: the Verbs objects, posting and polling. */
void perf_verbs_die(const struct perf_verbs *v, const char *what) __attribute__((noreturn));
void perf_verbs_open(struct perf_verbs *v);
void perf_verbs_close(struct perf_verbs *v);
uint8_t *perf_verbs_rslot(const struct perf_verbs *v, uint32_t i);
uint8_t *perf_verbs_send_slot(const struct perf_verbs *v);
void perf_verbs_connect_qp(struct perf_verbs *v);
void perf_verbs_post_recv_slot(struct perf_verbs *v, uint32_t i);
void perf_verbs_post_send(struct perf_verbs *v, const uint8_t *buf, uint32_t len, uint32_t imm, bool signaled,
			  uint64_t id);
void perf_verbs_check_wc(const struct perf_verbs *v, const struct ibv_wc *wc);
void perf_verbs_wait_recv(struct perf_verbs *v, struct ibv_wc *out, double timeout, bool polite);

/* perf_verbs_conn.c: the descriptor files in --oob-dir. */
void perf_verbs_oob_clean(const char *dir);
void perf_verbs_exchange(struct perf_verbs *v);

/* perf_verbs_server.c, perf_verbs_client.c: the two sides once perf_verbs_open() is done.  Exit status. */
int perf_verbs_server_main(struct perf_verbs *v);
int perf_verbs_client_main(struct perf_verbs *v);

#endif /* DOCA_PERF_VERBS_H */

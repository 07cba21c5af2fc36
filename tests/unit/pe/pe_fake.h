/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture of the PE / ctx / task tests (pe_fake.c): a fake backend, a
 * struct embedding struct doca_ctx whose submit queues tasks that progress
 * completes, and one event log of every callback and state edge, so that tests
 * compare exact sequences.
 */
#ifndef PE_FAKE_H_
#define PE_FAKE_H_

#include <stdbool.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "ctx_internal.h"
#include "sd_test.h"

struct fake_task {
	struct doca_task task; /* first, as the contract requires */
	int value;	       /* < 0: validate refuses; */
	bool fail;	       /* complete with DOCA_ERROR_INVALID_VALUE */
};

struct fake {
	struct doca_ctx ctx;
	struct sd_task_pool *pool;
	struct sd_list queue; /* submitted, completed by progress */
	unsigned queue_len;
	unsigned max_queue;	 /* submit returns AGAIN beyond this (0: unlimited) */
	unsigned per_progress;	 /* completions per progress call (0: all) */
	bool stay_starting;	 /* start enters STARTING ... */
	bool go_running;	 /* ... until progress sees this */
	bool complete_in_submit; /* complete inside submit (an inline engine) */
	bool arm_pending;
	unsigned flushes;
	unsigned stopped_calls;
};

enum ev_kind { EV_STATE, EV_OK, EV_ERR };

struct ev {
	enum ev_kind kind;
	long a; /* STATE: prev; OK/ERR: task user data */
	long b; /* STATE: next; OK/ERR: status */
};

#define ST(p, n)                                                                                                       \
	{                                                                                                              \
		EV_STATE, DOCA_CTX_STATE_##p, DOCA_CTX_STATE_##n                                                       \
	}
#define OK(ud)                                                                                                         \
	{                                                                                                              \
		EV_OK, (ud), DOCA_SUCCESS                                                                              \
	}
#define ERR(ud, st)                                                                                                    \
	{                                                                                                              \
		EV_ERR, (ud), (st)                                                                                     \
	}

extern struct ev evs[512];
extern int nev;
extern union doca_data last_ctx_user_data;
extern void (*on_task)(struct doca_task *task, bool ok);
extern void (*on_state)(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next);

struct fake *to_fake(struct doca_ctx *ctx);
unsigned fake_progress(struct doca_ctx *ctx);
void expect_events(const struct ev *exp, int n);
void success_cb(struct doca_task *task, union doca_data tud, union doca_data cud);
void error_cb(struct doca_task *task, union doca_data tud, union doca_data cud);
struct fake *fake_new(struct doca_pe *pe, uint32_t num_tasks);
struct fake_task *fake_alloc(struct fake *f, long ud);
void submit_n(struct fake *f, int n, long first_ud);
enum doca_ctx_states state_of(struct fake *f);
size_t inflight(struct fake *f);
struct doca_pe *pe_new(void);

#endif /* PE_FAKE_H_ */

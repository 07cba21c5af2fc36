/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What pe.c, ctx.c and task.c share inside libdoca_common and nobody else needs:
 * the progress engine object and the ctx helpers progress calls.  Backends use
 * ctx_internal.h only.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_PE_INTERNAL_H_
#define SD_PE_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>

#include "ctx_internal.h"

struct doca_pe {
	struct sd_list SD_CORE_PRIVATE(ctxs); /* connected contexts, in connection order */
	size_t SD_CORE_PRIVATE(num_ctxs);
	bool SD_CORE_PRIVATE(in_progress);	 /* inside doca_pe_progress(): refuse recursion */
	uint64_t SD_CORE_PRIVATE(generation);	 /* doca_pe_progress() calls so far (ctx stop deferral) */
	struct sd_list *SD_CORE_PRIVATE(cursor); /* the next ctx progress visits (moved by sd_ctx_fini) */
	enum doca_pe_event_mode SD_CORE_PRIVATE(event_mode);
	int SD_CORE_PRIVATE(epoll_fd); /* the notification handle: event_fd + backend fds */
	int SD_CORE_PRIVATE(event_fd);
	atomic_uint SD_CORE_PRIVATE(armed);	    /* 1: request_notification called, not yet woken/cleared */
	struct sd_list SD_CORE_PRIVATE(graph_work); /* graph slots to run, instances to report (graph_internal.h) */
	size_t SD_CORE_PRIVATE(num_graphs);	    /* graphs bound to the PE: destroy refuses IN_USE */
	/* Strict mode (strict.h): the thread inside its progress or a submit (0: none), and which call. */
	atomic_uint SD_CORE_PRIVATE(strict_owner);
	_Atomic(const char *) SD_CORE_PRIVATE(strict_api);
};

/* "IDLE", "STARTING", ... for log lines. */
const char *sd_ctx_state_name(enum doca_ctx_states state);

/* Move ctx to next and run the state callback (ops->stopped first when next is IDLE). */
void sd_ctx_transition(struct doca_ctx *ctx, enum doca_ctx_states next);

/* RUNNING/STARTING -> STOPPING, then ops->flush. */
void sd_ctx_enter_stopping(struct doca_ctx *ctx);

/*
 * Run the callbacks of ctx's completed tasks, auto-stop after a failure, and move
 * STOPPING -> IDLE when nothing is in flight any more.  Returns the number of
 * callbacks and transitions.
 */
unsigned sd_ctx_report(struct doca_ctx *ctx);

/* Is there something progress would do for ctx right now (for request_notification)? */
bool sd_ctx_has_pending(struct doca_ctx *ctx);

/* Free every task pool of ctx (ctx destroy). */
void sd_task_pools_free(struct doca_ctx *ctx);

#endif /* SD_PE_INTERNAL_H_ */

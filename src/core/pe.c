/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine: connected contexts, doca_pe_progress() and the
 * notification handle (an epoll fd holding the PE's eventfd plus any fd a
 * backend registers, so one epoll_wait() by the application covers them all).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <doca_pe.h>

#include "../util/sd_errno.h"
#include "diag.h"
#include "graph_internal.h"
#include "pe_internal.h"
#include "sd_log.h"
#include "strict.h"

SD_LOG_REGISTER(core.pe)

doca_error_t
doca_pe_create(struct doca_pe **pe)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct doca_pe *p;
	doca_error_t err;

	if (pe == NULL) {
		DOCA_LOG_ERR("doca_pe_create: pe is NULL; pass the address of a struct doca_pe pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	(void)sd_diag_config(); /* the knobs before the first progress: strict mode's PE rules (strict.h) */
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		DOCA_LOG_ERR("doca_pe_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_list_init(&p->ctxs);
	sd_list_init(&p->graph_work);
	atomic_init(&p->armed, 0);
	p->event_mode = DOCA_PE_EVENT_MODE_PROGRESS_ALL;
	p->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->event_fd < 0) {
		err = sd_errno_to_doca(errno);
		DOCA_LOG_ERR("doca_pe_create: eventfd() failed: %m; check the process's open-file limit (ulimit -n)");
		goto free_pe;
	}
	p->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epoll_fd < 0) {
		err = sd_errno_to_doca(errno);
		DOCA_LOG_ERR(
			"doca_pe_create: epoll_create1() failed: %m; check the process's open-file limit (ulimit -n)");
		goto close_event_fd;
	}
	ev.data.fd = p->event_fd;
	if (epoll_ctl(p->epoll_fd, EPOLL_CTL_ADD, p->event_fd, &ev) != 0) {
		err = sd_errno_to_doca(errno);
		DOCA_LOG_ERR("doca_pe_create: epoll_ctl(ADD eventfd) failed: %m");
		goto close_epoll_fd;
	}
	*pe = p;
	return DOCA_SUCCESS;

close_epoll_fd:
	close(p->epoll_fd);
close_event_fd:
	close(p->event_fd);
free_pe:
	free(p);
	return err;
}

doca_error_t
doca_pe_destroy(struct doca_pe *pe)
{
	if (pe == NULL) {
		DOCA_LOG_ERR("doca_pe_destroy: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (pe->num_ctxs != 0) {
		DOCA_LOG_ERR(
			"doca_pe_destroy: %zu contexts are still connected; destroy them (doca_dma_destroy, ...) first",
			pe->num_ctxs);
		return DOCA_ERROR_IN_USE;
	}
	if (pe->num_graphs != 0) {
		DOCA_LOG_ERR("doca_pe_destroy: %zu graphs are still bound to the PE; destroy them (doca_graph_destroy) "
			     "first",
			     pe->num_graphs);
		return DOCA_ERROR_IN_USE;
	}
	close(pe->epoll_fd);
	close(pe->event_fd);
	free(pe);
	return DOCA_SUCCESS;
}

uint8_t
doca_pe_progress(struct doca_pe *pe)
{
	struct sd_list *elem;
	unsigned events = 0;
	bool took = false;

	if (sd_unlikely(pe == NULL)) {
		DOCA_LOG_ERR("doca_pe_progress: pe is NULL");
		return 0;
	}
	if (sd_unlikely(pe->in_progress)) {
		DOCA_LOG_ERR("doca_pe_progress: called from a callback of the same PE; return from the callback and "
			     "progress from the main loop");
		if (sd_strict_on)
			sd_strict_report(SD_STRICT_PROGRESS_REENTRY, SD_STRICT_CALLER(),
					 "doca_pe_progress(pe %p) inside a callback of the same PE (ignored)",
					 (void *)pe);
		return 0;
	}
	if (sd_unlikely(sd_strict_on))
		took = sd_strict_pe_enter(pe, "doca_pe_progress", SD_STRICT_CALLER());
	pe->in_progress = true;
	pe->generation++;
	/*
	 * A callback may connect a ctx (appended: visited this round) or destroy any
	 * IDLE one, its own ctx included from the IDLE callback (sd_ctx_fini moves the
	 * cursor past it), so the next element is read through pe->cursor.
	 */
	for (elem = pe->ctxs.next; elem != &pe->ctxs; elem = pe->cursor) {
		struct doca_ctx *ctx = sd_container_of(elem, struct doca_ctx, pe_link);
		enum doca_ctx_states before = ctx->state;

		pe->cursor = elem->next;
		if (before == DOCA_CTX_STATE_IDLE)
			continue;
		events += ctx->run_ops.progress(ctx);
		if (sd_unlikely(ctx->diag != 0))
			events += sd_diag_progress(ctx);
		events += ctx->state != before;
		/* Last use of ctx in this round: sd_ctx_report() may end with its destruction. */
		if (!sd_list_empty(&ctx->completed) || ctx->state == DOCA_CTX_STATE_STOPPING)
			events += sd_ctx_report(ctx);
	}
	pe->cursor = NULL;
	/* Graph nodes made ready by the completions above, and instances that ended. */
	if (sd_unlikely(!sd_list_empty(&pe->graph_work)))
		events += sd_graph_progress(pe);
	pe->in_progress = false;
	if (sd_unlikely(took))
		sd_strict_pe_leave(pe);
	return events != 0;
}

doca_error_t
doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle)
{
	if (pe == NULL || handle == NULL) {
		DOCA_LOG_ERR("doca_pe_get_notification_handle: NULL argument (pe=%p, handle=%p)", (const void *)pe,
			     (void *)handle);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*handle = pe->epoll_fd;
	return DOCA_SUCCESS;
}

/* Make the notification handle readable. */
static void
pe_signal(struct doca_pe *pe)
{
	uint64_t one = 1;

	/* Only EAGAIN (counter saturated: already readable) can fail here. */
	if (write(pe->event_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		DOCA_LOG_TRC("pe %p: eventfd already signalled", (void *)pe);
}

doca_error_t
doca_pe_request_notification(struct doca_pe *pe)
{
	struct sd_list *elem;
	bool pending = false;

	if (pe == NULL) {
		DOCA_LOG_ERR("doca_pe_request_notification: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Arm first (full barrier), then look: pairs with the fence in sd_pe_wake(). */
	atomic_store(&pe->armed, 1);
	pending = !sd_list_empty(&pe->graph_work);
	sd_list_for_each(elem, &pe->ctxs)
	{
		struct doca_ctx *ctx = sd_container_of(elem, struct doca_ctx, pe_link);

		if (ctx->state != DOCA_CTX_STATE_IDLE && sd_ctx_has_pending(ctx))
			pending = true;
	}
	if (pending && atomic_exchange(&pe->armed, 0) != 0)
		pe_signal(pe);
	return DOCA_SUCCESS;
}

doca_error_t
doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
	uint64_t count;

	/* handle is deliberately unchecked: DOCA's pe_event sample passes 0. */
	if (pe == NULL) {
		DOCA_LOG_ERR("doca_pe_clear_notification: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	atomic_store(&pe->armed, 0);
	/* One read resets the eventfd counter; EAGAIN means nothing was pending. */
	if (read(pe->event_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		DOCA_LOG_DBG("doca_pe_clear_notification: read(eventfd) failed: %m");
	return DOCA_SUCCESS;
}

void
sd_pe_wake(struct doca_pe *pe)
{
	/*
	 * Order the caller's publication of work before reading armed (see
	 * request_notification).  ThreadSanitizer does not model fences: give it the
	 * equivalent sequentially consistent read-modify-write.
	 */
#ifdef __SANITIZE_THREAD__
	if (atomic_fetch_or(&pe->armed, 0) == 0)
		return;
#else
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&pe->armed, memory_order_relaxed) == 0)
		return;
#endif
	if (atomic_exchange(&pe->armed, 0) != 0)
		pe_signal(pe);
}

doca_error_t
sd_pe_add_wake_fd(struct doca_pe *pe, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	if (fd < 0) {
		DOCA_LOG_ERR("Failed to add fd %d to the PE's notification handle: not a file descriptor", fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (epoll_ctl(pe->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		doca_error_t err = sd_errno_to_doca(errno);

		DOCA_LOG_ERR("Failed to add fd %d to the PE's notification handle: %m", fd);
		return err;
	}
	return DOCA_SUCCESS;
}

void
sd_pe_del_wake_fd(struct doca_pe *pe, int fd)
{
	if (epoll_ctl(pe->epoll_fd, EPOLL_CTL_DEL, fd, NULL) != 0)
		DOCA_LOG_DBG("Failed to remove fd %d from the PE's notification handle: %m", fd);
}

doca_error_t
doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
	const struct sd_list *elem;
	size_t total = 0;

	if (pe == NULL || num_inflight_tasks == NULL) {
		DOCA_LOG_ERR("doca_pe_get_num_inflight_tasks: NULL argument (pe=%p, out=%p)", (const void *)pe,
			     (void *)num_inflight_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_list_for_each(elem, &pe->ctxs) total += sd_container_of(elem, struct doca_ctx, pe_link)->num_inflight;
	*num_inflight_tasks = total;
	return DOCA_SUCCESS;
}

doca_error_t
doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode)
{
	if (pe == NULL) {
		DOCA_LOG_ERR("doca_pe_set_event_mode: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mode != DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE && mode != DOCA_PE_EVENT_MODE_PROGRESS_ALL) {
		DOCA_LOG_ERR(
			"doca_pe_set_event_mode: unknown mode %d; use DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE or _ALL",
			(int)mode);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* sd:no-effect: stored only; progress visits every non-IDLE context in both modes */
	pe->event_mode = mode;
	return DOCA_SUCCESS;
}

doca_error_t
doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	if (pe == NULL || ctx == NULL) {
		DOCA_LOG_ERR("doca_pe_connect_ctx: NULL argument (pe=%p, ctx=%p)", (void *)pe, (void *)ctx);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->pe != NULL) {
		DOCA_LOG_ERR("doca_pe_connect_ctx: %s context is already connected to pe %p; a context is connected "
			     "once, for its whole life",
			     ctx->run_ops.name, (void *)ctx->pe);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_pe_connect_ctx: %s context is %s; connect it while IDLE, before doca_ctx_start()",
			     ctx->run_ops.name, sd_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	ctx->pe = pe;
	sd_list_insert_tail(&pe->ctxs, &ctx->pe_link);
	pe->num_ctxs++;
	return DOCA_SUCCESS;
}

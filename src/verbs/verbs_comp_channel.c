/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels: an eventfd that is readable while an armed CQ's event
 * waits, the queue of those events, and the hook the datapath calls when it
 * adds a completion (sd_verbs_cq_completion_added).  One event per arm, as in
 * rdma-core: the CQ must be armed again to raise the next one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.comp_channel);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_comp_channel_create(struct doca_verbs_context *ctx, struct doca_verbs_comp_channel **comp_channel)
{
	struct doca_verbs_comp_channel *ch;

	if (ctx == NULL || comp_channel == NULL) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_create: NULL argument (verbs_context %p, comp_channel %p); pass "
			     "non-NULL pointers",
			     (void *)ctx, (void *)comp_channel);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ch = sd_fault_create("verbs", "doca_verbs_comp_channel_create") ? NULL : calloc(1, sizeof(*ch));
	if (ch == NULL) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	ch->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->fd < 0) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_create: failed to create the event fd: %s; raise the process's "
			     "open-file limit",
			     strerror(errno));
		free(ch);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	ch->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->epfd < 0 || epoll_ctl(ch->epfd, EPOLL_CTL_ADD, ch->fd, &(struct epoll_event){.events = EPOLLIN}) != 0) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_create: failed to create the epoll handle: %s; raise the "
			     "process's open-file limit",
			     strerror(errno));
		if (ch->epfd >= 0)
			close(ch->epfd);
		close(ch->fd);
		free(ch);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	ch->ctx = ctx;
	sd_list_init(&ch->events);
	sd_verbs_ctx_count(ctx, &ctx->num_channels, 1);
	*comp_channel = ch;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_comp_channel_destroy(struct doca_verbs_comp_channel *ch)
{
	struct doca_verbs_context *ctx;
	uint32_t users;

	if (ch == NULL) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_destroy: comp_channel is NULL; pass the object its create call "
			     "returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx = ch->ctx;
	pthread_mutex_lock(&ctx->lock);
	users = ch->users;
	if (users == 0)
		ctx->num_channels--;
	pthread_mutex_unlock(&ctx->lock);
	if (users != 0) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_destroy: %u CQ(s) still use the channel; destroy them first",
			     users);
		return DOCA_ERROR_IN_USE;
	}
	close(ch->epfd);
	close(ch->fd);
	free(ch);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_event_handle_t
doca_verbs_comp_channel_get_handle(struct doca_verbs_comp_channel *ch)
{
	if (ch == NULL) {
		DOCA_LOG_ERR("doca_verbs_comp_channel_get_handle: comp_channel is NULL; pass the object its create "
			     "call returned");
		return doca_event_invalid_handle;
	}
	return ch->epfd;
}

void
sd_verbs_cq_completion_added(struct doca_verbs_cq *cq, bool solicited)
{
	struct doca_verbs_comp_channel *ch = cq->attr.comp_channel;
	uint64_t one = 1;
	bool raise;

	if (ch == NULL)
		return;
	pthread_mutex_lock(&cq->ctx->lock);
	raise = cq->armed && (solicited || !cq->solicited_only) && !cq->event_queued;
	if (raise) {
		cq->armed = false;
		cq->event_queued = true;
		sd_list_insert_tail(&ch->events, &cq->event_link);
	}
	pthread_mutex_unlock(&cq->ctx->lock);
	if (raise && write(ch->fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		DOCA_LOG_WARN("Failed to signal completion channel of CQ %u: %s", cq->cqn, strerror(errno));
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_get_cq_event(struct doca_verbs_comp_channel *ch, struct doca_verbs_cq **verbs_cq, void **cq_context)
{
	struct doca_verbs_cq *cq = NULL;
	uint64_t drain;

	if (ch == NULL || verbs_cq == NULL || cq_context == NULL) {
		DOCA_LOG_ERR("doca_verbs_get_cq_event: NULL argument (comp_channel %p, verbs_cq %p, cq_context %p); "
			     "pass non-NULL pointers",
			     (void *)ch, (void *)verbs_cq, (void *)cq_context);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* the handle woke for a soft NIC domain: its completions may raise the event */
	sd_verbs_channel_progress(ch);
	pthread_mutex_lock(&ch->ctx->lock);
	if (!sd_list_empty(&ch->events)) {
		cq = sd_container_of(ch->events.next, struct doca_verbs_cq, event_link);
		sd_list_del(&cq->event_link);
		cq->event_queued = false;
		cq->events_delivered++;
		/* Not readable once the queue is empty (the read resets the counter). */
		if (sd_list_empty(&ch->events) && read(ch->fd, &drain, sizeof(drain)) < 0)
			drain = 0;
	}
	pthread_mutex_unlock(&ch->ctx->lock);
	if (cq == NULL)
		return DOCA_ERROR_AGAIN; /* nothing queued: not a refusal, not logged */
	*verbs_cq = cq;
	*cq_context = cq->attr.cq_context;
	return DOCA_SUCCESS;
}

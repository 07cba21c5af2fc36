/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_pe.h / doca_ctx.h through the public API only.  The context
 * type used is a sync event (doca_sync_event_as_ctx), which needs no DMA or RDMA
 * library; the state machine in depth is tested in tests/unit/pe with a fake
 * backend.
 */
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "sd_test.h"

static struct doca_dev *dev;

static struct doca_ctx *
new_ctx(struct doca_sync_event **out)
{
	struct doca_devinfo **list = NULL;
	struct doca_sync_event *ev = NULL;
	uint32_t n = 0;

	if (dev == NULL) {
		ASSERT_OK(doca_devinfo_create_list(&list, &n));
		ASSERT(n > 0);
		ASSERT_OK(doca_dev_open(list[0], &dev));
		ASSERT_OK(doca_devinfo_destroy_list(list));
	}
	ASSERT_OK(doca_sync_event_create(&ev));
	ASSERT_OK(doca_sync_event_add_publisher_location_cpu(ev, dev));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(ev, dev));
	*out = ev;
	return doca_sync_event_as_ctx(ev);
}

static enum doca_ctx_states edges[16][2];
static int nedges;
static uint64_t seen_user_data;

static void
state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	edges[nedges][0] = prev;
	edges[nedges][1] = next;
	nedges++;
	seen_user_data = user_data.u64;
}

TEST(pe_create_destroy_and_in_use)
{
	struct doca_pe *pe = NULL;
	struct doca_sync_event *ev;
	struct doca_ctx *ctx = new_ctx(&ev);
	size_t n = 99;

	ASSERT_ERR(doca_pe_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_pe_get_num_inflight_tasks(pe, &n));
	ASSERT_EQ(n, 0);
	ASSERT_OK(doca_pe_connect_ctx(pe, ctx));
	ASSERT_ERR(doca_pe_connect_ctx(pe, ctx), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_pe_destroy(pe));
	ASSERT_ERR(doca_pe_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(ctx_states_through_public_api)
{
	struct doca_pe *pe = NULL;
	struct doca_sync_event *ev;
	struct doca_ctx *ctx = new_ctx(&ev);
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
	union doca_data ud = {.u64 = 0};

	ASSERT_OK(doca_ctx_set_state_changed_cb(ctx, state_cb));
	ASSERT_OK(doca_ctx_set_user_data(ctx, (union doca_data){.u64 = 77}));
	ASSERT_OK(doca_ctx_get_user_data(ctx, &ud));
	ASSERT_EQ(ud.u64, 77);
	ASSERT_OK(doca_ctx_get_state(ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	/* [I] stop on IDLE is SUCCESS; start needs a PE. */
	ASSERT_OK(doca_ctx_stop(ctx));
	ASSERT_ERR(doca_ctx_start(ctx), DOCA_ERROR_NOT_CONNECTED);
	ASSERT_EQ(nedges, 0);
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_pe_connect_ctx(pe, ctx));
	ASSERT_OK(doca_ctx_start(ctx));
	ASSERT_ERR(doca_ctx_start(ctx), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(ctx));
	ASSERT_OK(doca_ctx_stop(ctx));
	ASSERT_EQ(nedges, 2);
	ASSERT_EQ(edges[0][0], DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(edges[0][1], DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(edges[1][0], DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(edges[1][1], DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(seen_user_data, 77);
	ASSERT_EQ(doca_pe_progress(pe), 0);
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_pe_destroy(pe));
}

TEST(notification_handle_is_an_epoll_fd)
{
	struct doca_pe *pe = NULL;
	doca_notification_handle_t h = doca_event_invalid_handle;
	struct epoll_event ev = {.events = EPOLLIN}, out;
	int ep = epoll_create1(0);

	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_pe_get_notification_handle(pe, &h));
	ASSERT(h >= 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
	ASSERT_OK(doca_pe_request_notification(pe));
	ASSERT_EQ(epoll_wait(ep, &out, 1, 50), 0);
	/* pe_event passes 0 as the handle. */
	ASSERT_OK(doca_pe_clear_notification(pe, 0));
	ASSERT_OK(doca_pe_set_event_mode(pe, DOCA_PE_EVENT_MODE_PROGRESS_ALL));
	close(ep);
	ASSERT_OK(doca_pe_destroy(pe));
}

TEST(null_arguments_and_unsupported)
{
	size_t n = 5;
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
	union doca_data ud = {.u64 = 5};
	doca_notification_handle_t h = 5;

	ASSERT_ERR(doca_pe_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_get_notification_handle(NULL, &h), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_request_notification(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_clear_notification(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_connect_ctx(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_set_event_mode(NULL, DOCA_PE_EVENT_MODE_PROGRESS_ALL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_pe_progress(NULL), 0);
	ASSERT_ERR(doca_ctx_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_get_state(NULL, &st), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_set_state_changed_cb(NULL, state_cb), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_set_datapath_on_gpu(NULL, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(n, 5);
	ASSERT_EQ(st, DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(ud.u64, 5);
	ASSERT_EQ(h, 5);
	ASSERT_ERR(doca_task_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_submit_ex(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_batch_submit(NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_task_batch_try_submit(NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(doca_task_batch_get_tasks_num(NULL), 0);
}

TEST(datapath_on_gpu_dpa_not_supported)
{
	struct doca_sync_event *ev;
	struct doca_ctx *ctx = new_ctx(&ev);

	ASSERT_ERR(doca_ctx_set_datapath_on_gpu(ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_ctx_set_datapath_on_dpa(ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_sync_event_destroy(ev));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

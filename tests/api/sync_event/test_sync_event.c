/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_sync_event.h, local CPU part: configuration rules, value
 * operations, waits released by another thread, the NOT_SUPPORTED locations and
 * exports, and the task families with the event used as a context on a PE.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "sd_test.h"

static struct doca_dev *
open_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n > 0);
	ASSERT_OK(doca_dev_open(list[0], &dev));
	ASSERT_OK(doca_devinfo_destroy_list(list));
	return dev;
}

/* A created, configured (CPU publisher + subscriber), not yet started event. */
static struct doca_sync_event *
new_event(struct doca_dev *dev)
{
	struct doca_sync_event *ev = NULL;

	ASSERT_OK(doca_sync_event_create(&ev));
	ASSERT_NOT_NULL(ev);
	ASSERT_OK(doca_sync_event_add_publisher_location_cpu(ev, dev));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(ev, dev));
	return ev;
}

TEST(set_add_get)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = new_event(dev);
	uint64_t v = 7, fetched = 0;

	/* Not started: value operations refused, out-params untouched. */
	ASSERT_ERR(doca_sync_event_get(ev, &v), DOCA_ERROR_BAD_STATE);
	ASSERT_EQ(v, 7);
	ASSERT_ERR(doca_sync_event_update_set(ev, 1), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_OK(doca_sync_event_get(ev, &v));
	ASSERT_EQ(v, 0);
	ASSERT_OK(doca_sync_event_update_set(ev, 0xD0CA));
	ASSERT_OK(doca_sync_event_update_add(ev, 5, &fetched));
	ASSERT_EQ(fetched, 0xD0CA);
	ASSERT_OK(doca_sync_event_update_add(ev, 1, NULL));
	ASSERT_OK(doca_sync_event_get(ev, &v));
	ASSERT_EQ(v, 0xD0CA + 6);
	/* Unsigned wrap-around, as a 64-bit counter. */
	ASSERT_OK(doca_sync_event_update_set(ev, UINT64_MAX));
	ASSERT_OK(doca_sync_event_update_add(ev, 2, &fetched));
	ASSERT_EQ(fetched, UINT64_MAX);
	ASSERT_OK(doca_sync_event_get(ev, &v));
	ASSERT_EQ(v, 1);
	ASSERT_ERR(doca_sync_event_get(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sync_event_get(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(configuration_rules)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = NULL;
	uint64_t storage = 0;

	ASSERT_ERR(doca_sync_event_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_create(&ev));
	/* A publisher and a subscriber are required. */
	ASSERT_ERR(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(ev));
	ASSERT_ERR(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_add_subscriber_location_cpu(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(ev, dev));
	/* Locations softdoca does not have. */
	ASSERT_ERR(doca_sync_event_add_publisher_location_dpa(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sync_event_add_publisher_location_gpu(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sync_event_add_subscriber_location_dpa(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sync_event_add_subscriber_location_gpu(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	/* Remote PCI (the other process of the machine) exists: test_sync_event_pci.c. */
	ASSERT_OK(doca_sync_event_add_publisher_location_remote_pci(ev));
	ASSERT_OK(doca_sync_event_add_subscriber_location_remote_pci(ev));
	ASSERT_ERR(doca_sync_event_add_publisher_location_remote_net(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Storage must be aligned. */
	ASSERT_ERR(doca_sync_event_set_addr(ev, (uint64_t *)(void *)((char *)&storage + 1)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sync_event_set_addr(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sync_event_set_doca_buf(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_start(ev));
	/* Frozen once started. */
	ASSERT_ERR(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_add_publisher_location_cpu(ev, dev), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_set_addr(ev, &storage), DOCA_ERROR_BAD_STATE);
	/* Destroy of a started stand-alone event stops it. */
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_ERR(doca_sync_event_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(user_storage_is_the_value)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = new_event(dev);
	uint64_t storage = 41, v = 0;

	ASSERT_OK(doca_sync_event_set_addr(ev, &storage));
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_OK(doca_sync_event_get(ev, &v));
	ASSERT_EQ(v, 41);
	ASSERT_OK(doca_sync_event_update_add(ev, 1, NULL));
	ASSERT_EQ(storage, 42);
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_EQ(storage, 42);
	ASSERT_OK(doca_dev_close(dev));
}

struct setter {
	struct doca_sync_event *ev;
	uint64_t near; /* set first: must not release the waiter */
	uint64_t value;
	useconds_t delay_us;
	atomic_int done;
};

static void *
set_later(void *arg)
{
	struct setter *s = arg;

	usleep(s->delay_us);
	doca_sync_event_update_set(s->ev, s->near);
	usleep(s->delay_us);
	atomic_store(&s->done, 1);
	doca_sync_event_update_set(s->ev, s->value);
	return NULL;
}

static void
wait_released_by_thread(doca_error_t (*wait)(struct doca_sync_event *, uint64_t, uint64_t), uint64_t start,
			uint64_t near, uint64_t set, uint64_t arg, uint64_t mask)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = new_event(dev);
	struct setter s = {.near = near, .value = set, .delay_us = 20 * 1000};
	pthread_t th;

	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_OK(doca_sync_event_update_set(ev, start));
	s.ev = ev;
	ASSERT_EQ(pthread_create(&th, NULL, set_later, &s), 0);
	ASSERT_OK(wait(ev, arg, mask));
	/* It cannot have returned before the other thread's update. */
	ASSERT_EQ(atomic_load(&s.done), 1);
	pthread_join(th, NULL);
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(wait_gt_released_by_other_thread)
{
	/* The rdma_sync_event responder: wait for > 0xD0C9 while the value is 0. */
	wait_released_by_thread(doca_sync_event_wait_gt, 0, 0xD0C9, 0xD0CA, 0xD0C9, UINT64_MAX);
}

TEST(wait_gt_yield_released_by_other_thread)
{
	wait_released_by_thread(doca_sync_event_wait_gt_yield, 0, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX - 1,
				UINT64_MAX);
}

TEST(wait_gt_applies_the_mask)
{
	/* 0x10F > 0x10 but 0x10F & 0xF0 = 0 is not; 0x2F & 0xF0 = 0x20 is. */
	wait_released_by_thread(doca_sync_event_wait_gt, 0x10F, 0x11F, 0x2F, 0x10, 0xF0);
}

TEST(wait_eq_and_neq_released_by_other_thread)
{
	/* The near miss: equal outside the mask only, or unchanged under the mask. */
	wait_released_by_thread(doca_sync_event_wait_eq, 1, 0x0506, 0xAB05, 0x05, 0xFF);
	wait_released_by_thread(doca_sync_event_wait_eq_yield, 1, 8, 7, 7, UINT64_MAX);
	wait_released_by_thread(doca_sync_event_wait_neq, 3, 3, 4, 3, UINT64_MAX);
	wait_released_by_thread(doca_sync_event_wait_neq_yield, 3, 0x1003, 0x103, 3, 0xFFF);
}

TEST(wait_returns_at_once_when_condition_holds)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = new_event(dev);

	ASSERT_ERR(doca_sync_event_wait_gt(ev, 0, UINT64_MAX), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_OK(doca_sync_event_update_set(ev, 10));
	ASSERT_OK(doca_sync_event_wait_gt(ev, 9, UINT64_MAX));
	ASSERT_OK(doca_sync_event_wait_eq(ev, 10, UINT64_MAX));
	ASSERT_OK(doca_sync_event_wait_neq(ev, 11, UINT64_MAX));
	ASSERT_ERR(doca_sync_event_wait_gt(NULL, 0, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(exports_not_supported_without_rdma)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = new_event(dev);
	struct doca_sync_event_remote_net *rev = NULL;
	const uint8_t *data = (const uint8_t *)"x";
	size_t sz = 99;
	doca_dpa_dev_sync_event_t dpa_h = 0;
	doca_gpu_dev_sync_event_t gpu_h = 0;
	static const uint8_t blob[16];

	ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(ev));
	ASSERT_OK(doca_sync_event_start(ev));
	/* This test binary does not load libdoca_rdma: the hooks are not installed. */
	ASSERT_ERR(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(sz, 99);
	ASSERT_ERR(doca_sync_event_export_to_remote_net(ev, NULL, &sz), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sync_event_remote_net_create_from_export(dev, blob, sizeof(blob), &rev),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(rev, NULL);
	ASSERT_ERR(doca_sync_event_cap_remote_net_is_create_from_export_supported(doca_dev_as_devinfo(dev)),
		   DOCA_ERROR_NOT_SUPPORTED);
	/* no remote-PCI location on this event */
	ASSERT_ERR(doca_sync_event_export_to_remote_pci(ev, dev, &data, &sz), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_export_to_dpa(ev, NULL, &dpa_h), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sync_event_export_to_gpu(ev, NULL, &gpu_h), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sync_event_create_from_export(dev, blob, sizeof(blob), NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_cap_is_create_from_export_supported(doca_dev_as_devinfo(dev)));
	ASSERT_OK(doca_sync_event_cap_is_export_to_remote_pci_supported(doca_dev_as_devinfo(dev)));
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_dev_close(dev));
}

/* --- the event as a context ----------------------------------------------------------- */

static int n_ok, n_err;
static doca_error_t last_status = DOCA_ERROR_UNKNOWN;
static uint64_t last_ud;

#define SE_CB(fam)                                                                                                     \
	static void fam##_ok(struct doca_sync_event_task_##fam *t, union doca_data ud, union doca_data cud)            \
	{                                                                                                              \
		struct doca_task *task = doca_sync_event_task_##fam##_as_doca_task(t);                                 \
                                                                                                                       \
		n_ok++;                                                                                                \
		last_ud = ud.u64;                                                                                      \
		last_status = doca_task_get_status(task);                                                              \
		doca_task_free(task);                                                                                  \
	}                                                                                                              \
	static void fam##_err(struct doca_sync_event_task_##fam *t, union doca_data ud, union doca_data cud)           \
	{                                                                                                              \
		struct doca_task *task = doca_sync_event_task_##fam##_as_doca_task(t);                                 \
                                                                                                                       \
		n_err++;                                                                                               \
		last_ud = ud.u64;                                                                                      \
		last_status = doca_task_get_status(task);                                                              \
		doca_task_free(task);                                                                                  \
	}

SE_CB(get)
SE_CB(notify_set)
SE_CB(notify_add)
SE_CB(wait_eq)
SE_CB(wait_neq)

struct se_ctx {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_sync_event *ev;
	struct doca_ctx *ctx;
};

static void
se_ctx_setup(struct se_ctx *s)
{
	s->dev = open_dev();
	s->ev = new_event(s->dev);
	ASSERT_OK(doca_pe_create(&s->pe));
	s->ctx = doca_sync_event_as_ctx(s->ev);
	ASSERT_NOT_NULL(s->ctx);
	ASSERT_OK(doca_sync_event_task_get_set_conf(s->ev, get_ok, get_err, 4));
	ASSERT_OK(doca_sync_event_task_notify_set_set_conf(s->ev, notify_set_ok, notify_set_err, 4));
	ASSERT_OK(doca_sync_event_task_notify_add_set_conf(s->ev, notify_add_ok, notify_add_err, 4));
	ASSERT_OK(doca_sync_event_task_wait_eq_set_conf(s->ev, wait_eq_ok, wait_eq_err, 4));
	ASSERT_OK(doca_sync_event_task_wait_neq_set_conf(s->ev, wait_neq_ok, wait_neq_err, 4));
	ASSERT_OK(doca_pe_connect_ctx(s->pe, s->ctx));
	ASSERT_OK(doca_ctx_start(s->ctx));
}

static void
se_ctx_teardown(struct se_ctx *s)
{
	ASSERT_OK(doca_ctx_stop(s->ctx));
	ASSERT_OK(doca_sync_event_destroy(s->ev));
	ASSERT_OK(doca_pe_destroy(s->pe));
	ASSERT_OK(doca_dev_close(s->dev));
}

TEST(tasks_get_set_add)
{
	struct se_ctx s;
	struct doca_sync_event_task_get *g = NULL;
	struct doca_sync_event_task_notify_set *ns = NULL;
	struct doca_sync_event_task_notify_add *na = NULL;
	uint64_t got = 0, fetched = 0, v = 0;

	se_ctx_setup(&s);
	ASSERT_OK(doca_sync_event_task_notify_set_alloc_init(s.ev, 100, (union doca_data){.u64 = 1}, &ns));
	ASSERT_EQ(doca_sync_event_task_notify_set_get_set_val(ns), 100);
	ASSERT_OK(doca_task_submit(doca_sync_event_task_notify_set_as_doca_task(ns)));
	ASSERT_OK(doca_sync_event_task_notify_add_alloc_init(s.ev, 5, &fetched, (union doca_data){.u64 = 2}, &na));
	ASSERT_OK(doca_task_submit(doca_sync_event_task_notify_add_as_doca_task(na)));
	ASSERT_OK(doca_sync_event_task_get_alloc_init(s.ev, &got, (union doca_data){.u64 = 3}, &g));
	ASSERT_PTR_EQ(doca_sync_event_task_get_get_ret_val_ptr(g), &got);
	ASSERT_OK(doca_task_submit(doca_sync_event_task_get_as_doca_task(g)));
	/* Callbacks only from progress. */
	ASSERT_EQ(n_ok, 0);
	ASSERT_EQ(doca_pe_progress(s.pe), 1);
	ASSERT_EQ(n_ok, 3);
	ASSERT_EQ(last_ud, 3);
	ASSERT_EQ(fetched, 100);
	ASSERT_EQ(got, 105);
	ASSERT_OK(doca_sync_event_get(s.ev, &v));
	ASSERT_EQ(v, 105);
	se_ctx_teardown(&s);
}

TEST(task_try_submit_get_without_pointer)
{
	struct se_ctx s;
	struct doca_sync_event_task_get *g = NULL;
	uint64_t got = 0;

	se_ctx_setup(&s);
	ASSERT_OK(doca_sync_event_task_get_alloc_init(s.ev, NULL, (union doca_data){.u64 = 3}, &g));
	ASSERT_ERR(doca_task_try_submit(doca_sync_event_task_get_as_doca_task(g)), DOCA_ERROR_INVALID_VALUE);
	doca_sync_event_task_get_set_ret_val_ptr(g, &got);
	ASSERT_OK(doca_task_try_submit(doca_sync_event_task_get_as_doca_task(g)));
	doca_pe_progress(s.pe);
	ASSERT_EQ(n_ok, 1);
	se_ctx_teardown(&s);
}

static void *
add_later(void *arg)
{
	usleep(30 * 1000);
	doca_sync_event_update_add(arg, 1, NULL);
	return NULL;
}

TEST(wait_task_completes_after_update_and_wakes_epoll)
{
	struct se_ctx s;
	struct doca_sync_event_task_wait_eq *w = NULL;
	doca_notification_handle_t h = -1;
	struct epoll_event ev = {.events = EPOLLIN}, out;
	int ep;
	pthread_t th;

	se_ctx_setup(&s);
	ASSERT_OK(doca_sync_event_task_wait_eq_alloc_init(s.ev, 1, UINT64_MAX, (union doca_data){.u64 = 9}, &w));
	ASSERT_EQ(doca_sync_event_task_wait_eq_get_wait_val(w), 1);
	ASSERT_EQ(doca_sync_event_task_wait_eq_get_mask(w), UINT64_MAX);
	ASSERT_OK(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(w)));
	ASSERT_EQ(doca_pe_progress(s.pe), 0);
	ASSERT_EQ(n_ok, 0);

	/* Sleep on the notification handle like pe_event; another thread's update wakes it. */
	ASSERT_OK(doca_pe_get_notification_handle(s.pe, &h));
	ep = epoll_create1(0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
	ASSERT_OK(doca_pe_request_notification(s.pe));
	ASSERT_EQ(epoll_wait(ep, &out, 1, 0), 0);
	ASSERT_EQ(pthread_create(&th, NULL, add_later, s.ev), 0);
	ASSERT_EQ(epoll_wait(ep, &out, 1, 5000), 1);
	pthread_join(th, NULL);
	ASSERT_OK(doca_pe_clear_notification(s.pe, 0));
	ASSERT_EQ(doca_pe_progress(s.pe), 1);
	ASSERT_EQ(n_ok, 1);
	ASSERT_EQ(last_ud, 9);
	close(ep);
	se_ctx_teardown(&s);
}

TEST(wait_task_flushed_by_stop)
{
	struct se_ctx s;
	struct doca_sync_event_task_wait_neq *w = NULL;
	enum doca_ctx_states st;

	se_ctx_setup(&s);
	ASSERT_OK(doca_sync_event_task_wait_neq_alloc_init(s.ev, 0, UINT64_MAX, (union doca_data){.u64 = 4}, &w));
	ASSERT_OK(doca_task_submit(doca_sync_event_task_wait_neq_as_doca_task(w)));
	ASSERT_ERR(doca_ctx_stop(s.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(doca_pe_progress(s.pe), 1);
	ASSERT_EQ(n_err, 1);
	ASSERT_ERR(last_status, DOCA_ERROR_IO_FAILED);
	ASSERT_OK(doca_ctx_get_state(s.ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	se_ctx_teardown(&s);
}

TEST(task_rules)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = new_event(dev);
	struct doca_sync_event_task_get *g = NULL;
	struct doca_pe *pe = NULL;

	ASSERT_OK(doca_sync_event_cap_task_get_is_supported(doca_dev_as_devinfo(dev)));
	ASSERT_OK(doca_sync_event_cap_task_wait_neq_is_supported(doca_dev_as_devinfo(dev)));
	ASSERT_ERR(doca_sync_event_cap_task_get_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	/* alloc before set_conf */
	ASSERT_ERR(doca_sync_event_task_get_alloc_init(ev, NULL, (union doca_data){.u64 = 0}, &g),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(g, NULL);
	ASSERT_ERR(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sync_event_task_get_set_conf(ev, NULL, get_err, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, 1));
	ASSERT_OK(doca_sync_event_task_get_alloc_init(ev, NULL, (union doca_data){.u64 = 0}, &g));
	/* Submit before the ctx runs. */
	ASSERT_ERR(doca_task_submit(doca_sync_event_task_get_as_doca_task(g)), DOCA_ERROR_BAD_STATE);
	/* A stand-alone started event cannot also start as a context, and vice versa. */
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(ev)));
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_ERR(doca_ctx_start(doca_sync_event_as_ctx(ev)), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, 1), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_ctx_start(doca_sync_event_as_ctx(ev)));
	ASSERT_ERR(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_stop(ev), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sync_event_destroy(ev), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(doca_sync_event_as_ctx(ev)));
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_pe_destroy(pe));
	ASSERT_OK(doca_dev_close(dev));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

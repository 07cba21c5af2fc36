/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UCP worker host (fabric_worker.h): opening UCX, the service thread's
 * loop, and the status map.  The loop serves the worker only while its owner
 * does not (ops->yield_ns), keeps polling for spin_ns after the last event -
 * a burst whose sender finds the worker unarmed signals nobody, so it costs
 * one wake-up - then arms the worker and sleeps in poll() on its event fd and
 * the wake fd until the owner's next deadline.  The lock is dropped between
 * rounds so an owner that starts progressing is not held up by the spin.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "fabric_worker.h"
#include "../core/sd_core.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(fabric.worker);

doca_error_t
fabric_ucs_to_doca(ucs_status_t st)
{
	switch (st) {
	case UCS_OK:
		return DOCA_SUCCESS;
	case UCS_INPROGRESS:
		return DOCA_ERROR_IN_PROGRESS;
	case UCS_ERR_NO_MEMORY:
		return DOCA_ERROR_NO_MEMORY;
	case UCS_ERR_INVALID_PARAM:
		return DOCA_ERROR_INVALID_VALUE;
	case UCS_ERR_CANCELED: /* a request given up when its endpoint was closed */
		return DOCA_ERROR_CONNECTION_ABORTED;
	case UCS_ERR_CONNECTION_RESET:
		return DOCA_ERROR_CONNECTION_RESET;
	case UCS_ERR_ENDPOINT_TIMEOUT:
	case UCS_ERR_TIMED_OUT:
		return DOCA_ERROR_TIME_OUT;
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_NOT_CONNECTED:
		return DOCA_ERROR_NOT_CONNECTED;
	case UCS_ERR_REJECTED:
		return DOCA_ERROR_NOT_PERMITTED;
	case UCS_ERR_UNSUPPORTED:
		return DOCA_ERROR_NOT_SUPPORTED;
	default:
		return DOCA_ERROR_IO_FAILED;
	}
}

doca_error_t
fabric_worker_open(struct fabric_worker *w, const struct fabric_worker_attr *attr)
{
	ucp_params_t params = {0};
	ucp_worker_params_t wparams = {0};
	ucp_am_handler_param_t am = {0};
	ucp_config_t *config;
	ucs_status_t st;

	memset(w, 0, sizeof(*w));
	snprintf(w->thread_name, sizeof(w->thread_name), "%s", attr->thread_name);
	w->efd = -1;
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		DOCA_LOG_ERR("Failed to create the %s wake fd: %s", attr->name, strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	st = ucp_config_read(attr->env_prefix, NULL, &config);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to read UCX configuration for %s: %s", attr->name, ucs_status_string(st));
		goto cleanup_wake;
	}
	if (attr->configure != NULL)
		attr->configure(config, attr->configure_arg);
	/*
	 * Active messages only: without RMA and AMO, UCX registers no handler
	 * for its software put/get/atomics, which over tcp would write and read
	 * any address a peer names without asking us.
	 */
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
	params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	params.mt_workers_shared = 0;
	params.name = attr->name;
	st = ucp_init(&params, config, &w->ucp);
	ucp_config_release(config);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to initialize UCP for %s: %s", attr->name, ucs_status_string(st));
		goto cleanup_wake;
	}
	wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wparams.thread_mode = attr->thread_mode;
	st = ucp_worker_create(w->ucp, &wparams, &w->worker);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to create the UCP worker of %s: %s", attr->name, ucs_status_string(st));
		goto cleanup_ucp;
	}
	st = ucp_worker_get_efd(w->worker, &w->efd);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to get the event fd of %s's worker: %s", attr->name, ucs_status_string(st));
		goto cleanup_worker;
	}
	am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
			UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
	am.id = attr->am_id;
	am.flags = UCP_AM_FLAG_WHOLE_MSG;
	am.cb = attr->am_cb;
	am.arg = attr->am_arg;
	st = ucp_worker_set_am_recv_handler(w->worker, &am);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to set the active message handler of %s: %s", attr->name, ucs_status_string(st));
		goto cleanup_worker;
	}
	pthread_mutex_init(&w->lock, NULL);
	return DOCA_SUCCESS;

cleanup_worker:
	ucp_worker_destroy(w->worker);
cleanup_ucp:
	ucp_cleanup(w->ucp);
cleanup_wake:
	close(w->wake_fd);
	return DOCA_ERROR_INITIALIZATION;
}

void
fabric_worker_close(struct fabric_worker *w)
{
	ucp_worker_destroy(w->worker);
	ucp_cleanup(w->ucp);
	close(w->wake_fd);
	pthread_mutex_destroy(&w->lock);
}

void
fabric_worker_wake(struct fabric_worker *w)
{
	uint64_t one = 1;

	if (write(w->wake_fd, &one, sizeof(one)) < 0)
		DOCA_LOG_DBG("Failed to wake a service thread: %s", strerror(errno));
}

void
fabric_worker_nudge(struct fabric_worker *w)
{
	if (atomic_load_explicit(&w->asleep, memory_order_relaxed) && atomic_exchange(&w->asleep, false))
		fabric_worker_wake(w);
}

/* Sleep until ns pass (UINT64_MAX: forever), the wake fd fires, or (with_efd) the worker has news. */
static void
svc_sleep(struct fabric_worker *w, uint64_t ns, bool with_efd)
{
	struct pollfd fds[2] = {
		{.fd = w->wake_fd, .events = POLLIN},
		{.fd = w->efd, .events = POLLIN},
	};
	int timeout = ns == UINT64_MAX ? -1 : (int)((ns + 999999) / 1000000);
	uint64_t v;

	if (poll(fds, with_efd ? 2 : 1, timeout) > 0 && (fds[0].revents & POLLIN))
		if (read(w->wake_fd, &v, sizeof(v)) < 0)
			v = 0;
}

static uint64_t
yield_ns(const struct fabric_worker *w)
{
	return w->ops->yield_ns != NULL ? w->ops->yield_ns(w->owner) : 0;
}

/* ucp_worker_arm() calls answered BUSY (events pending) before the thread backs off. */
#define ARM_TRIES 16u
#define ARM_BUSY_BACKOFF_NS 1000000ull

static void *
svc_main(void *arg)
{
	struct fabric_worker *w = arg;

	if (w->ops->thread_life != NULL)
		w->ops->thread_life(w->owner, true);
	while (!atomic_load(&w->stop)) {
		uint64_t wait = yield_ns(w), next = 0, idle_since, now;
		ucs_status_t st;

		if (wait > 0) {
			svc_sleep(w, wait, false);
			continue;
		}
		pthread_mutex_lock(&w->lock);
		w->in_service = true;
		idle_since = sd_now_ns();
		for (;;) {
			bool busy = w->ops->round(w->owner, &next) > 0;

			now = sd_now_ns();
			if (busy)
				idle_since = now;
			if (now - idle_since >= w->ops->spin_ns || yield_ns(w) > 0 || atomic_load(&w->stop))
				break;
			w->in_service = false;
			pthread_mutex_unlock(&w->lock);
			pthread_mutex_lock(&w->lock);
			w->in_service = true;
		}
		st = ucp_worker_arm(w->worker);
		for (unsigned tries = 0; st == UCS_ERR_BUSY && tries < ARM_TRIES && !atomic_load(&w->stop); tries++) {
			(void)w->ops->round(w->owner, &next);
			st = ucp_worker_arm(w->worker);
		}
		w->in_service = false;
		atomic_store(&w->asleep, st == UCS_OK); /* under the lock: fabric_worker_nudge() */
		pthread_mutex_unlock(&w->lock);
		if (st == UCS_ERR_BUSY) {
			/*
			 * UCX keeps reporting events no round consumes (a SIGKILLed peer's socket can
			 * stay readable): back off instead of spinning, and see a stop request.
			 * Retrying arm for ever here once held doca_rdma_destroy() in pthread_join().
			 */
			svc_sleep(w, ARM_BUSY_BACKOFF_NS, false);
			continue;
		}
		if (st != UCS_OK) {
			DOCA_LOG_ERR("Failed to arm a UCP worker: %s; its service thread polls every 10 ms",
				     ucs_status_string(st));
			svc_sleep(w, 10000000ull, false);
			continue;
		}
		now = sd_now_ns();
		svc_sleep(w, next == 0 ? UINT64_MAX : (next > now ? next - now : 0), true);
		atomic_store(&w->asleep, false);
	}
	if (w->ops->thread_life != NULL)
		w->ops->thread_life(w->owner, false);
	return NULL;
}

doca_error_t
fabric_worker_start(struct fabric_worker *w, const struct fabric_worker_ops *ops, void *owner)
{
	int rc;

	w->ops = ops;
	w->owner = owner;
	atomic_store(&w->stop, false);
	rc = pthread_create(&w->svc, NULL, svc_main, w);
	if (rc != 0) {
		DOCA_LOG_ERR("Failed to start the service thread %s: %s", w->thread_name, strerror(rc));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* Named before anyone can look: one thread per netdev per process is what tests count. */
	rc = pthread_setname_np(w->svc, w->thread_name);
	if (rc != 0)
		DOCA_LOG_DBG("Failed to name the service thread %s: %s", w->thread_name, strerror(rc));
	w->svc_started = true;
	return DOCA_SUCCESS;
}

void
fabric_worker_stop(struct fabric_worker *w)
{
	if (!w->svc_started)
		return;
	atomic_store(&w->stop, true);
	fabric_worker_wake(w);
	pthread_join(w->svc, NULL);
	w->svc_started = false;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one UCP worker host of the soft NIC: a UCP context and worker, the
 * worker's event fd, a wake eventfd, the lock that serializes every worker
 * call (the worker is UCS_THREAD_MODE_SERIALIZED) and a service thread that
 * progresses the worker while nobody else does.  The data path (fabric_dev,
 * fabric_ucx.c) and the connection manager (fabric_cm.c) each own one; this
 * is the only place softdoca calls ucp_init() and ucp_worker_create().
 */
#ifndef SD_FABRIC_WORKER_H_
#define SD_FABRIC_WORKER_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include <doca_error.h>

/* What the service thread does for its owner (called with the worker's lock held). */
struct fabric_worker_ops {
	/*
	 * One service round: progress the worker and whatever the owner keeps
	 * (timers, acks...).  Returns the events seen; *next is the CLOCK_MONOTONIC
	 * ns of the owner's next deadline, 0 for none.
	 */
	unsigned (*round)(void *owner, uint64_t *next);
	/*
	 * Someone else drives the worker now (an application progressing): how
	 * many ns the service thread should leave it alone; 0 when it should
	 * serve.  NULL: the service thread always serves.  Called without the lock.
	 */
	uint64_t (*yield_ns)(void *owner);
	/* Keep polling this long after the last event before arming and sleeping (0: one round). */
	uint64_t spin_ns;
	/* On the service thread, first (begin) and last thing it does; NULL: nothing.  Called without the lock. */
	void (*thread_life)(void *owner, bool begin);
};

/*
 * The service thread's name (pthread_setname_np, what ps and /proc/<pid>/task/<tid>/comm
 * show): "sdfab:<netdev>" for a device, "sdfab-cm" for the CM world; the address service's
 * thread is "sdfab-addr" (fabric_addr.c).  At most 15 characters.
 */
#define FABRIC_WORKER_THREAD_PREFIX "sdfab"
#define FABRIC_WORKER_THREAD_NAME_LEN 16

struct fabric_worker_attr {
	const char *name;	 /* UCP context name (shows in UCX logs) */
	const char *thread_name; /* the service thread's name (longer ones are cut to 15 characters) */
	const char *env_prefix;	 /* ucp_config_read's prefix: NULL for UCX_*, "SD_CM" reads SD_CM_UCX_* too */
	/* Adjust the configuration before ucp_init (may be NULL). */
	void (*configure)(ucp_config_t *config, void *arg);
	void *configure_arg;
	ucs_thread_mode_t thread_mode;
	/* The one active-message handler (id, callback, argument). */
	uint16_t am_id;
	ucp_am_recv_callback_t am_cb;
	void *am_arg;
};

struct fabric_worker {
	pthread_mutex_t lock;
	ucp_context_h ucp;
	ucp_worker_h worker;
	int efd;     /* the worker's event fd */
	int wake_fd; /* eventfd: stop or re-evaluate the service thread */
	pthread_t svc;
	bool svc_started;
	atomic_bool stop;
	bool in_service; /* the service thread holds the lock and progresses */
	/*
	 * The service thread sleeps armed: until a worker event, the wake fd or the
	 * deadline it had.  Work the owner leaves it meanwhile (an ack owed when the
	 * application stops progressing, a new deadline) needs fabric_worker_nudge().
	 * Set under the lock, so an owner that holds it and sees false knows the
	 * thread will look at what it left before it sleeps.
	 */
	atomic_bool asleep;
	const struct fabric_worker_ops *ops;
	void *owner;
	char thread_name[FABRIC_WORKER_THREAD_NAME_LEN];
};

/* UCP context, worker, event fd, AM handler and wake fd; no thread yet. */
doca_error_t fabric_worker_open(struct fabric_worker *w, const struct fabric_worker_attr *attr);
/* Start the service thread serving owner with ops. */
doca_error_t fabric_worker_start(struct fabric_worker *w, const struct fabric_worker_ops *ops, void *owner);
/* Stop and join the service thread (if started). */
void fabric_worker_stop(struct fabric_worker *w);
/* Destroy the worker and the context (the thread stopped first). */
void fabric_worker_close(struct fabric_worker *w);
/* Make the service thread look again (a new deadline, the owner going to sleep). */
void fabric_worker_wake(struct fabric_worker *w);
/* Work was left for the service thread (the lock held): wake it if it sleeps armed, at most once a sleep. */
void fabric_worker_nudge(struct fabric_worker *w);

/* The one ucs_status_t -> doca_error_t map. */
doca_error_t fabric_ucs_to_doca(ucs_status_t st);

#endif /* SD_FABRIC_WORKER_H_ */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine pool (accel_pool.h): one FIFO of tasks under one mutex, and
 * worker threads that sleep on a condition variable while it is empty, so an
 * idle engine costs no CPU.  A task leaves the queue under the lock either to a
 * worker (it becomes RUNNING) or back to its context's flush (cancel), never
 * both.  Threads live until the process exits; a child forked by a process
 * with a pool starts its own on first use.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "../util/sd_env.h"
#include "sd_core.h"
#include "accel_pool.h"

SD_LOG_REGISTER(core.accel_pool);

/* Most workers a process may ask for. */
#define POOL_MAX_WORKERS 256u

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct sd_list queue; /* sd_accel_task.queue */
	uint32_t workers;     /* threads started */
	uint32_t idle;	      /* threads waiting on cond */
	pid_t pid;	      /* the process the threads belong to */
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

uint32_t
sd_accel_workers(void)
{
	cpu_set_t set;
	uint32_t cpus = 1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		cpus = (uint32_t)CPU_COUNT(&set);
	return (uint32_t)sd_env_u64("SOFTDOCA_ENGINE_WORKERS", cpus, 0, POOL_MAX_WORKERS);
}

static void *
worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		struct sd_accel_task *t;

		while (sd_list_empty(&pool.queue)) {
			pool.idle++;
			pthread_cond_wait(&pool.cond, &pool.lock);
			pool.idle--;
		}
		t = sd_container_of(sd_list_pop_head(&pool.queue), struct sd_accel_task, queue);
		atomic_store_explicit(&t->state, SD_ACCEL_RUNNING, memory_order_relaxed);
		pthread_mutex_unlock(&pool.lock);
		sd_accel_pool_run(t);
		pthread_mutex_lock(&pool.lock);
	}
	return NULL;
}

doca_error_t
sd_accel_pool_start(uint32_t workers)
{
	doca_error_t err = DOCA_SUCCESS;

	pthread_mutex_lock(&pool.lock);
	if (pool.pid != getpid()) {
		/* First use, or a forked child: the parent's threads are not ours. */
		sd_list_init(&pool.queue);
		pool.workers = 0;
		pool.idle = 0;
		pool.pid = getpid();
	}
	while (pool.workers < workers) {
		pthread_attr_t attr;
		pthread_t tid;
		int rc;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&tid, &attr, worker_main, NULL);
		pthread_attr_destroy(&attr);
		if (rc != 0) {
			DOCA_LOG_ERR("engine pool: cannot start worker %u of %u: %s", pool.workers + 1, workers,
				     strerror(rc));
			err = pool.workers > 0 ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM;
			break;
		}
		pthread_setname_np(tid, "sd-engine");
		pool.workers++;
	}
	pthread_mutex_unlock(&pool.lock);
	return err;
}

void
sd_accel_pool_push(struct sd_accel_task *t)
{
	bool wake;

	pthread_mutex_lock(&pool.lock);
	sd_list_insert_tail(&pool.queue, &t->queue);
	wake = pool.idle > 0;
	pthread_mutex_unlock(&pool.lock);
	if (wake)
		pthread_cond_signal(&pool.cond);
}

bool
sd_accel_pool_cancel(struct sd_accel_task *t)
{
	bool taken = false;

	pthread_mutex_lock(&pool.lock);
	if (atomic_load_explicit(&t->state, memory_order_relaxed) == SD_ACCEL_QUEUED) {
		sd_list_del(&t->queue);
		taken = true;
	}
	pthread_mutex_unlock(&pool.lock);
	return taken;
}

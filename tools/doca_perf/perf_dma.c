/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf dma: memcpy tasks kept in flight on one DMA context, local (both
 * buffers here) or host<->DPU (a forked "host" process exports its buffer with
 * doca_mmap_export_pci(), this process imports it on the DPU-side device).
 * Every completion callback stamps the task's latency and resubmits it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <softdoca_dev.h>

#include "perf.h"

#define HOST_PCI "0000:b1:00.0"
#define DPU_PCI "0000:03:00.0"

/* One size's run: the context, its tasks and the counters the callbacks move (the DMA context's user data). */
struct dma_run {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	struct doca_buf **src; /* per task: head of the source list */
	struct doca_buf **dst;
	uint64_t *stamp;    /* per task: TSC at its last submit, 0: this submit is not timed */
	uint32_t lat_every; /* time one submit in this many (the clock read costs as much as a small task) */
	uint32_t untimed;   /* submits since the last timed one */
	/* Tasks whose submit returned AGAIN (nothing queued): the main loop submits them again. */
	struct doca_dma_task_memcpy **parked;
	uint32_t nparked;
	uint64_t again;
	uint64_t submitted;
	uint64_t limit; /* resubmit while fewer submits than this (UINT64_MAX: -D; 0 once the run stops) */
	uint64_t done;
	uint64_t failed;
	uint64_t warmup; /* completions before the measurement starts */
	uint64_t done0;	 /* completions when it started */
	double t0;
	double cpu0;
	bool running;
	bool measuring;
	struct perf_hist *lat;
	uint8_t *mem; /* this process's side of the copies */
	size_t side;  /* bytes of one direction's slots */
	struct doca_mmap *lm, *rm;
};

/* The measurement starts at the warm-up's last completion, tasks still in flight. */
static void
measure_start(struct dma_run *S, uint64_t done0)
{
	S->measuring = true;
	S->done0 = done0;
	S->t0 = perf_now();
	perf_cpu_seconds(&S->cpu0);
}

/* Submit, or park the task when the context's queue is full (AGAIN); false on any other error. */
static inline __attribute__((always_inline)) bool
submit_now(struct dma_run *S, struct doca_dma_task_memcpy *task)
{
	doca_error_t err = doca_task_submit(doca_dma_task_memcpy_as_task(task));

	if (err == DOCA_SUCCESS)
		return true;
	if (err != DOCA_ERROR_AGAIN)
		return false;
	S->parked[S->nparked++] = task;
	S->again++;
	return true;
}

/*
 * A new submit: it counts against the limit at once, parked or not, so tasks parked near the end
 * of an -n run do not add completions past it.
 */
static inline __attribute__((always_inline)) bool
submit_or_park(struct dma_run *S, struct doca_dma_task_memcpy *task)
{
	S->submitted++;
	return submit_now(S, task);
}

/* The stamp of a submit: now (t, else read the clock) for one submit in lat_every, else 0 (untimed). */
static inline uint64_t
stamp_next(struct dma_run *S, uint64_t t)
{
	if (++S->untimed < S->lat_every)
		return 0;
	S->untimed = 0;
	return t != 0 ? t : perf_ticks();
}

/* After a progress call: submit the parked tasks again (a task parked anew moves down, never past i). */
static void
retry_parked(struct dma_run *S)
{
	uint32_t n = S->nparked;

	S->nparked = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *task = S->parked[i];
		uint64_t *stamp = &S->stamp[doca_task_get_user_data(doca_dma_task_memcpy_as_task(task)).u64];

		if (*stamp != 0)
			*stamp = perf_ticks();
		if (!submit_now(S, task)) {
			S->failed++;
			doca_task_free(doca_dma_task_memcpy_as_task(task));
		}
	}
}

/* This completion ends the warm-up. */
static inline bool
warmup_ends(const struct dma_run *S)
{
	return __builtin_expect(!S->measuring && S->done + 1 == S->warmup, 0);
}

/* Every case the hot path below leaves out: timed, warm-up and last completions, and refused submits. */
static __attribute__((noinline)) void
task_ok_slow(struct doca_dma_task_memcpy *task, union doca_data ud, struct dma_run *S)
{
	uint64_t t = 0;

	if (S->stamp[ud.u64] != 0) {
		t = perf_ticks();
		if (S->measuring)
			perf_hist_add(S->lat, t - S->stamp[ud.u64]);
	}
	if (warmup_ends(S))
		measure_start(S, S->warmup);
	S->done++;
	doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
	if (S->submitted < S->limit) {
		S->stamp[ud.u64] = stamp_next(S, t);
		if (submit_or_park(S, task))
			return;
		S->failed++;
	}
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/*
 * Most completions: untimed, measuring, resubmitted untimed and accepted - the
 * same bookkeeping as task_ok_slow() in fewer instructions (no callee-saved
 * registers, no clock), so doca_perf's own cost stays small next to the
 * library's (target P2).
 */
static void
task_ok(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	struct dma_run *S = ctx_ud.ptr;

	if (__builtin_expect(S->stamp[ud.u64] != 0 || !S->measuring || S->submitted >= S->limit ||
				     S->untimed + 1 >= S->lat_every,
			     0)) {
		task_ok_slow(task, ud, S);
		return;
	}
	S->done++;
	S->untimed++;
	doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
	if (__builtin_expect(!submit_or_park(S, task), 0)) {
		S->failed++;
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	}
}

static void
task_err(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	struct doca_task *t = doca_dma_task_memcpy_as_task(task);
	struct dma_run *S = ctx_ud.ptr;

	(void)ud;
	if (S->failed++ == 0)
		fprintf(stderr, "doca_perf: DMA task failed: %s\n", doca_error_get_name(doca_task_get_status(t)));
	doca_task_free(t);
}

/* ---- the exporting "host" process ------------------------------------------------------ */

struct exporter {
	pid_t pid;
	int cmd; /* write a byte or close: the exporter exits */
	uint8_t desc[1024];
	size_t desc_len;
	uint8_t *addr;
};

static void
exporter_main(int down, int up, size_t area, bool writable)
{
	uint8_t *buf = perf_page_alloc(area);
	struct doca_dev *dev;
	struct doca_mmap *m;
	const void *desc;
	size_t len;
	char c;

	if (buf == NULL)
		_exit(1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (size_t i = 0; i < area; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	dev = perf_open_dev(NULL, HOST_PCI);
	PERF_TRY(doca_mmap_create(&m));
	PERF_TRY(doca_mmap_set_memrange(m, buf, area));
	PERF_TRY(doca_mmap_set_permissions(m, writable ? DOCA_ACCESS_FLAG_PCI_READ_WRITE
						       : DOCA_ACCESS_FLAG_PCI_READ_ONLY));
	PERF_TRY(doca_mmap_add_dev(m, dev));
	PERF_TRY(doca_mmap_start(m));
	PERF_TRY(doca_mmap_export_pci(m, dev, &desc, &len));
	if (write(up, &len, sizeof(len)) != sizeof(len) || write(up, desc, len) != (ssize_t)len ||
	    write(up, &buf, sizeof(buf)) != sizeof(buf))
		_exit(1);
	/* Like the host sample in getchar(): no DOCA call while the DPU copies. */
	while (read(down, &c, 1) < 0)
		;
	_exit(0);
}

static void
exporter_start(struct exporter *x, size_t area, bool writable)
{
	int down[2], up[2];

	if (pipe(down) != 0 || pipe(up) != 0) {
		perror("doca_perf: pipe");
		exit(1);
	}
	fflush(NULL);
	x->pid = fork();
	if (x->pid < 0) {
		perror("doca_perf: fork");
		exit(1);
	}
	if (x->pid == 0) {
		close(down[1]);
		close(up[0]);
		exporter_main(down[0], up[1], area, writable);
	}
	close(down[0]);
	close(up[1]);
	x->cmd = down[1];
	if (read(up[0], &x->desc_len, sizeof(x->desc_len)) != sizeof(x->desc_len) || x->desc_len > sizeof(x->desc) ||
	    read(up[0], x->desc, x->desc_len) != (ssize_t)x->desc_len ||
	    read(up[0], &x->addr, sizeof(x->addr)) != sizeof(x->addr)) {
		fprintf(stderr, "doca_perf: the exporting process failed\n");
		exit(1);
	}
	close(up[0]);
}

static void
exporter_stop(struct exporter *x)
{
	int st;

	close(x->cmd);
	waitpid(x->pid, &st, 0);
}

/* ---- one size --------------------------------------------------------------------------- */

static uint32_t
slots_for(const struct perf_opts *o, size_t size)
{
	return (uint32_t)perf_slots(o, size, o->depth);
}

static struct doca_mmap *
local_mmap(struct doca_dev *dev, void *mem, size_t len)
{
	struct doca_mmap *m;

	PERF_TRY(doca_mmap_create(&m));
	PERF_TRY(doca_mmap_set_memrange(m, mem, len));
	PERF_TRY(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	PERF_TRY(doca_mmap_add_dev(m, dev));
	PERF_TRY(doca_mmap_start(m));
	return m;
}

/* Source list of `sge` segments over [base, base + size): the last takes the remainder. */
static struct doca_buf *
src_list(struct doca_buf_inventory *inv, struct doca_mmap *m, uint8_t *base, size_t size, uint32_t sge)
{
	struct doca_buf *head = NULL;
	size_t seg = size / sge;

	for (uint32_t j = 0; j < sge; j++) {
		size_t len = j + 1 == sge ? size - seg * j : seg;
		struct doca_buf *b;

		PERF_TRY(doca_buf_inventory_buf_get_by_data(inv, m, base + seg * j, len, &b));
		if (head == NULL)
			head = b;
		else
			PERF_TRY(doca_buf_chain_list(head, b));
	}
	return head;
}

/* --event: the application sleeps in epoll on the PE's notification handle. */
struct event_loop {
	int ep;
};

static void
event_open(struct dma_run *S, struct event_loop *ev)
{
	struct epoll_event e = {.events = EPOLLIN};
	doca_notification_handle_t fd;

	PERF_TRY(doca_pe_get_notification_handle(S->pe, &fd));
	ev->ep = epoll_create1(0);
	if (ev->ep < 0 || epoll_ctl(ev->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
		perror("doca_perf: epoll");
		exit(1);
	}
}

/*
 * As DOCA's pe_event sample, with a bounded drain: progress until it returns 0 (at
 * most 16 calls: completions resubmit, so with an engine that copies inside progress
 * it would never return 0), arm, sleep until a completion wakes us (or 100 ms), clear.
 */
static void
event_wait(struct dma_run *S, struct event_loop *ev)
{
	struct epoll_event out;

	for (int i = 0; i < 16 && doca_pe_progress(S->pe) != 0; i++)
		;
	PERF_TRY(doca_pe_request_notification(S->pe));
	if (epoll_wait(ev->ep, &out, 1, 100) < 0 && errno != EINTR) {
		perror("doca_perf: epoll_wait");
		exit(1);
	}
	PERF_TRY(doca_pe_clear_notification(S->pe, 0));
}

/* The run's memory, context, inventory, mmaps and per-task bufs (S->mem .. S->dst). */
static void
run_setup(struct dma_run *S, const struct perf_opts *o, struct doca_dev *dev, struct exporter *x, size_t size)
{
	uint32_t slots = slots_for(o, size), depth = o->depth;
	bool remote = o->dma_mode == PERF_DMA_REMOTE;
	size_t side = (size_t)slots * size, total = remote ? side : 2 * side;
	uint8_t *src_base, *dst_base;
	struct doca_mmap *src_m, *dst_m;

	S->side = side;
	S->mem = perf_page_alloc(total);
	if (S->mem == NULL) {
		fprintf(stderr, "doca_perf: cannot allocate %zu bytes\n", total);
		exit(1);
	}
	/*
	 * Every page touched before timing.  A remote read lands in mem: zeros there, or
	 * the check after the run would pass without a byte copied (peer_copy pvr does
	 * the same).
	 */
	if (remote && !o->dma_write)
		memset(S->mem, 0, side);
	else
		for (size_t i = 0; i < total; i++)
			S->mem[i] = (uint8_t)(i * 7 + 3);
	S->src = calloc(depth, sizeof(*S->src));
	S->dst = calloc(depth, sizeof(*S->dst));
	S->stamp = calloc(depth, sizeof(*S->stamp));
	S->parked = calloc(depth, sizeof(*S->parked));
	if (S->src == NULL || S->dst == NULL || S->stamp == NULL || S->parked == NULL)
		exit(1);

	PERF_TRY(doca_pe_create(&S->pe));
	PERF_TRY(doca_dma_create(dev, &S->dma));
	PERF_TRY(doca_dma_task_memcpy_set_conf(S->dma, task_ok, task_err, depth));
	PERF_TRY(doca_pe_connect_ctx(S->pe, doca_dma_as_ctx(S->dma)));
	PERF_TRY(doca_ctx_set_user_data(doca_dma_as_ctx(S->dma), (union doca_data){.ptr = S}));
	PERF_TRY(doca_ctx_start(doca_dma_as_ctx(S->dma)));
	PERF_TRY(doca_buf_inventory_create((size_t)depth * (o->sge + 1), &S->inv));
	PERF_TRY(doca_buf_inventory_start(S->inv));

	S->lm = local_mmap(dev, S->mem, total);
	if (remote)
		PERF_TRY(doca_mmap_create_from_export(NULL, x->desc, x->desc_len, dev, &S->rm));
	if (!remote) {
		src_m = dst_m = S->lm;
		src_base = S->mem;
		dst_base = S->mem + side;
	} else if (o->dma_write) {
		src_m = S->lm;
		src_base = S->mem;
		dst_m = S->rm;
		dst_base = x->addr;
	} else {
		src_m = S->rm;
		src_base = x->addr;
		dst_m = S->lm;
		dst_base = S->mem;
	}
	for (uint32_t k = 0; k < depth; k++) {
		size_t off = (size_t)(k % slots) * size;

		S->src[k] = src_list(S->inv, src_m, src_base + off, size, o->sge);
		PERF_TRY(doca_buf_inventory_buf_get_by_addr(S->inv, dst_m, dst_base + off, size, &S->dst[k]));
	}
}

/* Submit the first tasks, progress until the measurement is over, drain; returns the end time. */
static double
run_loop(struct dma_run *S, const struct perf_opts *o, size_t size)
{
	uint64_t next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	struct event_loop ev = {.ep = -1};
	size_t inflight;
	double t;

	/* Warm-up tasks are not measured; the measurement starts at the first check after them. */
	S->running = true;
	S->limit = UINT64_MAX;
	S->warmup = o->warmup;
	if (S->warmup == 0)
		measure_start(S, 0);
	if (o->iters)
		S->limit = o->iters + o->warmup;
	for (uint32_t k = 0; k < o->depth && S->submitted < S->limit; k++) {
		struct doca_dma_task_memcpy *task;
		union doca_data ud = {.u64 = k};

		PERF_TRY(doca_dma_task_memcpy_alloc_init(S->dma, S->src[k], S->dst[k], ud, &task));
		S->stamp[k] = perf_ticks();
		if (!submit_or_park(S, task))
			PERF_TRY(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
	}
	if (o->dma_event)
		event_open(S, &ev);
	/* Look at the clock every millisecond (TSC) or so, and after every progress call. */
	for (;;) {
		if (o->dma_event)
			event_wait(S, &ev);
		else
			doca_pe_progress(S->pe);
		if (S->nparked != 0 && S->running)
			retry_parked(S);
		if (perf_ticks() < next_check)
			continue;
		next_check = perf_ticks() + ms_ticks;
		if (S->failed)
			break;
		if (!S->measuring)
			continue;
		if (!perf_keep_going(o, size, S->done - S->done0, S->t0, perf_now()))
			break;
		if (o->iters && S->done >= S->limit)
			break;
	}
	S->running = false;
	S->limit = 0;
	while (S->nparked != 0)
		doca_task_free(doca_dma_task_memcpy_as_task(S->parked[--S->nparked]));
	do {
		doca_pe_progress(S->pe);
		doca_ctx_get_num_inflight_tasks(doca_dma_as_ctx(S->dma), &inflight);
	} while (inflight > 0);
	t = perf_now();
	if (o->dma_event)
		close(ev.ep);
	return t;
}

/* A benchmark that copies nothing must not report a number: check one slot's bytes. */
static void
run_check(const struct dma_run *S, const struct perf_opts *o, size_t size)
{
	bool remote = o->dma_mode == PERF_DMA_REMOTE;

	if (!remote && memcmp(S->mem, S->mem + S->side, size) != 0) {
		fprintf(stderr, "doca_perf: destination differs from source after the run (size %zu)\n", size);
		exit(1);
	}
	if (remote && !o->dma_write) {
		for (size_t i = 0; i < size; i++)
			if (S->mem[i] != (uint8_t)(i * 7 + 3)) {
				fprintf(stderr, "doca_perf: imported bytes differ from the exporter's (size %zu)\n",
					size);
				exit(1);
			}
	}
}

static void
run_teardown(struct dma_run *S, const struct perf_opts *o)
{
	for (uint32_t k = 0; k < o->depth; k++) {
		doca_buf_dec_refcount(S->src[k], NULL);
		doca_buf_dec_refcount(S->dst[k], NULL);
	}
	PERF_TRY(doca_ctx_stop(doca_dma_as_ctx(S->dma)));
	PERF_TRY(doca_dma_destroy(S->dma));
	PERF_TRY(doca_pe_destroy(S->pe));
	PERF_TRY(doca_buf_inventory_destroy(S->inv));
	PERF_TRY(doca_mmap_destroy(S->lm));
	if (S->rm != NULL)
		PERF_TRY(doca_mmap_destroy(S->rm));
	free(S->src);
	free(S->dst);
	free(S->stamp);
	free(S->parked);
	free(S->mem);
}

static void
run_size(const struct perf_opts *o, struct doca_dev *dev, struct exporter *x, size_t size, struct perf_result *r)
{
	struct dma_run run = {0}, *S = &run;
	double t, cpu1;

	S->lat = &r->lat;
	S->lat_every = perf_lat_every(o, size);
	perf_hist_reset(&r->lat);
	run_setup(S, o, dev, x, size);
	t = run_loop(S, o, size);
	perf_cpu_seconds(&cpu1);
	if (S->again != 0)
		fprintf(stderr, "doca_perf: %llu DMA submits returned DOCA_ERROR_AGAIN and were retried\n",
			(unsigned long long)S->again);
	if (S->failed) {
		fprintf(stderr, "doca_perf: %llu DMA tasks failed at size %zu\n", (unsigned long long)S->failed, size);
		exit(1);
	}
	r->size = size;
	r->tasks = S->done - S->done0;
	r->seconds = t - S->t0;
	r->cpu_seconds = cpu1 - S->cpu0;
	run_check(S, o, size);
	run_teardown(S, o);
}

int
perf_dma_run(struct perf_opts *o)
{
	bool remote = o->dma_mode == PERF_DMA_REMOTE;
	struct exporter x = {0};
	struct perf_result *r;
	struct doca_dev *dev;
	uint32_t max_list = 0;
	size_t area = 0;
	const char *engine = getenv("SOFTDOCA_DMA_ENGINE");
	char title[256], cfg[512];

	/* The exporter is forked before this process opens anything. */
	for (unsigned i = 0; i < o->nsizes; i++) {
		size_t a = (size_t)slots_for(o, o->sizes[i]) * o->sizes[i];

		if (a > area)
			area = a;
	}
	if (remote) {
		exporter_start(&x, area, o->dma_write);
		/*
		 * The forked exporter is the host program; this process now plays the
		 * DPU program, which lists the DPU's functions (docs/personalities.md).
		 */
		softdoca_process_set_side(SOFTDOCA_SIDE_DPU);
	}
	dev = perf_open_dev(o->ibdev, remote ? DPU_PCI : HOST_PCI);
	if (doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(dev)) != DOCA_SUCCESS) {
		fprintf(stderr, "doca_perf: device '%s' has no DMA memcpy\n", o->ibdev ? o->ibdev : "default");
		return PERF_EXIT_USAGE;
	}
	doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &max_list);
	if (o->sge + 1 > max_list) {
		fprintf(stderr,
			"doca_perf: --sge %u: the device takes at most %u segments per task (source + destination)\n",
			o->sge, max_list);
		return PERF_EXIT_USAGE;
	}
	for (unsigned i = 0; i < o->nsizes; i++)
		if (o->sizes[i] < o->sge) {
			fprintf(stderr, "doca_perf: size %zu is smaller than --sge %u\n", o->sizes[i], o->sge);
			return PERF_EXIT_USAGE;
		}

	snprintf(title, sizeof(title), "dma  mode %s%s  depth %u  sge %u  engine %s%s", remote ? "host-dpu" : "local",
		 remote ? (o->dma_write ? " (write)" : " (read)") : "", o->depth, o->sge, engine ? engine : "auto",
		 o->dma_event ? "  event" : "");
	snprintf(cfg, sizeof(cfg),
		 "\"mode\":\"%s\",\"direction\":\"%s\",\"depth\":%u,\"sge\":%u,\"engine\":\"%s\",\"iters\":%llu,"
		 "\"duration\":%.3f,\"event\":%s",
		 remote ? "host-dpu" : "local", o->dma_write ? "write" : "read", o->depth, o->sge,
		 engine ? engine : "auto", (unsigned long long)o->iters, o->duration, o->dma_event ? "true" : "false");
	perf_report_begin(o, title, cfg);
	r = malloc(sizeof(*r));
	if (r == NULL)
		exit(1);
	for (unsigned i = 0; i < o->nsizes; i++) {
		run_size(o, dev, &x, o->sizes[i], r);
		perf_progress_end(o);
		perf_report_row(o, r);
	}
	perf_report_end(o);
	free(r);
	doca_dev_close(dev);
	if (remote)
		exporter_stop(&x);
	return 0;
}

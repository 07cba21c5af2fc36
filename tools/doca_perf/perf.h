/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf internals: the options every test shares, the per-size result a test
 * fills, the latency histogram and the clock, the report, the descriptor files
 * and the forked server.  The tests (perf_dma.c, perf_rdma*.c, perf_verbs*.c)
 * use only the public DOCA API (Verbs also rdma-core's ibv_reg_mr); this header
 * is the tool's own glue.
 */
#ifndef DOCA_PERF_H
#define DOCA_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <doca_error.h>

#define PERF_MAX_SIZES 64
#define PERF_EXIT_USAGE 2

/*
 * Latency histogram, log-linear: values below 2^SUB_BITS ticks have their own bucket,
 * every power of two above that is split into 2^SUB_BITS buckets, so a percentile is
 * within 1/2^SUB_BITS (~3 %) of the true value.  Recording is a clz and an increment.
 */
#define PERF_HIST_SUB_BITS 5
#define PERF_HIST_BUCKETS ((64 - PERF_HIST_SUB_BITS + 1) << PERF_HIST_SUB_BITS)

struct perf_hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	double sum;
	uint64_t bucket[PERF_HIST_BUCKETS];
};

enum perf_dma_mode {
	PERF_DMA_LOCAL,	 /* both buffers in this process */
	PERF_DMA_REMOTE, /* one buffer in a forked exporter (host), this process is the DPU */
};

/* What an RDMA or Verbs side registers (--memory, perf_mem.c). */
enum perf_memory { PERF_MEM_PRIVATE, PERF_MEM_MEMFD, PERF_MEM_SHM, PERF_MEM_HUGETLB };

struct perf_opts {
	const char *test; /* the table's operation ("write", "read", "send", "atomic"), or "dma" */
	size_t sizes[PERF_MAX_SIZES];
	unsigned nsizes;
	uint64_t iters;	   /* tasks per size, 0: run for `duration` */
	double duration;   /* seconds per size when iters == 0 */
	uint32_t depth;	   /* tasks in flight (per connection) */
	uint32_t sge;	   /* dma: source segments per task */
	uint32_t buffers;  /* distinct buffers per side, 0: one per task in flight */
	uint32_t conns;	   /* rdma: connections */
	const char *ibdev; /* -d: IB device name or PCI address, NULL: default */
	bool json;
	bool gbits;
	int progress;	 /* -1 auto (tty), 0 off, 1 on */
	uint32_t warmup; /* tasks per size not measured */
	/* dma */
	enum perf_dma_mode dma_mode;
	bool dma_write;	    /* remote: local -> exporter (else exporter -> local) */
	bool dma_event;	    /* sleep on the PE's notification handle instead of busy-polling */
	uint32_t lat_every; /* time one task in this many, 0: perf_lat_every() chooses */
	/* rdma and verbs */
	int role; /* 0 both (fork), 1 server, 2 client */
	const char *oob_dir;
	bool use_cm;
	uint16_t port;
	bool port_set; /* -p given (else both-sides CM runs pick a free port) */
	const char *server_addr;
	double idle; /* client: stay connected and idle this long after the run */
	bool lat;    /* send: ping-pong latency (half round trip) */
	/* verbs */
	uint32_t cq_mod;	 /* work requests per signaled completion, 0: depth / 4 (at least 1) */
	enum perf_memory memory; /* rdma and verbs: where the registered buffers live */
};

struct perf_result {
	size_t size;
	uint64_t tasks;
	double seconds;
	struct perf_hist lat; /* per-task latency in clock ticks */
	double cpu_seconds;   /* user + system CPU of this process during the measurement */
};

/* perf_util.c: the clock (TSC calibrated against CLOCK_MONOTONIC), the histogram, the report. */
void perf_clock_init(void);
double perf_now(void);
double perf_ticks_to_ns(double ticks);
void perf_cpu_seconds(double *cpu);

static inline uint64_t
perf_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	extern uint64_t perf_ticks_slow(void);
	return perf_ticks_slow();
#endif
}

static inline void
perf_hist_add(struct perf_hist *h, uint64_t v)
{
	unsigned idx;

	if (v < (1u << PERF_HIST_SUB_BITS)) {
		idx = (unsigned)v;
	} else {
		unsigned e = 63u - (unsigned)__builtin_clzll(v);

		idx = ((e - PERF_HIST_SUB_BITS + 1) << PERF_HIST_SUB_BITS) |
		      (unsigned)((v >> (e - PERF_HIST_SUB_BITS)) & ((1u << PERF_HIST_SUB_BITS) - 1));
	}
	h->bucket[idx]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min || h->count == 1)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void perf_hist_reset(struct perf_hist *h);
void perf_hist_merge(struct perf_hist *into, const struct perf_hist *from);
/* Value (ticks) below which fraction q of the samples lie. */
double perf_hist_quantile(const struct perf_hist *h, double q);

/*
 * Buffers per side for `depth` tasks of `size` bytes: --buffers, or one per
 * task in flight, within a 256 MiB budget; task k uses buffer k % slots.
 */
size_t perf_slots(const struct perf_opts *o, size_t size, size_t depth);

/*
 * One task in how many has its latency timed: --lat-every, else every task from 4 KiB and one in
 * 64 below, where two reads of the TSC (20 ns each on an AMD EPYC guest) would cost as much as
 * the 64-byte copy they time (docs/benchmarks.md, "doca_perf").
 */
uint32_t perf_lat_every(const struct perf_opts *o, size_t size);

/* Page-aligned memory of at least n bytes (aligned_alloc wants a multiple of the alignment). */
void *perf_page_alloc(size_t n);

/* perf_mem.c: at least n bytes of the --memory kind (NULL, said on stderr, when it cannot be had); its free. */
void *perf_mem_alloc(const struct perf_opts *o, size_t n);
void perf_mem_free(const struct perf_opts *o, void *p);
const char *perf_memory_name(enum perf_memory m);
bool perf_memory_parse(const char *s, enum perf_memory *m);

/* Progress indicator on stderr (no-op unless enabled); call often, it rate-limits itself. */
void perf_progress(const struct perf_opts *o, size_t size, double done_fraction);
void perf_progress_end(const struct perf_opts *o);

/* Run-loop helper: true while the size's measurement should go on (-n or -D); updates the progress line. */
bool perf_keep_going(const struct perf_opts *o, size_t size, uint64_t done, double t0, double now);

/* Output: header once, one row per size, footer once. */
void perf_report_begin(const struct perf_opts *o, const char *title, const char *config_json);
void perf_report_row(const struct perf_opts *o, const struct perf_result *r);
void perf_report_end(const struct perf_opts *o);

/* Fatal error in the tool (not a usage error): message and exit 1. */
void perf_die(const char *what, doca_error_t err) __attribute__((noreturn));
#define PERF_TRY(expr)                                                                                                 \
	do {                                                                                                           \
		doca_error_t perf_err_ = (expr);                                                                       \
		if (perf_err_ != DOCA_SUCCESS)                                                                         \
			perf_die(#expr, perf_err_);                                                                    \
	} while (0)

/*
 * Devices: by IB device name or PCI address, "b1:00.0" matching "0000:b1:00.0"
 * (name NULL: fallback, either form too).  A missing device exits with 2.
 */
struct doca_dev;
struct doca_devinfo;
bool perf_devinfo_matches(struct doca_devinfo *di, const char *want);
struct doca_dev *perf_open_dev(const char *name, const char *fallback);

/*
 * perf_oob.c: descriptor files in --oob-dir and the forked server of a
 * both-sides run.  perf_oob_wait() polls for dir/name up to timeout seconds
 * and exits 1 with the reason when it does not come or when the forked server
 * (perf_child_set) has ended meanwhile; peer names the other side in messages.
 * perf_oob_remove() deletes an RDMA run's files (verbs has its own names).
 */
int perf_oob_dir_check(const char *dir); /* 0, or -1 with the reason printed */
void perf_oob_put(const char *dir, const char *name, const void *data, size_t len);
void *perf_oob_get(const char *dir, const char *name, size_t *len); /* NULL: not there yet */
void perf_oob_remove(const char *dir, uint32_t max_conns);
void *perf_oob_wait(const char *dir, const char *name, size_t *len, double timeout, const char *peer);
void perf_child_set(pid_t pid);
/* Exit 1 with the reason if the forked server has ended (waiting_for names what the client waited for). */
void perf_child_check(const char *waiting_for);
/*
 * Read one byte the forked server writes to fd (a pipe) within timeout
 * seconds: 0, or -1 with the reason printed (timeout, or the server ended,
 * with its exit status).  what names the awaited event.
 */
int perf_child_wait_byte(int fd, char *c, double timeout, const char *what);
/*
 * After the client's run: wait up to timeout seconds (2 s when the client
 * failed) for the forked server, kill it past that.  0 if it exited 0, else 1
 * with the reason printed.
 */
int perf_child_finish(double timeout, bool client_failed);

/* The tests, as doca_perf.c's table names them.  Each returns the exit status. */
#define PERF_RDMA_MAX_CONNS 1024
int perf_dma_run(struct perf_opts *o);
/* perf_rdma_run.c: check the options, run one side or both (the server forked). */
int perf_rdma_run(struct perf_opts *o);
/* perf_rdma.c: one side of an RDMA run; ready_fd: fork + CM pipe end (-1: none). */
int perf_rdma_side(struct perf_opts *o, bool server, int ready_fd);
/* perf_verbs.c: the rdma write/read/send --lat tests through DOCA Verbs (one RC QP a side). */
int perf_verbs_run(struct perf_opts *o);

#endif /* DOCA_PERF_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDOCA_TRACE=path.json (docs/diagnostics.md "Timelines"): a timeline in
 * the JSON trace-event format Perfetto and chrome://tracing open.  One track
 * (tid) per context; a complete slice per task from submit to the start of its
 * callback; context states and connection events as instants; per context, a
 * counter of the PE's progress calls and completions per millisecond
 * (aggregated over windows of at least 1 ms, so a busy loop adds one sample
 * per ms, not one per call).
 *
 * Lanes: tasks in flight together overlap, and viewers drop slices that
 * overlap on one thread without nesting, so a context's track has lanes.  A
 * slice goes to the first lane free since its submit; lane k > 0 is tid
 * track + k * 65536, named "<track> lane k".
 *
 * Memory is bounded: events are fixed-size binary records in one ring of
 * SOFTDOCA_TRACE_EVENTS slots, formatted to JSON only when a file is written.
 * Rotation rule: when the ring is full it is written to path with a numeric
 * suffix (trace.1.json, trace.2.json, ...) and starts again, up to
 * SOFTDOCA_TRACE_FILES such files; after that the ring keeps the newest
 * events and counts the ones it overwrote as dropped.  At exit whatever the
 * ring holds goes to path itself.  Every file names every track seen so far,
 * so each opens on its own; tracks outlive their contexts, so a context
 * destroyed before exit loses nothing.
 *
 * Threads: records are appended under one mutex (several PEs on several
 * threads may trace at once); a track's lanes and progress window are touched
 * only by its context's PE thread (the writer reads the lane count, atomic).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/sd_env.h"
#include "../util/sd_time.h"
#include "dev_internal.h"
#include "diag.h"
#include "pe_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.trace)

#define WINDOW_NS 1000000ull /* progress counter: one sample per >= 1 ms */
#define MAX_NAMES 256	     /* distinct task type, state and event names */
#define POOLS SD_ARRAY_SIZE(((struct doca_ctx *)0)->pools)
#define LANES 256 /* per track; more tasks in flight at once share the last lane */
#define LANE_TID(id, lane) ((id) + (uint32_t)(lane)*65536u)

enum rec_kind { REC_SLICE, REC_STATE, REC_EVENT, REC_COUNTER };

/*
 * One event.  slice: ts = submit, span = submit->callback ns, obj = task,
 * arg = status.  state: name = new state, arg = name of the previous one.
 * event: name = what, obj = its id.  counter: ts = window start, span = its
 * length, obj = progress calls, arg = completions.
 */
struct rec {
	uint64_t ts; /* ns since the diagnostics' origin */
	uint64_t span;
	uint64_t obj;
	int32_t arg;
	uint32_t track;
	uint16_t name;
	uint8_t kind;
	uint8_t lane;
};

/* A context's row in the trace; lives until exit. */
struct sd_trace_track {
	uint32_t id;
	const void *ctx;
	char name[96];		  /* "dma ctx 0x... (mlx5_0)" */
	char counter[128];	  /* "pe 0x... progress: dma ctx 0x..." */
	uint16_t pool[POOLS];	  /* task type names, by the ctx's pool index */
	_Atomic uint32_t lanes;	  /* lanes used (the writer names them) */
	uint64_t lane_end[LANES]; /* when each lane's last slice ended (PE thread) */
	/* The progress window (the ctx's PE thread only). */
	uint64_t win_t0;
	uint64_t win_calls;
	uint32_t win_done;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool trace_on;
static pid_t owner;	    /* the process that set up the trace (a fork's child writes nothing) */
static char path[PATH_MAX]; /* SOFTDOCA_TRACE with %p replaced by the pid */
static uint64_t t0;

/* Guarded by lock. */
static struct rec *ring;
static size_t cap, head, count;
static uint64_t recorded, dropped;
static unsigned int rotations, max_rotations;
static struct sd_trace_track **tracks;
static uint32_t num_tracks, tracks_cap;
static char *names[MAX_NAMES];
static uint16_t num_names;

/* --- names ----------------------------------------------------------------------- */

/* Index of s in the name table, added if new; 0 ("?") when full.  Under lock. */
static uint16_t
intern_locked(const char *s)
{
	for (uint16_t i = 0; i < num_names; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	if (num_names == MAX_NAMES)
		return 0;
	names[num_names] = strdup(s);
	if (names[num_names] == NULL)
		return 0;
	return num_names++;
}

static uint16_t
intern(const char *s)
{
	uint16_t i;

	pthread_mutex_lock(&lock);
	i = intern_locked(s);
	pthread_mutex_unlock(&lock);
	return i;
}

/* --- JSON ------------------------------------------------------------------------ */

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A track's lanes: named, and sorted after the tracks before it. */
static void
write_meta(FILE *f, const struct sd_trace_track *t)
{
	uint32_t lanes = atomic_load_explicit(&t->lanes, memory_order_relaxed);
	char name[sizeof(t->name) + 16];

	for (uint32_t k = 0; k < (lanes != 0 ? lanes : 1); k++) {
		if (k == 0)
			snprintf(name, sizeof(name), "%s", t->name);
		else
			snprintf(name, sizeof(name), "%s lane %" PRIu32, t->name, k);
		fprintf(f,
			",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32 ",\"name\":\"thread_name\",\"args\":{\"name\":",
			(int)owner, LANE_TID(t->id, k));
		json_str(f, name);
		fprintf(f,
			"}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32
			",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%" PRIu32 "}}",
			(int)owner, LANE_TID(t->id, k), t->id * LANES + k);
	}
}

static void
write_rec(FILE *f, const struct rec *r)
{
	const struct sd_trace_track *t = tracks[r->track - 1];

	/* µs with ns decimals, in integers: printf's floating point would be most of the writing time */
	fprintf(f, ",\n{\"pid\":%d,\"ts\":%" PRIu64 ".%03u,", (int)owner, r->ts / 1000, (unsigned int)(r->ts % 1000));
	switch (r->kind) {
	case REC_SLICE:
		fprintf(f, "\"ph\":\"X\",\"tid\":%" PRIu32 ",\"dur\":%" PRIu64 ".%03u,\"cat\":\"task\",\"name\":",
			LANE_TID(t->id, r->lane), r->span / 1000, (unsigned int)(r->span % 1000));
		json_str(f, names[r->name]);
		fprintf(f, ",\"args\":{\"status\":\"%s\",\"ctx\":\"%p\",\"task\":\"0x%" PRIx64 "\"}}",
			doca_error_get_name((doca_error_t)r->arg), t->ctx, r->obj);
		break;
	case REC_STATE:
		fprintf(f, "\"ph\":\"i\",\"s\":\"t\",\"tid\":%" PRIu32 ",\"cat\":\"state\",\"name\":", t->id);
		json_str(f, names[r->name]);
		fprintf(f, ",\"args\":{\"from\":");
		json_str(f, names[r->arg]);
		fputs("}}", f);
		break;
	case REC_EVENT:
		fprintf(f, "\"ph\":\"i\",\"s\":\"t\",\"tid\":%" PRIu32 ",\"cat\":\"connection\",\"name\":", t->id);
		json_str(f, names[r->name]);
		fprintf(f, ",\"args\":{\"id\":%" PRIu64 "}}", r->obj);
		break;
	default: /* REC_COUNTER: rates over the window (0 for the closing sample) */
		fprintf(f, "\"ph\":\"C\",\"name\":");
		json_str(f, t->counter);
		fprintf(f, ",\"args\":{\"progress_calls_per_ms\":%.3f,\"completions_per_ms\":%.3f}}",
			r->span != 0 ? (double)r->obj * 1e6 / (double)r->span : 0.0,
			r->span != 0 ? (double)r->arg * 1e6 / (double)r->span : 0.0);
		break;
	}
}

/* The ring's events to file, oldest first.  Under lock; false (logged) when it cannot be written. */
static bool
write_file_locked(const char *file)
{
	FILE *f = fopen(file, "w");
	bool ok;

	if (f == NULL) {
		DOCA_LOG_ERR("SOFTDOCA_TRACE: cannot write %s: %s; its %zu events are lost (give a writable path)",
			     file, strerror(errno), count);
		return false;
	}
	fprintf(f,
		"{\"displayTimeUnit\":\"ns\",\"otherData\":{\"softdoca_ring_events\":%zu,\"softdoca_events_in_file\":"
		"%zu,\"softdoca_events_recorded\":%" PRIu64 ",\"softdoca_events_dropped\":%" PRIu64
		",\"softdoca_rotated_files\":%u},\n\"traceEvents\":[\n",
		cap, count, recorded, dropped, rotations);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", (int)owner);
	json_str(f, program_invocation_short_name);
	fputs("}}", f);
	for (uint32_t i = 0; i < num_tracks; i++)
		write_meta(f, tracks[i]);
	for (size_t i = 0; i < count; i++)
		write_rec(f, &ring[(head + i) % cap]);
	fputs("\n]}\n", f);
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok) {
		DOCA_LOG_ERR("SOFTDOCA_TRACE: writing %s failed: %s; the file is incomplete", file, strerror(errno));
		return false;
	}
	return true;
}

/* path with ".<n>" before its ".json" (or at its end). */
static void
rotated_path(char *out, size_t size, unsigned int n)
{
	size_t len = strlen(path);

	if (len > 5 && strcmp(path + len - 5, ".json") == 0)
		snprintf(out, size, "%.*s.%u.json", (int)(len - 5), path, n);
	else
		snprintf(out, size, "%s.%u", path, n);
}

static void
push(const struct rec *r)
{
	pthread_mutex_lock(&lock);
	if (count == cap) {
		if (rotations < max_rotations) {
			char file[PATH_MAX + 16];

			rotated_path(file, sizeof(file), ++rotations);
			if (write_file_locked(file))
				DOCA_LOG_INFO("[softdoca-trace] ring full: %zu events written to %s", count, file);
			head = count = 0;
		} else {
			head = (head + 1) % cap;
			count--;
			dropped++;
		}
	}
	ring[(head + count) % cap] = *r;
	count++;
	recorded++;
	pthread_mutex_unlock(&lock);
}

/* --- setup and exit ---------------------------------------------------------------- */

static void
write_at_exit(void)
{
	pthread_mutex_lock(&lock);
	if (getpid() == owner && write_file_locked(path))
		DOCA_LOG_WARN("[softdoca-trace] %zu events of %zu tracks written to %s (%u rotated files, %" PRIu64
			      " events dropped); open it in https://ui.perfetto.dev or chrome://tracing",
			      count, (size_t)num_tracks, path, rotations, dropped);
	pthread_mutex_unlock(&lock);
}

/* SOFTDOCA_TRACE with every %p replaced by the process id; false when too long. */
static bool
expand_path(const char *spec)
{
	size_t n = 0;

	for (const char *s = spec; *s != '\0'; s++) {
		int w = s[0] == '%' && s[1] == 'p' ? snprintf(path + n, sizeof(path) - n, "%d", (int)owner)
						   : snprintf(path + n, sizeof(path) - n, "%c", *s);

		if (w < 0 || (size_t)w >= sizeof(path) - n)
			return false;
		n += (size_t)w;
		s += s[0] == '%' && s[1] == 'p';
	}
	return true;
}

static void
trace_init(void)
{
	const struct sd_diag_config *c = sd_diag_config();
	FILE *probe;

	owner = getpid();
	t0 = c->t0_ns;
	if (!expand_path(c->trace_path)) {
		DOCA_LOG_ERR("SOFTDOCA_TRACE: the path is longer than %d bytes; no trace is recorded", PATH_MAX - 1);
		return;
	}
	/* Refuse an unwritable path now, once, rather than at exit. */
	probe = fopen(path, "w");
	if (probe == NULL) {
		DOCA_LOG_ERR("SOFTDOCA_TRACE: cannot create %s: %s; no trace is recorded (give a path in a writable "
			     "directory)",
			     path, strerror(errno));
		return;
	}
	fclose(probe);
	cap = sd_env_u64("SOFTDOCA_TRACE_EVENTS", 1u << 20, 16, 1u << 28);
	max_rotations = (unsigned int)sd_env_u64("SOFTDOCA_TRACE_FILES", 4, 0, 10000);
	ring = calloc(cap, sizeof(*ring));
	if (ring == NULL) {
		DOCA_LOG_ERR("SOFTDOCA_TRACE: no memory for a ring of %zu events; no trace is recorded (lower "
			     "SOFTDOCA_TRACE_EVENTS)",
			     cap);
		return;
	}
	intern_locked("?");
	trace_on = true;
	atexit(write_at_exit);
}

/* A new track for ctx (its first start); NULL on no memory (logged). */
static struct sd_trace_track *
track_new(struct doca_ctx *ctx)
{
	struct sd_trace_track *t = calloc(1, sizeof(*t));
	const struct doca_devinfo *di = ctx->dev != NULL ? ctx->dev->devinfo : NULL;

	if (t == NULL)
		goto nomem;
	t->ctx = ctx;
	snprintf(t->name, sizeof(t->name), "%s ctx %p%s%s%s", ctx->run_ops.name, (void *)ctx, di ? " (" : "",
		 di ? di->ibdev_name : "", di ? ")" : "");
	snprintf(t->counter, sizeof(t->counter), "pe %p progress: %s ctx %p", (void *)ctx->pe, ctx->run_ops.name,
		 (void *)ctx);
	pthread_mutex_lock(&lock);
	if (num_tracks == tracks_cap) {
		uint32_t n = tracks_cap != 0 ? 2 * tracks_cap : 16;
		struct sd_trace_track **grown = realloc(tracks, n * sizeof(*grown));

		if (grown == NULL) {
			pthread_mutex_unlock(&lock);
			free(t);
			goto nomem;
		}
		tracks = grown;
		tracks_cap = n;
	}
	tracks[num_tracks++] = t;
	t->id = num_tracks;
	pthread_mutex_unlock(&lock);
	return t;
nomem:
	DOCA_LOG_WARN("SOFTDOCA_TRACE: out of memory for the %s context's track; it is not traced", ctx->lib);
	return NULL;
}

void
sd_trace_ctx_start(struct doca_ctx *ctx)
{
	pthread_once(&init_once, trace_init);
	if (!trace_on)
		return;
	if (ctx->trace == NULL)
		ctx->trace = track_new(ctx);
	if (ctx->trace == NULL)
		return;
	/* Pools may be configured again between runs: name them at every start. */
	for (uint32_t p = 0; p < ctx->num_pools && p < POOLS; p++)
		ctx->trace->pool[p] = intern(ctx->pools[p]->name);
	ctx->diag |= SD_DIAG_TRACE;
}

/* --- hooks --------------------------------------------------------------------------- */

static uint64_t
since_t0(uint64_t ns)
{
	return ns > t0 ? ns - t0 : 0;
}

/* The first lane of t free since start; it is busy until now (reports come in time order). */
static uint8_t
lane_for(struct sd_trace_track *t, uint64_t start, uint64_t now)
{
	uint32_t lanes = atomic_load_explicit(&t->lanes, memory_order_relaxed), k = 0;

	while (k < lanes && t->lane_end[k] > start)
		k++;
	if (k == LANES)
		k = LANES - 1;
	else if (k == lanes)
		atomic_store_explicit(&t->lanes, lanes + 1, memory_order_relaxed);
	t->lane_end[k] = now;
	return (uint8_t)k;
}

void
sd_trace_report(struct doca_task *task, doca_error_t status)
{
	struct doca_ctx *ctx = task->ctx;
	uint64_t now = sd_now_ns(), start = task->diag_t0 != 0 && task->diag_t0 <= now ? task->diag_t0 : now;
	struct rec r = {.ts = since_t0(start),
			.span = now - start,
			.obj = (uint64_t)(uintptr_t)task,
			.arg = (int32_t)status,
			.track = ctx->trace->id,
			.kind = REC_SLICE};
	uint32_t p = 0;

	while (p < ctx->num_pools && ctx->pools[p] != task->pool)
		p++;
	r.name = p < ctx->num_pools ? ctx->trace->pool[p] : 0;
	r.lane = lane_for(ctx->trace, start, now);
	ctx->trace->win_done++;
	push(&r);
}

/* The window's rates; with closing, a zero sample after it (the ctx went idle). */
static void
window_flush(struct sd_trace_track *t, uint64_t now, bool closing)
{
	struct rec r = {.ts = since_t0(t->win_t0),
			.span = now - t->win_t0,
			.obj = t->win_calls,
			.arg = (int32_t)t->win_done,
			.track = t->id,
			.kind = REC_COUNTER};

	if (t->win_t0 == 0)
		return;
	push(&r);
	t->win_calls = 0;
	t->win_done = 0;
	t->win_t0 = now;
	if (closing) {
		r = (struct rec){.ts = since_t0(now), .track = t->id, .kind = REC_COUNTER};
		push(&r);
		t->win_t0 = 0;
	}
}

void
sd_trace_progress(struct doca_ctx *ctx)
{
	struct sd_trace_track *t = ctx->trace;
	/* Called as often as the program polls: the coarse clock (a tick, ~4 times cheaper) is enough. */
	uint64_t now = sd_coarse_now_ns();

	if (t->win_t0 == 0)
		t->win_t0 = now;
	else if (now > t->win_t0 && now - t->win_t0 >= WINDOW_NS)
		window_flush(t, now, false);
	t->win_calls++;
}

void
sd_trace_state(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	uint64_t now = sd_now_ns();
	struct rec r = {.ts = since_t0(now),
			.name = intern(sd_ctx_state_name(next)),
			.arg = intern(sd_ctx_state_name(prev)),
			.track = ctx->trace->id,
			.kind = REC_STATE};

	push(&r);
	if (next == DOCA_CTX_STATE_IDLE)
		window_flush(ctx->trace, now, true);
}

void
sd_trace_event(struct doca_ctx *ctx, const char *what, uint64_t id)
{
	struct rec r = {.ts = since_t0(sd_now_ns()),
			.obj = id,
			.name = intern(what),
			.track = ctx->trace->id,
			.kind = REC_EVENT};

	push(&r);
}

void
sd_trace_ctx_fini(struct doca_ctx *ctx)
{
	window_flush(ctx->trace, sd_now_ns(), true);
	ctx->trace = NULL;
}

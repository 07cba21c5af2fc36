/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf: perftest-style benchmarks of DOCA DMA, RDMA and Verbs through the
 * public DOCA API.  This file parses the command line (perftest's flag names
 * where perftest has them) and dispatches through one table of tests to
 * perf_dma_run(), perf_rdma_run() (perf_rdma_run.c) and perf_verbs_run().
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define DEFAULT_SIZE 65536
#define SWEEP_MIN 64
#define SWEEP_MAX (64u << 20)
#define MAX_SIZE (1u << 30)

static void
usage(FILE *out)
{
	fprintf(out, "Usage: doca_perf dma [options]\n"
		     "       doca_perf rdma write|read|send|atomic [options]\n"
		     "       doca_perf verbs write|read|send --lat [options]\n"
		     "\n"
		     "Common options (perftest names where perftest has them):\n"
		     "  -s, --size LIST        message sizes, e.g. 64,4K,1M (K/M/G = 2^10/2^20/2^30; default 64K)\n"
		     "  -a, --all              sweep powers of two from 64 B to 64 MiB (or --max-size)\n"
		     "      --max-size SIZE    upper end of --all\n"
		     "  -n, --iters N          measure N tasks per size\n"
		     "  -D, --duration SEC     measure SEC seconds per size (default 1 when -n is not given)\n"
		     "  -t, --tx-depth N       tasks in flight, per connection (default 32)\n"
		     "      --sge N            source segments per task (scatter-gather list length, default 1)\n"
		     "      --buffers N        distinct buffers per side, task k using buffer k %% N (default: one\n"
		     "                         per task in flight, within 256 MiB; 1 = ucx_perftest's layout)\n"
		     "  -c, -q, --connections N  RDMA connections (default 1)\n"
		     "  -d, --ib-dev NAME      device: IB name (mlx5_0) or PCI address (b1:00.0)\n"
		     "      --warmup N         tasks per size run before measuring (default 2 x tx-depth)\n"
		     "      --report_gbits     bandwidth in Gbit/s (default MB/s, 10^6 bytes)\n"
		     "      --json             one JSON object on stdout instead of the table\n"
		     "      --progress         progress line on stderr even when it is not a terminal\n"
		     "      --no-progress      never a progress line\n"
		     "  -h, --help\n"
		     "\n"
		     "DMA:\n"
		     "      --remote           host<->DPU: the buffer lives in a forked host process that\n"
		     "                         exports it (doca_mmap_export_pci); this process is the DPU\n"
		     "      --write            with --remote: write into the host buffer (default: read it)\n"
		     "      --engine NAME      softdoca copy engine auto|inline|worker (SOFTDOCA_DMA_ENGINE)\n"
		     "      --event            sleep on the PE's notification handle (epoll) between progress\n"
		     "                         calls instead of busy-polling\n"
		     "      --lat-every N      time one task in N for the latency columns (default: every task\n"
		     "                         from 4 KiB, one in 64 below: a clock read costs a small task)\n"
		     "\n"
		     "RDMA:\n"
		     "      --server           run the responder only\n"
		     "      --client           run the requester only (default with neither: both, forked)\n"
		     "      --oob-dir DIR      exchange connection descriptors as files in DIR\n"
		     "  -cm, --cm              connect with RDMA-CM instead of descriptor files\n"
		     "  -p, --port N           RDMA-CM port (default 13579; both sides here: a free port)\n"
		     "      --server-addr IP   RDMA-CM: the server's address (client)\n"
		     "      --lat              send: ping-pong latency (half round trip, 1 in flight)\n"
		     "      --idle SEC         client: stay connected and idle SEC seconds after the run\n"
		     "      --memory KIND      what each side registers: private (default, aligned_alloc),\n"
		     "                         memfd (sealed), shm (POSIX shared memory) or hugetlb (a\n"
		     "                         hugetlbfs memfd: reserve huge pages first); same-host peers\n"
		     "                         copy into a shared kind with memcpy (verbs too)\n"
		     "\n"
		     "Verbs (DOCA Verbs, one RC QP; --server/--client/--oob-dir/--lat as for RDMA):\n"
		     "      --cq-mod N         write/read: post chains of N work requests, only the last\n"
		     "                         signaled (default tx-depth / 4)\n"
		     "\n"
		     "Exit status: 0 ok, 1 run failed, 2 bad usage.\n");
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error: one line naming the flag and the rule, exit status 2. */
static int
bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "doca_perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see doca_perf --help\n");
	return PERF_EXIT_USAGE;
}

/* "64", "4K", "4KiB", "1M", "2G": bytes, or 0 if malformed or out of range. */
static size_t
parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return 0;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (shift != 0 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
		end += strlen(end);
	else if (shift == 0 && strcmp(end, "B") == 0)
		end++;
	if (*end != '\0' || v == 0 || v > (MAX_SIZE >> shift))
		return 0;
	return (size_t)(v << shift);
}

static bool
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-')
		return false;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

enum {
	OPT_MAX_SIZE = 256,
	OPT_SGE,
	OPT_WARMUP,
	OPT_LAT_EVERY,
	OPT_GBITS,
	OPT_JSON,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_REMOTE,
	OPT_WRITE,
	OPT_ENGINE,
	OPT_SERVER,
	OPT_CLIENT,
	OPT_OOB_DIR,
	OPT_CM,
	OPT_SERVER_ADDR,
	OPT_IDLE,
	OPT_LAT,
	OPT_EVENT,
	OPT_BUFFERS,
	OPT_CQ_MOD,
	OPT_MEMORY,
};

static const struct option long_opts[] = {
	{"size", required_argument, NULL, 's'},
	{"all", no_argument, NULL, 'a'},
	{"max-size", required_argument, NULL, OPT_MAX_SIZE},
	{"iters", required_argument, NULL, 'n'},
	{"duration", required_argument, NULL, 'D'},
	{"tx-depth", required_argument, NULL, 't'},
	{"sge", required_argument, NULL, OPT_SGE},
	{"buffers", required_argument, NULL, OPT_BUFFERS},
	{"connections", required_argument, NULL, 'c'},
	{"qp", required_argument, NULL, 'q'},
	{"ib-dev", required_argument, NULL, 'd'},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"lat-every", required_argument, NULL, OPT_LAT_EVERY},
	{"report_gbits", no_argument, NULL, OPT_GBITS},
	{"json", no_argument, NULL, OPT_JSON},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
	{"remote", no_argument, NULL, OPT_REMOTE},
	{"write", no_argument, NULL, OPT_WRITE},
	{"engine", required_argument, NULL, OPT_ENGINE},
	{"event", no_argument, NULL, OPT_EVENT},
	{"server", no_argument, NULL, OPT_SERVER},
	{"client", no_argument, NULL, OPT_CLIENT},
	{"oob-dir", required_argument, NULL, OPT_OOB_DIR},
	{"cm", no_argument, NULL, OPT_CM},
	{"port", required_argument, NULL, 'p'},
	{"server-addr", required_argument, NULL, OPT_SERVER_ADDR},
	{"idle", required_argument, NULL, OPT_IDLE},
	{"lat", no_argument, NULL, OPT_LAT},
	{"cq-mod", required_argument, NULL, OPT_CQ_MOD},
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int
parse_sizes(struct perf_opts *o, const char *list)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf))
		return bad("-s: list too long (at most 1023 characters)");
	strcpy(buf, list);
	o->nsizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		size_t v = parse_size(tok);

		if (v == 0)
			return bad("-s: '%s' is not a size from 1 B to 1 GiB (e.g. 64, 4K, 1M)", tok);
		if (o->nsizes == PERF_MAX_SIZES)
			return bad("-s: more than %d sizes", PERF_MAX_SIZES);
		o->sizes[o->nsizes++] = v;
	}
	if (o->nsizes == 0)
		return bad("-s: empty size list");
	return 0;
}

static int
parse_args(struct perf_opts *o, int argc, char **argv)
{
	bool sweep = false, have_d = false;
	size_t max_size = SWEEP_MAX;
	uint64_t v;
	int c, rc;

	/* perftest spells the RDMA-CM flag "-cm"; getopt would read it as "-c m". */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-cm") == 0)
			argv[i] = (char *)"--cm";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:an:D:t:c:q:d:p:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((rc = parse_sizes(o, optarg)) != 0)
				return rc;
			break;
		case 'a':
			sweep = true;
			break;
		case OPT_MAX_SIZE:
			if ((max_size = parse_size(optarg)) == 0)
				return bad("--max-size: '%s' is not a size from 1 B to 1 GiB", optarg);
			break;
		case 'n':
			if (!parse_u64(optarg, 1, UINT64_MAX / 2, &o->iters))
				return bad("-n: '%s' is not a positive task count", optarg);
			break;
		case 'D': {
			char *end;

			o->duration = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(o->duration > 0) || o->duration > 86400)
				return bad("-D: '%s' is not a duration in seconds (0 < D <= 86400)", optarg);
			have_d = true;
			break;
		}
		case 't':
			if (!parse_u64(optarg, 1, 65536, &v))
				return bad("-t: '%s' is not a depth from 1 to 65536", optarg);
			o->depth = (uint32_t)v;
			break;
		case OPT_SGE:
			if (!parse_u64(optarg, 1, 1024, &v))
				return bad("--sge: '%s' is not a segment count from 1 to 1024", optarg);
			o->sge = (uint32_t)v;
			break;
		case OPT_BUFFERS:
			if (!parse_u64(optarg, 1, 65536, &v))
				return bad("--buffers: '%s' is not a buffer count from 1 to 65536", optarg);
			o->buffers = (uint32_t)v;
			break;
		case 'c':
		case 'q':
			if (!parse_u64(optarg, 1, 1024, &v))
				return bad("-c: '%s' is not a connection count from 1 to 1024", optarg);
			o->conns = (uint32_t)v;
			break;
		case 'd':
			o->ibdev = optarg;
			break;
		case OPT_WARMUP:
			if (!parse_u64(optarg, 0, 1u << 30, &v))
				return bad("--warmup: '%s' is not a task count", optarg);
			o->warmup = (uint32_t)v;
			break;
		case OPT_LAT_EVERY:
			if (!parse_u64(optarg, 1, 1u << 20, &v))
				return bad("--lat-every: '%s' is not a count from 1 to 1048576", optarg);
			o->lat_every = (uint32_t)v;
			break;
		case OPT_GBITS:
			o->gbits = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_NO_PROGRESS:
			o->progress = 0;
			break;
		case OPT_REMOTE:
			o->dma_mode = PERF_DMA_REMOTE;
			break;
		case OPT_WRITE:
			o->dma_write = true;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "inline") != 0 &&
			    strcmp(optarg, "worker") != 0)
				return bad("--engine: '%s' is not auto, inline or worker", optarg);
			setenv("SOFTDOCA_DMA_ENGINE", optarg, 1);
			break;
		case OPT_EVENT:
			o->dma_event = true;
			break;
		case OPT_SERVER:
			o->role = 1;
			break;
		case OPT_CLIENT:
			o->role = 2;
			break;
		case OPT_OOB_DIR:
			o->oob_dir = optarg;
			break;
		case OPT_CM:
			o->use_cm = true;
			break;
		case 'p':
			if (!parse_u64(optarg, 1, 65535, &v))
				return bad("-p: '%s' is not a port from 1 to 65535", optarg);
			o->port = (uint16_t)v;
			o->port_set = true;
			break;
		case OPT_SERVER_ADDR:
			o->server_addr = optarg;
			break;
		case OPT_IDLE: {
			char *end;

			o->idle = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(o->idle >= 0) || o->idle > 86400)
				return bad("--idle: '%s' is not a duration in seconds", optarg);
			break;
		}
		case OPT_LAT:
			o->lat = true;
			break;
		case OPT_MEMORY:
			if (!perf_memory_parse(optarg, &o->memory))
				return bad("--memory: '%s' is not private, memfd, shm or hugetlb", optarg);
			break;
		case OPT_CQ_MOD:
			if (!parse_u64(optarg, 1, 4096, &v))
				return bad("--cq-mod: '%s' is not a count from 1 to 4096", optarg);
			o->cq_mod = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->iters != 0 && have_d)
		return bad("-n and -D both given; choose one");
	if (o->iters == 0 && o->duration == 0)
		o->duration = 1.0;
	if (sweep) {
		o->nsizes = 0;
		for (size_t s = SWEEP_MIN; s <= max_size && o->nsizes < PERF_MAX_SIZES; s *= 2)
			o->sizes[o->nsizes++] = s;
		if (o->nsizes == 0)
			return bad("--max-size is below the sweep's start (64 B)");
	}
	if (o->nsizes == 0)
		o->sizes[o->nsizes++] = DEFAULT_SIZE;
	if (o->warmup == UINT32_MAX)
		o->warmup = 2 * o->depth;
	return 0;
}

/* Options beyond the common ones that a test takes (checked after parsing). */
enum {
	TAKES_REMOTE = 1u << 0, /* --remote (and so --write) */
	TAKES_EVENT = 1u << 1,	/* --event */
	TAKES_LAT = 1u << 2,	/* --lat */
	TAKES_CQ_MOD = 1u << 3, /* --cq-mod */
};

/* One row per test: `doca_perf <family> [<op>]`, what runs it and what it takes. */
struct perf_test {
	const char *family;
	const char *op; /* NULL: the family is the test (dma) */
	int (*run)(struct perf_opts *o);
	unsigned takes;
};

static const struct perf_test perf_tests[] = {
	{"dma", NULL, perf_dma_run, TAKES_REMOTE | TAKES_EVENT},
	{"rdma", "write", perf_rdma_run, 0},
	{"rdma", "read", perf_rdma_run, 0},
	{"rdma", "send", perf_rdma_run, TAKES_LAT},
	{"rdma", "atomic", perf_rdma_run, 0},
	{"verbs", "write", perf_verbs_run, TAKES_CQ_MOD},
	{"verbs", "read", perf_verbs_run, TAKES_CQ_MOD},
	{"verbs", "send", perf_verbs_run, TAKES_LAT | TAKES_CQ_MOD},
};

#define NUM_TESTS (sizeof(perf_tests) / sizeof(perf_tests[0]))

/*
 * The families (family == NULL) or one family's operations, as "a, b or c", from
 * the table: the messages name exactly what the table holds.
 */
static const char *
choices(const char *family, char *buf, size_t len)
{
	const char *names[NUM_TESTS];
	size_t n = 0, off = 0;

	for (size_t i = 0; i < NUM_TESTS; i++) {
		const char *name = family == NULL ? perf_tests[i].family : perf_tests[i].op;

		if (family != NULL && strcmp(perf_tests[i].family, family) != 0)
			continue;
		if (family == NULL && n > 0 && strcmp(names[n - 1], name) == 0)
			continue; /* rows of one family are adjacent */
		names[n++] = name;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s",
					i == 0	     ? ""
					: i + 1 == n ? " or "
						     : ", ",
					names[i]);
	return buf;
}

/* The row argv names, moving argv past it; or a usage error (status 2) in *rc. */
static const struct perf_test *
find_test(int *argc, char ***argv, int *rc)
{
	const char *family = (*argv)[1];
	char list[128];
	bool known = false;

	for (size_t i = 0; i < NUM_TESTS; i++) {
		const struct perf_test *t = &perf_tests[i];

		if (strcmp(t->family, family) != 0)
			continue;
		known = true;
		if (t->op == NULL) {
			*argv += 1;
			*argc -= 1;
			return t;
		}
		if (*argc < 3) {
			*rc = bad("%s needs an operation: %s", family, choices(family, list, sizeof(list)));
			return NULL;
		}
		if (strcmp(t->op, (*argv)[2]) == 0) {
			*argv += 2;
			*argc -= 2;
			return t;
		}
	}
	if (known)
		*rc = bad("%s: '%s' is not an operation (%s)", family, (*argv)[2], choices(family, list, sizeof(list)));
	else
		*rc = bad("unknown test '%s' (%s)", family, choices(NULL, list, sizeof(list)));
	return NULL;
}

int
main(int argc, char **argv)
{
	struct perf_opts o = {
		.depth = 32,
		.sge = 1,
		.conns = 1,
		.progress = -1,
		.warmup = UINT32_MAX,
		.port = 13579,
	};
	const struct perf_test *t;
	char list[128];
	int rc = 0;

	if (argc < 2)
		return bad("no test given (%s)", choices(NULL, list, sizeof(list)));
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	t = find_test(&argc, &argv, &rc);
	if (t == NULL)
		return rc;
	o.test = t->op != NULL ? t->op : t->family;
	rc = parse_args(&o, argc, argv);
	if (rc != 0)
		return rc;
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (!(t->takes & TAKES_REMOTE) && o.dma_mode == PERF_DMA_REMOTE)
		return bad("--remote is a dma option");
	if (o.lat && !(t->takes & TAKES_LAT))
		return bad("--lat is for rdma send (one-sided latency: -t 1)");
	if (o.dma_write && o.dma_mode != PERF_DMA_REMOTE)
		return bad("--write needs --remote");
	if (o.dma_event && !(t->takes & TAKES_EVENT))
		return bad("--event is a dma option");
	if (o.cq_mod != 0 && !(t->takes & TAKES_CQ_MOD))
		return bad("--cq-mod is a verbs option");
	if (o.memory != PERF_MEM_PRIVATE && strcmp(t->family, "dma") == 0)
		return bad("--memory is an rdma and verbs option");
	if (o.lat_every != 0 && !(t->takes & TAKES_EVENT))
		return bad("--lat-every is a dma option");
	perf_clock_init();
	return t->run(&o);
}

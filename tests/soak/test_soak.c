// SPDX-License-Identifier: BSD-3-Clause
/*
 * The soak test (make soak; 60 s of it in make test): one long-lived process keeps
 * connecting to peer processes it restarts, moves RDMA writes and reads whose every byte
 * it verifies, SIGKILLs a random third of the peers in the middle of the traffic, and
 * checks after every cycle that its open fds, threads and RSS are back to the baseline.
 * At the end nothing may be left in /dev/shm (a private one: the test runs in a mount
 * namespace of its own when it can make one) or in the runtime directory.
 * SOAK_SECONDS sets the length (default 60); the figures are printed as TAP comments.
 */
#include <dirent.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "../api/rdma/rdma_test.h"

#define SLOT_LEN (64u * 1024u)	/* one round's bytes */
#define SLOTS 8u		/* rounds spread over [0, SLOTS * SLOT_LEN) of the peer's memory */
#define ROUNDS 24		/* rounds per cycle */
#define OP_BOUND_S 60.0		/* watchdog: an operation outstanding longer fails the run */
#define RSS_SLACK (64ull << 20) /* allocator noise: 7 to 31 MiB seen under meson */
#define SHM_DIR "/dev/shm"
#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))

struct figures {
	uint64_t cycles, tcp_cycles, kills, conns, broken, rounds;
	uint64_t bytes_verified, corrupted, lost;
	double worst_detect_s, worst_op_s;
	long base_fds, max_fds, base_threads, max_threads;
	uint64_t base_rss, max_rss;
};

/* Entries of dir (not . and ..); -1 when it cannot be read. */
static long
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static uint64_t
rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fscanf(f, "%lu %lu", &size, &resident), 2);
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The byte at offset i of round r: every round's pattern differs from its neighbours'. */
static inline uint8_t
pattern(uint64_t r, size_t i)
{
	return (uint8_t)((r * 2654435761u) ^ (i * 31u) ^ (i >> 8));
}

/* A private /dev/shm: what is left there at the end is this test's (root only). */
static bool
private_shm(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0)
		return false;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return false;
	return mount("soak-shm", SHM_DIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") == 0;
}

/* The peer: exports its memory, connects, then serves one-sided traffic until told to go. */
static void
peer_main(int sock)
{
	struct node n = {0};
	char c;

	n.sock = sock;
	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
		  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
	node_start(&n);
	node_connect(&n);
	node_send_mmap(&n);
	CHECK(read(sock, &c, 1) == 1 && c == 'q');
	node_close(&n);
	_exit(0);
}

/* Submit a task and progress until it completes; the watchdog bounds the wait. */
static doca_error_t
run_task(struct node *n, struct doca_task *t, struct result *r, struct figures *f)
{
	double start = now_s(), took;

	r->done = 0;
	if (doca_task_submit(t) != DOCA_SUCCESS)
		return DOCA_ERROR_CONNECTION_ABORTED; /* refused: the context already left RUNNING */
	while (r->done == 0) {
		if (doca_pe_progress(n->pe) == 0)
			usleep(20);
		if (now_s() - start > OP_BOUND_S)
			sd_test_fail(__FILE__, __LINE__, "hang: an RDMA task outstanding for %.0f s", OP_BOUND_S);
	}
	took = now_s() - start;
	if (took > f->worst_op_s)
		f->worst_op_s = took;
	return r->status;
}

/* One cycle: a fresh peer, ROUNDS verified write+read rounds, maybe a SIGKILL in the middle. */
static void
cycle(struct figures *f, uint32_t *seed)
{
	/* SOAK_TRANSPORTS=shm: shared memory only (make test's run, tests/soak/meson.build says why) */
	const char *only = getenv("SOAK_TRANSPORTS");
	int tcp = only != NULL && strcmp(only, "shm") == 0 ? 0 : (int)(f->cycles & 1);
	int kill_at = sd_test_rand(seed) % 3 == 0 ? (int)(sd_test_rand(seed) % ROUNDS) : -1;
	struct doca_rdma_task_write *wt = NULL;
	struct doca_rdma_task_read *rt = NULL;
	struct doca_buf *src, *rdst, *rsrc, *dst;
	struct doca_mmap *remote;
	struct result wr = {0}, rr = {0};
	struct node n = {0};
	double killed_at = 0;
	uint8_t *raddr, *check;
	size_t rlen;
	pid_t pid;

	if (tcp) {
		use_transport(1);
	} else {
		unsetenv("UCX_TLS");
		unsetenv("UCX_NET_DEVICES");
	}
	if (sd_test_fork_peer(&pid, &n.sock))
		peer_main(n.sock);
	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, (void **)&raddr, &rlen));
	ASSERT(rlen >= SLOTS * SLOT_LEN);
	f->conns++;
	check = n.mem + SLOT_LEN;
	src = buf_at(&n, n.mmap, n.mem, SLOT_LEN, SLOT_LEN);
	dst = buf_at(&n, n.mmap, check, SLOT_LEN, 0);
	rdst = buf_at(&n, remote, raddr, SLOTS * SLOT_LEN, 0);
	rsrc = buf_at(&n, remote, raddr, SLOTS * SLOT_LEN, SLOTS * SLOT_LEN);
	ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rdst, (union doca_data){.ptr = &wr}, &wt));
	ASSERT_OK(doca_rdma_task_read_allocate_init(n.rdma, n.conn, rsrc, dst, (union doca_data){.ptr = &rr}, &rt));
	for (int i = 0; killed_at == 0 || now_s() - killed_at < OP_BOUND_S; i++) {
		uint64_t round = f->rounds + 1;
		uint8_t *slot = raddr + (size_t)(i % (int)SLOTS) * SLOT_LEN;
		doca_error_t err;

		if (i == kill_at) {
			ASSERT_EQ(kill(pid, SIGKILL), 0);
			killed_at = now_s();
			f->kills++;
		}
		if (killed_at == 0 && i >= ROUNDS)
			break;
		for (size_t b = 0; b < SLOT_LEN; b++)
			n.mem[b] = pattern(round, b);
		memset(check, 0, SLOT_LEN);
		ASSERT_OK(doca_buf_set_data(rdst, slot, 0));
		ASSERT_OK(doca_buf_set_data(rsrc, slot, SLOT_LEN));
		ASSERT_OK(doca_buf_set_data(dst, check, 0));
		err = run_task(&n, doca_rdma_task_write_as_task(wt), &wr, f);
		if (err == DOCA_SUCCESS)
			err = run_task(&n, doca_rdma_task_read_as_task(rt), &rr, f);
		if (err != DOCA_SUCCESS) {
			/* only a connection whose peer was killed may fail, and it must say so */
			if (killed_at == 0) {
				f->lost++;
				sd_test_fail(__FILE__, __LINE__, "cycle %llu round %d: a live connection failed: %s",
					     (unsigned long long)f->cycles, i, doca_error_get_name(err));
			}
			if (now_s() - killed_at > f->worst_detect_s)
				f->worst_detect_s = now_s() - killed_at;
			f->broken++;
			break;
		}
		f->rounds = round;
		for (size_t b = 0; b < SLOT_LEN; b++) {
			if (check[b] != pattern(round, b)) {
				f->corrupted++;
				sd_test_fail(__FILE__, __LINE__,
					     "cycle %llu round %d: byte %zu read back 0x%02x, wrote 0x%02x",
					     (unsigned long long)f->cycles, i, b, check[b], pattern(round, b));
			}
		}
		f->bytes_verified += SLOT_LEN;
	}
	if (killed_at != 0)
		ASSERT(f->broken == f->kills); /* every killed peer was seen, within OP_BOUND_S */
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rdst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rsrc, NULL));
	(void)doca_mmap_stop(remote);
	ASSERT_OK(doca_mmap_destroy(remote));
	if (killed_at == 0) {
		ASSERT_EQ(write(n.sock, "q", 1), 1);
		sd_test_reap(pid);
	} else {
		ASSERT_EQ(sd_test_wait_exit(pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	}
	close(n.sock);
	node_close(&n);
	f->cycles++;
	f->tcp_cycles += (uint64_t)tcp;
}

/* fds, threads and RSS back at the baseline (a thread that is ending gets 10 s to go). */
static void
check_flat(struct figures *f)
{
	double end = now_s() + 10;
	long fds, threads;
	uint64_t rss;

	for (;;) {
		fds = count_entries("/proc/self/fd");
		threads = count_entries("/proc/self/task");
		if ((fds == f->base_fds && threads == f->base_threads) || now_s() > end)
			break;
		usleep(10000);
	}
	rss = rss_bytes();
	f->max_fds = MAX_OF(f->max_fds, fds);
	f->max_threads = MAX_OF(f->max_threads, threads);
	f->max_rss = rss > f->max_rss ? rss : f->max_rss;
	if (fds != f->base_fds || threads != f->base_threads || rss > f->base_rss + RSS_SLACK)
		sd_test_fail(__FILE__, __LINE__,
			     "after cycle %llu: %ld fds (baseline %ld), %ld threads (baseline %ld), RSS %llu MiB "
			     "(baseline %llu MiB)",
			     (unsigned long long)f->cycles, fds, f->base_fds, threads, f->base_threads,
			     (unsigned long long)(rss >> 20), (unsigned long long)(f->base_rss >> 20));
}

TEST(soak_rdma_peers_killed)
{
	const char *env = getenv("SOAK_SECONDS");
	double secs = env != NULL ? strtod(env, NULL) : 60, end;
	bool own_shm = private_shm();
	char rundir[256];
	uint32_t seed = (uint32_t)time(NULL) | 1;
	struct figures f = {0};
	long shm_left, run_left;

	/* a runtime directory of its own, checked empty at the end */
	snprintf(rundir, sizeof(rundir), "%s/run", sd_test_tmpdir());
	ASSERT_EQ(mkdir(rundir, 0700), 0);
	setenv("SOFTDOCA_RUNTIME_DIR", rundir, 1);
	printf("# soak: %.0f s, seed %u, private /dev/shm: %s\n", secs, seed, own_shm ? "yes" : "no");
	/* two warm-up cycles (shm, tcp) set the baseline: UCX and the soft NIC keep what they load */
	cycle(&f, &seed);
	cycle(&f, &seed);
	f.base_fds = count_entries("/proc/self/fd");
	f.base_threads = count_entries("/proc/self/task");
	f.base_rss = rss_bytes();
	f.max_fds = f.base_fds;
	f.max_threads = f.base_threads;
	f.max_rss = f.base_rss;
	for (end = now_s() + secs; now_s() < end;) {
		cycle(&f, &seed);
		check_flat(&f);
	}
	shm_left = own_shm ? count_entries(SHM_DIR) : 0;
	run_left = count_entries(rundir);
	printf("# soak: %llu cycles (%llu over tcp, the rest over shm), %llu connections made, %llu broken\n",
	       (unsigned long long)f.cycles, (unsigned long long)f.tcp_cycles, (unsigned long long)f.conns,
	       (unsigned long long)f.broken);
	printf("# soak: %llu peers SIGKILLed and restarted, longest time to see a dead peer %.2f s, slowest "
	       "operation %.2f s\n",
	       (unsigned long long)f.kills, f.worst_detect_s, f.worst_op_s);
	printf("# soak: %llu bytes written, read back and verified in %llu rounds; %llu corrupted, %llu lost\n",
	       (unsigned long long)f.bytes_verified, (unsigned long long)f.rounds, (unsigned long long)f.corrupted,
	       (unsigned long long)f.lost);
	printf("# soak: fds %ld (max %ld), threads %ld (max %ld), RSS %llu MiB (max %llu MiB)\n", f.base_fds, f.max_fds,
	       f.base_threads, f.max_threads, (unsigned long long)(f.base_rss >> 20),
	       (unsigned long long)(f.max_rss >> 20));
	printf("# soak: left at exit: %ld in /dev/shm%s, %ld in the runtime directory\n", shm_left,
	       own_shm ? "" : " (not checked: no private mount namespace)", run_left);
	ASSERT(f.kills > 0);
	ASSERT_EQ(f.broken, f.kills);
	ASSERT_EQ(f.corrupted, 0);
	ASSERT_EQ(shm_left, 0);
	ASSERT_EQ(run_left, 0);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The soak test (make soak; 60 s of it in make test), its driver: it forks the long-lived
 * process (soak_life.c) and restarts it whenever it ends before time, SIGKILLs it now and
 * then in the middle of an RDMA cycle (its peer, the survivor, must then see a task fail and
 * report it within the bound), drives the link chaos between the namespaces (soak_chaos.c),
 * watches the long-lived process's heartbeat, and at the end prints the figures as TAP
 * comments and asserts them.  The driver makes no softdoca call itself.  SOAK_SECONDS sets
 * the length (default 60); docs/robustness.md describes the whole.
 */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sd_test_peer.h"
#include "soak.h"

#define SHM_DIR "/dev/shm"
#define LIFE_KILL_GAP_S 8.0 /* a SIGKILL of the long-lived process 8-16 s after the last one ended */
#define TICK_S 0.02

struct driver {
	pid_t life, survivor;
	double survivor_deadline, next_life_kill;
	uint32_t seed;
};

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

static void
start_life(struct driver *d)
{
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0) {
		if (soak->netns)
			soak_enter_ns(soak->ns_a);
		soak_life_main();
	}
	d->life = pid;
	soak->life_pid = pid;
	soak->life_starts++;
	soak->heartbeat = soak_now();
}

/* A child ended: the long-lived process (restarted unless time is up) or an orphaned survivor. */
static void
reaped(struct driver *d, pid_t pid, int status)
{
	bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;

	if (pid == d->life) {
		d->life = 0;
		soak->life_pid = 0;
		if (killed && soak->life_killed_at != 0)
			return;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && soak_now() >= soak->end)
			return;
		sd_test_fail(__FILE__, __LINE__, "the long-lived process %d ended with %s %d (its stderr says why)",
			     (int)pid, WIFSIGNALED(status) ? "signal" : "status",
			     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	if (pid == d->survivor) {
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			sd_test_fail(__FILE__, __LINE__,
				     "the survivor %d of a SIGKILLed long-lived process ended with %s %d, not with "
				     "its failed task reported",
				     (int)pid, WIFSIGNALED(status) ? "signal" : "status",
				     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		d->survivor = 0;
		soak->life_killed_at = 0;
		return;
	}
	/* a peer the long-lived process was about to reap when it died */
	if (!killed && !(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)))
		sd_test_fail(__FILE__, __LINE__, "orphaned peer %d ended with status %d", (int)pid, status);
}

/* Now and then, in an RDMA cycle, SIGKILL the long-lived process: its peer must report it. */
static void
maybe_kill_life(struct driver *d)
{
	if (d->life == 0 || d->survivor != 0 || !soak->life_killable || soak_now() < d->next_life_kill ||
	    soak_now() > soak->end - 5)
		return;
	/* somewhere in the cycle's rounds, not at their start */
	usleep(sd_test_rand(&d->seed) % 20000);
	if (!soak->life_killable)
		return;
	d->next_life_kill = soak_now() + LIFE_KILL_GAP_S + (double)(sd_test_rand(&d->seed) % 8000) / 1000.0;
	d->survivor = soak->peer_pid;
	d->survivor_deadline = soak_now() + SOAK_OP_BOUND_S + 10;
	soak->life_killed_at = soak_now();
	ASSERT_EQ(kill(d->life, SIGKILL), 0);
	soak->life_kills++;
}

static void
drive(struct driver *d)
{
	int status;
	pid_t pid;

	while (d->life != 0 || d->survivor != 0 || soak_now() < soak->end) {
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			reaped(d, pid, status);
		if (d->life == 0 && d->survivor == 0 && soak_now() < soak->end)
			start_life(d);
		if (d->life != 0 && soak_now() - soak->heartbeat > SOAK_OP_BOUND_S + 30)
			sd_test_fail(__FILE__, __LINE__, "hang: the long-lived process made no progress for %.0f s",
				     soak_now() - soak->heartbeat);
		if (d->survivor != 0 && soak_now() > d->survivor_deadline)
			sd_test_fail(__FILE__, __LINE__, "hang: survivor %d did not see its peer's death in %.0f s",
				     (int)d->survivor, SOAK_OP_BOUND_S + 10);
		maybe_kill_life(d);
		soak_chaos_tick();
		usleep((useconds_t)(TICK_S * 1e6));
	}
	soak_chaos_restore();
}

static double
loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f != NULL) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static void
print_kinds(void)
{
	static const char *const names[K_NUM] = {"RDMA write+read", "RDMA send/recv",	      "Verbs write",
						 "Verbs send/recv", "Comch control messages", "Comch fast path",
						 "DMA host<->DPU"};

	for (int k = 0; k < K_NUM; k++)
		printf("# soak: %-22s %12llu bytes verified in %llu operations\n", names[k],
		       (unsigned long long)soak->kind[k].bytes, (unsigned long long)soak->kind[k].ops);
}

/* Name what is left in dir (at most 5), so a failure says what leaked. */
static long
left_in(const char *dir)
{
	long n = soak_count_entries(dir), shown = 0;
	DIR *d = n > 0 ? opendir(dir) : NULL;
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL && shown < 5)
		if (e->d_name[0] != '.' && ++shown)
			printf("# soak: left in %s: %s\n", dir, e->d_name);
	if (d != NULL)
		closedir(d);
	return n;
}

static void
print_figures(double secs, long shm_left, long run_left, bool own_shm)
{
	const struct soak_shared *s = soak;

	printf("# soak: %.0f s, load average at the end %.2f; two namespaces: %s\n", secs, loadavg(),
	       s->netns ? "yes" : s->skip_netns);
	printf("# soak: %llu cycles (%llu shm, %llu tcp over lo, %llu across the namespaces; %llu over RDMA-CM)\n",
	       (unsigned long long)s->cycles, (unsigned long long)s->cycles_by_where[W_SHM],
	       (unsigned long long)s->cycles_by_where[W_TCP_LO], (unsigned long long)s->cycles_by_where[W_NETNS],
	       (unsigned long long)s->cycles_cm);
	print_kinds();
	printf("# soak: %llu corrupted, %llu lost; %llu connections made, %llu broken (%llu by a link event)\n",
	       (unsigned long long)s->corrupted, (unsigned long long)s->lost, (unsigned long long)s->conns,
	       (unsigned long long)s->broken, (unsigned long long)s->broken_by_link);
	printf("# soak: %llu peers SIGKILLed, longest time to see one %.3f s; long-lived process started %llu times, "
	       "SIGKILLed %llu times, %llu survivors reported it, longest %.3f s\n",
	       (unsigned long long)s->peer_kills, s->worst_detect_s, (unsigned long long)s->life_starts,
	       (unsigned long long)s->life_kills, (unsigned long long)s->survivors_reported, s->worst_life_detect_s);
	printf("# soak: %llu link cuts, %llu tc changes (tbf%s); slowest operation %.2f s (watchdog %.0f s)\n",
	       (unsigned long long)s->link_cuts, (unsigned long long)s->tc_changes,
	       s->netem	  ? " and netem"
	       : s->netns ? "; no netem: this kernel has no sch_netem"
			  : "",
	       s->worst_op_s, SOAK_OP_BOUND_S);
	printf("# soak: long-lived process: fds %ld (max %ld), threads %ld (max %ld), /dev/shm %ld (max %ld), "
	       "RSS %llu MiB (max %llu MiB)\n",
	       s->base_fds, s->max_fds, s->base_threads, s->max_threads, s->base_shm, s->max_shm,
	       (unsigned long long)(s->base_rss >> 20), (unsigned long long)(s->max_rss >> 20));
	printf("# soak: left at exit: %ld in /dev/shm%s, %ld in the runtime directory\n", shm_left,
	       own_shm ? "" : " (not checked: no private mount namespace)", run_left);
}

static void
assert_figures(long shm_left, long run_left)
{
	const struct soak_shared *s = soak;

	ASSERT_EQ(s->corrupted, 0);
	ASSERT_EQ(s->lost, 0);
	ASSERT(s->peer_kills > 0);
	ASSERT(s->broken >= s->peer_kills); /* every killed peer was reported (the rest: link events) */
	ASSERT_EQ(s->broken - s->peer_kills, s->broken_by_link);
	ASSERT_EQ(s->survivors_reported, s->life_kills);
	for (int k = 0; k < K_NUM && getenv("SOAK_ONLY_RDMA_TCP") == NULL; k++)
		ASSERT(s->kind[k].bytes > 0);
	if (s->netns)
		ASSERT(s->cycles_by_where[W_NETNS] > 0 && s->link_cuts + s->tc_changes > 0);
	ASSERT_EQ(shm_left, 0);
	ASSERT_EQ(run_left, 0);
}

TEST(soak_mixed_traffic_under_chaos)
{
	const char *env = getenv("SOAK_SECONDS"), *only = getenv("SOAK_TRANSPORTS");
	double secs = env != NULL ? strtod(env, NULL) : 60;
	bool own_shm = private_shm();
	struct driver d = {.seed = (uint32_t)time(NULL) | 1, .next_life_kill = soak_now() + LIFE_KILL_GAP_S};
	char rundir[256];
	long shm_left, run_left;

	soak = mmap(NULL, sizeof(*soak), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT(soak != MAP_FAILED);
	memset(soak, 0, sizeof(*soak));
	soak->end = soak_now() + secs;
	soak->tcp = only == NULL || strcmp(only, "shm") != 0;
	soak->own_shm = own_shm;
	soak_chaos_init();
	/* orphaned survivors come to the driver */
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	/* a runtime directory of its own, checked empty at the end */
	snprintf(rundir, sizeof(rundir), "%s/run", sd_test_tmpdir());
	ASSERT_EQ(mkdir(rundir, 0700), 0);
	setenv("SOFTDOCA_RUNTIME_DIR", rundir, 1);
	setenv("SOFTDOCA_TOPOLOGY", "builtin", 1);
	printf("# soak: %.0f s, private /dev/shm: %s, tcp: %s, two namespaces: %s\n", secs, own_shm ? "yes" : "no",
	       soak->tcp ? "yes" : "no (SOAK_TRANSPORTS=shm)", soak->netns ? "yes" : soak->skip_netns);
	fflush(stdout);
	drive(&d);
	shm_left = own_shm ? left_in(SHM_DIR) : 0;
	run_left = left_in(rundir);
	print_figures(secs, shm_left, run_left, own_shm);
	assert_figures(shm_left, run_left);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The record table's life lock (fabric_direct.c, struct fabric_recs_tail):
 * held by the owner's service thread while its soft NIC is open, released
 * when it closes, marked OWNER_DIED by the kernel when the owner is killed or
 * execs - before the new program runs - and, while held, the reason a burst
 * of direct copies needs no read of the owner's nonce, for an initiator
 * without CAP_SYS_PTRACE (with it, every batch reads the nonce).  The table is watched
 * here as a peer sees it: its memfd taken from the owner and mapped
 * read-only.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "fabric_test.h"
#include "fabric_internal.h"

#define TABLE_BYTES (FABRIC_RECS_CAP * sizeof(struct fabric_mr_rec))

/* The owner: opens its soft NIC, sends its table's descriptor number, then does what it is told. */
static void
owner(int sock)
{
	struct fabric_dev *dev;
	int32_t fd;
	char cmd;

	CHECK_ERR(sd_fabric_dev_open(NULL, &dev), DOCA_SUCCESS);
	fd = dev->recs_fd;
	CHECK(write(sock, &fd, sizeof(fd)) == sizeof(fd));
	CHECK(read(sock, &cmd, 1) == 1);
	if (cmd == 'x') /* the same pid, another program */
		execl("/bin/sleep", "sleep", "2", (char *)NULL);
	sd_fabric_dev_close(dev); /* 'c': close the soft NIC, then say so */
	CHECK(write(sock, &cmd, 1) == 1);
	CHECK(read(sock, &cmd, 1) == 1);
	_exit(0);
}

/* The owner's table, mapped read-only as a peer maps it (pidfd_getfd of the number it sent). */
static const struct fabric_recs_tail *
map_table(pid_t pid, int sock)
{
	int32_t num;
	int pidfd, fd;
	void *p;

	ASSERT_EQ(read(sock, &num, sizeof(num)), (ssize_t)sizeof(num));
	ASSERT(num >= 0);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	ASSERT(pidfd >= 0);
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, num, 0);
	ASSERT(fd >= 0);
	p = mmap(NULL, TABLE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT(p != MAP_FAILED);
	close(fd);
	close(pidfd);
	return (const struct fabric_recs_tail *)((const struct fabric_mr_rec *)p + FABRIC_STAMP_SLOT);
}

static void
unmap_table(const struct fabric_recs_tail *t)
{
	munmap((void *)((const struct fabric_mr_rec *)t - FABRIC_STAMP_SLOT), TABLE_BYTES);
}

static uint32_t
word(const struct fabric_recs_tail *t)
{
	return atomic_load_explicit((const _Atomic uint32_t *)&t->life.futex, memory_order_acquire);
}

/* Held by a live thread of pid (its service thread starts with the soft NIC: give it 5 s). */
static void
assert_held_by(const struct fabric_recs_tail *t, pid_t pid)
{
	double end = now_s() + 5;
	char path[64];
	uint32_t v;

	while (((v = word(t)) & FUTEX_TID_MASK) == 0 && now_s() < end)
		usleep(1000);
	ASSERT_NE(v & FUTEX_TID_MASK, 0);
	ASSERT_EQ(v & FUTEX_OWNER_DIED, 0);
	snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)pid, v & FUTEX_TID_MASK);
	ASSERT_EQ(access(path, F_OK), 0);
}

/* Fork an owner and map its table once its service thread holds the lock. */
static const struct fabric_recs_tail *
start_owner(pid_t *pid, int *sock)
{
	const struct fabric_recs_tail *t;

	if (sd_test_fork_peer(pid, sock))
		owner(*sock);
	t = map_table(*pid, *sock);
	assert_held_by(t, *pid);
	return t;
}

TEST(held_while_the_soft_nic_is_open_released_at_close)
{
	const struct fabric_recs_tail *t;
	int sock;
	pid_t pid;
	char c;

	t = start_owner(&pid, &sock);
	ASSERT_EQ(t->perms, 0); /* the slot grants nothing */
	ASSERT_EQ(write(sock, "c", 1), 1);
	ASSERT_EQ(read(sock, &c, 1), 1);
	ASSERT_EQ(word(t), 0); /* released, not died: the process lives on */
	ASSERT_EQ(write(sock, "d", 1), 1);
	sd_test_reap(pid);
	unmap_table(t);
}

TEST(owner_died_when_the_process_is_killed)
{
	const struct fabric_recs_tail *t;
	int sock, status;
	pid_t pid;

	t = start_owner(&pid, &sock);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFSIGNALED(status));
	ASSERT_NE(word(t) & FUTEX_OWNER_DIED, 0);
	ASSERT_EQ(word(t) & FUTEX_TID_MASK, 0);
	close(sock);
	unmap_table(t);
}

/* The program a pid runs, by its executable's name. */
static bool
runs(pid_t pid, const char *name)
{
	char path[64], exe[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strstr(exe, name) != NULL;
}

TEST(owner_died_before_the_new_program_runs)
{
	const struct fabric_recs_tail *t;
	double end;
	int sock;
	pid_t pid;

	t = start_owner(&pid, &sock);
	ASSERT_EQ(write(sock, "x", 1), 1);
	end = now_s() + 10;
	while (!runs(pid, "sleep") && now_s() < end)
		usleep(100);
	ASSERT(runs(pid, "sleep"));
	/* every thread of the old image ended before the new one got the pid's address space */
	ASSERT_NE(word(t) & FUTEX_OWNER_DIED, 0);
	sd_test_reap(pid); /* the new program was not disturbed: it sleeps and exits 0 */
	close(sock);
	unmap_table(t);
}

/* ---- a burst of direct copies to a live owner ---- */

#define PIECE 4096
#define PIECES 64
#define BURSTS 20

/* Does this process hold CAP_SYS_PTRACE (effective or permitted)?  drop: give it up for good. */
static bool
ptrace_cap(bool drop)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint32_t i = CAP_TO_INDEX(CAP_SYS_PTRACE), bit = CAP_TO_MASK(CAP_SYS_PTRACE);
	bool had;

	CHECK(syscall(SYS_capget, &h, d) == 0);
	had = ((d[i].effective | d[i].permitted) & bit) != 0;
	if (drop && had) {
		d[i].effective &= ~bit;
		d[i].permitted &= ~bit;
		d[i].inheritable &= ~bit;
		CHECK(syscall(SYS_capset, &h, d) == 0);
	}
	return had;
}

static void
target(struct side *s, bool drop_cap)
{
	uint8_t *mem = calloc(1, PIECES * PIECE);
	struct fabric_mr *mr;

	(void)ptrace_cap(drop_cap); /* the initiator may copy into us only with no more than it has */
	side_open(s, 0);
	side_connect(s);
	mr = export_mr(s, mem, PIECES * PIECE, FABRIC_PERM_REMOTE_WRITE);
	target_verdict(s, mr, mem, PIECES * PIECE, 9);
}

/* PIECES writes at once (one batch), all landed. */
static void
burst(struct side *s, struct fabric_rmr *rmr, uint64_t raddr, const uint8_t *src)
{
	static struct fabric_op w[PIECES];
	int done = 0;

	for (int i = 0; i < PIECES; i++) {
		w[i] = (struct fabric_op){.cb = op_done, .user = &done};
		ASSERT_OK(sd_fabric_ep_write(s->ep, &w[i], src + i * PIECE, PIECE, rmr, raddr + (uint64_t)i * PIECE));
	}
	ASSERT_OK(wait_flag(s, &done, PIECES, NULL, 10.0));
	for (int i = 0; i < PIECES; i++)
		ASSERT_OK(w[i].status);
}

/*
 * BURSTS bursts to a live target once it holds its life lock; returns the
 * nonce reads they took.  Without CAP_SYS_PTRACE (dropped here by both sides
 * when root) the initiator believes the lock; with it, it may not.
 */
static uint64_t
bursts_image_reads(bool drop_cap)
{
	uint8_t *src = malloc(PIECES * PIECE);
	struct fabric_ep_stats st, before;
	struct fabric_rmr *rmr;
	struct side s = {0};
	uint64_t raddr;
	double end;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &s.sock))
		target(&s, drop_cap);
	(void)ptrace_cap(drop_cap);
	setenv("SOFTDOCA_FABRIC_EAGER_RMA", "0", 1); /* every write through the kernel */
	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	end = now_s() + 10;
	do {
		sd_fabric_ctx_progress(s.ctx);
		sd_fabric_ep_get_stats(s.ep, &st);
	} while (!st.direct && now_s() < end);
	ASSERT(st.direct);
	fill(src, PIECES * PIECE, 9);
	/* the target's service thread takes the lock as it starts: until then a burst reads the nonce */
	end = now_s() + 2;
	do {
		sd_fabric_ep_get_stats(s.ep, &before);
		burst(&s, rmr, raddr, src);
		sd_fabric_ep_get_stats(s.ep, &st);
	} while (drop_cap && st.image_reads != before.image_reads && now_s() < end);
	sd_fabric_ep_get_stats(s.ep, &before);
	for (int k = 0; k < BURSTS; k++)
		burst(&s, rmr, raddr, src);
	sd_fabric_ep_get_stats(s.ep, &st);
	ASSERT(st.direct);
	ASSERT_EQ(st.mapped, 0); /* private memory: kernel copies, not a window */
	initiator_verdict(&s, pid, rmr);
	unsetenv("SOFTDOCA_FABRIC_EAGER_RMA");
	free(src);
	return st.image_reads - before.image_reads;
}

TEST(without_cap_sys_ptrace_a_burst_reads_no_nonce)
{
	ASSERT_EQ(bursts_image_reads(true), 0); /* the life lock said "same image" BURSTS times */
}

/* A thread that could copy into any process does not take a peer's word for it. */
TEST(with_cap_sys_ptrace_every_burst_reads_the_nonce)
{
	if (!ptrace_cap(false))
		SKIP("this process has no CAP_SYS_PTRACE (not root)");
	ASSERT_EQ(bursts_image_reads(false), BURSTS);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

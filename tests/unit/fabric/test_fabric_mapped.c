/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapped path between forked processes (src/fabric/fabric_mapped.c,
 * src/core/xproc_share.c): a registration that lies in a shared object -
 * sealed or plain memfd, POSIX and SysV shared memory, a MAP_SHARED file -
 * is written and read with memcpy through a window the initiator maps;
 * private memory still goes through the kernel; a revoked region is not
 * touched and its window goes away; a descriptor forged past the
 * registration (into the rest of the same shared object) is refused;
 * SOFTDOCA_FABRIC_MAPPED=0 turns it off.
 * Every byte is checked on both sides.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "sd_test.h"
#include "fabric_test.h"

#define LEN (1u << 20)
#define CHUNK (64u << 10)
#define MEMFD_NAME "sdtest-mapped"

enum kind { PRIVATE, MEMFD_SEALED, MEMFD_CLOSED, POSIX_SHM, SYSV_SHM, SHARED_FILE };

struct region {
	uint8_t *mem;
	int fd;
	int shmid;
	char path[64];
};

static void *
map_fd(int fd)
{
	void *p;

	CHECK(ftruncate(fd, LEN) == 0);
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	return p;
}

static void
region_make(struct region *r, enum kind k)
{
	*r = (struct region){.fd = -1, .shmid = -1};
	switch (k) {
	case PRIVATE:
		r->mem = aligned_alloc(4096, LEN);
		break;
	case MEMFD_SEALED:
	case MEMFD_CLOSED:
		r->fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
		CHECK(r->fd >= 0);
		r->mem = map_fd(r->fd);
		if (k == MEMFD_SEALED) {
			CHECK(fcntl(r->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
		} else {
			close(r->fd);
			r->fd = -1;
		}
		break;
	case POSIX_SHM:
		snprintf(r->path, sizeof(r->path), "/sdtest-mapped-%d", (int)getpid());
		r->fd = shm_open(r->path, O_RDWR | O_CREAT | O_EXCL, 0600);
		CHECK(r->fd >= 0);
		r->mem = map_fd(r->fd);
		close(r->fd);
		r->fd = -1;
		break;
	case SYSV_SHM:
		r->shmid = shmget(IPC_PRIVATE, LEN, IPC_CREAT | 0600);
		CHECK(r->shmid >= 0);
		r->mem = shmat(r->shmid, NULL, 0);
		CHECK(r->mem != (void *)-1);
		CHECK(shmctl(r->shmid, IPC_RMID, NULL) == 0); /* gone when the last attach goes */
		break;
	case SHARED_FILE:
		snprintf(r->path, sizeof(r->path), "/tmp/sdtest-mapped-%d", (int)getpid());
		r->fd = open(r->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		CHECK(r->fd >= 0);
		r->mem = map_fd(r->fd);
		close(r->fd);
		r->fd = -1;
		break;
	}
	CHECK(r->mem != NULL);
	memset(r->mem, 0x11, LEN);
}

static void
region_free(struct region *r, enum kind k)
{
	if (k == PRIVATE)
		free(r->mem);
	else if (k == SYSV_SHM)
		shmdt(r->mem);
	else
		munmap(r->mem, LEN);
	if (r->fd >= 0)
		close(r->fd);
	if (k == POSIX_SHM)
		shm_unlink(r->path);
	if (k == SHARED_FILE)
		unlink(r->path);
}

/* Whether a descriptor of a mapping can be opened with no name to open (CAP_CHECKPOINT_RESTORE). */
static bool
map_files_open(void)
{
	int fd = memfd_create("sdtest-probe", MFD_CLOEXEC);
	char path[80];
	void *p;
	int g;

	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)p, (unsigned long)p + 4096);
	g = open(path, O_RDONLY | O_CLOEXEC);
	if (g >= 0)
		close(g);
	munmap(p, 4096);
	close(fd);
	return g >= 0;
}

/* Is the memfd of this test mapped in our own address space (an initiator's window)? */
static bool
memfd_mapped_here(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool seen = false;

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL)
		seen |= strstr(line, "/memfd:" MEMFD_NAME) != NULL;
	fclose(f);
	return seen;
}

/* The target: the region filled with 0x11, registered; then its bytes compared with what the initiator wrote. */
static void
target(struct side *s, enum kind k, bool revoke)
{
	uint8_t *want = malloc(LEN), *got = malloc(LEN), verdict;
	struct fabric_mr *mr;
	struct region r;

	region_make(&r, k);
	side_open(s, 0);
	side_connect(s);
	mr = export_mr(s, r.mem, LEN, FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_READ);
	sync_wait(s->sock); /* the writes are done */
	memset(want, 0x11, LEN);
	for (uint32_t i = 0; i < LEN / CHUNK; i += 2)
		fill(want + (size_t)i * CHUNK, CHUNK, (uint8_t)i);
	sd_test_read_foreign(got, r.mem, LEN); /* written by the peer through its own mapping */
	verdict = memcmp(got, want, LEN) == 0 ? 'y' : 'n';
	CHECK(write(s->sock, &verdict, 1) == 1);
	if (revoke) {
		sd_fabric_mr_deregister(mr);
		mr = NULL;
		sync_send(s->sock);
		sync_wait(s->sock); /* the initiator tried again */
		sd_test_read_foreign(got, r.mem, LEN);
		verdict = memcmp(got, want, LEN) == 0 ? 'y' : 'n';
		CHECK(write(s->sock, &verdict, 1) == 1);
	}
	sync_wait(s->sock);
	sd_fabric_mr_deregister(mr);
	side_close(s);
	region_free(&r, k);
	free(want);
	free(got);
	_exit(0);
}

/* Progress until the peer's HELLO made the connection direct (writes before it travel as messages). */
static void
wait_direct(struct side *s)
{
	struct fabric_ep_stats st = {0};
	double end = now_s() + 10;

	while (!st.direct && now_s() < end) {
		sd_fabric_ctx_progress(s->ctx);
		sd_fabric_ep_get_stats(s->ep, &st);
	}
	ASSERT(st.direct);
}

static doca_error_t
write_chunks(struct side *s, struct fabric_rmr *rmr, uint64_t raddr, uint8_t *src)
{
	struct fabric_op w[LEN / CHUNK / 2];
	int done = 0, n = 0;
	doca_error_t err = DOCA_SUCCESS;

	for (uint32_t i = 0; i < LEN / CHUNK; i += 2, n++) {
		fill(src + (size_t)i * CHUNK, CHUNK, (uint8_t)i);
		w[n] = (struct fabric_op){.cb = op_done, .user = &done};
		ASSERT_OK(sd_fabric_ep_write(s->ep, &w[n], src + (size_t)i * CHUNK, CHUNK, rmr,
					     raddr + (uint64_t)i * CHUNK));
	}
	if (wait_flag(s, &done, n, NULL, 10.0) != DOCA_SUCCESS)
		return DOCA_ERROR_TIME_OUT;
	for (int i = 0; i < n; i++)
		if (w[i].status != DOCA_SUCCESS)
			err = w[i].status;
	return err;
}

/* Read two chunks back (one written, one the target's own 0x11) and compare. */
static void
read_back(struct side *s, struct fabric_rmr *rmr, uint64_t raddr, const uint8_t *src)
{
	uint8_t *back = malloc(2 * CHUNK), ones[CHUNK];
	struct fabric_op r = {.cb = op_done};
	int done = 0;

	r.user = &done;
	ASSERT_OK(sd_fabric_ep_read(s->ep, &r, back, 2 * CHUNK, rmr, raddr + 4 * CHUNK));
	ASSERT_OK(wait_flag(s, &done, 1, &r, 10.0));
	memset(ones, 0x11, sizeof(ones));
	ASSERT_MEM_EQ(back, src + 4 * CHUNK, CHUNK);
	ASSERT_MEM_EQ(back + CHUNK, ones, CHUNK);
	free(back);
}

static char
verdict_of(struct side *s)
{
	char v = 0;

	ASSERT_EQ(read(s->sock, &v, 1), 1);
	return v;
}

/* Fork the target of kind k, connect, wait for the direct path, write every other chunk. */
static pid_t
start_and_write(struct side *s, enum kind k, bool revoke, struct fabric_rmr **rmr, uint64_t *raddr, uint8_t *src)
{
	pid_t pid;

	if (sd_test_fork_peer(&pid, &s->sock))
		target(s, k, revoke);
	side_open(s, 0);
	side_connect(s);
	*rmr = import_mr(s, NULL, NULL);
	sd_fabric_rmr_get_range(*rmr, raddr, NULL, NULL);
	wait_direct(s);
	ASSERT_OK(write_chunks(s, *rmr, *raddr, src));
	return pid;
}

/* Write every other chunk, read two back; the number of memcpy'd copies is the case's. */
static void
run_kind(enum kind k, bool expect_mapped)
{
	struct side s = {0};
	struct fabric_ep_stats st;
	struct fabric_rmr *rmr;
	uint8_t *src = malloc(LEN);
	uint64_t raddr;
	pid_t pid;

	pid = start_and_write(&s, k, false, &rmr, &raddr, src);
	sync_send(s.sock);
	ASSERT_EQ(verdict_of(&s), 'y');
	read_back(&s, rmr, raddr, src);
	sd_fabric_ep_get_stats(s.ep, &st);
	ASSERT(st.direct);
	if (expect_mapped)
		ASSERT_EQ(st.mapped, (uint64_t)(LEN / CHUNK / 2 + 1));
	else
		ASSERT_EQ(st.mapped, 0);
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
	free(src);
}

TEST(private_memory_goes_through_the_kernel)
{
	run_kind(PRIVATE, false);
}

TEST(sealed_memfd_is_mapped)
{
	run_kind(MEMFD_SEALED, true);
}

TEST(closed_memfd_mapped_when_its_link_opens)
{
	/* no descriptor left to reopen: only /proc/self/map_files reaches it */
	run_kind(MEMFD_CLOSED, map_files_open());
}

TEST(posix_shm_is_mapped)
{
	run_kind(POSIX_SHM, true);
}

TEST(sysv_shm_mapped_when_its_link_opens)
{
	run_kind(SYSV_SHM, map_files_open());
}

TEST(shared_file_is_mapped)
{
	run_kind(SHARED_FILE, true);
}

TEST(knob_off_uses_the_kernel)
{
	setenv("SOFTDOCA_FABRIC_MAPPED", "0", 1);
	run_kind(MEMFD_SEALED, false);
	unsetenv("SOFTDOCA_FABRIC_MAPPED");
}

/* After the target revokes the region the window goes (the liveness round) and a write lands nowhere. */
TEST(revoked_region_is_not_touched)
{
	struct side s = {0};
	struct fabric_rmr *rmr;
	uint8_t *src = malloc(LEN);
	uint64_t raddr;
	double end;
	pid_t pid;

	pid = start_and_write(&s, MEMFD_SEALED, true, &rmr, &raddr, src);
	ASSERT(memfd_mapped_here());
	sync_send(s.sock);
	ASSERT_EQ(verdict_of(&s), 'y');
	sync_wait(s.sock); /* revoked */
	for (end = now_s() + 5; memfd_mapped_here() && now_s() < end;)
		sd_fabric_ctx_progress(s.ctx);
	ASSERT(!memfd_mapped_here());
	memset(src, 0xee, LEN);
	{
		struct fabric_op w = {.cb = op_done};
		int done = 0;

		w.user = &done;
		ASSERT_OK(sd_fabric_ep_write(s.ep, &w, src, CHUNK, rmr, raddr));
		ASSERT_OK(wait_flag(&s, &done, 1, NULL, 10.0));
		ASSERT_ERR(w.status, DOCA_ERROR_NOT_PERMITTED);
	}
	sync_send(s.sock);
	ASSERT_EQ(verdict_of(&s), 'y');
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
	free(src);
}

/*
 * A forged descriptor: the initiator edits the blob so its range starts past
 * the registration, on the next MiB of the same memfd - memory the owner
 * shares but did not register.  The write is refused (NOT_PERMITTED: the
 * target's record does not cover it, so no window and no kernel copy) and
 * neither MiB of the target's object changes.
 */
static void
forged_target(struct side *s)
{
	uint8_t *want = malloc(2 * LEN), *got = malloc(2 * LEN), verdict;
	int fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct fabric_mr *mr;
	uint8_t *mem;

	CHECK(fd >= 0 && ftruncate(fd, 2 * LEN) == 0);
	mem = mmap(NULL, 2 * LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(mem != MAP_FAILED);
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	memset(mem, 0x11, 2 * LEN);
	side_open(s, 0);
	side_connect(s);
	mr = export_mr(s, mem, LEN, FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_READ);
	sync_wait(s->sock); /* the forged write was tried */
	memset(want, 0x11, 2 * LEN);
	sd_test_read_foreign(got, mem, 2 * LEN);
	verdict = memcmp(got, want, 2 * LEN) == 0 ? 'y' : 'n';
	CHECK(write(s->sock, &verdict, 1) == 1);
	sync_wait(s->sock);
	sd_fabric_mr_deregister(mr);
	side_close(s);
	munmap(mem, 2 * LEN);
	close(fd);
	free(want);
	free(got);
	_exit(0);
}

TEST(forged_range_past_the_registration_is_refused)
{
	struct fabric_op w = {.cb = op_done};
	struct side s = {0};
	struct fabric_ep_stats st;
	struct fabric_rmr *real, *forged;
	struct fabric_mr_blob b;
	uint8_t blob[FABRIC_BLOB_MAX], *src = malloc(CHUNK);
	size_t blen;
	int done = 0;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &s.sock))
		forged_target(&s);
	side_open(&s, 0);
	side_connect(&s);
	real = import_mr(&s, blob, &blen);
	ASSERT_EQ(blen, sizeof(b));
	memcpy(&b, blob, sizeof(b));
	b.addr += LEN; /* the owner's next MiB: shared, not registered */
	ASSERT_OK(sd_fabric_rmr_import(s.dev, &b, sizeof(b), &forged));
	wait_direct(&s);
	memset(src, 0xee, CHUNK);
	w.user = &done;
	ASSERT_OK(sd_fabric_ep_write(s.ep, &w, src, CHUNK, forged, b.addr));
	ASSERT_OK(wait_flag(&s, &done, 1, NULL, 10.0));
	ASSERT_ERR(w.status, DOCA_ERROR_NOT_PERMITTED);
	sd_fabric_ep_get_stats(s.ep, &st);
	ASSERT_EQ(st.mapped, 0);
	sync_send(s.sock);
	ASSERT_EQ(verdict_of(&s), 'y');
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(forged);
	sd_fabric_rmr_destroy(real);
	side_close(&s);
	free(src);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapped path's Core half (src/core/xproc_share.c), in one process that
 * is its own peer (a pidfd of itself): which ranges are shareable and at
 * which offset, the window's checks, copies both ways, and the guard - a
 * copy into an object that shrank returns DRIVER instead of killing the
 * process, a SIGBUS that is not ours still reaches the program's handler,
 * and a program that replaced the handler gets NOT_SUPPORTED.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sd_test.h"
#include "xproc.h"

#define PG 4096u

static struct sd_xproc_peer
self_peer(void)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (pidfd < 0)
		SKIP("pidfd_open is not available (Linux 5.3)");
	return (struct sd_xproc_peer){.pid = getpid(), .uid = getuid(), .pidfd = pidfd};
}

/* A memfd of pages pages, mapped shared; *fd stays open. */
static uint8_t *
memfd_map(size_t pages, int *fd, unsigned int seals)
{
	uint8_t *p;

	*fd = memfd_create("sdtest-share", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT(*fd >= 0);
	ASSERT_EQ(ftruncate(*fd, (off_t)(pages * PG)), 0);
	p = mmap(NULL, pages * PG, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	ASSERT(p != MAP_FAILED);
	if (seals != 0)
		ASSERT_EQ(fcntl(*fd, F_ADD_SEALS, seals), 0);
	return p;
}

TEST(private_memory_is_not_shareable)
{
	uint8_t *p = aligned_alloc(PG, 4 * PG);
	struct sd_xproc_share sh;
	const char *what = NULL;

	memset(p, 1, 4 * PG);
	sd_xproc_share_find(p + 100, 1000, &sh, &what);
	ASSERT_EQ(sh.fd, -1);
	ASSERT(what != NULL && strstr(what, "private") != NULL);
	free(p);
}

TEST(memfd_range_found_at_its_offset)
{
	struct sd_xproc_share sh;
	const char *what = NULL;
	struct stat st;
	int fd;
	uint8_t *p = memfd_map(4, &fd, 0);

	sd_xproc_share_find(p + PG + 10, 2 * PG, &sh, &what);
	ASSERT(sh.fd >= 0);
	ASSERT(sh.fd != fd); /* the owner keeps its own descriptor */
	ASSERT_EQ(sh.off, PG + 10);
	ASSERT_EQ(fstat(fd, &st), 0);
	ASSERT_EQ(sh.ino, (uint64_t)st.st_ino);
	ASSERT_EQ(sh.dev, (uint64_t)st.st_dev);
	sd_xproc_share_drop(&sh);
	ASSERT_EQ(sh.fd, -1);
	/* past the object's end, and across into an unmapped page: not one shared object */
	ASSERT_EQ(munmap(p + 3 * PG, PG), 0);
	sd_xproc_share_find(p + 2 * PG, 2 * PG, &sh, &what);
	ASSERT_EQ(sh.fd, -1);
	munmap(p, 3 * PG);
	close(fd);
}

TEST(two_objects_side_by_side_are_not_one)
{
	struct sd_xproc_share sh;
	const char *what = NULL;
	uint8_t *p;
	int a, b;

	a = memfd_create("sdtest-a", MFD_CLOEXEC);
	b = memfd_create("sdtest-b", MFD_CLOEXEC);
	ASSERT(a >= 0 && b >= 0 && ftruncate(a, PG) == 0 && ftruncate(b, PG) == 0);
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
	ASSERT(p != MAP_FAILED);
	ASSERT(mmap(p + PG, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, b, 0) != MAP_FAILED);
	sd_xproc_share_find(p, 2 * PG, &sh, &what);
	ASSERT_EQ(sh.fd, -1);
	ASSERT(strstr(what, "more than one") != NULL);
	munmap(p, 2 * PG);
	close(a);
	close(b);
}

TEST(window_copies_both_ways)
{
	struct sd_xproc_peer peer = self_peer();
	struct sd_xproc_window win;
	struct sd_xproc_share sh;
	const char *what = "", *reason = "";
	uint8_t buf[300], back[300];
	int fd;
	uint8_t *p = memfd_map(4, &fd, F_SEAL_SHRINK | F_SEAL_GROW);

	sd_xproc_share_find(p + 3 * PG / 2, 2 * PG, &sh, &what);
	ASSERT(sh.fd >= 0);
	ASSERT_OK(sd_xproc_window_map(&peer, &sh, 2 * PG, &win, &reason));
	ASSERT(win.writable);
	ASSERT(!win.guarded); /* sealed against shrinking */
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 13);
	ASSERT_OK(sd_xproc_window_copy(&win, true, 1000, buf, sizeof(buf)));
	ASSERT_MEM_EQ(p + 3 * PG / 2 + 1000, buf, sizeof(buf));
	ASSERT(win.base != p + 3 * PG / 2); /* another mapping of the same bytes */
	ASSERT_OK(sd_xproc_window_copy(&win, false, 1000, back, sizeof(back)));
	ASSERT_MEM_EQ(back, buf, sizeof(buf));
	sd_xproc_window_unmap(&win);
	ASSERT(win.base == NULL);
	/* a descriptor the record names wrongly: another inode, or a range longer than the object */
	sh.ino ^= 1;
	ASSERT_ERR(sd_xproc_window_map(&peer, &sh, PG, &win, &reason), DOCA_ERROR_NOT_FOUND);
	sh.ino ^= 1;
	ASSERT_ERR(sd_xproc_window_map(&peer, &sh, 4 * PG, &win, &reason), DOCA_ERROR_INVALID_VALUE);
	sd_xproc_share_drop(&sh);
	ASSERT_ERR(sd_xproc_window_map(&peer, &sh, PG, &win, &reason), DOCA_ERROR_NOT_SUPPORTED);
	munmap(p, 4 * PG);
	close(fd);
}

TEST(write_sealed_memfd_maps_read_only)
{
	struct sd_xproc_peer peer = self_peer();
	struct sd_xproc_window win;
	struct sd_xproc_share sh;
	const char *what = "", *reason = "";
	uint8_t back[16];
	int fd;
	uint8_t *p = memfd_map(1, &fd, 0);

	memset(p, 0x42, PG);
	sd_xproc_share_find(p, PG, &sh, &what);
	ASSERT(sh.fd >= 0);
	ASSERT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
	ASSERT_OK(sd_xproc_window_map(&peer, &sh, PG, &win, &reason));
	ASSERT(!win.writable);
	ASSERT_OK(sd_xproc_window_copy(&win, false, 0, back, sizeof(back)));
	ASSERT_EQ(back[15], 0x42);
	sd_xproc_window_unmap(&win);
	sd_xproc_share_drop(&sh);
	munmap(p, PG);
	close(fd);
}

static sigjmp_buf program_jmp;
static volatile int program_handler_runs;

static void
program_sigbus(int sig)
{
	program_handler_runs++;
	siglongjmp(program_jmp, 1);
}

TEST(shrunk_object_is_caught_and_other_faults_pass_on)
{
	struct sd_xproc_peer peer = self_peer();
	struct sigaction sa = {.sa_handler = program_sigbus, .sa_flags = SA_NODEFER};
	struct sd_xproc_window win;
	struct sd_xproc_share sh;
	const char *what = "", *reason = "";
	uint8_t buf[64] = {7};
	int fd;
	uint8_t *p = memfd_map(4, &fd, 0);

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGBUS, &sa, NULL), 0); /* the program's own handler, there first */
	sd_xproc_share_find(p, 4 * PG, &sh, &what);
	ASSERT_OK(sd_xproc_window_map(&peer, &sh, 4 * PG, &win, &reason));
	ASSERT(win.guarded); /* nothing stops the owner from truncating */
	ASSERT_OK(sd_xproc_window_copy(&win, true, 2 * PG, buf, sizeof(buf)));
	ASSERT_EQ(p[2 * PG], 7);
	ASSERT_EQ(ftruncate(fd, PG), 0);
	ASSERT_ERR(sd_xproc_window_copy(&win, true, 2 * PG, buf, sizeof(buf)), DOCA_ERROR_DRIVER);
	ASSERT_ERR(sd_xproc_window_copy(&win, false, 3 * PG, buf, sizeof(buf)), DOCA_ERROR_DRIVER);
	ASSERT_OK(sd_xproc_window_copy(&win, true, 0, buf, sizeof(buf))); /* what is left still works */
	/* the program's own fault (its mapping, not the window) goes to its handler */
	if (sigsetjmp(program_jmp, 1) == 0)
		((volatile uint8_t *)p)[3 * PG] = 1;
	ASSERT_EQ(program_handler_runs, 1);
	/* the program takes SIGBUS back: guarded copies stop, they go through the kernel instead */
	ASSERT_EQ(sigaction(SIGBUS, &sa, NULL), 0);
	ASSERT_ERR(sd_xproc_window_copy(&win, true, 0, buf, sizeof(buf)), DOCA_ERROR_NOT_SUPPORTED);
	sd_xproc_window_unmap(&win);
	sd_xproc_share_drop(&sh);
	munmap(p, 4 * PG);
	close(fd);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core's cross-process module (src/core/xproc.h): grants and their check, a
 * record fetched from another process, the copy loop across a hole, the peer
 * of a socket, and which tracer Yama is asked to allow.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sd_test.h"
#include "xproc.h"

static uint8_t area[8192] __attribute__((aligned(4096)));

TEST(grant_check_rules)
{
	struct sd_xproc_ref ref, copy;
	const struct sd_xproc_rec *rec;
	const char *why = "";
	uint64_t a = (uint64_t)(uintptr_t)area;

	ASSERT_OK(sd_xproc_grant(area, 4096, SD_XPROC_WRITE, 7, &ref));
	rec = (const struct sd_xproc_rec *)(uintptr_t)ref.rec_addr;
	ASSERT_EQ(rec->tag, 7);
	ASSERT_OK(sd_xproc_rec_check(rec, &ref, a, 4096, SD_XPROC_WRITE, &why));
	ASSERT_OK(sd_xproc_rec_check(rec, &ref, a + 4095, 1, SD_XPROC_WRITE, &why));
	ASSERT_ERR(sd_xproc_rec_check(rec, &ref, a + 4095, 2, SD_XPROC_WRITE, &why), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(sd_xproc_rec_check(rec, &ref, a - 1, 1, SD_XPROC_WRITE, &why), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(sd_xproc_rec_check(rec, &ref, a + 8, UINT64_MAX, SD_XPROC_WRITE, &why), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(sd_xproc_rec_check(rec, &ref, a, 1, SD_XPROC_READ, &why), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_STR_EQ(why, "the peer's grant does not allow reading");
	copy = ref;
	copy.key[3] ^= 1;
	ASSERT_ERR(sd_xproc_rec_check(rec, &copy, a, 1, SD_XPROC_WRITE, &why), DOCA_ERROR_NOT_PERMITTED);
	copy = ref;
	sd_xproc_revoke(&ref);
	ASSERT_EQ(ref.rec_addr, 0);
	ASSERT_ERR(sd_xproc_rec_check(rec, &copy, a, 1, SD_XPROC_WRITE, &why), DOCA_ERROR_NOT_PERMITTED);
	sd_xproc_revoke(&ref); /* idempotent */
}

TEST(record_fetched_from_another_process)
{
	struct sd_xproc_ref ref, gone;
	struct sd_xproc_rec rec;
	const char *why = "";
	int to_child[2], to_parent[2];
	pid_t child;
	char c = 0;

	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	ASSERT_OK(sd_xproc_grant(area, sizeof(area), SD_XPROC_READ, 0, &gone));
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		/* the child revokes what it inherited and grants anew */
		sd_xproc_revoke(&gone);
		if (sd_xproc_grant(area, 100, SD_XPROC_READ, 0, &ref) != DOCA_SUCCESS ||
		    write(to_parent[1], &ref, sizeof(ref)) != sizeof(ref))
			_exit(1);
		(void)read(to_child[0], &c, 1);
		_exit(0);
	}
	ASSERT_EQ(read(to_parent[0], &ref, sizeof(ref)), (ssize_t)sizeof(ref));
	{
		struct sd_xproc_peer peer = {.pid = child, .uid = getuid(), .pidfd = -1};

		ASSERT_OK(sd_xproc_rec_fetch(&peer, &ref, &rec, &why));
		ASSERT_OK(sd_xproc_rec_check(&rec, &ref, (uint64_t)(uintptr_t)area, 100, SD_XPROC_READ, &why));
		/* our grant is revoked in the child: what the child says counts, not our copy */
		ASSERT_OK(sd_xproc_rec_fetch(&peer, &gone, &rec, &why));
		ASSERT_ERR(sd_xproc_rec_check(&rec, &gone, (uint64_t)(uintptr_t)area, 1, SD_XPROC_READ, &why),
			   DOCA_ERROR_NOT_PERMITTED);
		ref.rec_addr = 8; /* nothing mapped there */
		ASSERT_ERR(sd_xproc_rec_fetch(&peer, &ref, &rec, &why), DOCA_ERROR_NOT_PERMITTED);
		ASSERT_EQ(write(to_child[1], &c, 1), 1);
		ASSERT_EQ(waitpid(child, NULL, 0), child);
		ASSERT_ERR(sd_xproc_rec_fetch(&peer, &gone, &rec, &why), DOCA_ERROR_NOT_FOUND);
	}
	sd_xproc_revoke(&gone);
}

TEST(copy_stops_at_a_hole)
{
	uint8_t *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sd_xproc_peer self = {.pid = getpid(), .uid = getuid(), .pidfd = -1};
	uint8_t src[6000];
	struct iovec l[2] = {{src, 3000}, {src + 3000, 3000}}, r[1];
	const char *why = "";

	ASSERT(m != MAP_FAILED);
	ASSERT_EQ(munmap(m + 4096, 4096), 0);
	memset(src, 0xab, sizeof(src));
	/* from 2000 bytes before the hole: the first 2000 land, then the hole is an error */
	r[0] = (struct iovec){m + 4096 - 2000, 6000};
	ASSERT_ERR(sd_xproc_copy(&self, true, l, 2, r, 1, 6000, &why), DOCA_ERROR_DRIVER);
	ASSERT_EQ(m[4095], 0xab);
	ASSERT_EQ(m[4096 - 2001], 0);
	/* a copy that fits moves every byte, across iovec boundaries */
	l[0] = (struct iovec){src, 3000};
	l[1] = (struct iovec){src + 3000, 1000};
	r[0] = (struct iovec){m + 8192, 4000};
	ASSERT_OK(sd_xproc_copy(&self, true, l, 2, r, 1, 4000, &why));
	ASSERT_EQ(m[8192 + 3999], 0xab);
	munmap(m, 3 * 4096);
}

TEST(peer_of_a_socket)
{
	struct sd_xproc_peer p = SD_XPROC_PEER_NONE;
	const char *why = "";
	int sv[2];

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	ASSERT_OK(sd_xproc_peer_from_socket(sv[0], &p, &why));
	ASSERT_EQ(p.pid, getpid());
	ASSERT_EQ(p.uid, geteuid());
	sd_xproc_peer_fini(&p);
	ASSERT_EQ(p.pid, 0);
	ASSERT_EQ(p.pidfd, -1);
	close(sv[0]);
	close(sv[1]);
}

TEST(yama_exception_follows_the_peers)
{
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	sd_xproc_ptracer_hold(1234);
	ASSERT_EQ(sd_xproc_ptracer_current(), 1234);
	sd_xproc_ptracer_hold(1234);
	sd_xproc_ptracer_hold(4321);
	ASSERT_EQ(sd_xproc_ptracer_current(), -1); /* two peers: Yama has one exception */
	sd_xproc_ptracer_release(1234);
	ASSERT_EQ(sd_xproc_ptracer_current(), -1);
	sd_xproc_ptracer_release(1234);
	ASSERT_EQ(sd_xproc_ptracer_current(), 4321);
	sd_xproc_ptracer_release(4321);
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	sd_xproc_ptracer_release(999); /* never held: nothing changes */
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
	for (int i = 0; i < 70; i++)
		sd_xproc_ptracer_hold(2000 + i); /* more peers than the table holds */
	ASSERT_EQ(sd_xproc_ptracer_current(), -1);
	for (int i = 0; i < 70; i++)
		sd_xproc_ptracer_release(2000 + i);
	ASSERT_EQ(sd_xproc_ptracer_current(), 0);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

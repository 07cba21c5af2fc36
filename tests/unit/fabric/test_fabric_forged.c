/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forged memory descriptors against the process whose memory it is.  For
 * each one-sided family (write, write_imm, read, fetch_add, cmp_swp) and each
 * transport (same-host default: kernel copies checked against the target's
 * record, else active messages; UCX_TLS=tcp: active messages), the initiator
 * edits a real memory blob six ways - address shifted out of the export, into
 * another mapping (the target's environment strings), onto an unmapped page,
 * a key bit flipped, a permission raised, the length grown - and each access
 * must complete with NOT_PERMITTED, leave the target's memory (and a read's
 * local buffer) as it was, and leave the target running.  A legal access on
 * the same export works first, so the checks are not refusing everything.
 */
#include <signal.h>

#include "fabric_test.h"

extern char **environ;

enum forgery { LEGAL, SHIFTED, OTHER_MAPPING, UNMAPPED, KEY_FLIPPED, PERM_RAISED, LEN_GROWN, N_CASES };

static const char *const case_names[N_CASES] = {"legal",       "shifted",     "other mapping", "unmapped",
						"key flipped", "perm raised", "length grown"};

#define PAGE 4096u
#define ACCESS 64u /* bytes written or read (atomics: 8) */

static uint32_t
family_perm(enum fabric_op_type f)
{
	switch (f) {
	case FABRIC_OP_READ:
		return FABRIC_PERM_REMOTE_READ;
	case FABRIC_OP_WRITE:
	case FABRIC_OP_WRITE_IMM:
		return FABRIC_PERM_REMOTE_WRITE;
	default:
		return FABRIC_PERM_REMOTE_ATOMIC;
	}
}

/* What the target tells the initiator besides its two memory blobs. */
struct target_addrs {
	uint64_t env;	   /* an environment string of the target (another mapping) */
	uint64_t unmapped; /* a page the target unmapped */
};

/* New connection on an existing ctx: export, exchange, connect (both sides). */
static void
reconnect(struct side *s)
{
	CHECK_ERR(sd_fabric_ep_create(s->ctx, s, &s->ep), DOCA_SUCCESS);
	side_connect(s);
}

static void
target(struct side *s, enum fabric_op_type fam)
{
	uint8_t *region = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *snap = malloc(3 * PAGE), *now = malloc(3 * PAGE);
	char *env = environ[0];
	char *env_copy = strdup(env);
	struct target_addrs a;
	struct fabric_mr *good, *lacking;
	int received = 0;
	struct fabric_op recv = {.cb = op_done, .user = &received};
	void *hole = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(region != MAP_FAILED && hole != MAP_FAILED && snap != NULL && now != NULL && env_copy != NULL);
	CHECK(munmap(hole, PAGE) == 0);
	fill(region, 3 * PAGE, 0x21);
	side_open(s, 0);
	/* the export is the middle page; the pages around it are the application's too */
	good = export_mr(s, region + PAGE, PAGE, family_perm(fam));
	lacking = export_mr(s, region + PAGE, PAGE, FABRIC_PERM_ALL & ~family_perm(fam));
	a.env = (uintptr_t)env;
	a.unmapped = (uintptr_t)hole;
	send_blob(s->sock, &a, sizeof(a));
	for (int c = 0; c < N_CASES; c++) {
		if (c > 0)
			reconnect(s);
		else
			side_connect(s);
		sd_test_read_foreign(snap, region, 3 * PAGE); /* the soft NIC wrote the legal cases */
		if (c == LEGAL && fam == FABRIC_OP_WRITE_IMM) /* the notification consumes a receive */
			CHECK_ERR(sd_fabric_ctx_post_recv(s->ctx, &recv, NULL, 0), DOCA_SUCCESS);
		sync_send(s->sock); /* connected: go */
		sync_wait(s->sock); /* the initiator saw its completion */
		if (c != LEGAL) {
			sd_test_read_foreign(now, region, 3 * PAGE);
			CHECK(memcmp(snap, now, 3 * PAGE) == 0);
		}
		CHECK(strcmp(env, env_copy) == 0);
		sd_fabric_ep_destroy(s->ep);
		sync_send(s->sock);
	}
	sd_fabric_mr_deregister(good);
	sd_fabric_mr_deregister(lacking);
	CHECK_ERR(sd_fabric_ctx_destroy(s->ctx), DOCA_SUCCESS);
	sd_fabric_dev_close(s->dev);
	_exit(0);
}

/* The blob of case c, edited from the two real ones; *raddr is where the access aims. */
static void
forge(int c, uint8_t *good, uint8_t *lacking, const struct target_addrs *a, uint32_t perm, uint8_t *out,
      uint64_t *raddr)
{
	struct fabric_mr_blob b;

	memcpy(&b, c == PERM_RAISED ? lacking : good, sizeof(b));
	switch (c) {
	case SHIFTED:
		b.addr += PAGE; /* the application's page after the export */
		break;
	case OTHER_MAPPING:
		b.addr = a->env & ~(uint64_t)7;
		b.len = 256;
		break;
	case UNMAPPED:
		b.addr = a->unmapped;
		break;
	case KEY_FLIPPED:
		b.key[5] ^= 0x10;
		break;
	case PERM_RAISED:
		b.perms |= perm;
		break;
	case LEN_GROWN:
		b.len += PAGE;
		break;
	default:
		break;
	}
	memcpy(out, &b, sizeof(b));
	/* grown: aim past the real end, inside what the blob now claims */
	*raddr = b.addr + (c == LEN_GROWN ? PAGE : 0);
}

static doca_error_t
post(struct side *s, enum fabric_op_type fam, struct fabric_op *op, uint8_t *buf, struct fabric_rmr *rmr,
     uint64_t raddr, uint64_t *result)
{
	switch (fam) {
	case FABRIC_OP_WRITE:
		return sd_fabric_ep_write(s->ep, op, buf, ACCESS, rmr, raddr);
	case FABRIC_OP_WRITE_IMM:
		return sd_fabric_ep_write_imm(s->ep, op, buf, ACCESS, rmr, raddr, 7);
	case FABRIC_OP_READ:
		return sd_fabric_ep_read(s->ep, op, buf, ACCESS, rmr, raddr);
	case FABRIC_OP_FETCH_ADD:
		return sd_fabric_ep_fetch_add(s->ep, op, rmr, raddr, 1, result);
	default:
		return sd_fabric_ep_cmp_swp(s->ep, op, rmr, raddr, 0x2121212121212121ull, 5, result);
	}
}

static void
run_family(int tcp, enum fabric_op_type fam)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock))
		target(&s, fam);

	uint8_t good[FABRIC_BLOB_MAX], lacking[FABRIC_BLOB_MAX], forged[sizeof(struct fabric_mr_blob)];
	size_t glen, llen;
	struct target_addrs a;
	uint8_t buf[ACCESS];

	side_open(&s, 0);
	glen = recv_blob(s.sock, good, sizeof(good));
	llen = recv_blob(s.sock, lacking, sizeof(lacking));
	ASSERT_EQ(glen, sizeof(struct fabric_mr_blob));
	ASSERT_EQ(llen, sizeof(struct fabric_mr_blob));
	ASSERT_EQ(recv_blob(s.sock, &a, sizeof(a)), sizeof(a));
	for (int c = 0; c < N_CASES; c++) {
		struct fabric_op op = {.cb = op_done};
		struct fabric_rmr *rmr;
		uint64_t raddr, result = 0xdead;
		int done = 0;
		doca_error_t st;

		struct fabric_ep_stats stats;
		double end = now_s() + 5;

		if (c > 0)
			reconnect(&s);
		else
			side_connect(&s);
		sync_wait(s.sock);
		/*
		 * Same host: the target's HELLO turns kernel copies on, so every case
		 * meets the initiator's check of the target's record first, then
		 * (refused there) the target's own check.
		 */
		do {
			sd_fabric_ctx_progress(s.ctx);
			sd_fabric_ep_get_stats(s.ep, &stats);
		} while (!tcp && !stats.direct && now_s() < end);
		ASSERT_EQ(stats.direct, !tcp);
		forge(c, good, lacking, &a, family_perm(fam), forged, &raddr);
		ASSERT_OK(sd_fabric_rmr_import(s.dev, forged, sizeof(forged), &rmr));
		memset(buf, fam == FABRIC_OP_READ ? 0xee : 0x11, sizeof(buf));
		op.user = &done;
		ASSERT_OK(post(&s, fam, &op, buf, rmr, raddr, &result));
		st = wait_op(&s, &op, &done);
		if (c == LEGAL) {
			ASSERT_OK(st);
			if (fam == FABRIC_OP_READ)
				ASSERT_EQ(buf[0], (uint8_t)(0x21 + PAGE * 7 + (PAGE >> 9)));
			if (fam == FABRIC_OP_FETCH_ADD || fam == FABRIC_OP_CMP_SWP)
				ASSERT(result != 0xdead);
		} else {
			if (st != DOCA_ERROR_NOT_PERMITTED)
				fprintf(stderr, "# %s, %s: %s\n", tcp ? "tcp" : "shm", case_names[c],
					doca_error_get_name(st));
			ASSERT_ERR(st, DOCA_ERROR_NOT_PERMITTED);
			/* nothing of the target's came back */
			if (fam == FABRIC_OP_READ)
				for (size_t i = 0; i < sizeof(buf); i++)
					ASSERT_EQ(buf[i], 0xee);
			if (fam == FABRIC_OP_FETCH_ADD || fam == FABRIC_OP_CMP_SWP)
				ASSERT_EQ(result, 0xdead);
		}
		sync_send(s.sock);
		sync_wait(s.sock); /* the target compared its memory and is alive */
		sd_fabric_ep_destroy(s.ep);
		sd_fabric_rmr_destroy(rmr);
	}
	sd_test_reap(pid);
	ASSERT_OK(sd_fabric_ctx_destroy(s.ctx));
	sd_fabric_dev_close(s.dev);
}

#define FAMILY(name, fam)                                                                                              \
	TEST(name##_shm)                                                                                               \
	{                                                                                                              \
		run_family(0, fam);                                                                                    \
	}                                                                                                              \
	TEST(name##_tcp)                                                                                               \
	{                                                                                                              \
		run_family(1, fam);                                                                                    \
	}

FAMILY(write, FABRIC_OP_WRITE)
FAMILY(write_imm, FABRIC_OP_WRITE_IMM)
FAMILY(read, FABRIC_OP_READ)
FAMILY(fetch_add, FABRIC_OP_FETCH_ADD)
FAMILY(cmp_swp, FABRIC_OP_CMP_SWP)

/*
 * Same host: a write and a read posted while the export stood, but done only
 * at the next progress call (they wait in the connection's batch), after the
 * target revoked the export and reused the memory: the target's record is
 * read again before the copy, so neither touches the memory (both complete
 * NOT_PERMITTED, the bytes are the application's new ones).
 */
TEST(revoked_before_the_batch_runs)
{
	struct side s = {0};
	pid_t pid;

	if (sd_test_fork_peer(&pid, &s.sock)) {
		uint8_t *mem = malloc(PAGE);
		struct fabric_mr *mr;

		CHECK(mem != NULL);
		memset(mem, 0x11, PAGE);
		side_open(&s, 0);
		side_connect(&s);
		mr = export_mr(&s, mem, PAGE, FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_READ);
		sync_wait(s.sock); /* the initiator posted, without progressing */
		sd_fabric_mr_deregister(mr);
		memset(mem, 0xaa, PAGE); /* the application's memory again */
		sync_send(s.sock);
		sync_wait(s.sock); /* the initiator's ops completed */
		for (size_t i = 0; i < PAGE; i++)
			CHECK(mem[i] == 0xaa);
		sync_send(s.sock);
		side_close(&s);
		_exit(0);
	}
	struct fabric_op w = {.cb = op_done}, r = {.cb = op_done};
	struct fabric_ep_stats stats;
	struct fabric_rmr *rmr;
	uint8_t src[64], back[64];
	uint64_t raddr;
	int wd = 0, rd = 0;
	double end = now_s() + 5;

	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	do {
		sd_fabric_ctx_progress(s.ctx);
		sd_fabric_ep_get_stats(s.ep, &stats);
	} while (!stats.direct && now_s() < end);
	ASSERT(stats.direct);
	memset(src, 0x55, sizeof(src));
	memset(back, 0xee, sizeof(back));
	w.user = &wd;
	r.user = &rd;
	ASSERT_OK(sd_fabric_ep_write(s.ep, &w, src, sizeof(src), rmr, raddr));
	sync_send(s.sock);
	sync_wait(s.sock); /* revoked and reused */
	ASSERT_ERR(wait_op(&s, &w, &wd), DOCA_ERROR_NOT_PERMITTED);
	sync_send(s.sock);
	sync_wait(s.sock); /* the target found its bytes untouched */
	/* the connection failed with the refusal: a read on it now is refused at once */
	ASSERT_ERR(sd_fabric_ep_read(s.ep, &r, back, sizeof(back), rmr, raddr), DOCA_ERROR_NOT_CONNECTED);
	ASSERT_EQ(back[0], 0xee);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

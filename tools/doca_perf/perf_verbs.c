/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs write|read|send --lat: the rdma tests through DOCA Verbs.  One RC
 * QP a side (doca_verbs_context/pd/cq/qp, INIT -> RTR -> RTS), memory registered
 * with rdma-core's ibv_reg_mr() on the PD's ibv_pd, work requests posted and
 * completions polled through doca_verbs_bridge_post_send/post_recv/poll_cq.
 *
 * Out of band, as `doca_perf rdma`: descriptor files in --oob-dir (the server's,
 * the client's answering its nonce, then the server's "go" once its receives are
 * posted); with neither --server nor --client the server is a forked child.
 *
 * write / read keep --tx-depth work requests in flight, posted in chains of
 * --cq-mod of which only the last is signaled (RC completes in order, so its
 * completion retires the chain).  send --lat is a ping-pong: post a receive ring,
 * send, poll for the echo; latency = half the round trip.  The run ends with a
 * SEND_WITH_IMM "DONE" carrying the checksum of what the client wrote; the
 * destination of the data (the server for write, the client for read) compares
 * the checksum of its buffer with the one the pattern gives, and the server
 * answers with a verdict: a path that moved nothing cannot report a number.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <doca_dev.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>

#include "perf.h"

#define DEFAULT_DEV "mlx5_0"
#define NRECV 16		/* receive ring of each side */
#define CTL_SZ 64		/* control message slot */
#define DONE_IMM 0x454e4f44u	/* "DONE" */
#define VERDICT_IMM 0x54445256u /* "VRDT" */
#define DESC_MAGIC 0x56524253u	/* "SBRV" */
#define CQ_SIZE 4096
#define LAT_SIGNAL 16 /* ping-pong: every 16th send signaled */

enum vop { V_WRITE, V_READ, V_SEND };

/* What a side tells the other in its descriptor file. */
struct vdesc {
	uint32_t magic;
	uint32_t nonce; /* the server's; the client's file repeats it */
	uint64_t va;	/* data area */
	uint64_t len;
	uint64_t seed; /* the pattern this side's data area holds (write: client, read: server) */
	uint32_t rkey;
	uint32_t qpn;
	uint8_t gid[16];
	uint16_t lid;
	uint16_t pad[3];
};

/* The DONE message and the verdict. */
struct vctl {
	uint64_t covered; /* bytes of the data area the run touched */
	uint64_t csum;	  /* checksum of them (write: the client's source) */
	uint32_t ok;	  /* verdict */
	uint32_t pad;
};

static struct {
	const struct perf_opts *o;
	enum vop op;
	bool server;
	size_t max_size;
	uint32_t depth, cq_mod;

	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_qp *qp;
	enum doca_verbs_addr_type addr_type;
	struct ibv_mr *mr;
	uint8_t *mem; /* data area | NRECV receive slots | send control slot */
	size_t area, rslot, mem_len;
	struct vdesc local, remote;
	uint64_t covered; /* client: bytes of the data area the sizes touched */
} V;

/* ---- pattern and checksum ------------------------------------------------------------------ */

static inline uint64_t
mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t
fold(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ull + (h >> 29);
}

/* Word w of the pattern seeded by seed; byte x of the area is byte x % 8 of word x / 8 (little endian). */
static void
pattern_fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t off = 0; off < len; off += 8) {
		uint64_t v = mix64(seed ^ (off / 8));

		memcpy(p + off, &v, len - off < 8 ? len - off : 8);
	}
}

static uint64_t
checksum(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;

	for (size_t off = 0; off < len; off += 8) {
		uint64_t w = 0;

		memcpy(&w, p + off, len - off < 8 ? len - off : 8);
		h = fold(h, w);
	}
	return h;
}

/* checksum() of pattern_fill(seed) over len bytes, without the buffer. */
static uint64_t
pattern_checksum(uint64_t seed, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;

	for (size_t off = 0; off < len; off += 8) {
		uint64_t w = mix64(seed ^ (off / 8));

		if (len - off < 8)
			w &= (1ull << (8 * (len - off))) - 1;
		h = fold(h, w);
	}
	return h;
}

/* ---- set-up -------------------------------------------------------------------------------- */

static void
vdie(const char *what)
{
	fprintf(stderr, "doca_perf: %s: %s\n", V.server ? "server" : "client", what);
	exit(1);
}

/* A Verbs context on the device named by IB name or PCI address (as perf_open_dev). */
static void
open_context(const char *name)
{
	struct doca_devinfo **list;
	const char *want = name != NULL ? name : DEFAULT_DEV;
	uint32_t n;

	PERF_TRY(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && V.ctx == NULL; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "";
		char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
		size_t wl = strlen(want), pl;

		doca_devinfo_get_pci_addr_str(list[i], pci);
		doca_devinfo_get_ibdev_name(list[i], ib, sizeof(ib));
		pl = strlen(pci);
		if (strcmp(ib, want) == 0 || strcmp(pci, want) == 0 ||
		    (wl < pl && strcmp(pci + pl - wl, want) == 0 && pci[pl - wl - 1] == ':'))
			PERF_TRY(doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &V.ctx));
	}
	doca_devinfo_destroy_list(list);
	if (V.ctx == NULL) {
		fprintf(stderr, "doca_perf: no device '%s' (doca_caps --list-devs shows them)\n", want);
		exit(PERF_EXIT_USAGE);
	}
}

static void
create_cq_qp(void)
{
	struct doca_verbs_cq_attr *ca;
	struct doca_verbs_qp_init_attr *qa;

	PERF_TRY(doca_verbs_pd_create(V.ctx, &V.pd));
	PERF_TRY(doca_verbs_cq_attr_create(&ca));
	PERF_TRY(doca_verbs_cq_attr_set_cq_size(ca, CQ_SIZE));
	PERF_TRY(doca_verbs_cq_attr_set_external_datapath_en(ca, 0));
	PERF_TRY(doca_verbs_cq_attr_set_entry_size(ca, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	PERF_TRY(doca_verbs_cq_create(V.ctx, ca, &V.cq));
	PERF_TRY(doca_verbs_cq_attr_destroy(ca));

	PERF_TRY(doca_verbs_qp_init_attr_create(&qa));
	PERF_TRY(doca_verbs_qp_init_attr_set_pd(qa, V.pd));
	PERF_TRY(doca_verbs_qp_init_attr_set_sq_wr(qa, V.depth + LAT_SIGNAL + 8));
	PERF_TRY(doca_verbs_qp_init_attr_set_rq_wr(qa, NRECV + 8));
	PERF_TRY(doca_verbs_qp_init_attr_set_qp_type(qa, DOCA_VERBS_QP_TYPE_RC));
	PERF_TRY(doca_verbs_qp_init_attr_set_send_cq(qa, V.cq));
	PERF_TRY(doca_verbs_qp_init_attr_set_receive_cq(qa, V.cq));
	PERF_TRY(doca_verbs_qp_init_attr_set_external_datapath_en(qa, 0));
	PERF_TRY(doca_verbs_qp_init_attr_set_send_max_sges(qa, 1));
	PERF_TRY(doca_verbs_qp_init_attr_set_receive_max_sges(qa, 1));
	PERF_TRY(doca_verbs_qp_create(V.ctx, qa, &V.qp));
	PERF_TRY(doca_verbs_qp_init_attr_destroy(qa));
	V.local.qpn = doca_verbs_qp_get_qpn(V.qp);
}

/* GID and LID of port 1, the address type its link layer implies, and the AH attributes. */
static void
query_port(void)
{
	struct ibv_context *ic = doca_verbs_bridge_get_ibv_ctx(V.ctx);
	struct ibv_port_attr pa;
	union ibv_gid gid;

	if (ic == NULL)
		vdie("doca_verbs_bridge_get_ibv_ctx gave no ibv_context");
	if (ibv_query_gid(ic, 1, 0, &gid) != 0 || ibv_query_port(ic, 1, &pa) != 0)
		vdie("cannot query GID 0 / port 1 of the device");
	memcpy(V.local.gid, gid.raw, sizeof(V.local.gid));
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		V.addr_type = DOCA_VERBS_ADDR_TYPE_IPv4;
	} else {
		V.addr_type = DOCA_VERBS_ADDR_TYPE_IB_NO_GRH;
		V.local.lid = pa.lid;
	}
	PERF_TRY(doca_verbs_ah_attr_create(V.ctx, &V.ah));
	PERF_TRY(doca_verbs_ah_attr_set_addr_type(V.ah, V.addr_type));
	PERF_TRY(doca_verbs_ah_attr_set_sgid_index(V.ah, 0));
	if (V.addr_type == DOCA_VERBS_ADDR_TYPE_IPv4)
		PERF_TRY(doca_verbs_ah_attr_set_hop_limit(V.ah, 255));
}

static void
register_memory(void)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_pd *ipd = doca_verbs_bridge_verbs_pd_get_ibv_pd(V.pd);

	V.rslot = V.op == V_SEND && V.max_size > CTL_SZ ? V.max_size : CTL_SZ;
	V.mem_len = V.area + NRECV * V.rslot + V.rslot;
	V.mem = perf_page_alloc(V.mem_len);
	if (V.mem == NULL)
		vdie("out of memory for the buffers");
	memset(V.mem, 0, V.mem_len);
	if (ipd == NULL || (V.mr = ibv_reg_mr(ipd, V.mem, V.mem_len, access)) == NULL)
		vdie("ibv_reg_mr on the PD's ibv_pd failed");
	V.local.va = (uint64_t)(uintptr_t)V.mem;
	V.local.len = V.area;
	V.local.rkey = V.mr->rkey;
	/* The side the data comes from holds the pattern (write: client, read: server). */
	if ((V.op == V_WRITE && !V.server) || (V.op == V_READ && V.server))
		pattern_fill(V.mem, V.area, V.local.seed);
}

static uint8_t *
rslot(uint32_t i)
{
	return V.mem + V.area + (size_t)i * V.rslot;
}

static uint8_t *
send_slot(void)
{
	return V.mem + V.area + (size_t)NRECV * V.rslot;
}

/* ---- the QP -------------------------------------------------------------------------------- */

static void
qp_modify(struct doca_verbs_qp_attr *a, enum doca_verbs_qp_state st, int mask)
{
	PERF_TRY(doca_verbs_qp_attr_set_next_state(a, st));
	PERF_TRY(doca_verbs_qp_modify(V.qp, a, mask | DOCA_VERBS_QP_ATTR_NEXT_STATE));
}

static void
connect_qp(void)
{
	struct doca_verbs_qp_attr *a;
	struct doca_verbs_gid gid;

	if (V.addr_type == DOCA_VERBS_ADDR_TYPE_IPv4) {
		memcpy(gid.raw, V.remote.gid, sizeof(gid.raw));
		PERF_TRY(doca_verbs_ah_attr_set_gid(V.ah, gid));
	} else {
		PERF_TRY(doca_verbs_ah_attr_set_dlid(V.ah, V.remote.lid));
	}
	PERF_TRY(doca_verbs_qp_attr_create(&a));
	PERF_TRY(doca_verbs_qp_attr_set_allow_remote_write(a, 1));
	PERF_TRY(doca_verbs_qp_attr_set_allow_remote_read(a, 1));
	PERF_TRY(doca_verbs_qp_attr_set_port_num(a, 1));
	qp_modify(a, DOCA_VERBS_QP_STATE_INIT,
		  DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ |
			  DOCA_VERBS_QP_ATTR_PKEY_INDEX | DOCA_VERBS_QP_ATTR_PORT_NUM);
	PERF_TRY(doca_verbs_qp_attr_set_rq_psn(a, 0));
	PERF_TRY(doca_verbs_qp_attr_set_dest_qp_num(a, V.remote.qpn));
	PERF_TRY(doca_verbs_qp_attr_set_min_rnr_timer(a, 1));
	PERF_TRY(doca_verbs_qp_attr_set_path_mtu(a, DOCA_MTU_SIZE_1K_BYTES));
	PERF_TRY(doca_verbs_qp_attr_set_ah_attr(a, V.ah));
	qp_modify(a, DOCA_VERBS_QP_STATE_RTR,
		  DOCA_VERBS_QP_ATTR_RQ_PSN | DOCA_VERBS_QP_ATTR_DEST_QP_NUM | DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER |
			  DOCA_VERBS_QP_ATTR_PATH_MTU | DOCA_VERBS_QP_ATTR_AH_ATTR);
	PERF_TRY(doca_verbs_qp_attr_set_sq_psn(a, 0));
	PERF_TRY(doca_verbs_qp_attr_set_ack_timeout(a, 14));
	PERF_TRY(doca_verbs_qp_attr_set_retry_cnt(a, 7));
	PERF_TRY(doca_verbs_qp_attr_set_rnr_retry(a, 7));
	qp_modify(a, DOCA_VERBS_QP_STATE_RTS,
		  DOCA_VERBS_QP_ATTR_SQ_PSN | DOCA_VERBS_QP_ATTR_ACK_TIMEOUT | DOCA_VERBS_QP_ATTR_RETRY_CNT |
			  DOCA_VERBS_QP_ATTR_RNR_RETRY);
	PERF_TRY(doca_verbs_qp_attr_destroy(a));
}

static void
post_recv_slot(uint32_t i)
{
	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)rslot(i), .length = (uint32_t)V.rslot, .lkey = V.mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad = NULL;
	int ret = doca_verbs_bridge_post_recv(V.qp, &wr, &bad);

	if (ret != 0)
		vdie(strerror(ret));
}

/* One SEND (with an immediate when imm != 0) of len bytes at buf. */
static void
post_send(const uint8_t *buf, uint32_t len, uint32_t imm, bool signaled, uint64_t id)
{
	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)buf, .length = len, .lkey = V.mr->lkey};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = imm != 0 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				 .send_flags = signaled ? IBV_SEND_SIGNALED : 0,
				 .imm_data = htonl(imm)},
			   *bad = NULL;
	int ret = doca_verbs_bridge_post_send(V.qp, &wr, &bad);

	if (ret != 0)
		vdie(strerror(ret));
}

static void
check_wc(const struct ibv_wc *wc)
{
	char msg[160];

	if (wc->status == IBV_WC_SUCCESS)
		return;
	snprintf(msg, sizeof(msg), "a work request (id %llu) completed with %s: lost the %s?",
		 (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status), V.server ? "client" : "server");
	vdie(msg);
}

/*
 * Poll until a receive completes (send completions are consumed); its wc into *out.
 * polite: sched_yield() after every 1024 empty polls (a one-sided target that only
 * waits for DONE leaves the core to a requester sharing it; the poll still progresses).
 */
static void
wait_recv(struct ibv_wc *out, double timeout, bool polite)
{
	double t0 = timeout > 0 ? perf_now() : 0;
	struct ibv_wc wc[8];
	uint64_t spins = 0;

	for (;;) {
		int n = doca_verbs_bridge_poll_cq(V.cq, 8, wc);

		if (n < 0)
			vdie("doca_verbs_bridge_poll_cq failed");
		for (int i = 0; i < n; i++) {
			check_wc(&wc[i]);
			if (wc[i].opcode == IBV_WC_RECV) {
				*out = wc[i];
				/* Later completions in this batch are send completions only: nothing waits on them. */
				return;
			}
		}
		if (n != 0 || ++spins % 1024 != 0)
			continue;
		if (polite)
			sched_yield();
		if (timeout > 0 && spins % 4096 == 0 && perf_now() - t0 > timeout)
			vdie("no answer from the peer in time");
	}
}

/* ---- out of band --------------------------------------------------------------------------- */

static void
oob_clean(const char *dir)
{
	static const char *const names[] = {"verbs.server", "verbs.client", "verbs.go"};
	char path[4200];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
}

static void
take_desc(void *blob, size_t len, const char *what)
{
	if (len != sizeof(V.remote) || ((struct vdesc *)blob)->magic != DESC_MAGIC) {
		free(blob);
		vdie(what);
	}
	memcpy(&V.remote, blob, sizeof(V.remote));
	free(blob);
}

static void
exchange(void)
{
	const char *dir = V.o->oob_dir;
	size_t len;
	void *blob;

	V.local.magic = DESC_MAGIC;
	if (V.server) {
		perf_oob_put(dir, "verbs.server", &V.local, sizeof(V.local));
		/* The client that answers this run's nonce. */
		for (;;) {
			blob = perf_oob_wait(dir, "verbs.client", &len, 3600, "client");
			if (len == sizeof(V.remote) && ((struct vdesc *)blob)->nonce == V.local.nonce)
				break;
			free(blob);
			usleep(10000);
		}
		take_desc(blob, len, "the client's descriptor is malformed");
		connect_qp();
		for (uint32_t i = 0; i < NRECV; i++)
			post_recv_slot(i);
		perf_oob_put(dir, "verbs.go", &V.local.nonce, sizeof(V.local.nonce));
		return;
	}
	blob = perf_oob_wait(dir, "verbs.server", &len, 60, "server");
	take_desc(blob, len, "the server's descriptor is malformed");
	V.local.nonce = V.remote.nonce;
	perf_oob_put(dir, "verbs.client", &V.local, sizeof(V.local));
	connect_qp();
	for (uint32_t i = 0; i < NRECV; i++)
		post_recv_slot(i);
	for (;;) {
		uint32_t *nonce = perf_oob_wait(dir, "verbs.go", &len, 60, "server");
		bool ok = len == sizeof(*nonce) && *nonce == V.local.nonce;

		free(nonce);
		if (ok)
			break;
		usleep(2000);
	}
}

/* ---- server -------------------------------------------------------------------------------- */

static int
server_main(void)
{
	struct vctl ctl, *verdict = (struct vctl *)(void *)send_slot();
	uint32_t echoes = 0;
	struct ibv_wc wc;

	exchange();
	for (;;) {
		uint32_t slot;

		wait_recv(&wc, 0, V.op != V_SEND);
		slot = (uint32_t)wc.wr_id;
		if ((wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) == DONE_IMM)
			break;
		if (V.op != V_SEND)
			vdie("unexpected message from the client");
		/* Echo the ping from where it landed, then give the slot back. */
		post_send(rslot(slot), wc.byte_len, 0, ++echoes % LAT_SIGNAL == 0, slot);
		post_recv_slot(slot);
	}
	memcpy(&ctl, rslot((uint32_t)wc.wr_id), sizeof(ctl));
	memset(verdict, 0, sizeof(*verdict));
	verdict->ok = 1;
	if (V.op == V_WRITE) {
		verdict->covered = ctl.covered > V.area ? V.area : ctl.covered;
		verdict->csum = checksum(V.mem, verdict->covered);
		verdict->ok = ctl.covered <= V.area && verdict->csum == ctl.csum &&
			      verdict->csum == pattern_checksum(V.remote.seed, verdict->covered);
		if (!verdict->ok)
			fprintf(stderr,
				"doca_perf: server: the written data is wrong: checksum %016llx of %llu bytes, the "
				"client's %016llx\n",
				(unsigned long long)verdict->csum, (unsigned long long)verdict->covered,
				(unsigned long long)ctl.csum);
	}
	post_send((const uint8_t *)verdict, sizeof(*verdict), VERDICT_IMM, true, UINT64_MAX);
	/* The verdict's own completion: it has reached the client. */
	for (;;) {
		struct ibv_wc w;
		int n = doca_verbs_bridge_poll_cq(V.cq, 1, &w);

		if (n < 0)
			vdie("doca_verbs_bridge_poll_cq failed");
		if (n == 1) {
			check_wc(&w);
			if (w.wr_id == UINT64_MAX && w.opcode == IBV_WC_SEND)
				break;
		}
	}
	return verdict->ok ? 0 : 1;
}

/* ---- client: bandwidth --------------------------------------------------------------------- */

struct vrun {
	size_t size, slots;
	uint64_t posted, done, limit, done0;
	uint64_t *stamp; /* by wr_id % depth */
	bool measuring;
	double t0, cpu0;
	struct perf_result *r;
};

static void
run_start(struct vrun *s, uint64_t done)
{
	s->measuring = true;
	s->done0 = done;
	s->t0 = perf_now();
	perf_cpu_seconds(&s->cpu0);
}

/* A chain of n write/read requests from s->posted on; only the last is signaled. */
static void
post_chain(struct vrun *s, uint32_t n, struct ibv_send_wr *wrs, struct ibv_sge *sges)
{
	struct ibv_send_wr *bad = NULL;
	uint64_t now = perf_ticks();
	int ret;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t id = s->posted + i;
		size_t off = (size_t)(id % s->slots) * s->size;

		sges[i] = (struct ibv_sge){
			.addr = (uint64_t)(uintptr_t)(V.mem + off), .length = (uint32_t)s->size, .lkey = V.mr->lkey};
		wrs[i] = (struct ibv_send_wr){
			.wr_id = id,
			.next = i + 1 < n ? &wrs[i + 1] : NULL,
			.sg_list = &sges[i],
			.num_sge = 1,
			.opcode = V.op == V_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
			.send_flags = i + 1 == n ? IBV_SEND_SIGNALED : 0,
		};
		wrs[i].wr.rdma.remote_addr = V.remote.va + off;
		wrs[i].wr.rdma.rkey = V.remote.rkey;
		s->stamp[id % V.depth] = now;
	}
	ret = doca_verbs_bridge_post_send(V.qp, wrs, &bad);
	if (ret != 0)
		vdie(strerror(ret));
	s->posted += n;
}

static void
run_bw(struct vrun *s)
{
	struct ibv_send_wr *wrs = calloc(V.cq_mod, sizeof(*wrs));
	struct ibv_sge *sges = calloc(V.cq_mod, sizeof(*sges));
	uint64_t next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	uint64_t warmup = V.o->warmup;
	bool running = true;
	struct ibv_wc wc[16];

	if (wrs == NULL || sges == NULL)
		vdie("out of memory");
	if (warmup == 0)
		run_start(s, 0);
	while (running || s->done < s->posted) {
		/*
		 * Every whole chain the window has room for before the next poll: the
		 * soft NIC hands what was posted between two polls to the fabric together.
		 */
		while (running) {
			uint64_t room = V.depth - (s->posted - s->done);

			if (s->limit != 0 && s->limit - s->posted < room)
				room = s->limit - s->posted;
			/* Whole chains, except the tail of a -n run. */
			if (room == 0 || (room < V.cq_mod && (s->limit == 0 || s->posted + room != s->limit)))
				break;
			post_chain(s, room < V.cq_mod ? (uint32_t)room : V.cq_mod, wrs, sges);
		}

		int n = doca_verbs_bridge_poll_cq(V.cq, 16, wc);

		if (n < 0)
			vdie("doca_verbs_bridge_poll_cq failed");
		for (int i = 0; i < n; i++) {
			uint64_t now = perf_ticks();

			check_wc(&wc[i]);
			if (wc[i].opcode != IBV_WC_RDMA_WRITE && wc[i].opcode != IBV_WC_RDMA_READ)
				continue;
			if (s->measuring)
				perf_hist_add(&s->r->lat, now - s->stamp[wc[i].wr_id % V.depth]);
			s->done = wc[i].wr_id + 1;
			if (!s->measuring && s->done >= warmup)
				run_start(s, s->done);
		}
		if (!running || perf_ticks() < next_check)
			continue;
		next_check = perf_ticks() + ms_ticks;
		if (s->limit != 0 && s->posted >= s->limit)
			running = false;
		else if (s->measuring && !perf_keep_going(V.o, s->size, s->done - s->done0, s->t0, perf_now()))
			running = false;
	}
	free(wrs);
	free(sges);
}

/* ---- client: ping-pong --------------------------------------------------------------------- */

static void
run_lat(struct vrun *s)
{
	uint8_t *ping = send_slot();
	uint32_t n8 = s->size < 8 ? (uint32_t)s->size : 8;
	uint64_t warmup = V.o->warmup, next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	struct ibv_wc wc;

	if (warmup == 0)
		run_start(s, 0);
	for (;;) {
		uint64_t seq = s->posted, echo = 0, t;
		uint32_t slot;

		memcpy(ping, &seq, n8);
		s->stamp[0] = perf_ticks();
		post_send(ping, (uint32_t)s->size, 0, (seq + 1) % LAT_SIGNAL == 0, seq);
		s->posted++;
		wait_recv(&wc, 30, false);
		t = perf_ticks();
		slot = (uint32_t)wc.wr_id;
		memcpy(&echo, rslot(slot), n8);
		if (wc.byte_len != s->size || memcmp(&echo, &seq, n8) != 0)
			vdie("the echo does not carry the ping's bytes");
		post_recv_slot(slot);
		if (s->measuring)
			perf_hist_add(&s->r->lat, (t - s->stamp[0]) / 2);
		s->done++;
		if (!s->measuring && s->done >= warmup)
			run_start(s, s->done);
		if (s->limit != 0 && s->done >= s->limit)
			break;
		if (t < next_check)
			continue;
		next_check = t + ms_ticks;
		if (s->measuring && !perf_keep_going(V.o, s->size, s->done - s->done0, s->t0, perf_now()))
			break;
	}
}

static void
run_size(size_t size, struct perf_result *r)
{
	struct vrun s = {.size = size, .r = r};
	double cpu1;

	memset(r, 0, sizeof(*r));
	s.slots = V.op == V_SEND ? 1 : perf_slots(V.o, size, V.depth);
	if (V.op != V_SEND && s.slots * size > V.remote.len)
		vdie("the server's area is smaller than this size's buffers: give both sides the same -s and -t");
	if (V.op != V_SEND && s.slots * size > V.covered)
		V.covered = s.slots * size;
	s.stamp = calloc(V.depth, sizeof(*s.stamp));
	if (s.stamp == NULL)
		vdie("out of memory");
	s.limit = V.o->iters ? V.o->iters + V.o->warmup : 0;
	if (V.op == V_SEND)
		run_lat(&s);
	else
		run_bw(&s);
	r->seconds = perf_now() - s.t0;
	perf_cpu_seconds(&cpu1);
	r->size = size;
	r->tasks = s.done - s.done0;
	r->cpu_seconds = cpu1 - s.cpu0;
	free(s.stamp);
}

static int
client_main(void)
{
	static const char *const opname[] = {"write", "read", "send"};
	struct perf_result *r = malloc(sizeof(*r));
	struct vctl *ctl = (struct vctl *)(void *)send_slot();
	char title[256], cfg[512];
	struct ibv_wc wc;
	struct vctl verdict;

	if (r == NULL)
		vdie("out of memory");
	exchange();
	snprintf(title, sizeof(title), "verbs %s%s  depth %u  cq-mod %u  OOB files", opname[V.op],
		 V.op == V_SEND ? " (ping-pong, half round trip)" : "", V.op == V_SEND ? 1 : V.depth,
		 V.op == V_SEND ? LAT_SIGNAL : V.cq_mod);
	snprintf(cfg, sizeof(cfg),
		 "\"api\":\"verbs\",\"op\":\"%s\",\"lat\":%s,\"connections\":1,\"depth\":%u,\"cq_mod\":%u,"
		 "\"connect\":\"oob\",\"iters\":%llu,\"duration\":%.3f",
		 opname[V.op], V.op == V_SEND ? "true" : "false", V.op == V_SEND ? 1 : V.depth,
		 V.op == V_SEND ? LAT_SIGNAL : V.cq_mod, (unsigned long long)V.o->iters, V.o->duration);
	perf_report_begin(V.o, title, cfg);
	for (unsigned i = 0; i < V.o->nsizes; i++) {
		run_size(V.o->sizes[i], r);
		perf_progress_end(V.o);
		perf_report_row(V.o, r);
	}
	free(r);
	/* DONE with the checksum of the source (write); the verdict comes back on the ring. */
	memset(ctl, 0, sizeof(*ctl));
	ctl->covered = V.covered;
	ctl->csum = checksum(V.mem, V.covered);
	post_send((const uint8_t *)ctl, sizeof(*ctl), DONE_IMM, true, UINT64_MAX);
	do
		wait_recv(&wc, 30 + (double)V.covered / 1e8, false);
	while (!((wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) == VERDICT_IMM));
	memcpy(&verdict, rslot((uint32_t)wc.wr_id), sizeof(verdict));
	if (!verdict.ok)
		vdie("the server found the written data wrong (checksum mismatch)");
	if (V.op == V_READ && checksum(V.mem, V.covered) != pattern_checksum(V.remote.seed, V.covered))
		vdie("the data read is wrong (checksum mismatch)");
	perf_report_end(V.o);
	return 0;
}

/* ---- one side, and the driver ---------------------------------------------------------------- */

static void
teardown(void)
{
	if (V.mr != NULL)
		ibv_dereg_mr(V.mr);
	if (V.qp != NULL)
		doca_verbs_qp_destroy(V.qp);
	if (V.ah != NULL)
		doca_verbs_ah_attr_destroy(V.ah);
	if (V.cq != NULL)
		doca_verbs_cq_destroy(V.cq);
	if (V.pd != NULL)
		doca_verbs_pd_destroy(V.pd);
	if (V.ctx != NULL)
		doca_verbs_context_destroy(V.ctx);
	free(V.mem);
}

static int
verbs_side(struct perf_opts *o, bool server)
{
	struct timespec ts;
	int rc;

	memset(&V, 0, sizeof(V));
	V.o = o;
	V.server = server;
	V.op = strcmp(o->test, "write") == 0 ? V_WRITE : strcmp(o->test, "read") == 0 ? V_READ : V_SEND;
	V.depth = V.op == V_SEND ? 1 : o->depth;
	V.cq_mod = o->cq_mod != 0 ? o->cq_mod : (V.depth >= 4 ? V.depth / 4 : 1);
	if (V.cq_mod > V.depth)
		V.cq_mod = V.depth;
	for (unsigned i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > V.max_size)
			V.max_size = o->sizes[i];
	V.area = V.op == V_SEND ? V.max_size : perf_slots(o, V.max_size, V.depth) * V.max_size;
	clock_gettime(CLOCK_REALTIME, &ts);
	V.local.nonce = (uint32_t)getpid() ^ (uint32_t)ts.tv_nsec;
	V.local.seed = mix64((uint64_t)ts.tv_nsec << 20 ^ (uint64_t)getpid());
	if (server && o->oob_dir != NULL)
		oob_clean(o->oob_dir);
	open_context(o->ibdev);
	create_cq_qp();
	query_port();
	register_memory();
	rc = server ? server_main() : client_main();
	teardown();
	if (server && o->role == 1)
		oob_clean(o->oob_dir);
	return rc;
}

int
perf_verbs_run(struct perf_opts *o)
{
	char tmpdir[] = "/tmp/doca_perf.XXXXXX";
	pid_t server;
	int rc;

	if (o->conns != 1 || o->use_cm || o->sge != 1) {
		fprintf(stderr, "doca_perf: verbs: one connection, descriptor files, one SGE (no -c, -cm, --sge)\n");
		return PERF_EXIT_USAGE;
	}
	if (strcmp(o->test, "send") == 0 && !o->lat) {
		fprintf(stderr, "doca_perf: verbs send: only the ping-pong (--lat) is measured\n");
		return PERF_EXIT_USAGE;
	}
	if (o->depth > 4096) {
		fprintf(stderr, "doca_perf: verbs: -t at most 4096\n");
		return PERF_EXIT_USAGE;
	}
	if (o->role != 0 && o->oob_dir == NULL) {
		fprintf(stderr, "doca_perf: --server/--client need --oob-dir DIR; see doca_perf --help\n");
		return PERF_EXIT_USAGE;
	}
	if (o->oob_dir != NULL && perf_oob_dir_check(o->oob_dir) != 0)
		return 1;
	if (o->role != 0)
		return verbs_side(o, o->role == 1);
	if (mkdtemp(tmpdir) == NULL) {
		perror("doca_perf: mkdtemp");
		return 1;
	}
	o->oob_dir = tmpdir;
	fflush(NULL);
	server = fork();
	if (server < 0) {
		perror("doca_perf: fork");
		return 1;
	}
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(verbs_side(o, true));
	}
	perf_child_set(server);
	rc = verbs_side(o, false);
	if (perf_child_finish(10, rc != 0) != 0)
		rc = 1;
	oob_clean(tmpdir);
	rmdir(tmpdir);
	o->oob_dir = NULL;
	return rc;
}

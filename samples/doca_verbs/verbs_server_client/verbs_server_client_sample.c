/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_server_client, the work: a Verbs context, PD, CQ, AH attributes and
 * one RC QP on the -d device; a buffer of -n slots of -s bytes registered with
 * rdma-core's ibv_reg_mr(); the TCP exchange of address, key, QPN, GID and LID;
 * INIT/RTR/RTS; then the client moves -n messages (send, RDMA write or RDMA
 * read) through the bridge datapath and the server checks what arrived.
 *
 * Message k (k = 1..n) lives in slot k-1: its first 4 bytes hold k, the rest a
 * pattern derived from k, so a short or misplaced transfer is noticed.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include <doca_dev.h>
#include <doca_log.h>
#include <doca_rdma_bridge.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>

#include "verbs_common.h"
#include "verbs_server_client.h"
#include "verbs_server_client_oob.h"

DOCA_LOG_REGISTER(VERBS_SERVER_CLIENT);

/* What each side tells the other, in this order (DOCA's order and sizes). */
struct verbs_peer_info {
	uint64_t buf_va;   /* start of the registered buffer */
	uint32_t mkey;	   /* its rkey (also used locally as the lkey) */
	uint32_t qpn;	   /* doca_verbs_qp_get_qpn() */
	union ibv_gid gid; /* port 1, -gid index */
	uint16_t lid;	   /* InfiniBand only */
};

struct verbs_resources {
	const struct verbs_config *cfg;
	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct doca_dev *dev;
	struct doca_verbs_cq *cq;
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	enum doca_verbs_addr_type addr_type;
	struct verbs_peer_info local;
	struct verbs_peer_info remote;
	int listen_fd;
	int conn_fd;
};

const char *
verbs_oper_name(enum verbs_oper oper)
{
	switch (oper) {
	case VERBS_OPER_SEND:
		return "send";
	case VERBS_OPER_WRITE:
		return "write";
	case VERBS_OPER_READ:
		return "read";
	}
	return "?";
}

/* ------------------------------------------------------------------ messages */

static uint8_t *
slot(const struct verbs_resources *res, uint32_t i)
{
	return res->buf + (size_t)i * res->cfg->buf_size;
}

static uint8_t
pattern_byte(uint32_t i, size_t j)
{
	return (uint8_t)(i * 31u + j);
}

/* Slot i holds message i + 1. */
static void
fill_slot(struct verbs_resources *res, uint32_t i)
{
	uint8_t *p = slot(res, i);
	uint32_t number = i + 1;
	size_t j;

	for (j = sizeof(number); j < res->cfg->buf_size; j++)
		p[j] = pattern_byte(i, j);
	memcpy(p, &number, sizeof(number));
}

/* SUCCESS when slot i holds message i + 1 byte for byte; else logs the first difference. */
static doca_error_t
check_slot(const struct verbs_resources *res, uint32_t i)
{
	const uint8_t *p = slot(res, i);
	uint32_t number;
	size_t j;

	memcpy(&number, p, sizeof(number));
	if (number != i + 1) {
		DOCA_LOG_ERR("Message #%u is wrong: it starts with the number %u", i + 1, number);
		return DOCA_ERROR_UNEXPECTED;
	}
	for (j = sizeof(number); j < res->cfg->buf_size; j++) {
		if (p[j] != pattern_byte(i, j)) {
			DOCA_LOG_ERR("Message #%u is wrong at byte %zu: 0x%02x instead of 0x%02x", i + 1, j, p[j],
				     pattern_byte(i, j));
			return DOCA_ERROR_UNEXPECTED;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t
peer_alive(void *arg)
{
	const struct verbs_resources *res = arg;

	return verbs_oob_peer_alive(res->conn_fd);
}

/* ------------------------------------------------------------------ set-up */

/* Step 1: a Verbs context on the device named -d. */
static doca_error_t
open_context(struct verbs_resources *res)
{
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	struct doca_devinfo **list;
	doca_error_t result;
	uint32_t n, i;

	result = verbs_check(doca_devinfo_create_list(&list, &n), "list the devices");
	if (result != DOCA_SUCCESS)
		return result;
	result = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < n; i++) {
		if (doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)) != DOCA_SUCCESS ||
		    strcmp(name, res->cfg->device_name) != 0)
			continue;
		result =
			verbs_check(doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &res->ctx),
				    "create a Verbs context");
		break;
	}
	if (i == n)
		DOCA_LOG_ERR("No device with IB device name %s (-d); doca_caps --list-devs shows the names",
			     res->cfg->device_name);
	doca_devinfo_destroy_list(list);
	return result;
}

/* Steps 2 and 3: PD, its doca_dev, and the CQ both queues of the QP complete on. */
static doca_error_t
create_pd_and_cq(struct verbs_resources *res)
{
	doca_error_t result;

	result = verbs_check(doca_verbs_pd_create(res->ctx, &res->pd), "create a PD");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_pd_as_doca_dev(res->pd, &res->dev), "get the PD's DOCA device");
	if (result != DOCA_SUCCESS)
		return result;
	return verbs_cq_create(res->ctx, res->cfg->iters, NULL, &res->cq);
}

/* Step 4: the local GID and LID, and the address type the port's link layer implies. */
static doca_error_t
query_port(struct verbs_resources *res)
{
	struct ibv_port_attr port_attr;
	struct ibv_pd *ibv_pd;
	doca_error_t result;
	int ret;

	result = verbs_check(doca_rdma_bridge_get_dev_pd(res->dev, &ibv_pd), "get the device's ibv_pd");
	if (result != DOCA_SUCCESS)
		return result;
	ret = ibv_query_gid(ibv_pd->context, VERBS_PORT_NUM, (int)res->cfg->gid_index, &res->local.gid);
	if (ret != 0) {
		DOCA_LOG_ERR("Failed to query GID index %u of port %d: %s", res->cfg->gid_index, VERBS_PORT_NUM,
			     strerror(ret));
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = ibv_query_port(ibv_pd->context, VERBS_PORT_NUM, &port_attr);
	if (ret != 0) {
		DOCA_LOG_ERR("Failed to query port %d: %s", VERBS_PORT_NUM, strerror(ret));
		return DOCA_ERROR_DRIVER;
	}
	if (port_attr.state != IBV_PORT_ACTIVE) {
		DOCA_LOG_ERR("Port %d of %s is not active (state %d)", VERBS_PORT_NUM, res->cfg->device_name,
			     (int)port_attr.state);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		res->addr_type = DOCA_VERBS_ADDR_TYPE_IPv4;
		res->local.lid = 0;
	} else {
		res->addr_type = DOCA_VERBS_ADDR_TYPE_IB_NO_GRH;
		res->local.lid = port_attr.lid;
	}
	return DOCA_SUCCESS;
}

/* Step 5: the AH attributes; the peer's GID or LID is added once known. */
static doca_error_t
create_ah(struct verbs_resources *res)
{
	doca_error_t result;

	result = verbs_check(doca_verbs_ah_attr_create(res->ctx, &res->ah), "create AH attributes");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_addr_type(res->ah, res->addr_type),
				     "set the AH address type");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_sgid_index(res->ah, (uint8_t)res->cfg->gid_index),
				     "set the AH source GID index");
	if (result == DOCA_SUCCESS && res->addr_type == DOCA_VERBS_ADDR_TYPE_IPv4)
		result =
			verbs_check(doca_verbs_ah_attr_set_hop_limit(res->ah, VERBS_HOP_LIMIT), "set the AH hop limit");
	return result;
}

/* Step 6: one RC QP, both queues on the CQ, bridge datapath. */
static doca_error_t
create_qp(struct verbs_resources *res)
{
	uint32_t iters = res->cfg->iters;
	uint32_t rq_wr = iters > VERBS_MIN_RQ_WR ? iters : VERBS_MIN_RQ_WR;
	struct doca_verbs_qp_init_attr *attr;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_init_attr_create(&attr), "create QP init attributes");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_qp_init_attr_set_pd(attr, res->pd), "set the QP's PD");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_sq_wr(attr, iters), "set the send queue size");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_rq_wr(attr, rq_wr), "set the receive queue size");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_qp_type(attr, res->cfg->qp_type), "set the QP type");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_send_cq(attr, res->cq), "set the send CQ");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_receive_cq(attr, res->cq), "set the receive CQ");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_external_datapath_en(attr, 0),
				     "disable the QP's external datapath");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_send_max_sges(attr, 1), "set the send SGE limit");
	if (result == DOCA_SUCCESS)
		result =
			verbs_check(doca_verbs_qp_init_attr_set_receive_max_sges(attr, 1), "set the receive SGE limit");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_create(res->ctx, attr, &res->qp), "create the QP");
	(void)verbs_check(doca_verbs_qp_init_attr_destroy(attr), "destroy QP init attributes");
	if (result == DOCA_SUCCESS)
		res->local.qpn = doca_verbs_qp_get_qpn(res->qp);
	return result;
}

/* Step 7: the message buffer, registered on the PD's ibv_pd. */
static doca_error_t
register_memory(struct verbs_resources *res)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_pd *ibv_pd;
	uint32_t i;

	res->buf_len = (size_t)res->cfg->buf_size * res->cfg->iters;
	res->buf = calloc(1, res->buf_len);
	if (res->buf == NULL) {
		DOCA_LOG_ERR("Failed to allocate %zu bytes for the messages", res->buf_len);
		return DOCA_ERROR_NO_MEMORY;
	}
	ibv_pd = doca_verbs_bridge_verbs_pd_get_ibv_pd(res->pd);
	if (ibv_pd == NULL) {
		DOCA_LOG_ERR("Failed to get the ibv_pd of the Verbs PD");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	res->mr = ibv_reg_mr(ibv_pd, res->buf, res->buf_len, access);
	if (res->mr == NULL) {
		DOCA_LOG_ERR("Failed to register %zu bytes with ibv_reg_mr: %s", res->buf_len, strerror(errno));
		return DOCA_ERROR_DRIVER;
	}
	res->local.buf_va = (uint64_t)(uintptr_t)res->buf;
	res->local.mkey = res->mr->rkey;
	/* The server's messages for the client to read are in place before the client learns the address. */
	if (!res->cfg->is_client && res->cfg->oper == VERBS_OPER_READ) {
		for (i = 0; i < res->cfg->iters; i++)
			fill_slot(res, i);
		DOCA_LOG_INFO("Prepared %u message(s) of %u bytes for the client to read", res->cfg->iters,
			      res->cfg->buf_size);
	}
	return DOCA_SUCCESS;
}

/* Step 8: the TCP connection and the exchange, field by field. */
static doca_error_t
exchange_info(struct verbs_resources *res)
{
	const struct verbs_peer_info *l = &res->local;
	struct verbs_peer_info *r = &res->remote;
	doca_error_t result;

	if (res->cfg->is_client)
		result = verbs_oob_client_connect(res->cfg->server_ip, VERBS_OOB_PORT, &res->conn_fd);
	else
		result = verbs_oob_server_accept(VERBS_OOB_PORT, &res->listen_fd, &res->conn_fd);
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_oob_exchange(res->conn_fd, &l->buf_va, &r->buf_va, sizeof(l->buf_va), "buffer address");
	if (result == DOCA_SUCCESS)
		result = verbs_oob_exchange(res->conn_fd, &l->mkey, &r->mkey, sizeof(l->mkey), "memory key");
	if (result == DOCA_SUCCESS)
		result = verbs_oob_exchange(res->conn_fd, &l->qpn, &r->qpn, sizeof(l->qpn), "QP number");
	if (result == DOCA_SUCCESS)
		result = verbs_oob_exchange(res->conn_fd, l->gid.raw, r->gid.raw, sizeof(l->gid.raw), "GID");
	if (result == DOCA_SUCCESS)
		result = verbs_oob_exchange(res->conn_fd, &l->lid, &r->lid, sizeof(l->lid), "LID");
	return result;
}

/* Step 9: address the peer and walk the QP to RTS. */
static doca_error_t
connect_qp(struct verbs_resources *res)
{
	struct doca_verbs_gid gid;
	doca_error_t result;

	if (res->addr_type == DOCA_VERBS_ADDR_TYPE_IPv4) {
		memcpy(gid.raw, res->remote.gid.raw, sizeof(gid.raw));
		result = verbs_check(doca_verbs_ah_attr_set_gid(res->ah, gid), "set the peer's GID");
	} else {
		result = verbs_check(doca_verbs_ah_attr_set_dlid(res->ah, res->remote.lid), "set the peer's LID");
	}
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_qp_connect(res->qp, res->ah, res->remote.qpn);
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("QP has been successfully connected and ready to use");
	return result;
}

/* ------------------------------------------------------------------ client */

/*
 * Ask on stdin how many of the left messages the next burst carries.  A number
 * above left sends them all; anything but a positive number asks again; the end
 * of stdin is an error.
 */
static doca_error_t
ask_burst_size(uint32_t left, uint32_t *burst)
{
	char line[64], *end;
	unsigned long value;
	int c;

	for (;;) {
		DOCA_LOG_INFO("Enter the required burst size (%u message(s) left):", left);
		if (fgets(line, sizeof(line), stdin) == NULL) {
			DOCA_LOG_ERR("Standard input ended while waiting for the burst size; use -b to send "
				     "without asking");
			return DOCA_ERROR_IO_FAILED;
		}
		if (strchr(line, '\n') == NULL)
			while ((c = getchar()) != '\n' && c != EOF)
				;
		line[strcspn(line, "\r\n")] = '\0';
		errno = 0;
		value = strtoul(line, &end, 10);
		if (errno == 0 && end != line && *end == '\0' && line[0] != '-' && value > 0) {
			*burst = value > left ? left : (uint32_t)value;
			return DOCA_SUCCESS;
		}
		DOCA_LOG_ERR("Burst size must be a positive number (got \"%.32s\")", line);
	}
}

/* Post message i (one signaled work request) and wait for its completion. */
static doca_error_t
client_transfer_one(struct verbs_resources *res, uint32_t i)
{
	static const enum ibv_wr_opcode wr_opcode[] = {IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ};
	static const enum ibv_wc_opcode wc_opcode[] = {IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ};
	enum verbs_oper oper = res->cfg->oper;
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)slot(res, i),
		.length = res->cfg->buf_size,
		.lkey = res->mr->rkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = wr_opcode[oper],
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad_wr = NULL;
	struct ibv_wc wc;
	doca_error_t result;
	char what[48];
	int ret;

	if (oper != VERBS_OPER_SEND) {
		wr.wr.rdma.remote_addr = res->remote.buf_va + (uint64_t)i * res->cfg->buf_size;
		wr.wr.rdma.rkey = res->remote.mkey;
	}
	if (oper != VERBS_OPER_READ)
		fill_slot(res, i);
	ret = doca_verbs_bridge_post_send(res->qp, &wr, &bad_wr);
	if (ret != 0 || bad_wr != NULL) {
		DOCA_LOG_ERR("Failed to post the %s of message #%u: %s", verbs_oper_name(oper), i + 1,
			     ret != 0 ? strerror(ret) : "a work request was refused");
		return DOCA_ERROR_DRIVER;
	}
	result = verbs_poll_one(res->cq, &wc, peer_alive, res);
	if (result != DOCA_SUCCESS)
		return result;
	snprintf(what, sizeof(what), "The %s of message #%u", verbs_oper_name(oper), i + 1);
	result = verbs_check_wc(&wc, wc_opcode[oper], what);
	if (result != DOCA_SUCCESS)
		return result;
	if (oper == VERBS_OPER_READ) {
		result = check_slot(res, i);
		if (result != DOCA_SUCCESS)
			return result;
	}
	if (oper == VERBS_OPER_SEND)
		DOCA_LOG_INFO("Sent message #%u to server", i + 1);
	else if (oper == VERBS_OPER_WRITE)
		DOCA_LOG_INFO("Wrote message #%u to server", i + 1);
	else
		DOCA_LOG_INFO("Read a valid message #%u from server", i + 1);
	return DOCA_SUCCESS;
}

static doca_error_t
client_run(struct verbs_resources *res)
{
	uint32_t iters = res->cfg->iters;
	uint32_t next = 0, burst, k;
	doca_error_t result;

	while (next < iters) {
		if (res->cfg->send_burst) {
			burst = iters - next;
		} else {
			result = ask_burst_size(iters - next, &burst);
			if (result != DOCA_SUCCESS)
				return result;
		}
		DOCA_LOG_INFO("Starting a burst of %u %s operation(s)", burst, verbs_oper_name(res->cfg->oper));
		for (k = 0; k < burst; k++, next++) {
			result = client_transfer_one(res, next);
			if (result != DOCA_SUCCESS)
				return result;
		}
	}
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ server */

/* Send mode: one receive per slot, then every completion checked in order. */
static doca_error_t
server_receive(struct verbs_resources *res)
{
	struct ibv_recv_wr *bad_wr;
	struct ibv_recv_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	doca_error_t result;
	uint32_t i;
	int ret;

	for (i = 0; i < res->cfg->iters; i++) {
		sge = (struct ibv_sge){
			.addr = (uint64_t)(uintptr_t)slot(res, i), .length = res->cfg->buf_size, .lkey = res->mr->rkey};
		wr = (struct ibv_recv_wr){.wr_id = i, .sg_list = &sge, .num_sge = 1};
		bad_wr = NULL;
		ret = doca_verbs_bridge_post_recv(res->qp, &wr, &bad_wr);
		if (ret != 0 || bad_wr != NULL) {
			DOCA_LOG_ERR("Failed to post receive #%u: %s", i + 1,
				     ret != 0 ? strerror(ret) : "a work request was refused");
			return DOCA_ERROR_DRIVER;
		}
	}
	for (i = 0; i < res->cfg->iters; i++) {
		result = verbs_poll_one(res->cq, &wc, peer_alive, res);
		if (result != DOCA_SUCCESS)
			return result;
		result = verbs_check_wc(&wc, IBV_WC_RECV, "A receive");
		if (result != DOCA_SUCCESS)
			return result;
		if (wc.wr_id >= res->cfg->iters || wc.byte_len != res->cfg->buf_size) {
			DOCA_LOG_ERR("Receive completion for slot %llu carries %u bytes; expected a slot below %u and "
				     "%u bytes",
				     (unsigned long long)wc.wr_id, wc.byte_len, res->cfg->iters, res->cfg->buf_size);
			return DOCA_ERROR_UNEXPECTED;
		}
		result = check_slot(res, (uint32_t)wc.wr_id);
		if (result != DOCA_SUCCESS)
			return result;
		DOCA_LOG_INFO("Received a valid message #%u from client", (uint32_t)wc.wr_id + 1);
	}
	return DOCA_SUCCESS;
}

/*
 * Write mode: the client's RDMA writes land while this side only reads its own
 * memory; slot i is done when its number reads i + 1.  The rest of each slot is
 * checked after the client's acknowledgement (server_check_writes).
 */
/*
 * The number at the start of a slot as it is in memory now, read byte by byte
 * (a slot need not be 4-byte aligned: -s may be odd) through a volatile pointer
 * so every read goes to memory; the fence orders the later reads of the slot.
 */
static uint32_t
read_number(const uint8_t *p)
{
	const volatile uint8_t *v = p;
	uint8_t bytes[sizeof(uint32_t)] = {v[0], v[1], v[2], v[3]};
	uint32_t number;

	memcpy(&number, bytes, sizeof(number));
	atomic_thread_fence(memory_order_acquire);
	return number;
}

static doca_error_t
server_busy_poll(struct verbs_resources *res)
{
	unsigned int spins = 0;
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < res->cfg->iters; i++) {
		while (read_number(slot(res, i)) != i + 1) {
			if (++spins % 4096 != 0)
				continue;
			result = verbs_oob_peer_alive(res->conn_fd);
			if (result != DOCA_SUCCESS)
				return result;
		}
		DOCA_LOG_INFO("Received a valid message #%u from client", i + 1);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
server_check_writes(struct verbs_resources *res)
{
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < res->cfg->iters; i++) {
		result = check_slot(res, i);
		if (result != DOCA_SUCCESS)
			return result;
	}
	DOCA_LOG_INFO("All %u written message(s) match, %zu bytes", res->cfg->iters, res->buf_len);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ the run */

/* Step 11, first half: each side tells the other it is done (4 bytes). */
static doca_error_t
exchange_ack(struct verbs_resources *res)
{
	uint32_t local_ack = 1, remote_ack = 0;
	doca_error_t result;

	result = verbs_oob_exchange(res->conn_fd, &local_ack, &remote_ack, sizeof(local_ack), "acknowledgement");
	if (result == DOCA_SUCCESS && remote_ack != 1) {
		DOCA_LOG_ERR("The peer's acknowledgement is %u, expected 1", remote_ack);
		result = DOCA_ERROR_UNEXPECTED;
	}
	return result;
}

/* Step 11, second half: DOCA's teardown order; returns the first error. */
static doca_error_t
destroy_resources(struct verbs_resources *res)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	if (res->mr != NULL && ibv_dereg_mr(res->mr) != 0) {
		DOCA_LOG_ERR("Failed to deregister the message buffer");
		result = DOCA_ERROR_DRIVER;
	}
	free(res->buf);
	if (res->qp != NULL) {
		tmp = verbs_check(doca_verbs_qp_destroy(res->qp), "destroy the QP");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->ah != NULL) {
		tmp = verbs_check(doca_verbs_ah_attr_destroy(res->ah), "destroy the AH attributes");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->cq != NULL) {
		tmp = verbs_check(doca_verbs_cq_destroy(res->cq), "destroy the CQ");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->dev != NULL) {
		tmp = verbs_check(doca_dev_close(res->dev), "close the DOCA device");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->pd != NULL) {
		tmp = verbs_check(doca_verbs_pd_destroy(res->pd), "destroy the PD");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->ctx != NULL) {
		tmp = verbs_check(doca_verbs_context_destroy(res->ctx), "destroy the Verbs context");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	verbs_oob_close(&res->conn_fd);
	verbs_oob_close(&res->listen_fd);
	return result;
}

doca_error_t
verbs_server_client(const struct verbs_config *cfg)
{
	struct verbs_resources res = {.cfg = cfg, .listen_fd = -1, .conn_fd = -1};
	doca_error_t result, tmp;

	DOCA_LOG_INFO("Running as the %s: %s of %u message(s) of %u bytes on %s", cfg->is_client ? "client" : "server",
		      verbs_oper_name(cfg->oper), cfg->iters, cfg->buf_size, cfg->device_name);
	result = open_context(&res);
	if (result == DOCA_SUCCESS)
		result = create_pd_and_cq(&res);
	if (result == DOCA_SUCCESS)
		result = query_port(&res);
	if (result == DOCA_SUCCESS)
		result = create_ah(&res);
	if (result == DOCA_SUCCESS)
		result = create_qp(&res);
	if (result == DOCA_SUCCESS)
		result = register_memory(&res);
	if (result == DOCA_SUCCESS)
		result = exchange_info(&res);
	if (result == DOCA_SUCCESS)
		result = connect_qp(&res);
	if (result == DOCA_SUCCESS) {
		if (cfg->is_client)
			result = client_run(&res);
		else if (cfg->oper == VERBS_OPER_SEND)
			result = server_receive(&res);
		else if (cfg->oper == VERBS_OPER_WRITE)
			result = server_busy_poll(&res);
	}
	if (result == DOCA_SUCCESS)
		result = exchange_ack(&res);
	if (result == DOCA_SUCCESS && !cfg->is_client && cfg->oper == VERBS_OPER_WRITE)
		result = server_check_writes(&res);
	tmp = destroy_resources(&res);
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

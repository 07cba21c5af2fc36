/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs, the post calls (fabric.h): one per op type, each filling a
 * struct fabric_op after the initiator-side checks of its own descriptor
 * (range, permission: a convenience - the target's check is the rule) and
 * handing it to fabric_ep_post() (fabric_tx.c).
 */
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"

/* Initiator-side check of a one-sided access against the imported range. */
static doca_error_t
check_remote(const struct fabric_rmr *rmr, uint64_t raddr, size_t len, uint32_t perm)
{
	if (rmr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!(rmr->perms & perm))
		return DOCA_ERROR_NOT_PERMITTED;
	if (raddr < rmr->addr || len > rmr->len || raddr - rmr->addr > rmr->len - len)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_ep_send(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len)
{
	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	op->type = FABRIC_OP_SEND;
	op->buf = (void *)(uintptr_t)buf;
	op->buf_len = len;
	op->imm = 0;
	return fabric_ep_post(ep, op);
}

doca_error_t
sd_fabric_ep_send_imm(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len, uint32_t imm)
{
	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	op->type = FABRIC_OP_SEND_IMM;
	op->buf = (void *)(uintptr_t)buf;
	op->buf_len = len;
	op->imm = imm;
	return fabric_ep_post(ep, op);
}

static doca_error_t
post_write(struct fabric_ep *ep, struct fabric_op *op, enum fabric_op_type type, const void *buf, size_t len,
	   struct fabric_rmr *rmr, uint64_t raddr, uint32_t imm)
{
	doca_error_t err;

	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	err = check_remote(rmr, raddr, len, FABRIC_PERM_REMOTE_WRITE);
	if (err != DOCA_SUCCESS)
		return err;
	op->type = type;
	op->buf = (void *)(uintptr_t)buf;
	op->buf_len = len;
	op->rmr = rmr;
	op->raddr = raddr;
	op->imm = imm;
	return fabric_ep_post(ep, op);
}

doca_error_t
sd_fabric_ep_write(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len, struct fabric_rmr *rmr,
		   uint64_t raddr)
{
	return post_write(ep, op, FABRIC_OP_WRITE, buf, len, rmr, raddr, 0);
}

doca_error_t
sd_fabric_ep_write_imm(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len, struct fabric_rmr *rmr,
		       uint64_t raddr, uint32_t imm)
{
	return post_write(ep, op, FABRIC_OP_WRITE_IMM, buf, len, rmr, raddr, imm);
}

doca_error_t
sd_fabric_ep_read(struct fabric_ep *ep, struct fabric_op *op, void *buf, size_t len, struct fabric_rmr *rmr,
		  uint64_t raddr)
{
	doca_error_t err;

	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	err = check_remote(rmr, raddr, len, FABRIC_PERM_REMOTE_READ);
	if (err != DOCA_SUCCESS)
		return err;
	op->type = FABRIC_OP_READ;
	op->buf = buf;
	op->buf_len = len;
	op->rmr = rmr;
	op->raddr = raddr;
	return fabric_ep_post(ep, op);
}

static doca_error_t
post_atomic(struct fabric_ep *ep, struct fabric_op *op, enum fabric_op_type type, struct fabric_rmr *rmr,
	    uint64_t raddr, uint64_t a, uint64_t b, uint64_t *result)
{
	doca_error_t err;

	if (ep == NULL || op == NULL || result == NULL || (raddr & 7) != 0)
		return DOCA_ERROR_INVALID_VALUE;
	err = check_remote(rmr, raddr, 8, FABRIC_PERM_REMOTE_ATOMIC);
	if (err != DOCA_SUCCESS)
		return err;
	op->type = type;
	op->rmr = rmr;
	op->raddr = raddr;
	op->operand[0] = a;
	op->operand[1] = b;
	op->result = result;
	return fabric_ep_post(ep, op);
}

doca_error_t
sd_fabric_ep_fetch_add(struct fabric_ep *ep, struct fabric_op *op, struct fabric_rmr *rmr, uint64_t raddr, uint64_t add,
		       uint64_t *result)
{
	return post_atomic(ep, op, FABRIC_OP_FETCH_ADD, rmr, raddr, add, 0, result);
}

doca_error_t
sd_fabric_ep_cmp_swp(struct fabric_ep *ep, struct fabric_op *op, struct fabric_rmr *rmr, uint64_t raddr, uint64_t cmp,
		     uint64_t swap, uint64_t *result)
{
	return post_atomic(ep, op, FABRIC_OP_CMP_SWP, rmr, raddr, cmp, swap, result);
}

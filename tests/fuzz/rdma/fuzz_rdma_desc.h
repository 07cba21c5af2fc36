/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the RDMA descriptor fuzz targets, their replay driver and the seed
 * generator: the libFuzzer entry point, the parser under test (FUZZ_KIND) and
 * builders of valid descriptors of each kind (the fabric blobs inside are
 * built by hand: no UCX needed).
 */
#ifndef FUZZ_RDMA_DESC_H_
#define FUZZ_RDMA_DESC_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rdma/rdma_proto.h"
#include "fabric/fabric.h"
#include "fabric/fabric_proto.h"

enum fuzz_kind {
	FUZZ_CONN = 0, /* doca_rdma_export() descriptor */
	FUZZ_MMAP = 1, /* doca_mmap_export_rdma() descriptor */
	FUZZ_SE = 2,   /* doca_sync_event_export_to_remote_net() descriptor */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check one input against one parser; aborts on a contract violation. */
void fuzz_one(enum fuzz_kind kind, const uint8_t *data, size_t size);

/* A fabric connection blob with a worker address of addr_len bytes; returns its length. */
static inline size_t
fuzz_fabric_conn(uint8_t *buf, uint32_t addr_len)
{
	struct fabric_conn_blob b = {0};

	b.hdr.magic = FABRIC_CONN_MAGIC;
	b.hdr.version = FABRIC_PROTO_VERSION;
	b.hdr.hdr_len = sizeof(b);
	b.hdr.total_len = (uint32_t)(sizeof(b) + addr_len);
	b.conn_id = 3;
	b.cookie = 0x12345678;
	b.addr_len = addr_len;
	b.pid = 4242;
	memcpy(buf, &b, sizeof(b));
	for (uint32_t i = 0; i < addr_len; i++)
		buf[sizeof(b) + i] = (uint8_t)(i * 13);
	return sizeof(b) + addr_len;
}

static inline size_t
fuzz_fabric_mr(uint8_t *buf, uint64_t addr, uint64_t len, uint32_t perms)
{
	struct fabric_mr_blob b = {0};

	b.hdr.magic = FABRIC_MR_MAGIC;
	b.hdr.version = FABRIC_PROTO_VERSION;
	b.hdr.hdr_len = sizeof(b);
	b.hdr.total_len = sizeof(b);
	b.addr = addr;
	b.len = len;
	b.perms = perms;
	b.mr_id = 7;
	for (int i = 0; i < 16; i++)
		b.key[i] = (uint8_t)(0xa0 + i);
	memcpy(buf, &b, sizeof(b));
	return sizeof(b);
}

/* A valid descriptor of kind into buf (>= 4096 bytes); returns its length. */
static inline size_t
fuzz_valid_desc(enum fuzz_kind kind, uint8_t *buf)
{
	size_t flen;

	memset(buf, 0, SD_RDMA_DESC_MAX);
	if (kind == FUZZ_CONN) {
		struct sd_rdma_conn_desc d = {0};

		flen = fuzz_fabric_conn(buf + sizeof(d), 180);
		d.magic = SD_RDMA_CONN_MAGIC;
		d.version = SD_RDMA_CONN_VERSION;
		d.hdr_len = sizeof(d);
		d.total_len = (uint32_t)(sizeof(d) + flen);
		d.permissions = 0x6;
		d.conn_id = 1;
		d.fabric_len = (uint32_t)flen;
		memcpy(buf, &d, sizeof(d));
		return sizeof(d) + flen;
	}
	if (kind == FUZZ_MMAP) {
		struct sd_rdma_mmap_desc d = {0};

		flen = fuzz_fabric_mr(buf + sizeof(d), 0x7f0000001000ull, 4096, FABRIC_PERM_REMOTE_WRITE);
		d.hdr.magic = SD_MMAP_DESC_MAGIC;
		d.hdr.version = SD_RDMA_MMAP_DESC_VERSION;
		d.hdr.kind = SD_MMAP_DESC_KIND_RDMA;
		d.hdr.total_len = (uint32_t)(sizeof(d) + flen);
		d.addr = 0x7f0000001000ull;
		d.len = 4096;
		d.permissions = 0x5;
		d.fabric_len = (uint32_t)flen;
		memcpy(buf, &d, sizeof(d));
		return sizeof(d) + flen;
	}
	{
		struct sd_rdma_se_desc d = {0};

		flen = fuzz_fabric_mr(buf + sizeof(d), 0x7f0000002008ull, 8, FABRIC_PERM_ALL);
		d.magic = SD_RDMA_SE_MAGIC;
		d.version = SD_RDMA_SE_VERSION;
		d.hdr_len = sizeof(d);
		d.total_len = (uint32_t)(sizeof(d) + flen);
		d.fabric_len = (uint32_t)flen;
		d.addr = 0x7f0000002008ull;
		memcpy(buf, &d, sizeof(d));
		return sizeof(d) + flen;
	}
}

#endif /* FUZZ_RDMA_DESC_H_ */

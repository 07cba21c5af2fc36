/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz targets of libdoca_rdma's descriptor parsers (rdma_proto.c): any input
 * must be refused with a documented code, a reason and the output untouched,
 * or accepted with every field inside the input and consistent with the
 * rules the parser promises.  FUZZ_KIND picks the parser of a libFuzzer
 * binary; the replay driver calls fuzz_one() for all three.
 */
#include <stdlib.h>

#include "fuzz_rdma_desc.h"

static void
check_refusal(doca_error_t err, const char *reason, const void *out, const void *untouched, size_t n)
{
	if (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION)
		abort();
	if (reason == NULL || reason[0] == '\0')
		abort();
	if (memcmp(out, untouched, n) != 0)
		abort();
}

/* The embedded fabric blob lies inside the input and fills it to the end. */
static void
check_inside(const uint8_t *data, size_t size, const uint8_t *fabric, size_t fabric_len)
{
	if (fabric < data || fabric > data + size || fabric_len > (size_t)(data + size - fabric))
		abort();
	if (fabric + fabric_len != data + size)
		abort();
}

void
fuzz_one(enum fuzz_kind kind, const uint8_t *data, size_t size)
{
	const char *reason = NULL;
	doca_error_t err;

	if (kind == FUZZ_CONN) {
		struct sd_rdma_conn_info info, untouched;

		memset(&info, 0xa5, sizeof(info));
		untouched = info;
		err = sd_rdma_conn_desc_parse(data, size, &info, &reason);
		if (err != DOCA_SUCCESS) {
			check_refusal(err, reason, &info, &untouched, sizeof(info));
			return;
		}
		check_inside(data, size, info.fabric, info.fabric_len);
		if (info.conn_id == 0 || info.transport > 1 || size > SD_RDMA_DESC_MAX)
			abort();
		if (sd_fabric_conn_blob_parse(info.fabric, info.fabric_len, NULL, NULL) != DOCA_SUCCESS)
			abort();
		return;
	}
	{
		struct sd_rdma_mem_info info, untouched;

		memset(&info, 0xa5, sizeof(info));
		untouched = info;
		err = kind == FUZZ_MMAP ? sd_rdma_mmap_desc_parse(data, size, &info, &reason)
					: sd_rdma_se_desc_parse(data, size, &info, &reason);
		if (err != DOCA_SUCCESS) {
			check_refusal(err, reason, &info, &untouched, sizeof(info));
			return;
		}
		check_inside(data, size, info.fabric, info.fabric_len);
		if (info.len == 0 || info.addr + info.len < info.addr || size > SD_RDMA_DESC_MAX)
			abort();
		if ((info.fabric_perms & ~(uint32_t)FABRIC_PERM_ALL) != 0)
			abort();
		if (kind == FUZZ_SE && (info.len != 8 || (info.addr & 7) != 0))
			abort();
	}
}

#ifdef FUZZ_KIND
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(FUZZ_KIND, data, size);
	return 0;
}
#endif

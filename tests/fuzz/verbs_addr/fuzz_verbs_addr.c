/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the Verbs address service's parsers: any input is refused
 * with INVALID_VALUE or UNSUPPORTED_VERSION, a reason and the output
 * untouched, or accepted with every field inside what the protocol allows
 * and re-encoding to the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_verbs_addr.h"

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

void
fuzz_verbs_addr_one(bool response, const uint8_t *data, size_t size)
{
	const char *reason = NULL;
	uint8_t again[sizeof(struct sd_fabric_addr_req_wire)];
	doca_error_t err;

	if (!response) {
		struct sd_fabric_addr_req req, untouched;

		memset(&req, 0xa5, sizeof(req));
		untouched = req;
		err = sd_fabric_addr_req_parse(data, size, &req, &reason);
		if (err != DOCA_SUCCESS) {
			check_refusal(err, reason, &req, &untouched, sizeof(req));
			return;
		}
		if (size != sizeof(struct sd_fabric_addr_req_wire) || !sd_fabric_addr_qpn_valid(req.dest_qpn) ||
		    req.src_qpn == 0 || req.src_qpn > 0xffffffu)
			abort();
		sd_fabric_addr_req_encode(&req, again);
		if (memcmp(again, data, size) != 0)
			abort();
		return;
	}
	{
		struct sd_fabric_addr_resp resp, untouched;

		memset(&resp, 0xa5, sizeof(resp));
		untouched = resp;
		err = sd_fabric_addr_resp_parse(data, size, &resp, &reason);
		if (err != DOCA_SUCCESS) {
			check_refusal(err, reason, &resp, &untouched, sizeof(resp));
			return;
		}
		if (size != sizeof(struct sd_fabric_addr_resp_wire) || resp.status > SD_FABRIC_ADDR_STATUS_MAX)
			abort();
		if (resp.status == SD_FABRIC_ADDR_OK ? resp.blob_len == 0 || resp.blob_len > SD_FABRIC_ADDR_BLOB_MAX
						     : resp.blob_len != 0)
			abort();
		sd_fabric_addr_resp_encode(&resp, again);
		if (memcmp(again, data, size) != 0)
			abort();
	}
}

#ifdef FUZZ_TARGET
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 0)
		fuzz_verbs_addr_one((data[0] & 1) != 0, data + 1, size - 1);
	return 0;
}
#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the soft NIC's active-message parser (fabric_am.c): any
 * header part must be refused with a documented code, a reason and the
 * output untouched, or accepted as a known type of exactly its length, copied
 * byte for byte, zero past the bytes given, with the stranger-NAK rule of
 * requests.  The replay driver calls fuzz_am_one() too.
 */
#include <stdlib.h>

#include "fuzz_fabric_am.h"

void
fuzz_am_one(const uint8_t *data, size_t size)
{
	struct fabric_am_msg m, untouched;
	const char *reason = NULL;
	doca_error_t err;

	memset(&m, 0xa5, sizeof(m));
	untouched = m;
	err = sd_fabric_am_parse(data, size, &m, &reason);
	if (err != DOCA_SUCCESS) {
		if (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION)
			abort();
		if (reason == NULL || reason[0] == '\0' || memcmp(&m, &untouched, sizeof(m)) != 0)
			abort();
		return;
	}
	if (m.h.magic != FABRIC_AM_MAGIC || m.h.version != FABRIC_PROTO_VERSION)
		abort();
	if (m.h.type == 0 || m.h.type > FUZZ_AM_NUM_TYPES)
		abort();
	if (size != sizeof(m.h) + fuzz_am_body_len(m.h.type) || memcmp(&m, data, size) != 0)
		abort();
	for (size_t i = size; i < offsetof(struct fabric_am_msg, stranger_nak); i++)
		if (((const uint8_t *)&m)[i] != 0)
			abort();
	if (m.stranger_nak != fuzz_am_is_request(m.h.type))
		abort();
}

#ifdef FUZZ_TARGET
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_am_one(data, size);
	return 0;
}
#endif

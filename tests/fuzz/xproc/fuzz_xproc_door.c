/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the door's parsers (src/core/xproc_door_proto.c): the first
 * input byte picks the knock or the answer parser, the rest is the record.
 * A refusal has a documented code and a reason and leaves the output
 * untouched; an acceptance decodes exactly the fields of a well-formed record.
 */
#include <stdlib.h>
#include <string.h>

#include "xproc_door_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
knock(const uint8_t *p, size_t n)
{
	struct sd_xproc_ref ref, untouched;
	const char *reason = NULL;
	doca_error_t err;

	memset(&ref, 0xa5, sizeof(ref));
	untouched = ref;
	err = sd_xproc_door_knock_parse(p, n, &ref, &reason);
	if (err != DOCA_SUCCESS) {
		if ((err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION) || reason == NULL ||
		    reason[0] == '\0' || memcmp(&ref, &untouched, sizeof(ref)) != 0)
			abort();
		return;
	}
	if (n != SD_XPROC_DOOR_KNOCK_LEN || ref.rec_addr == 0 || ref.rec_addr % 8 != 0 ||
	    memcmp(ref.key, p + 16, sizeof(ref.key)) != 0)
		abort();
}

static void
answer(const uint8_t *p, size_t n)
{
	doca_error_t st = (doca_error_t)-7;
	const char *reason = NULL;

	if (sd_xproc_door_answer_parse(p, n, &st, &reason) != DOCA_SUCCESS) {
		if (reason == NULL || st != (doca_error_t)-7)
			abort();
		return;
	}
	if (n != SD_XPROC_DOOR_ANSWER_LEN || (st != DOCA_SUCCESS && st != DOCA_ERROR_NOT_PERMITTED &&
					      st != DOCA_ERROR_INVALID_VALUE && st != DOCA_ERROR_UNSUPPORTED_VERSION))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		answer(data + 1, size - 1);
	else
		knock(data + 1, size - 1);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the Comch record parser (sd_comch_parse): any input is either
 * refused with a documented code and a reason, leaving the output untouched, or
 * accepted with every decoded length inside the input and within the
 * protocol's limits.  Built as a libFuzzer target when the compiler supports
 * -fsanitize=fuzzer, and linked into the replay driver.
 */
#include <stdlib.h>
#include <string.h>

#include "comch_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sd_comch_msg msg, untouched;
	const char *reason = NULL;
	doca_error_t err;

	memset(&msg, 0xa5, sizeof(msg));
	untouched = msg;
	err = sd_comch_parse(data, size, &msg, &reason);
	if (err != DOCA_SUCCESS) {
		if (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION)
			abort();
		if (reason == NULL || reason[0] == '\0')
			abort();
		if (memcmp(&msg, &untouched, sizeof(msg)) != 0)
			abort();
		return 0;
	}
	if (size < sizeof(struct sd_comch_hdr) || size > SD_COMCH_MAX_RECORD)
		abort();
	if (msg.payload != data + sizeof(struct sd_comch_hdr) || msg.payload_len != size - sizeof(struct sd_comch_hdr))
		abort();
	switch (msg.type) {
	case SD_COMCH_HELLO:
		if (msg.u.hello.name_len == 0 || msg.u.hello.name_len >= SD_COMCH_MAX_NAME ||
		    msg.name + msg.u.hello.name_len != (const char *)data + size ||
		    memchr(msg.u.hello.pci_addr, '\0', sizeof(msg.u.hello.pci_addr)) == NULL)
			abort();
		break;
	case SD_COMCH_MSG:
		if (msg.payload_len > SD_COMCH_MAX_MSG)
			abort();
		break;
	case SD_COMCH_FP_DATA:
		if (msg.u.data.imm_len > SD_COMCH_MAX_IMM || msg.imm + msg.u.data.imm_len != data + size)
			abort();
		break;
	case SD_COMCH_CONSUMER_NEW:
		if (msg.arg == 0 || msg.u.consumer.ring_cap == 0 ||
		    (msg.u.consumer.ring_cap & (msg.u.consumer.ring_cap - 1)) || (msg.u.consumer.ring_addr & 7) != 0)
			abort();
		break;
	case SD_COMCH_CONSUMER_GONE:
		if (msg.arg == 0)
			abort();
		break;
	case SD_COMCH_WELCOME:
	case SD_COMCH_BYE:
		break;
	default:
		abort();
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the PCI export descriptor parser (sd_mmap_pci_desc_parse):
 * any input must be refused with a reason or parsed into fields that encode
 * back to exactly the same bytes.  Built as a libFuzzer target when the
 * compiler supports -fsanitize=fuzzer, and linked into the replay driver.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_pci_desc.h"
#include "mmap_pci_proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sd_mmap_pci_desc_info info, untouched;
	uint8_t again[sizeof(struct sd_mmap_pci_desc)];
	const char *reason = NULL;
	doca_error_t err;

	memset(&info, 0xa5, sizeof(info));
	untouched = info;
	err = sd_mmap_pci_desc_parse(data, size, &info, &reason);
	if (err != DOCA_SUCCESS) {
		/* Refusals: a documented code, a reason, and the output untouched. */
		if (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION)
			abort();
		if (reason == NULL || reason[0] == '\0')
			abort();
		if (memcmp(&info, &untouched, sizeof(info)) != 0)
			abort();
		return 0;
	}
	/* Accepted: the encoding is canonical, so it must round-trip byte for byte. */
	if (size != sizeof(again))
		abort();
	sd_mmap_pci_desc_encode(&info, again);
	if (memcmp(again, data, size) != 0)
		abort();
	if (info.len == 0 || info.addr + info.len < info.addr || info.pid <= 0 || (info.record_addr & 7) != 0)
		abort();
	return 0;
}

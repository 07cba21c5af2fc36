/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libFuzzer entry point and a known-valid descriptor, shared by the fuzz
 * target, its replay driver and the seed generator.
 */
#ifndef FUZZ_PCI_DESC_H_
#define FUZZ_PCI_DESC_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_types.h>

#include "mmap_pci_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A valid version-1 descriptor (sizeof(struct sd_mmap_pci_desc) bytes). */
static inline void
valid_desc(uint8_t *buf)
{
	struct sd_mmap_pci_desc_info info = {
		.pid = 4242,
		.dev_index = 1,
		.start_time = 123456789,
		.addr = 0x7f0000001000ull,
		.len = 1 << 20,
		.perm = DOCA_ACCESS_FLAG_PCI_READ_ONLY,
		.record_addr = 0x7f0000100040ull,
	};

	for (int i = 0; i < 16; i++)
		info.key[i] = (uint8_t)(0xc0 + i);
	sd_mmap_pci_desc_encode(&info, buf);
}

#endif /* FUZZ_PCI_DESC_H_ */

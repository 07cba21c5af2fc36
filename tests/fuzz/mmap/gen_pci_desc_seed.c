/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Write the seed input of the libFuzzer run: one valid descriptor.  Without it
 * libFuzzer rarely gets past the header's exact-length check.
 */
#include <stdio.h>

#include "fuzz_pci_desc.h"

int
main(int argc, char **argv)
{
	uint8_t d[sizeof(struct sd_mmap_pci_desc)];
	FILE *f;

	if (argc != 2)
		return 2;
	f = fopen(argv[1], "wb");
	if (f == NULL)
		return 1;
	valid_desc(d);
	if (fwrite(d, 1, sizeof(d), f) != sizeof(d)) {
		fclose(f);
		return 1;
	}
	return fclose(f) != 0;
}

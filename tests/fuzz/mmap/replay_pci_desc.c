/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the PCI descriptor fuzz target, run by `make test` on every
 * compiler: a small generated corpus with known verdicts, then thousands of
 * random and mutated inputs from a fixed seed (a failure replays exactly).
 */
#include <doca_types.h>

#include "fuzz_pci_desc.h"
#include "mmap_pci_proto.h"
#include "sd_test.h"

#define SEED 0x5d0cau
#define ROUNDS 4000

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

static doca_error_t
parse(const uint8_t *buf, size_t len)
{
	struct sd_mmap_pci_desc_info info;

	ASSERT_EQ(LLVMFuzzerTestOneInput(buf, len), 0);
	return sd_mmap_pci_desc_parse(buf, len, &info, NULL);
}

#define D_LEN sizeof(struct sd_mmap_pci_desc)
#define OFF(f) offsetof(struct sd_mmap_pci_desc, f)

TEST(corpus_verdicts)
{
	uint8_t d[SD_MMAP_PCI_DESC_MAX_LEN + 8];
	struct sd_mmap_pci_desc_info info;
	const char *reason = NULL;

	memset(d, 0, sizeof(d));
	valid_desc(d);
	ASSERT_OK(parse(d, D_LEN));
	ASSERT_OK(sd_mmap_pci_desc_parse(d, D_LEN, &info, NULL));
	ASSERT_EQ(info.pid, 4242);
	ASSERT_EQ(info.dev_index, 1);
	ASSERT_EQ(info.start_time, 123456789);
	ASSERT_EQ(info.addr, 0x7f0000001000ull);
	ASSERT_EQ(info.len, 1 << 20);
	ASSERT_EQ(info.record_addr, 0x7f0000100040ull);
	ASSERT_EQ(info.key[15], 0xcf);
	/* the layout is little-endian whatever the host: magic bytes read "SDMM" */
	ASSERT_MEM_EQ(d, "SDMM", 4);

	ASSERT_ERR(sd_mmap_pci_desc_parse(NULL, D_LEN, &info, &reason), DOCA_ERROR_INVALID_VALUE);
	ASSERT_NOT_NULL(reason);
	ASSERT_ERR(sd_mmap_pci_desc_parse(d, D_LEN, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(d, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(d, 15), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(d, D_LEN - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(d, D_LEN + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(d, SD_MMAP_PCI_DESC_MAX_LEN + 1), DOCA_ERROR_INVALID_VALUE);
	d[OFF(hdr.version)] = 0;
	ASSERT_ERR(parse(d, D_LEN), DOCA_ERROR_UNSUPPORTED_VERSION);
	d[OFF(hdr.version)] = 1;
	d[OFF(hdr.kind)] = SD_MMAP_DESC_KIND_RDMA;
	ASSERT_ERR(parse(d, D_LEN), DOCA_ERROR_INVALID_VALUE);
	d[OFF(hdr.kind)] = SD_MMAP_DESC_KIND_PCI;
	d[OFF(hdr.magic)] ^= 0x20;
	ASSERT_ERR(parse(d, D_LEN), DOCA_ERROR_INVALID_VALUE);
	d[OFF(hdr.magic)] ^= 0x20;
	d[OFF(pid) + 3] = 0x80; /* negative pid */
	ASSERT_ERR(parse(d, D_LEN), DOCA_ERROR_INVALID_VALUE);
	d[OFF(pid) + 3] = 0;
	d[OFF(addr) + 7] = 0xff; /* addr + len wraps */
	d[OFF(addr) + 6] = 0xff;
	d[OFF(addr) + 5] = 0xff;
	d[OFF(addr) + 4] = 0xff;
	d[OFF(addr) + 3] = 0xff;
	d[OFF(addr) + 2] = 0xff;
	ASSERT_ERR(parse(d, D_LEN), DOCA_ERROR_INVALID_VALUE);
	valid_desc(d);
	d[OFF(flags)] = 1;
	ASSERT_ERR(parse(d, D_LEN), DOCA_ERROR_INVALID_VALUE);
	valid_desc(d);
	ASSERT_OK(parse(d, D_LEN));
}

TEST(random_inputs)
{
	uint8_t d[SD_MMAP_PCI_DESC_MAX_LEN + 64];
	unsigned accepted = 0;

	for (int round = 0; round < ROUNDS; round++) {
		size_t len = next_rand() % sizeof(d);

		for (size_t i = 0; i < len; i++)
			d[i] = (uint8_t)next_rand();
		/* A quarter of the inputs get a plausible header, to reach the field checks. */
		if ((next_rand() & 3) == 0 && len >= 16) {
			memcpy(d, "SDMM\x01\x00\x01\x00", 8);
			d[8] = (uint8_t)len;
			d[9] = (uint8_t)(len >> 8);
			d[10] = d[11] = 0;
		}
		accepted += parse(d, len) == DOCA_SUCCESS;
	}
	/* Random bytes almost never form a valid descriptor (reserved fields must be 0). */
	ASSERT(accepted < ROUNDS / 100);
}

TEST(mutated_descriptors)
{
	uint8_t d[SD_MMAP_PCI_DESC_MAX_LEN + 8];
	unsigned accepted = 0, refused = 0;

	for (int round = 0; round < ROUNDS; round++) {
		size_t len = D_LEN;
		unsigned flips = 1 + next_rand() % 4;

		valid_desc(d);
		for (unsigned f = 0; f < flips; f++) {
			uint32_t r = next_rand();

			switch (r % 4) {
			case 0: /* flip a bit */
				d[(r >> 8) % D_LEN] ^= (uint8_t)(1u << ((r >> 4) % 8));
				break;
			case 1: /* set a byte */
				d[(r >> 8) % D_LEN] = (uint8_t)(r >> 24);
				break;
			case 2: /* truncate */
				len = (r >> 8) % (D_LEN + 1);
				break;
			default: /* extend, with or without a matching total_len */
				len = D_LEN + (r >> 8) % (sizeof(d) - D_LEN);
				memset(d + D_LEN, (int)(r >> 24), len - D_LEN);
				if (r & 0x80) {
					d[OFF(hdr.total_len)] = (uint8_t)len;
					d[OFF(hdr.total_len) + 1] = (uint8_t)(len >> 8);
				}
				break;
			}
		}
		if (parse(d, len) == DOCA_SUCCESS)
			accepted++;
		else
			refused++;
	}
	/* Both verdicts occur: the mutations reach past the header. */
	ASSERT(accepted > 0);
	ASSERT(refused > ROUNDS / 2);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

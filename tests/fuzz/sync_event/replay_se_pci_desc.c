/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay fuzzing of the PCI sync-event descriptor parser (sd_se_pci_desc_parse):
 * a valid descriptor round-trips, every single-field forgery is refused with a
 * reason and the output untouched, and thousands of random and mutated inputs
 * from a fixed seed are either refused that way or accepted as canonical
 * encodings (re-encoding gives the same bytes).
 */
#include "sd_test.h"
#include "sync_event_pci_proto.h"

#define ROUNDS 20000

static uint32_t rng = 0x5e5eu;

static uint32_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* The fuzz property for one input. */
static doca_error_t
check_input(const uint8_t *buf, size_t len)
{
	struct sd_se_pci_desc_info info, untouched;
	uint8_t again[SD_SE_PCI_DESC_LEN];
	const char *reason = NULL;
	doca_error_t err;

	memset(&info, 0xa5, sizeof(info));
	untouched = info;
	err = sd_se_pci_desc_parse(buf, len, &info, &reason);
	if (err != DOCA_SUCCESS) {
		ASSERT(err == DOCA_ERROR_INVALID_VALUE || err == DOCA_ERROR_UNSUPPORTED_VERSION);
		ASSERT(reason != NULL && reason[0] != '\0');
		ASSERT_MEM_EQ(&info, &untouched, sizeof(info));
		return err;
	}
	ASSERT_EQ(len, SD_SE_PCI_DESC_LEN);
	sd_se_pci_desc_encode(&info, again);
	ASSERT_MEM_EQ(again, buf, len);
	ASSERT(info.pid != 0);
	return err;
}

static void
valid(uint8_t *d)
{
	struct sd_se_pci_desc_info info = {.pid = 4242, .fd = 7};

	for (int i = 0; i < 16; i++)
		info.key[i] = (uint8_t)(0x30 + i);
	sd_se_pci_desc_encode(&info, d);
}

TEST(valid_descriptor_round_trips)
{
	uint8_t d[SD_SE_PCI_DESC_LEN];
	struct sd_se_pci_desc_info info;

	valid(d);
	ASSERT_OK(check_input(d, sizeof(d)));
	ASSERT_OK(sd_se_pci_desc_parse(d, sizeof(d), &info, NULL));
	ASSERT_EQ(info.pid, 4242);
	ASSERT_EQ(info.fd, 7);
	ASSERT_EQ(info.key[15], 0x3f);
	ASSERT_MEM_EQ(d, "SDSE", 4);
}

TEST(forgeries_refused)
{
	static const struct {
		int off;
		uint8_t val;
		doca_error_t want;
	} cases[] = {
		{0, 'X', DOCA_ERROR_INVALID_VALUE},	/* magic */
		{4, 2, DOCA_ERROR_UNSUPPORTED_VERSION}, /* version */
		{6, 1, DOCA_ERROR_INVALID_VALUE},	/* reserved */
		{8, 47, DOCA_ERROR_INVALID_VALUE},	/* total_len */
		{20, 1, DOCA_ERROR_INVALID_VALUE},	/* reserved */
		{44, 1, DOCA_ERROR_INVALID_VALUE},	/* reserved tail */
		{15, 0x80, DOCA_ERROR_INVALID_VALUE},	/* pid out of range */
		{19, 0x80, DOCA_ERROR_INVALID_VALUE},	/* fd out of range */
	};
	uint8_t d[SD_SE_PCI_DESC_LEN];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		valid(d);
		d[cases[i].off] = cases[i].val;
		ASSERT_ERR(check_input(d, sizeof(d)), cases[i].want);
	}
	valid(d);
	memset(d + 12, 0, 4); /* pid 0 */
	ASSERT_ERR(check_input(d, sizeof(d)), DOCA_ERROR_INVALID_VALUE);
	valid(d);
	ASSERT_ERR(check_input(d, sizeof(d) - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(check_input(d, 3), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_se_pci_desc_parse(NULL, sizeof(d), NULL, NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(random_and_mutated_inputs)
{
	uint8_t buf[SD_SE_PCI_DESC_LEN + 16];
	int accepted = 0;

	for (int r = 0; r < ROUNDS; r++) {
		size_t len = SD_SE_PCI_DESC_LEN;

		if (r % 4 == 0) {
			len = next_rand() % sizeof(buf);
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)next_rand();
		} else {
			valid(buf);
			for (int k = 0, n = 1 + (int)(next_rand() % 3); k < n; k++)
				buf[next_rand() % len] = (uint8_t)next_rand();
		}
		accepted += check_input(buf, len) == DOCA_SUCCESS;
	}
	ASSERT(accepted > 0); /* mutations of the key and pid/fd bytes stay valid */
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the maps-line fuzz target, run by `make test` on every
 * compiler: every line of this process's own /proc/self/maps parses and says
 * what the kernel wrote, malformed lines are refused with a reason, then
 * mutated and random lines from a fixed seed go through the target.
 */
#include <stdio.h>

#include "sd_test.h"
#include "xproc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0x3a95u
#define ROUNDS 20000

static uint32_t rng = SEED;

static const char sample[] = "7f12a4000000-7f12a4200000 rw-s 00003000 00:01 4242                       "
			     "/memfd:softdoca (deleted)\n";

TEST(own_maps_parse)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	int n = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		struct sd_maps_ent e;
		const char *why = "";

		ASSERT_OK(sd_maps_line_parse(line, strlen(line), &e, &why));
		n++;
	}
	fclose(f);
	ASSERT(n > 5);
}

TEST(fields_of_a_line)
{
	struct sd_maps_ent e;
	const char *why = "";

	ASSERT_OK(sd_maps_line_parse(sample, sizeof(sample) - 1, &e, &why));
	ASSERT_EQ(e.start, 0x7f12a4000000ull);
	ASSERT_EQ(e.end, 0x7f12a4200000ull);
	ASSERT(e.readable && e.writable && e.shared);
	ASSERT_EQ(e.off, 0x3000);
	ASSERT_EQ(e.dev_major, 0);
	ASSERT_EQ(e.dev_minor, 1);
	ASSERT_EQ(e.ino, 4242);
	ASSERT_EQ(e.path_len, strlen("/memfd:softdoca (deleted)"));
	ASSERT(memcmp(e.path, "/memfd:softdoca (deleted)", e.path_len) == 0);
	/* an anonymous mapping names no path */
	ASSERT_OK(sd_maps_line_parse("1000-2000 r--p 00000000 00:00 0\n", 32, &e, &why));
	ASSERT(e.path == NULL && e.ino == 0 && !e.shared && !e.writable);
}

static doca_error_t
verdict(const char *line)
{
	struct sd_maps_ent e;
	const char *why = NULL;
	doca_error_t err = sd_maps_line_parse(line, strlen(line), &e, &why);

	ASSERT_EQ(LLVMFuzzerTestOneInput((const uint8_t *)line, strlen(line)), 0);
	if (err != DOCA_SUCCESS)
		ASSERT(why != NULL && why[0] != '\0');
	return err;
}

TEST(malformed_lines_refused)
{
	ASSERT_ERR(verdict(""), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(verdict("2000-1000 rw-s 0 00:01 1"), DOCA_ERROR_INVALID_VALUE);	   /* empty range */
	ASSERT_ERR(verdict("1000-1000 rw-s 0 00:01 1"), DOCA_ERROR_INVALID_VALUE);	   /* empty range */
	ASSERT_ERR(verdict("10000000000000000-1 rw-s 0 0:1 1"), DOCA_ERROR_INVALID_VALUE); /* 17 digits */
	ASSERT_ERR(verdict("1000-2000 rw-x 0 00:01 1"), DOCA_ERROR_INVALID_VALUE);	   /* not s/p */
	ASSERT_ERR(verdict("1000-2000 rw-s 0 0001 1"), DOCA_ERROR_INVALID_VALUE);	   /* no colon */
	ASSERT_ERR(verdict("1000-2000 rw-s 0 00:01 x"), DOCA_ERROR_INVALID_VALUE);	   /* no inode */
	ASSERT_ERR(verdict("1000-2000 rw-s 0 00:01 99999999999999999999"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(verdict("1000-2000 rw-s 0 00:01 1x /a"), DOCA_ERROR_INVALID_VALUE); /* junk */
	ASSERT_OK(verdict("1000-2000 rw-s 0 00:01 1    "));			       /* padding, no path */
}

TEST(random_and_mutated_lines)
{
	uint8_t buf[sizeof(sample) + 8];

	for (int r = 0; r < ROUNDS; r++) {
		size_t n = sd_test_rand(&rng) % sizeof(buf);

		if (r % 2 == 0) {
			n = sizeof(sample) - 1;
			memcpy(buf, sample, n);
			for (uint32_t k = sd_test_rand(&rng) % 3 + 1; k > 0; k--)
				buf[sd_test_rand(&rng) % n] = (uint8_t)sd_test_rand(&rng);
		} else {
			for (size_t i = 0; i < n; i++)
				buf[i] = (uint8_t)sd_test_rand(&rng);
		}
		ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

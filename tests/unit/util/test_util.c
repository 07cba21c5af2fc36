/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The helpers of src/util/sd_util.h: the constant-time secret compare (equal
 * keys, one differing bit anywhere, any length, unaligned) and the list moves.
 */
#include <string.h>

#include "sd_test.h"
#include "sd_util.h"

TEST(secret_equal_finds_any_differing_bit)
{
	static const size_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 32, 33};
	uint8_t a[40], b[41];

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 37 + 11);
	for (size_t k = 0; k < SD_ARRAY_SIZE(lens); k++) {
		size_t len = lens[k];
		uint8_t *u = b + 1; /* unaligned against a */

		memcpy(u, a, len);
		ASSERT(sd_secret_equal(a, u, len));
		for (size_t i = 0; i < len; i++)
			for (unsigned bit = 0; bit < 8; bit++) {
				u[i] ^= (uint8_t)(1u << bit);
				if (sd_secret_equal(a, u, len))
					sd_test_fail(__FILE__, __LINE__,
						     "length %zu: byte %zu bit %u differs, compared equal", len, i,
						     bit);
				u[i] ^= (uint8_t)(1u << bit);
			}
		/* bytes past len never count */
		if (len < sizeof(a)) {
			u[len] = (uint8_t)~a[len];
			ASSERT(sd_secret_equal(a, u, len));
		}
	}
}

TEST(list_move_all_takes_every_element)
{
	struct sd_list src, dst, e[3];

	sd_list_init(&src);
	sd_list_move_all(&dst, &src);
	ASSERT(sd_list_empty(&dst));
	for (int i = 0; i < 3; i++)
		sd_list_insert_tail(&src, &e[i]);
	sd_list_move_all(&dst, &src);
	ASSERT(sd_list_empty(&src));
	for (int i = 0; i < 3; i++)
		ASSERT(sd_list_pop_head(&dst) == &e[i]);
	ASSERT(sd_list_empty(&dst));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

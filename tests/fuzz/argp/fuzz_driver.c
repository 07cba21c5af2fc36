/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stand-alone driver for a libFuzzer-style target when libFuzzer is not
 * available: runs every file given on the command line, then a fixed number
 * of deterministic mutations of each (byte flips, structural characters,
 * truncations, duplicated spans).  A crash or abort() fails the test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUTATIONS_PER_INPUT 2000
#define MAX_INPUT (64 * 1024)

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dULL;
}

static size_t
mutate(uint8_t *buf, size_t len, size_t cap)
{
	static const char interesting[] = "{}[]\":,0123456789-e.tfn \\\n/*";
	int rounds = 1 + (int)(rnd() % 4);

	for (int r = 0; r < rounds; r++) {
		size_t pos = len > 0 ? (size_t)(rnd() % len) : 0;

		switch (rnd() % 5) {
		case 0:
			if (len > 0)
				buf[pos] ^= (uint8_t)(1u << (rnd() % 8));
			break;
		case 1:
			if (len > 0)
				buf[pos] = (uint8_t)interesting[rnd() % (sizeof(interesting) - 1)];
			break;
		case 2:
			len = pos;
			break;
		case 3:
			if (len < cap) {
				memmove(buf + pos + 1, buf + pos, len - pos);
				buf[pos] = (uint8_t)interesting[rnd() % (sizeof(interesting) - 1)];
				len++;
			}
			break;
		default: {
			size_t span = len > 0 ? (size_t)(rnd() % (len - pos + 1)) : 0;

			if (len + span <= cap) {
				memmove(buf + pos + span, buf + pos, len - pos);
				len += span;
			}
			break;
		}
		}
	}
	return len;
}

int
main(int argc, char **argv)
{
	static uint8_t seed[MAX_INPUT], work[MAX_INPUT];
	unsigned long runs = 0;

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t len;

		if (f == NULL) {
			perror(argv[i]);
			return 1;
		}
		len = fread(seed, 1, sizeof(seed), f);
		fclose(f);
		LLVMFuzzerTestOneInput(seed, len);
		runs++;
		for (int m = 0; m < MUTATIONS_PER_INPUT; m++) {
			size_t n;

			memcpy(work, seed, len);
			n = mutate(work, len, sizeof(work));
			LLVMFuzzerTestOneInput(work, n);
			runs++;
		}
	}
	printf("%lu inputs ran\n", runs);
	return 0;
}

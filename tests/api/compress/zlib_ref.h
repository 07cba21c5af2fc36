/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zlib as the compress tests' independent reference: raw DEFLATE (no zlib
 * header) both ways, failing the test case on any zlib error.
 */
#ifndef COMPRESS_ZLIB_REF_H_
#define COMPRESS_ZLIB_REF_H_

#include <string.h>

#include <zlib.h>

#include "sd_test.h"

/* zlib's raw DEFLATE of in at level, with strategy: the stream's length. */
static inline size_t
zlib_deflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int level, int strategy)
{
	z_stream s;

	memset(&s, 0, sizeof(s));
	ASSERT_EQ(deflateInit2(&s, level, Z_DEFLATED, -MAX_WBITS, 8, strategy), Z_OK);
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	ASSERT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
	ASSERT_EQ(deflateEnd(&s), Z_OK);
	return s.total_out;
}

/* zlib's raw inflate: the output length (fails the test unless the stream is whole). */
static inline size_t
zlib_inflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream s;

	memset(&s, 0, sizeof(s));
	ASSERT_EQ(inflateInit2(&s, -MAX_WBITS), Z_OK);
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	ASSERT_EQ(inflate(&s, Z_FINISH), Z_STREAM_END);
	ASSERT_EQ(s.avail_in, 0);
	ASSERT_EQ(inflateEnd(&s), Z_OK);
	return s.total_out;
}

#endif /* COMPRESS_ZLIB_REF_H_ */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every parser of bytes from another process shares: little-endian
 * loads and stores at any alignment, the refusal idiom (a status and a
 * reason string for the caller that knows the DOCA call and logs it once),
 * and the magic / version check every versioned header starts with.
 * Header-only and free of logging, so a fuzz target compiles a parser alone.
 */
#ifndef SD_WIRE_H_
#define SD_WIRE_H_

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <doca_error.h>

/* ---- little-endian fields at any alignment ---- */

static inline uint16_t
sd_wire_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t
sd_wire_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t
sd_wire_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void
sd_wire_put_le16(void *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void
sd_wire_put_le32(void *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void
sd_wire_put_le64(void *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/* n bytes at p are all 0 (reserved fields). */
static inline bool
sd_wire_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* ---- refusals ---- */

/*
 * Refuse with status err: *reason (reason may be NULL) says what is wrong.
 * Parsers read "return sd_wire_refuse(reason, "...")"; a reason is a static
 * string, never built from the input.
 */
static inline doca_error_t
sd_wire_refuse_as(const char **reason, const char *why, doca_error_t err)
{
	if (reason != NULL)
		*reason = why;
	return err;
}

/* The common refusal: malformed input (INVALID_VALUE). */
static inline doca_error_t
sd_wire_refuse(const char **reason, const char *why)
{
	return sd_wire_refuse_as(reason, why, DOCA_ERROR_INVALID_VALUE);
}

/*
 * The first check of a versioned header: a foreign magic is INVALID_VALUE
 * (bad_magic), a known magic of another version UNSUPPORTED_VERSION
 * (other_version), so the log names a peer of another release as such.
 */
static inline doca_error_t
sd_wire_check_magic_version(const char **reason, uint32_t magic, uint32_t want_magic, uint32_t version,
			    uint32_t want_version, const char *bad_magic, const char *other_version)
{
	if (magic != want_magic)
		return sd_wire_refuse(reason, bad_magic);
	if (version != want_version)
		return sd_wire_refuse_as(reason, other_version, DOCA_ERROR_UNSUPPORTED_VERSION);
	return DOCA_SUCCESS;
}

#endif /* SD_WIRE_H_ */

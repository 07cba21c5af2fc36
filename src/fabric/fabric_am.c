/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one parser of soft NIC active-message headers (fabric_proto.h).  The
 * bytes come from another process: each type's row of FABRIC_AM_TYPES says
 * how long its header part is and whether a stranger NAK applies; nothing
 * else decides.  No UCX, no logging: the receiver logs the reason.
 */
#include <string.h>

#include "fabric_proto.h"
#include "../util/sd_util.h"
#include "../util/sd_wire.h"

/* What the parser knows of a type; len 0: no such type. */
struct am_rule {
	uint16_t min_len, max_len; /* bytes of the header part UCX delivers */
	bool stranger_nak;
};

/*
 * Every sender of this version sends exactly the header and the body its
 * type names (fabric_tx.c), so the bounds are equal; a later version that
 * grows a body raises max_len in its row.
 */
#define AM_RULE(name, value, body, nak, handler)                                                                       \
	[value] = {.min_len = sizeof(struct fabric_am_hdr) + (body),                                                   \
		   .max_len = sizeof(struct fabric_am_hdr) + (body),                                                   \
		   .stranger_nak = (nak)},
static const struct am_rule am_rules[FABRIC_AM_TYPE_LIMIT] = {FABRIC_AM_TYPES(AM_RULE)};
#undef AM_RULE

/* Every type's header part fits a parsed message (a new body joins the union of fabric_am_msg). */
#define AM_FITS(name, value, body, nak, handler)                                                                       \
	static_assert(sizeof(struct fabric_am_hdr) + (body) <= offsetof(struct fabric_am_msg, stranger_nak),           \
		      "FABRIC_AM_" #name " fits struct fabric_am_msg");
FABRIC_AM_TYPES(AM_FITS)
#undef AM_FITS

doca_error_t
sd_fabric_am_parse(const void *header, size_t len, struct fabric_am_msg *out, const char **reason)
{
	const uint8_t *p = header;
	const struct am_rule *r;
	struct fabric_am_msg m;
	doca_error_t err;

	if (header == NULL || len < sizeof(m.h))
		return sd_wire_refuse(reason, "header shorter than the common header");
	err = sd_wire_check_magic_version(reason, sd_wire_le16(p + offsetof(struct fabric_am_hdr, magic)),
					  FABRIC_AM_MAGIC, p[offsetof(struct fabric_am_hdr, version)],
					  FABRIC_PROTO_VERSION, "bad magic", "header of another soft NIC version");
	if (err != DOCA_SUCCESS)
		return err;
	r = p[offsetof(struct fabric_am_hdr, type)] < SD_ARRAY_SIZE(am_rules)
		    ? &am_rules[p[offsetof(struct fabric_am_hdr, type)]]
		    : NULL;
	if (r == NULL || r->min_len == 0)
		return sd_wire_refuse(reason, "unknown message type");
	if (len < r->min_len)
		return sd_wire_refuse(reason, "header part shorter than its type's body");
	if (len > r->max_len)
		return sd_wire_refuse(reason, "header part longer than its type's body");
	if (out == NULL)
		out = &m;
	/*
	 * Straight into *out (every check passed): the header part, zeros up to
	 * the flag, the flag.  Fixed-size copies: most messages have no body.
	 */
	memcpy(&out->h, p, sizeof(out->h));
	memset(&out->u, 0, sizeof(out->u));
	if (len > sizeof(out->h))
		memcpy(&out->u, p + sizeof(out->h), len - sizeof(out->h));
	out->stranger_nak = r->stranger_nak;
	return DOCA_SUCCESS;
}

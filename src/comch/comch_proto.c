/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one parser of Comch records (comch_proto.h) and the header encoder.  The
 * parser trusts nothing: every length is checked against the record's length and
 * the protocol's limits before a byte of payload is read.
 */
#include <endian.h>
#include <string.h>

#include "comch_proto.h"

void
sd_comch_hdr_init(struct sd_comch_hdr *hdr, enum sd_comch_type type, uint32_t payload_len, uint32_t arg)
{
	hdr->magic = htole32(SD_COMCH_MAGIC);
	hdr->version = htole16(SD_COMCH_PROTO_VERSION);
	hdr->type = (uint8_t)type;
	hdr->flags = 0;
	hdr->total_len = htole32((uint32_t)sizeof(*hdr) + payload_len);
	hdr->arg = htole32(arg);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static doca_error_t
refuse(const char **reason, const char *why)
{
	if (reason != NULL)
		*reason = why;
	return DOCA_ERROR_INVALID_VALUE;
}

/* Payload of each type: exact size, or minimum size plus a variable tail checked later. */
static doca_error_t
parse_payload(struct sd_comch_msg *m, const char **reason)
{
	const uint8_t *p = m->payload;
	uint32_t n = m->payload_len;

	switch (m->type) {
	case SD_COMCH_HELLO:
		if (n < sizeof(struct sd_comch_hello))
			return refuse(reason, "HELLO shorter than its fixed part");
		m->u.hello.pid = get32(p);
		m->u.hello.max_msg = get32(p + 4);
		m->u.hello.recv_queue = get32(p + 8);
		m->u.hello.name_len = get32(p + 12);
		memcpy(m->u.hello.pci_addr, p + 16, sizeof(m->u.hello.pci_addr));
		if (m->u.hello.pci_addr[sizeof(m->u.hello.pci_addr) - 1] != '\0')
			return refuse(reason, "HELLO PCI address is not NUL-terminated");
		if (m->u.hello.name_len == 0 || m->u.hello.name_len >= SD_COMCH_MAX_NAME)
			return refuse(reason, "HELLO name length out of range");
		if (n != sizeof(struct sd_comch_hello) + m->u.hello.name_len)
			return refuse(reason, "HELLO length does not match its name length");
		if (m->u.hello.max_msg == 0 || m->u.hello.max_msg > SD_COMCH_MAX_MSG)
			return refuse(reason, "HELLO max message size out of range");
		if (m->u.hello.recv_queue == 0)
			return refuse(reason, "HELLO receive queue size is 0");
		if (memchr(p + sizeof(struct sd_comch_hello), '\0', m->u.hello.name_len) != NULL)
			return refuse(reason, "HELLO name contains a NUL");
		m->name = (const char *)p + sizeof(struct sd_comch_hello);
		break;
	case SD_COMCH_WELCOME:
		if (n != sizeof(struct sd_comch_welcome))
			return refuse(reason, "WELCOME has the wrong length");
		m->u.welcome.status = get32(p);
		m->u.welcome.max_msg = get32(p + 4);
		m->u.welcome.pid = get32(p + 8);
		m->u.welcome.conn_id = get32(p + 12);
		if (m->u.welcome.status == 0 && (m->u.welcome.max_msg == 0 || m->u.welcome.max_msg > SD_COMCH_MAX_MSG))
			return refuse(reason, "WELCOME max message size out of range");
		break;
	case SD_COMCH_MSG:
		if (n > SD_COMCH_MAX_MSG)
			return refuse(reason, "MSG longer than the protocol's maximum");
		break;
	case SD_COMCH_BYE:
	case SD_COMCH_CONSUMER_GONE:
		if (n != 0)
			return refuse(reason, "BYE / CONSUMER_GONE carry no payload");
		break;
	case SD_COMCH_CONSUMER_NEW:
		if (n != sizeof(struct sd_comch_consumer))
			return refuse(reason, "CONSUMER_NEW has the wrong length");
		m->u.consumer.ring_cap = get32(p);
		m->u.consumer.ring_addr = get64(p + 8);
		m->u.consumer.ring.rec_addr = get64(p + 16);
		memcpy(m->u.consumer.ring.key, p + 24, SD_XPROC_KEY_LEN);
		m->u.consumer.buf.rec_addr = get64(p + 40);
		memcpy(m->u.consumer.buf.key, p + 48, SD_XPROC_KEY_LEN);
		if (get32(p + 4) != 0)
			return refuse(reason, "CONSUMER_NEW reserved field is not 0");
		if (m->u.consumer.ring_cap == 0 || m->u.consumer.ring_cap > SD_COMCH_MAX_RING ||
		    (m->u.consumer.ring_cap & (m->u.consumer.ring_cap - 1)) != 0)
			return refuse(reason, "CONSUMER_NEW ring size is not a power of two in range");
		if (m->u.consumer.ring_addr == 0 || (m->u.consumer.ring_addr & 7) != 0)
			return refuse(reason, "CONSUMER_NEW ring address is 0 or misaligned");
		if (m->u.consumer.ring.rec_addr == 0 || (m->u.consumer.ring.rec_addr & 7) != 0 ||
		    m->u.consumer.buf.rec_addr == 0 || (m->u.consumer.buf.rec_addr & 7) != 0)
			return refuse(reason, "CONSUMER_NEW grant record address is 0 or misaligned");
		break;
	case SD_COMCH_FP_DATA:
		if (n < sizeof(struct sd_comch_fp_data))
			return refuse(reason, "FP_DATA shorter than its fixed part");
		m->u.data.len = get64(p);
		m->u.data.producer_id = get32(p + 8);
		m->u.data.imm_len = get32(p + 12);
		if (m->u.data.imm_len > SD_COMCH_MAX_IMM)
			return refuse(reason, "FP_DATA immediate data too long");
		if (n != sizeof(struct sd_comch_fp_data) + m->u.data.imm_len)
			return refuse(reason, "FP_DATA length does not match its immediate length");
		m->imm = p + sizeof(struct sd_comch_fp_data);
		break;
	default:
		return refuse(reason, "unknown record type");
	}
	if (m->type == SD_COMCH_CONSUMER_NEW || m->type == SD_COMCH_CONSUMER_GONE || m->type == SD_COMCH_FP_DATA) {
		if (m->arg == 0)
			return refuse(reason, "consumer id 0 is not valid");
	} else if (m->arg != 0) {
		return refuse(reason, "arg must be 0 for this record type");
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_parse(const void *buf, size_t len, struct sd_comch_msg *msg, const char **reason)
{
	const uint8_t *b = buf;
	struct sd_comch_msg m;
	doca_error_t err;

	if (buf == NULL || msg == NULL)
		return refuse(reason, "NULL record");
	if (len < sizeof(struct sd_comch_hdr))
		return refuse(reason, "record shorter than the header");
	if (len > SD_COMCH_MAX_RECORD)
		return refuse(reason, "record longer than the protocol's maximum");
	if (get32(b) != SD_COMCH_MAGIC)
		return refuse(reason, "bad magic (not a softdoca Comch record)");
	if ((uint16_t)(b[4] | b[5] << 8) != SD_COMCH_PROTO_VERSION) {
		if (reason != NULL)
			*reason = "unsupported protocol version (peer built from another softdoca)";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (b[7] != 0)
		return refuse(reason, "reserved flags are not 0");
	if (get32(b + 8) != len)
		return refuse(reason, "total_len does not match the record's length");
	memset(&m, 0, sizeof(m));
	m.type = (enum sd_comch_type)b[6];
	m.arg = get32(b + 12);
	m.payload = b + sizeof(struct sd_comch_hdr);
	m.payload_len = (uint32_t)(len - sizeof(struct sd_comch_hdr));
	err = parse_payload(&m, reason);
	if (err != DOCA_SUCCESS)
		return err;
	*msg = m;
	return DOCA_SUCCESS;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one parser of Comch records (comch_proto.h) and the header encoder.  The
 * parser trusts nothing: every length is checked against the record's length and
 * the protocol's limits before a byte of payload is read.
 */
#include <endian.h>
#include <string.h>

#include "comch_proto.h"
#include "../util/sd_wire.h"

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

static doca_error_t
parse_hello(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason)
{
	if (n < sizeof(struct sd_comch_hello))
		return sd_wire_refuse(reason, "HELLO shorter than its fixed part");
	m->u.hello.pid = sd_wire_le32(p);
	m->u.hello.max_msg = sd_wire_le32(p + 4);
	m->u.hello.recv_queue = sd_wire_le32(p + 8);
	m->u.hello.name_len = sd_wire_le32(p + 12);
	memcpy(m->u.hello.pci_addr, p + 16, sizeof(m->u.hello.pci_addr));
	if (m->u.hello.pci_addr[sizeof(m->u.hello.pci_addr) - 1] != '\0')
		return sd_wire_refuse(reason, "HELLO PCI address is not NUL-terminated");
	if (m->u.hello.name_len == 0 || m->u.hello.name_len >= SD_COMCH_MAX_NAME)
		return sd_wire_refuse(reason, "HELLO name length out of range");
	if (n != sizeof(struct sd_comch_hello) + m->u.hello.name_len)
		return sd_wire_refuse(reason, "HELLO length does not match its name length");
	if (m->u.hello.max_msg == 0 || m->u.hello.max_msg > SD_COMCH_MAX_MSG)
		return sd_wire_refuse(reason, "HELLO max message size out of range");
	if (m->u.hello.recv_queue == 0)
		return sd_wire_refuse(reason, "HELLO receive queue size is 0");
	if (memchr(p + sizeof(struct sd_comch_hello), '\0', m->u.hello.name_len) != NULL)
		return sd_wire_refuse(reason, "HELLO name contains a NUL");
	m->name = (const char *)p + sizeof(struct sd_comch_hello);
	return DOCA_SUCCESS;
}

static doca_error_t
parse_welcome(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason)
{
	if (n != sizeof(struct sd_comch_welcome))
		return sd_wire_refuse(reason, "WELCOME has the wrong length");
	m->u.welcome.status = sd_wire_le32(p);
	m->u.welcome.max_msg = sd_wire_le32(p + 4);
	m->u.welcome.pid = sd_wire_le32(p + 8);
	m->u.welcome.conn_id = sd_wire_le32(p + 12);
	if (m->u.welcome.status == 0 && (m->u.welcome.max_msg == 0 || m->u.welcome.max_msg > SD_COMCH_MAX_MSG))
		return sd_wire_refuse(reason, "WELCOME max message size out of range");
	return DOCA_SUCCESS;
}

static doca_error_t
parse_msg(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason)
{
	(void)m;
	(void)p;
	return n > SD_COMCH_MAX_MSG ? sd_wire_refuse(reason, "MSG longer than the protocol's maximum") : DOCA_SUCCESS;
}

static doca_error_t
parse_empty(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason)
{
	(void)m;
	(void)p;
	return n != 0 ? sd_wire_refuse(reason, "BYE / CONSUMER_GONE / FP_DOORBELL carry no payload") : DOCA_SUCCESS;
}

static doca_error_t
parse_consumer(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason)
{
	struct sd_comch_consumer_info *c = &m->u.consumer;

	if (n != sizeof(struct sd_comch_consumer))
		return sd_wire_refuse(reason, "CONSUMER_NEW has the wrong length");
	c->ring_cap = sd_wire_le32(p);
	c->ring_addr = sd_wire_le64(p + 8);
	c->ring.rec_addr = sd_wire_le64(p + 16);
	memcpy(c->ring.key, p + 24, SD_XPROC_KEY_LEN);
	c->buf.rec_addr = sd_wire_le64(p + 40);
	memcpy(c->buf.key, p + 48, SD_XPROC_KEY_LEN);
	if (!sd_wire_zero(p + 4, 4))
		return sd_wire_refuse(reason, "CONSUMER_NEW reserved field is not 0");
	if (c->ring_cap == 0 || c->ring_cap > SD_COMCH_MAX_RING || (c->ring_cap & (c->ring_cap - 1)) != 0)
		return sd_wire_refuse(reason, "CONSUMER_NEW ring size is not a power of two in range");
	if (c->ring_addr == 0 || (c->ring_addr & 7) != 0)
		return sd_wire_refuse(reason, "CONSUMER_NEW ring address is 0 or misaligned");
	if (c->ring.rec_addr == 0 || (c->ring.rec_addr & 7) != 0 || c->buf.rec_addr == 0 || (c->buf.rec_addr & 7) != 0)
		return sd_wire_refuse(reason, "CONSUMER_NEW grant record address is 0 or misaligned");
	return DOCA_SUCCESS;
}

static doca_error_t
parse_data(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason)
{
	if (n < sizeof(struct sd_comch_fp_data))
		return sd_wire_refuse(reason, "FP_DATA shorter than its fixed part");
	m->u.data.len = sd_wire_le64(p);
	m->u.data.producer_id = sd_wire_le32(p + 8);
	m->u.data.imm_len = sd_wire_le32(p + 12);
	if (m->u.data.imm_len > SD_COMCH_MAX_IMM)
		return sd_wire_refuse(reason, "FP_DATA immediate data too long");
	if (n != sizeof(struct sd_comch_fp_data) + m->u.data.imm_len)
		return sd_wire_refuse(reason, "FP_DATA length does not match its immediate length");
	m->imm = p + sizeof(struct sd_comch_fp_data);
	return DOCA_SUCCESS;
}

/* One row per record type: its payload's parser and whether arg names a consumer. */
static const struct {
	doca_error_t (*parse)(struct sd_comch_msg *m, const uint8_t *p, uint32_t n, const char **reason);
	bool consumer_arg;
} types[] = {
	[SD_COMCH_HELLO] = {parse_hello, false},
	[SD_COMCH_WELCOME] = {parse_welcome, false},
	[SD_COMCH_MSG] = {parse_msg, false},
	[SD_COMCH_BYE] = {parse_empty, false},
	[SD_COMCH_CONSUMER_NEW] = {parse_consumer, true},
	[SD_COMCH_CONSUMER_GONE] = {parse_empty, true},
	[SD_COMCH_FP_DATA] = {parse_data, true},
	[SD_COMCH_FP_DOORBELL] = {parse_empty, true},
};

static doca_error_t
parse_payload(struct sd_comch_msg *m, const char **reason)
{
	doca_error_t err;

	if ((unsigned)m->type >= SD_ARRAY_SIZE(types) || types[m->type].parse == NULL)
		return sd_wire_refuse(reason, "unknown record type");
	err = types[m->type].parse(m, m->payload, m->payload_len, reason);
	if (err != DOCA_SUCCESS)
		return err;
	if (types[m->type].consumer_arg && m->arg == 0)
		return sd_wire_refuse(reason, "consumer id 0 is not valid");
	if (!types[m->type].consumer_arg && m->arg != 0)
		return sd_wire_refuse(reason, "arg must be 0 for this record type");
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_parse(const void *buf, size_t len, struct sd_comch_msg *msg, const char **reason)
{
	const uint8_t *b = buf;
	struct sd_comch_msg m;
	doca_error_t err;

	if (buf == NULL || msg == NULL)
		return sd_wire_refuse(reason, "NULL record");
	if (len < sizeof(struct sd_comch_hdr))
		return sd_wire_refuse(reason, "record shorter than the header");
	if (len > SD_COMCH_MAX_RECORD)
		return sd_wire_refuse(reason, "record longer than the protocol's maximum");
	err = sd_wire_check_magic_version(reason, sd_wire_le32(b), SD_COMCH_MAGIC, sd_wire_le16(b + 4),
					  SD_COMCH_PROTO_VERSION, "bad magic (not a softdoca Comch record)",
					  "unsupported protocol version (peer built from another softdoca)");
	if (err != DOCA_SUCCESS)
		return err;
	if (b[7] != 0)
		return sd_wire_refuse(reason, "reserved flags are not 0");
	if (sd_wire_le32(b + 8) != len)
		return sd_wire_refuse(reason, "total_len does not match the record's length");
	memset(&m, 0, sizeof(m));
	m.type = (enum sd_comch_type)b[6];
	m.arg = sd_wire_le32(b + 12);
	m.payload = b + sizeof(struct sd_comch_hdr);
	m.payload_len = (uint32_t)(len - sizeof(struct sd_comch_hdr));
	err = parse_payload(&m, reason);
	if (err != DOCA_SUCCESS)
		return err;
	*msg = m;
	return DOCA_SUCCESS;
}

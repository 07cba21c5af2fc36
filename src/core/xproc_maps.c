/* SPDX-License-Identifier: BSD-3-Clause */
/* The parser of one /proc/<pid>/maps line (xproc_maps.h). */
#include <string.h>

#include "xproc_maps.h"

struct cursor {
	const char *p, *end;
};

/* Hexadecimal digits up to the next non-digit; at least one, at most 16. */
static bool
take_hex(struct cursor *c, uint64_t *v)
{
	unsigned int digits = 0;

	*v = 0;
	while (c->p < c->end) {
		char ch = *c->p;
		unsigned int d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned int)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned int)(ch - 'a' + 10);
		else
			break;
		if (++digits > 16)
			return false;
		*v = *v << 4 | d;
		c->p++;
	}
	return digits > 0;
}

/* Decimal digits, at most 20 and no overflow. */
static bool
take_dec(struct cursor *c, uint64_t *v)
{
	unsigned int digits = 0;

	*v = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		uint64_t d = (uint64_t)(*c->p - '0');

		if (++digits > 20 || *v > (UINT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
		c->p++;
	}
	return digits > 0;
}

static bool
take_char(struct cursor *c, char want)
{
	if (c->p >= c->end || *c->p != want)
		return false;
	c->p++;
	return true;
}

static bool
take_perms(struct cursor *c, struct sd_maps_ent *e)
{
	const char *q = c->p;

	if (c->end - q < 4 || (q[0] != 'r' && q[0] != '-') || (q[1] != 'w' && q[1] != '-') ||
	    (q[2] != 'x' && q[2] != '-') || (q[3] != 's' && q[3] != 'p'))
		return false;
	e->readable = q[0] == 'r';
	e->writable = q[1] == 'w';
	e->shared = q[3] == 's';
	c->p += 4;
	return true;
}

static doca_error_t
refuse(const char **reason, const char *why)
{
	if (reason != NULL)
		*reason = why;
	return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t
sd_maps_line_parse(const char *line, size_t n, struct sd_maps_ent *e, const char **reason)
{
	struct cursor c = {.p = line, .end = line + n};
	uint64_t major, minor;

	if (n > 0 && line[n - 1] == '\n')
		c.end--;
	if (!take_hex(&c, &e->start) || !take_char(&c, '-') || !take_hex(&c, &e->end) || e->end <= e->start)
		return refuse(reason, "no address range");
	if (!take_char(&c, ' ') || !take_perms(&c, e))
		return refuse(reason, "no permissions");
	if (!take_char(&c, ' ') || !take_hex(&c, &e->off))
		return refuse(reason, "no offset");
	if (!take_char(&c, ' ') || !take_hex(&c, &major) || !take_char(&c, ':') || !take_hex(&c, &minor) ||
	    major > UINT32_MAX || minor > UINT32_MAX)
		return refuse(reason, "no device");
	e->dev_major = (uint32_t)major;
	e->dev_minor = (uint32_t)minor;
	if (!take_char(&c, ' ') || !take_dec(&c, &e->ino))
		return refuse(reason, "no inode");
	e->path = NULL;
	e->path_len = 0;
	if (c.p == c.end)
		return DOCA_SUCCESS;
	if (*c.p != ' ')
		return refuse(reason, "junk after the inode");
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	if (c.p < c.end) {
		e->path = c.p;
		e->path_len = (size_t)(c.end - c.p);
		if (memchr(e->path, '\n', e->path_len) != NULL || memchr(e->path, '\0', e->path_len) != NULL)
			return refuse(reason, "a path with a newline or NUL");
	}
	return DOCA_SUCCESS;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer lists as flat byte ranges for the engines (accel_internal.h).  One
 * segment is used in place, which is the case DOCA programs measure; a list is
 * gathered into or scattered from one bounce buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "sd_core.h"

uint64_t
sd_accel_list_data_len(const struct doca_buf *list)
{
	uint64_t n = 0;

	for (const struct doca_buf *seg = list; seg != NULL; seg = sd_buf_next(seg))
		n += sd_buf_data_len(seg);
	return n;
}

uint64_t
sd_accel_list_tail_room(const struct doca_buf *list)
{
	uint64_t n = 0;

	for (const struct doca_buf *seg = list; seg != NULL; seg = sd_buf_next(seg))
		n += sd_buf_tail_room(seg);
	return n;
}

bool
sd_accel_src_open(struct sd_accel_src *s, const struct doca_buf *list)
{
	uint8_t *p;

	s->bounce = NULL;
	if (sd_buf_next(list) == NULL) {
		s->p = sd_buf_data(list);
		s->len = sd_buf_data_len(list);
		return true;
	}
	s->len = sd_accel_list_data_len(list);
	p = malloc(s->len > 0 ? s->len : 1);
	if (p == NULL)
		return false;
	s->bounce = p;
	s->p = p;
	for (const struct doca_buf *seg = list; seg != NULL; seg = sd_buf_next(seg)) {
		memcpy(p, sd_buf_data(seg), sd_buf_data_len(seg));
		p += sd_buf_data_len(seg);
	}
	return true;
}

void
sd_accel_src_close(struct sd_accel_src *s)
{
	free(s->bounce);
	s->bounce = NULL;
}

bool
sd_accel_dst_open(struct sd_accel_dst *d, struct doca_buf *list)
{
	d->list = list;
	d->bounce = NULL;
	if (sd_buf_next(list) == NULL) {
		d->p = sd_buf_data(list) + sd_buf_data_len(list);
		d->cap = sd_buf_tail_room(list);
		return true;
	}
	d->cap = sd_accel_list_tail_room(list);
	d->bounce = malloc(d->cap > 0 ? d->cap : 1);
	d->p = d->bounce;
	return d->bounce != NULL;
}

void
sd_accel_dst_commit(struct sd_accel_dst *d, uint64_t n)
{
	const uint8_t *from = d->bounce;

	if (d->bounce == NULL) {
		sd_buf_add_data_len(d->list, n);
		return;
	}
	for (struct doca_buf *seg = d->list; seg != NULL && n > 0; seg = sd_buf_next(seg)) {
		uint64_t room = sd_buf_tail_room(seg), k = n < room ? n : room;

		memcpy(sd_buf_data(seg) + sd_buf_data_len(seg), from, k);
		sd_buf_add_data_len(seg, k);
		from += k;
		n -= k;
	}
	sd_accel_dst_close(d);
}

void
sd_accel_dst_close(struct sd_accel_dst *d)
{
	free(d->bounce);
	d->bounce = NULL;
}

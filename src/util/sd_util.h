/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers every softdoca module uses: container_of, array sizes,
 * min/max and an intrusive doubly linked list.
 */
#ifndef SD_UTIL_H_
#define SD_UTIL_H_

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Mark a softdoca-internal function that another softdoca library calls (for
 * example libdoca_dma calling the task engine of libdoca_common).  Such symbols
 * are exported in the private SOFTDOCA_INTERNAL version node, never in the DOCA
 * one, the way DPDK exports __rte_internal symbols.  Applications must not use them.
 */
#define SD_EXPORT __attribute__((visibility("default")))

#define SD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define sd_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

#define SD_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SD_MAX(a, b) ((a) > (b) ? (a) : (b))

#define sd_likely(x) __builtin_expect(!!(x), 1)
#define sd_unlikely(x) __builtin_expect(!!(x), 0)

/* Intrusive circular doubly linked list with a sentinel head. */
struct sd_list {
	struct sd_list *prev;
	struct sd_list *next;
};

#define SD_LIST_INIT(name)                                                                                             \
	{                                                                                                              \
		&(name), &(name)                                                                                       \
	}

static inline void
sd_list_init(struct sd_list *head)
{
	head->prev = head;
	head->next = head;
}

static inline bool
sd_list_empty(const struct sd_list *head)
{
	return head->next == head;
}

static inline void
sd_list_insert_tail(struct sd_list *head, struct sd_list *elem)
{
	elem->prev = head->prev;
	elem->next = head;
	head->prev->next = elem;
	head->prev = elem;
}

static inline void
sd_list_insert_head(struct sd_list *head, struct sd_list *elem)
{
	elem->next = head->next;
	elem->prev = head;
	head->next->prev = elem;
	head->next = elem;
}

static inline void
sd_list_del(struct sd_list *elem)
{
	elem->prev->next = elem->next;
	elem->next->prev = elem->prev;
	elem->prev = elem;
	elem->next = elem;
}

static inline struct sd_list *
sd_list_pop_head(struct sd_list *head)
{
	struct sd_list *elem = head->next;

	if (elem == head)
		return NULL;
	sd_list_del(elem);
	return elem;
}

/* Move every element of src to the empty list dst, leaving src empty. */
static inline void
sd_list_move_all(struct sd_list *dst, struct sd_list *src)
{
	if (sd_list_empty(src)) {
		sd_list_init(dst);
		return;
	}
	dst->next = src->next;
	dst->prev = src->prev;
	dst->next->prev = dst;
	dst->prev->next = dst;
	sd_list_init(src);
}

/*
 * Compare secrets (keys) in constant time: how long it takes says nothing
 * about where they differ.  Eight bytes a step (a key check is on every
 * direct copy); the empty asm keeps the compiler from leaving the loop at the
 * first difference.
 */
static inline bool
sd_secret_equal(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;
	uint64_t d = 0;
	size_t i = 0;

	for (; i + sizeof(uint64_t) <= len; i += sizeof(uint64_t)) {
		uint64_t u, v;

		memcpy(&u, x + i, sizeof(u));
		memcpy(&v, y + i, sizeof(v));
		d |= u ^ v;
		__asm__ __volatile__("" : "+r"(d));
	}
	for (; i < len; i++) {
		d |= (uint64_t)(x[i] ^ y[i]);
		__asm__ __volatile__("" : "+r"(d));
	}
	return d == 0;
}

#define sd_list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

#define sd_list_for_each_safe(pos, tmp, head)                                                                          \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); (pos) = (tmp), (tmp) = (pos)->next)

#endif /* SD_UTIL_H_ */

/* SPDX-License-Identifier: BSD-3-Clause */
/* The pointer map of sd_ptab.h. */
#include <errno.h>
#include <stdlib.h>

#include "sd_ptab.h"

static uint32_t
ptab_slot(const struct sd_ptab *t, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (t->cap - 1);
}

void *
sd_ptab_get(const struct sd_ptab *t, uint64_t key)
{
	if (t->cap == 0)
		return NULL;
	for (uint32_t i = ptab_slot(t, key);; i = (i + 1) & (t->cap - 1)) {
		if (t->keys[i] == key)
			return t->vals[i];
		if (t->keys[i] == 0)
			return NULL;
	}
}

static int
ptab_grow(struct sd_ptab *t)
{
	struct sd_ptab bigger = {.cap = t->cap == 0 ? 64 : t->cap * 2};

	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (bigger.keys == NULL || bigger.vals == NULL) {
		free(bigger.keys);
		free(bigger.vals);
		return ENOMEM;
	}
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->keys[i] != 0)
			sd_ptab_put(&bigger, t->keys[i], t->vals[i]);
	free(t->keys);
	free(t->vals);
	*t = bigger;
	return 0;
}

int
sd_ptab_put(struct sd_ptab *t, uint64_t key, void *val)
{
	uint32_t i;

	if ((t->n + 1) * 2 > t->cap && ptab_grow(t) != 0)
		return ENOMEM;
	for (i = ptab_slot(t, key); t->keys[i] != 0 && t->keys[i] != key; i = (i + 1) & (t->cap - 1))
		;
	if (t->keys[i] == 0)
		t->n++;
	t->keys[i] = key;
	t->vals[i] = val;
	return 0;
}

/* Linear probing delete: move later members of the run back so no lookup stops early. */
void
sd_ptab_del(struct sd_ptab *t, uint64_t key)
{
	uint32_t i, j, home;

	if (t->cap == 0)
		return;
	for (i = ptab_slot(t, key); t->keys[i] != key; i = (i + 1) & (t->cap - 1))
		if (t->keys[i] == 0)
			return;
	t->keys[i] = 0;
	t->n--;
	for (j = (i + 1) & (t->cap - 1); t->keys[j] != 0; j = (j + 1) & (t->cap - 1)) {
		home = ptab_slot(t, t->keys[j]);
		/* keys[j] may move to the hole i if its home is not in (i, j] (cyclically) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->keys[i] = t->keys[j];
			t->vals[i] = t->vals[j];
			t->keys[j] = 0;
			i = j;
		}
	}
}

#define PTR_KEY(p) ((uint64_t)(uintptr_t)(p))

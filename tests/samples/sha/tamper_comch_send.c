/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A man in the middle for File Integrity's test, loaded with LD_PRELOAD into the
 * host client: the SD_TAMPER_MSG-th message (1-based) the client sends over Comch
 * leaves with its byte SD_TAMPER_BYTE flipped, as a corrupted link would deliver
 * it.  Every other call goes to libdoca_comch unchanged.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_comch.h>

typedef doca_error_t (*send_alloc_fn)(struct doca_comch_client *, struct doca_comch_connection *, const void *,
				      uint32_t, struct doca_comch_task_send **);

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client, struct doca_comch_connection *peer,
				       const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	static send_alloc_fn real;
	static unsigned long sent; /* messages allocated so far (a retried allocation counts once) */
	const char *which = getenv("SD_TAMPER_MSG"), *at = getenv("SD_TAMPER_BYTE");
	unsigned long off = at != NULL ? strtoul(at, NULL, 0) : 0;
	uint8_t *copy = NULL;
	doca_error_t result;

	if (real == NULL)
		real = (send_alloc_fn)dlsym(RTLD_NEXT, "doca_comch_client_task_send_alloc_init");
	if (real == NULL)
		return DOCA_ERROR_NOT_FOUND;
	if (which != NULL && sent + 1 == strtoul(which, NULL, 0) && off < len) {
		copy = malloc(len);
		if (copy == NULL)
			return DOCA_ERROR_NO_MEMORY;
		memcpy(copy, msg, len);
		copy[off] ^= 0x01;
	}
	result = real(comch_client, peer, copy != NULL ? copy : msg, len, task);
	if (result == DOCA_SUCCESS)
		sent++; /* the library may read a tampered copy until the send completes: it stays */
	else
		free(copy);
	return result;
}

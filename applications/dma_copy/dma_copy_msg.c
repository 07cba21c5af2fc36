/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA Copy's messages, for both sides: the inbox the Comch receive callback
 * fills, the main loop that hands each message to its side's handler, and the
 * STATUS message that ends a copy.
 */
#include <string.h>
#include <unistd.h>

#include <doca_log.h>

#include "comch_utils.h"
#include "dma_copy_core.h"

DOCA_LOG_REGISTER(DMA_COPY_MSG);

void
dma_copy_inbox_recv(void *inbox, const uint8_t *msg, uint32_t len)
{
	struct dma_copy_inbox *in = inbox;

	if (len > sizeof(in->msg) || in->full) {
		DOCA_LOG_ERR("Unexpected message of %u bytes from the %s", len, in->peer);
		in->broken = true;
		return;
	}
	memcpy(in->msg, msg, len);
	in->len = len;
	in->full = true;
}

doca_error_t
dma_copy_serve(struct comch_channel *ch, struct dma_copy_inbox *in, void (*handle)(void *st), void *st,
	       const bool *done, const char *lost)
{
	while (!*done) {
		if (in->broken)
			return DOCA_ERROR_UNEXPECTED;
		if (in->full) {
			handle(st);
			continue;
		}
		if (!comch_channel_connected(ch)) {
			DOCA_LOG_ERR("Failure was detected in dma copy: %s", lost);
			return DOCA_ERROR_CONNECTION_ABORTED;
		}
		if (comch_channel_progress(ch) == 0)
			usleep(10);
	}
	return DOCA_SUCCESS;
}

void
dma_copy_send_status(struct comch_channel *ch, const struct dma_copy_inbox *in, bool ok)
{
	struct comch_msg_dma_status m = {.type = COMCH_MSG_STATUS, .is_success = ok};

	if (comch_channel_send(ch, &m, sizeof(m)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to send the status message to the %s", in->peer);
}

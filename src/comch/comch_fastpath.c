/* SPDX-License-Identifier: BSD-3-Clause */
/* Fast-path hooks of the connection code (producer / consumer state per connection). */
#include "../core/sd_log.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.fastpath);

unsigned
sd_comch_fp_record(struct doca_comch_connection *conn, const struct sd_comch_msg *msg)
{
	DOCA_LOG_DBG("Comch fast-path record %d ignored: no producer/consumer support", (int)msg->type);
	return 0;
}

void
sd_comch_fp_conn_closed(struct doca_comch_connection *conn)
{
}

void
sd_comch_fp_conn_free(struct doca_comch_connection *conn)
{
}

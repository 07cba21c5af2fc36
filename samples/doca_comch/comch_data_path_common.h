/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast-path half of the high-speed data-path samples, shared by server and
 * client: receive one message with a consumer, send one with a producer, each
 * on its own PE while the connection's PE keeps being progressed.
 */
#ifndef COMCH_DATA_PATH_COMMON_H_
#define COMCH_DATA_PATH_COMMON_H_

#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_pe.h>

#define DATA_PATH_SERVER_NAME "comch_data_path_sample_server"
#define DATA_PATH_START "start_data_path_test"
#define DATA_PATH_STOP "stop_data_path_test"
#define DATA_PATH_BUF_SIZE (1024 * 1024)
#define DATA_PATH_NUM_TASKS 2

struct data_path {
	struct doca_dev *dev;
	struct doca_pe *conn_pe; /* the client's / server's PE */
	struct doca_comch_connection *conn;
	volatile uint32_t remote_consumer_id; /* from the new-consumer event; 0xffff: abort */
};

/* Consumer event callbacks of the client / server: they find the data_path through the ctx user data. */
void data_path_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id);
void data_path_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn,
				uint32_t id);
/* Where data_path_new_consumer() finds the data_path (the sample's state embeds it first). */
struct data_path *data_path_of_conn(struct doca_comch_connection *conn);

/* Receive one message with a consumer and log it. */
doca_error_t data_path_receive(struct data_path *dp);
/* Wait for the peer's consumer and send len bytes of text to it with a producer. */
doca_error_t data_path_send(struct data_path *dp, const char *text, uint32_t len);

#endif /* COMCH_DATA_PATH_COMMON_H_ */

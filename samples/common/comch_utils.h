/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A one-connection Comch channel for programs that negotiate over Comch and
 * then do their real work elsewhere (DMA Copy, Secure Channel, the PCI sync-event samples): a
 * server on the DPU accepting one client, or a client on the host, with a PE,
 * blocking-style helpers to wait for the connection and to send a message, and
 * callbacks for received messages and for the peer's fast-path consumers.  Only
 * the public DOCA API is used.
 */
#ifndef SAMPLES_COMCH_UTILS_H_
#define SAMPLES_COMCH_UTILS_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

struct comch_channel;

/* A message arrived (valid during the call only). */
typedef void (*comch_channel_recv_cb)(void *arg, const uint8_t *msg, uint32_t len);
/* The peer started (new) or stopped (expired) a fast-path consumer with this id. */
typedef void (*comch_channel_consumer_cb)(void *arg, uint32_t id);

struct comch_channel_cfg {
	const char *name;	  /* service name */
	bool server;		  /* DPU server (true) or host client */
	const char *pci_addr;	  /* the Comch device (-p) */
	const char *rep_pci_addr; /* server: representor of the host function (-r) */
	uint32_t max_msg_size;	  /* 0: the device's maximum */
	uint32_t recv_queue_size; /* 0: the library's default */
	uint32_t num_send_tasks;  /* >= 1 */
	comch_channel_recv_cb recv_cb;
	/* Both or neither: the peer's consumers, for producers on the connection. */
	comch_channel_consumer_cb consumer_new_cb;
	comch_channel_consumer_cb consumer_expired_cb;
	void *cb_arg;
};

/* Open the device(s), create and start the server or client. */
doca_error_t comch_channel_create(const struct comch_channel_cfg *cfg, struct comch_channel **ch);

/*
 * Progress until the connection is up (server: a client connected; client: RUNNING),
 * or timeout_sec passed (0: wait forever) -> TIME_OUT, or the context stopped -> NOT_CONNECTED.
 */
doca_error_t comch_channel_wait_connected(struct comch_channel *ch, unsigned timeout_sec);

/* Send len bytes; waits (progressing) while the queue is full.  NOT_CONNECTED once the peer left. */
doca_error_t comch_channel_send(struct comch_channel *ch, const void *msg, uint32_t len);

/* One doca_pe_progress() of the channel's PE. */
uint8_t comch_channel_progress(struct comch_channel *ch);

/* Is the connection still up? */
bool comch_channel_connected(const struct comch_channel *ch);

/* Server: progress until the client disconnected or timeout_sec passed (TIME_OUT; 0: forever). */
doca_error_t comch_channel_wait_disconnected(struct comch_channel *ch, unsigned timeout_sec);

/* The Comch device and the largest message the channel carries. */
struct doca_dev *comch_channel_dev(const struct comch_channel *ch);
uint32_t comch_channel_max_msg_size(const struct comch_channel *ch);

/* For the fast path: the connection (NULL until up) and the PE its producers and consumers may share. */
struct doca_comch_connection *comch_channel_connection(const struct comch_channel *ch);
struct doca_pe *comch_channel_pe(const struct comch_channel *ch);

/* Stop the context (progress until IDLE), destroy everything, close the devices. */
doca_error_t comch_channel_destroy(struct comch_channel *ch);

#endif /* SAMPLES_COMCH_UTILS_H_ */

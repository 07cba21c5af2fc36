/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test fixture of the Comch contract tests: a server (DPU function 03:00.0 with
 * the representor of b1:00.0) and clients (host function b1:00.0), each with its
 * own PE, in a private runtime directory; callbacks record what they saw.
 */
#ifndef COMCH_PAIR_H_
#define COMCH_PAIR_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sd_test.h"

#define PAIR_NAME "comch_test_service"
#define LOG_MAX 4096

/* One line per callback, in order: "S:connect", "C:recv:<bytes>", "C:send_ok", ... */
struct cb_log {
	char lines[LOG_MAX][48];
	int n;
};

struct side {
	struct doca_pe *pe;
	struct doca_ctx *ctx;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn; /* server: last connected; client: its own */
	enum doca_ctx_states state;
	int transitions[8]; /* states entered, in order */
	int num_transitions;
	int num_connect, num_disconnect, num_recv, num_send_ok, num_send_err;
	doca_error_t last_send_status;
	uint8_t last_msg[4096];
	uint32_t last_len;
	struct cb_log *log;
	char tag;   /* 'S' or 'C' */
	bool reply; /* server: answer every message with the same bytes */
};

void pair_env(void);
struct doca_dev *open_dev(const char *pci);
struct doca_dev_rep *open_rep(struct doca_dev *dpu, const char *pci);
void server_init(struct side *s, struct doca_dev *dev, struct doca_dev_rep *rep, const char *name);
void client_init(struct side *c, struct doca_dev *dev, const char *name);
void side_fini(struct side *x);
/* Progress every side given until cond(arg) holds; fails the test after ms milliseconds. */
/*
 * The fast-path pair: the host's and the DPU's devices, a server on the DPU and
 * a client on the host connected (both RUNNING); the client hears of the
 * server's consumers through new_cb and gone_cb.
 */
void pair_connect_fastpath(struct side *s, struct side *c, struct doca_dev **host, struct doca_dev **dpu,
			   struct doca_dev_rep **rep, doca_comch_event_consumer_cb_t new_cb,
			   doca_comch_event_consumer_cb_t gone_cb);
void progress_until(struct side **sides, int n, bool (*cond)(void *), void *arg, int ms);
/* Producer send callbacks: count the completions, keep the last failure's status, free the task. */
extern int pair_fp_sends_ok, pair_fp_sends_err;
extern doca_error_t pair_fp_send_status;
void pair_fp_send_ok(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud);
void pair_fp_send_err(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud);
void progress_for(struct side **sides, int n, int ms);
doca_error_t side_send(struct side *x, struct doca_comch_connection *conn, const void *msg, uint32_t len);
void pair_send_ok(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud);
void pair_send_err(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud);
void log_line(struct cb_log *log, char tag, const char *what);
/* A started mmap of len bytes at mem on dev, PCI read/write. */
struct doca_mmap *pair_mmap(struct doca_dev *dev, void *mem, size_t len);
/* Stop a fast-path context and progress its PE until IDLE (fails the test otherwise). */
void pair_stop_idle(struct side *x);

#endif /* COMCH_PAIR_H_ */

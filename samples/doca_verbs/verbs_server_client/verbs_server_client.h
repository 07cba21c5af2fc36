/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_server_client: one RC QP between two processes, set up over a TCP
 * connection on port 5000; the client sends, writes or reads -n messages of -s
 * bytes and the server checks what arrived.
 */
#ifndef VERBS_SERVER_CLIENT_H_
#define VERBS_SERVER_CLIENT_H_

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

#define VERBS_OOB_PORT 5000		  /* TCP port of the out-of-band exchange */
#define VERBS_DEFAULT_BUF_SIZE 64	  /* -s: bytes per message */
#define VERBS_MIN_BUF_SIZE 4		  /* a message starts with its 32-bit number */
#define VERBS_MAX_ITERS 10000		  /* -n upper bound */
#define VERBS_MAX_TOTAL_SIZE (1ULL << 30) /* -s x -n: the registered buffer */
#define VERBS_MIN_RQ_WR 4		  /* receive queue depth floor */

enum verbs_oper {
	VERBS_OPER_SEND,
	VERBS_OPER_WRITE,
	VERBS_OPER_READ,
};

struct verbs_config {
	char device_name[DOCA_DEVINFO_IBDEV_NAME_SIZE]; /* -d, mandatory */
	char server_ip[INET_ADDRSTRLEN];		/* -c: set in the client only */
	bool is_client;
	uint32_t gid_index;   /* -gid */
	enum verbs_oper oper; /* -ro */
	uint32_t buf_size;    /* -s */
	uint32_t qp_type;     /* -qt: DOCA_VERBS_QP_TYPE_RC */
	uint32_t iters;	      /* -n */
	bool send_burst;      /* -b: no burst-size prompt */
};

/* "send", "write" or "read". */
const char *verbs_oper_name(enum verbs_oper oper);

/* Run the server (cfg->is_client false) or the client side to the end. */
doca_error_t verbs_server_client(const struct verbs_config *cfg);

#endif /* VERBS_SERVER_CLIENT_H_ */

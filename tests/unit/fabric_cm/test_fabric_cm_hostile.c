/* SPDX-License-Identifier: BSD-3-Clause */
/* The connection manager against hostile handshake bytes and bad arguments. */
#include "cm_fixture.h"

/* ---- hostile bytes ---- */

/*
 * A raw UCX client (not fabric_cm) sends garbage on the CM's AM id: the server
 * refuses it without an event and keeps serving real clients.
 */
static void
body_hostile(struct fabric_cm *cm, struct rec *r)
{
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_ESTABLISHED, 1, 8000) == 1);
	CHECK(r->ev[0].type == FABRIC_CM_EVENT_REQUEST);
	CHECK(r->ev[0].peer_id == 4242);
	pump_for(cm, 300);
	sd_fabric_cm_conn_destroy(r->ev[0].conn);
}

/* What the raw client heard back: the REJECT reason (0: nothing, -1: not a valid message). */
static int raw_reason;

static ucs_status_t
raw_am(void *arg, const void *header, size_t header_length, void *data, size_t length, const ucp_am_recv_param_t *param)
{
	struct fabric_cm_msg m;

	(void)arg;
	(void)header;
	(void)header_length;
	(void)param;
	if (fabric_cm_msg_parse(data, length, &m) != DOCA_SUCCESS || m.type != FABRIC_CM_MSG_REJECT)
		raw_reason = -1;
	else
		raw_reason = m.reason;
	return UCS_OK;
}

static void
raw_err(void *arg, ucp_ep_h ep, ucs_status_t st)
{
	(void)ep;
	(void)st;
	*(int *)arg = 1;
}

TEST(hostile_handshake_refused)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	struct sockaddr_in a;
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_config_t *config;
	ucp_params_t pp = {0};
	ucp_worker_params_t wp = {0};
	uint16_t port;
	pid_t pid;
	int k, errs[4] = {0};

	pid = fork_server(SRV_ACCEPT, 0, body_hostile, &port);
	a = loopback(port);
	ASSERT_EQ(ucp_config_read(NULL, NULL, &config), UCS_OK);
	ucp_config_modify(config, "TLS", "tcp");
	ucp_config_modify(config, "SOCKADDR_TLS_PRIORITY", "tcp");
	pp.field_mask = UCP_PARAM_FIELD_FEATURES;
	pp.features = UCP_FEATURE_AM;
	ASSERT_EQ(ucp_init(&pp, config, &ctx), UCS_OK);
	ucp_config_release(config);
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SINGLE;
	ASSERT_EQ(ucp_worker_create(ctx, &wp, &w), UCS_OK);
	{
		/* UCX 1.13 crashes on a reply to an AM id nobody registered */
		ucp_am_handler_param_t am = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
							   UCP_AM_HANDLER_PARAM_FIELD_CB |
							   UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
					     .id = FABRIC_CM_AM_ID,
					     .flags = UCP_AM_FLAG_WHOLE_MSG,
					     .cb = raw_am};

		ASSERT_EQ(ucp_worker_set_am_recv_handler(w, &am), UCS_OK);
	}
	for (k = 0; k < 4; k++) {
		static const int expect_reason[4] = {FABRIC_CM_REJ_PROTOCOL, FABRIC_CM_REJ_VERSION,
						     FABRIC_CM_REJ_PROTOCOL, FABRIC_CM_REJ_PROTOCOL};
		ucp_ep_params_t ep = {0};
		ucp_request_param_t prm = {0};
		ucp_ep_h e;
		uint8_t junk[64];
		size_t len = sizeof(junk);
		void *req;
		uint64_t end;

		memset(junk, 0x41 + k, sizeof(junk));
		if (k == 1) { /* good magic, future version */
			len = fabric_cm_msg_build(junk, sizeof(junk), FABRIC_CM_MSG_REQUEST, 5, 1, 0, NULL, 0, "x", 1);
			((struct fabric_cm_hdr *)(void *)junk)->version = 9;
		} else if (k == 2) { /* a length that lies */
			len = fabric_cm_msg_build(junk, sizeof(junk), FABRIC_CM_MSG_REQUEST, 5, 1, 0, NULL, 0, "x", 1);
			((struct fabric_cm_hdr *)(void *)junk)->desc_len = 4000;
		} else if (k == 3) { /* an ACCEPT to a server */
			len = fabric_cm_msg_build(junk, sizeof(junk), FABRIC_CM_MSG_ACCEPT, 5, 1, 0, NULL, 0, "x", 1);
		}
		ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
				UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
		ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
		ep.sockaddr.addr = (struct sockaddr *)&a;
		ep.sockaddr.addrlen = sizeof(a);
		ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
		ep.err_handler.cb = raw_err;
		ep.err_handler.arg = &errs[k];
		raw_reason = 0;
		ASSERT_EQ(ucp_ep_create(w, &ep, &e), UCS_OK);
		prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
		req = ucp_am_send_nbx(e, FABRIC_CM_AM_ID, NULL, 0, junk, len, &prm);
		ASSERT(!UCS_PTR_IS_ERR(req));
		end = now_ms() + 3000;
		while (req != NULL && ucp_request_check_status(req) == UCS_INPROGRESS && now_ms() < end)
			ucp_worker_progress(w);
		if (req != NULL)
			ucp_request_free(req);
		/* the server drops the connection after refusing the bytes */
		end = now_ms() + 3000;
		while (!errs[k] && now_ms() < end)
			ucp_worker_progress(w);
		ASSERT_EQ(errs[k], 1);
		ASSERT_EQ(raw_reason, expect_reason[k]);
		{
			ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
						  .flags = UCP_EP_CLOSE_FLAG_FORCE};
			req = ucp_ep_close_nbx(e, &cp);
			while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS)
				ucp_worker_progress(w);
			if (UCS_PTR_IS_PTR(req))
				ucp_request_free(req);
		}
	}
	ucp_worker_destroy(w);
	ucp_cleanup(ctx);
	/* the server still serves a real client */
	cm = make_cm(&r, 3000, 0);
	c = client_connect(cm, port, 4242);
	r.client_confirms = true;
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_ACCEPTED, 1, 5000), 1);
	sd_test_reap(pid);
	sd_fabric_cm_conn_destroy(c);
	sd_fabric_cm_destroy(cm);
}

TEST(argument_refusals)
{
	struct rec r = {0};
	struct fabric_cm_attr bad = {0};
	struct fabric_cm *cm = NULL;
	struct fabric_cm_conn *c = NULL;
	struct sockaddr_in a = loopback(1);
	struct sockaddr un = {.sa_family = AF_UNIX};
	uint8_t big[FABRIC_CM_DESC_MAX + 1] = {0};

	ASSERT_ERR(sd_fabric_cm_create(&bad, &cm), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_create(NULL, &cm), DOCA_ERROR_INVALID_VALUE);
	cm = make_cm(&r, 0, 0);
	ASSERT_ERR(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), 1, NULL, 0, NULL, &c),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), 1, big, sizeof(big), NULL, &c),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_connect(cm, &un, sizeof(un), 1, "x", 1, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_accept(NULL, 1, NULL, 0, "x", 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_reject(NULL, FABRIC_CM_REJECT_APP), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_listen(cm, &un, sizeof(un), NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT(c == NULL);
	sd_fabric_cm_destroy(cm);
}

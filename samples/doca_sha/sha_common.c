/* SPDX-License-Identifier: BSD-3-Clause */
/* What the two SHA samples share (sha_common.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sample_params.h"
#include "sha_common.h"

DOCA_LOG_REGISTER(SHA_COMMON);

#define SLEEP_IN_NANOS (10 * 1000) /* an idle progress loop naps this long */

/* The mmap's free callback: the destination memory goes with its mmap. */
static void
free_cb(void *addr, size_t len, void *opaque)
{
	(void)len;
	(void)opaque;
	free(addr);
}

static void
state_changed_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev_state,
		 enum doca_ctx_states next_state)
{
	struct sha_resources *r = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("SHA context has been stopped");
		r->run_main_loop = false;
		break;
	case DOCA_CTX_STATE_STARTING:
		/* A SHA context has nothing to connect: it goes straight to RUNNING. */
		DOCA_LOG_ERR("SHA context entered into starting state. Unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("SHA context is running");
		break;
	case DOCA_CTX_STATE_STOPPING:
		/* Only a failed task gets here: progress flushes the rest, then IDLE. */
		DOCA_LOG_ERR("SHA context entered into stopping state. All inflight tasks will be flushed");
		break;
	default:
		break;
	}
}

doca_error_t
sha_sample_open(struct sha_resources *r, tasks_check is_supported, const char *what)
{
	struct program_core_objects *state = &r->state;
	doca_error_t result;

	result = open_doca_device_with_capabilities(is_supported, &state->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to open DOCA device for SHA %s task: %s", what, doca_error_get_descr(result));
		return result;
	}
	result = doca_sha_create(state->dev, &r->sha_ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create sha engine: %s", doca_error_get_descr(result));
		goto cleanup;
	}
	state->ctx = doca_sha_as_ctx(r->sha_ctx);
	result = create_core_objects(state, 2);
	if (result != DOCA_SUCCESS)
		goto cleanup;
	result = doca_pe_connect_ctx(state->pe, state->ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect progress engine to context: %s", doca_error_get_descr(result));
		goto cleanup;
	}
	result = doca_ctx_set_state_changed_cb(state->ctx, state_changed_cb);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to set SHA state change callback: %s", doca_error_get_descr(result));
		goto cleanup;
	}
	return DOCA_SUCCESS;

cleanup:
	sha_sample_cleanup(r);
	return result;
}

doca_error_t
sha_sample_dst(struct sha_resources *r, size_t size, struct doca_buf **dst)
{
	struct program_core_objects *state = &r->state;
	uint8_t *mem = calloc(1, size);
	doca_error_t result;

	if (mem == NULL) {
		DOCA_LOG_ERR("Failed to allocate memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	result = doca_mmap_set_memrange(state->dst_mmap, mem, size);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_free_cb(state->dst_mmap, free_cb, NULL);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to set the destination memory map's range: %s", doca_error_get_descr(result));
		free(mem);
		return result;
	}
	/* From here the mmap owns mem: its destruction frees it, started or not. */
	result = doca_mmap_start(state->dst_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to start the destination memory map: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_buf_inventory_buf_get_by_addr(state->buf_inv, state->dst_mmap, mem, size, dst);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Unable to acquire DOCA buffer representing destination buffer: %s",
			     doca_error_get_descr(result));
	return result;
}

doca_error_t
sha_sample_src_mmap(struct sha_resources *r, const char *data, size_t len)
{
	doca_error_t result = doca_mmap_set_memrange(r->state.src_mmap, (void *)(uintptr_t)data, len);

	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(r->state.src_mmap);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Unable to start the source memory map: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
sha_sample_start(struct sha_resources *r)
{
	union doca_data ctx_user_data = {.ptr = r};
	doca_error_t result;

	result = doca_ctx_set_user_data(r->state.ctx, ctx_user_data);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_start(r->state.ctx);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start the SHA context: %s", doca_error_get_descr(result));
	return result;
}

void
sha_sample_wait_stopped(struct sha_resources *r)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = SLEEP_IN_NANOS};

	r->run_main_loop = true;
	while (r->run_main_loop) {
		if (doca_pe_progress(r->state.pe) == 0)
			nanosleep(&ts, NULL);
	}
}

void
sha_sample_task_failed(struct sha_resources *r, struct doca_task *task, const char *what)
{
	r->result = doca_task_get_status(task);
	DOCA_LOG_ERR("SHA %s task failed: %s", what, doca_error_get_descr(r->result));
	doca_task_free(task);
}

doca_error_t
sha_sample_print(struct doca_buf *dst)
{
	const uint8_t *digest = NULL;
	char *hex;
	size_t len = 0;
	doca_error_t result;

	result = doca_buf_get_data_len(dst, &len);
	if (result == DOCA_SUCCESS)
		result = doca_buf_get_data(dst, (void **)&digest);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the destination buffer: %s", doca_error_get_descr(result));
		return result;
	}
	hex = calloc(1, 2 * len + 1);
	if (hex == NULL) {
		DOCA_LOG_ERR("Failed to allocate memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	DOCA_LOG_INFO("SHA256 output is: %s", hex);
	free(hex);
	return DOCA_SUCCESS;
}

doca_error_t
sha_sample_cleanup(struct sha_resources *r)
{
	struct program_core_objects *state = &r->state;
	doca_error_t result = DOCA_SUCCESS, tmp;

	/* The last callback stopped the context already: stopping an IDLE one succeeds. */
	if (state->pe != NULL && state->ctx != NULL) {
		tmp = request_stop_ctx(state->pe, state->ctx);
		if (tmp != DOCA_SUCCESS) {
			DOCA_ERROR_PROPAGATE(result, tmp);
			DOCA_LOG_ERR("Failed to stop DOCA SHA: %s", doca_error_get_descr(tmp));
		}
		state->ctx = NULL;
	}
	if (r->sha_ctx != NULL) {
		tmp = doca_sha_destroy(r->sha_ctx);
		if (tmp != DOCA_SUCCESS) {
			DOCA_ERROR_PROPAGATE(result, tmp);
			DOCA_LOG_ERR("Failed to destroy DOCA SHA: %s", doca_error_get_descr(tmp));
		}
		r->sha_ctx = NULL;
	}
	tmp = destroy_core_objects(state);
	if (tmp != DOCA_SUCCESS) {
		DOCA_ERROR_PROPAGATE(result, tmp);
		DOCA_LOG_ERR("Failed to destroy the core objects: %s", doca_error_get_descr(tmp));
	}
	return result;
}

/* --- main ------------------------------------------------------------------------------------ */

static struct {
	char data[SHA_MAX_USER_DATA_LEN + 1];
	doca_error_t (*run)(const char *data);
} sample;

static doca_error_t
data_callback(void *param, void *config)
{
	const char *input = param;
	size_t len = strnlen(input, SHA_MAX_USER_DATA_LEN + 1);

	(void)config;
	if (len == 0 || len > SHA_MAX_USER_DATA_LEN) {
		DOCA_LOG_ERR("Invalid data length, should be between 1 and %d", SHA_MAX_USER_DATA_LEN);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(sample.data, input, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t
register_params(void)
{
	static const struct sample_param params[] = {
		{"d", "data", "<STRING>", "user data", DOCA_ARGP_TYPE_STRING, data_callback, false},
	};

	return sample_register_params(params, sizeof(params) / sizeof(params[0]));
}

static doca_error_t
run_sample(const void *config)
{
	(void)config;
	return sample.run(sample.data);
}

int
sha_sample_main(int argc, char **argv, const char *name, const char *default_data,
		doca_error_t (*run)(const char *data))
{
	snprintf(sample.data, sizeof(sample.data), "%s", default_data);
	sample.run = run;
	return sample_main_with_params(name, NULL, DOCA_LOG_LEVEL_WARNING, &sample, register_params, run_sample, argc,
				       argv);
}

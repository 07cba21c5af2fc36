/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two AES-GCM samples (aes_gcm_common.h): flags with DOCA's defaults, the
 * context and Core objects, one task over the whole file (source and
 * destination split into -ns / -nd buffers), the PE progressed until the task's
 * callback has stopped the context, then the head destination buffer's data
 * written out and dumped.  Only the public DOCA API is used.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "aes_gcm_common.h"
#include "common.h"
#include "sample_params.h"

DOCA_LOG_REGISTER(AES_GCM::COMMON);

/* The words of each direction in the sample's lines. */
static const struct {
	const char *name; /* argp and binary name */
	const char *task; /* "Encrypt task was done successfully" */
	const char *done; /* "File was encrypted successfully" */
} modes[] = {
	[AES_GCM_MODE_ENCRYPT] = {"doca_aes_gcm_encrypt", "Encrypt", "encrypted"},
	[AES_GCM_MODE_DECRYPT] = {"doca_aes_gcm_decrypt", "Decrypt", "decrypted"},
};

/* --- flags ---------------------------------------------------------------------------------- */

static doca_error_t
parse_hex(const char *hex, size_t len, uint8_t *out)
{
	memset(out, 0, (len + 1) / 2);
	for (size_t i = 0; i < len; i++) {
		char c = hex[i];
		int v = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (v < 0) {
			DOCA_LOG_ERR("Wrong format for input (%s) - need to be in hex format (0-9) or (a-f) values",
				     hex);
			return DOCA_ERROR_INVALID_VALUE;
		}
		out[i / 2] = (uint8_t)((out[i / 2] << 4) | v);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
pci_callback(void *param, void *config)
{
	return copy_string_param("PCI address", param, ((struct aes_gcm_cfg *)config)->pci_address,
				 DOCA_DEVINFO_PCI_ADDR_SIZE);
}

static doca_error_t
file_callback(void *param, void *config)
{
	return copy_string_param("File name", param, ((struct aes_gcm_cfg *)config)->file_path, AES_GCM_MAX_PATH + 1);
}

static doca_error_t
output_callback(void *param, void *config)
{
	return copy_string_param("Output file name", param, ((struct aes_gcm_cfg *)config)->output_path,
				 AES_GCM_MAX_PATH + 1);
}

static doca_error_t
key_callback(void *param, void *config)
{
	struct aes_gcm_cfg *cfg = config;
	const char *key = param;
	size_t len = strlen(key);

	if (len != 32 && len != 64) {
		DOCA_LOG_ERR(
			"Invalid string length %zu to represent a key, string length should be 32 or 64 characters "
			"long",
			len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->raw_key_type = len == 32 ? DOCA_AES_GCM_KEY_128 : DOCA_AES_GCM_KEY_256;
	return parse_hex(key, len, cfg->raw_key);
}

/* An IV of 0-24 hex digits: ceil(digits / 2) bytes (an odd last digit is the low nibble of the last byte). */
static doca_error_t
iv_callback(void *param, void *config)
{
	struct aes_gcm_cfg *cfg = config;
	const char *iv = param;
	size_t len = strlen(iv);
	doca_error_t result;

	if (len > 2 * AES_GCM_MAX_IV) {
		DOCA_LOG_ERR(
			"Invalid string length %zu to represent the initialization vector, max string length should "
			"be %d",
			len, 2 * AES_GCM_MAX_IV);
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = parse_hex(iv, len, cfg->iv);
	if (result == DOCA_SUCCESS) {
		memset(cfg->iv + (len + 1) / 2, 0, AES_GCM_MAX_IV - (len + 1) / 2);
		cfg->iv_length = (uint32_t)((len + 1) / 2);
	}
	return result;
}

static doca_error_t
tag_callback(void *param, void *config)
{
	int tag = *(int *)param;

	if (tag != 12 && tag != 16) {
		DOCA_LOG_ERR("Invalid authentication tag size %d, tag size can be 12 bytes or 16 bytes", tag);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct aes_gcm_cfg *)config)->tag_size = (uint32_t)tag;
	return DOCA_SUCCESS;
}

static doca_error_t
aad_callback(void *param, void *config)
{
	int aad = *(int *)param;

	if (aad < 0) {
		DOCA_LOG_ERR("Invalid additional authenticated data size %d, it cannot be negative", aad);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct aes_gcm_cfg *)config)->aad_size = (uint32_t)aad;
	return DOCA_SUCCESS;
}

static doca_error_t
num_buf_callback(int num, const char *what, int *out)
{
	if (num <= 0) {
		DOCA_LOG_ERR("Entered number of %s doca_buf: %d, valid value must be >= 1", what, num);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = num;
	return DOCA_SUCCESS;
}

static doca_error_t
num_src_callback(void *param, void *config)
{
	return num_buf_callback(*(int *)param, "source", &((struct aes_gcm_cfg *)config)->num_src_buf);
}

static doca_error_t
num_dst_callback(void *param, void *config)
{
	return num_buf_callback(*(int *)param, "destination", &((struct aes_gcm_cfg *)config)->num_dst_buf);
}

static doca_error_t
register_params(void)
{
	static const struct sample_param params[] = {
		{"p", "pci-addr", NULL, "DOCA device PCI device address - default: 03:00.0", DOCA_ARGP_TYPE_STRING,
		 pci_callback, false},
		{"f", "file", NULL, "Input file to encrypt/decrypt", DOCA_ARGP_TYPE_STRING, file_callback, true},
		{"o", "output", NULL, "Output file - default: /tmp/out.txt", DOCA_ARGP_TYPE_STRING, output_callback,
		 false},
		{"k", "key", NULL,
		 "Raw key to encrypt/decrypt with, in hex (32 characters for a 128-bit key, 64 for a 256-bit key) - "
		 "default: 256-bit key, all zero",
		 DOCA_ARGP_TYPE_STRING, key_callback, false},
		{"i", "iv", NULL,
		 "Initialization vector in hex (0-24 characters for a 0-96-bit IV) - default: 96-bit IV, all zero",
		 DOCA_ARGP_TYPE_STRING, iv_callback, false},
		{"t", "tag-size", NULL, "Authentication tag size in bytes, 12 or 16 - default: 12", DOCA_ARGP_TYPE_INT,
		 tag_callback, false},
		{"a", "aad-size", NULL, "Additional authenticated data size - default: 0", DOCA_ARGP_TYPE_INT,
		 aad_callback, false},
		{"ns", "num-src-buf", NULL, "number of doca_buf for source buffer", DOCA_ARGP_TYPE_INT,
		 num_src_callback, false},
		{"nd", "num-dst-buf", NULL, "number of doca_buf for destination buffer", DOCA_ARGP_TYPE_INT,
		 num_dst_callback, false},
	};

	return sample_register_params(params, sizeof(params) / sizeof(params[0]));
}

/* --- the context ----------------------------------------------------------------------------- */

struct resources {
	enum aes_gcm_mode mode;
	struct program_core_objects state;
	struct doca_aes_gcm *aes_gcm;
	bool run_pe; /* until the context is IDLE again */
	unsigned remaining;
	doca_error_t task_result;
};

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	struct resources *r = user_data.ptr;

	switch (next) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("AES-GCM context has been stopped");
		r->run_pe = false;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_ERR("AES-GCM context entered into starting state. Unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("AES-GCM context is running");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("AES-GCM context entered into stopping state. Any inflight tasks will be flushed");
		break;
	default:
		break;
	}
}

/* Both callbacks of both directions: the task's status, then stop once nothing remains. */
static void
task_done(struct doca_task *task, union doca_data ctx_user_data, bool ok)
{
	struct resources *r = ctx_user_data.ptr;

	r->task_result = ok ? DOCA_SUCCESS : doca_task_get_status(task);
	if (ok)
		DOCA_LOG_INFO("%s task was done successfully", modes[r->mode].task);
	else
		DOCA_LOG_ERR("%s task failed: %s", modes[r->mode].task, doca_error_get_descr(r->task_result));
	doca_task_free(task);
	if (--r->remaining == 0)
		(void)doca_ctx_stop(r->state.ctx);
}

static void
encrypt_ok(struct doca_aes_gcm_task_encrypt *t, union doca_data task_ud, union doca_data ctx_ud)
{
	task_done(doca_aes_gcm_task_encrypt_as_task(t), ctx_ud, true);
}

static void
encrypt_err(struct doca_aes_gcm_task_encrypt *t, union doca_data task_ud, union doca_data ctx_ud)
{
	task_done(doca_aes_gcm_task_encrypt_as_task(t), ctx_ud, false);
}

static void
decrypt_ok(struct doca_aes_gcm_task_decrypt *t, union doca_data task_ud, union doca_data ctx_ud)
{
	task_done(doca_aes_gcm_task_decrypt_as_task(t), ctx_ud, true);
}

static void
decrypt_err(struct doca_aes_gcm_task_decrypt *t, union doca_data task_ud, union doca_data ctx_ud)
{
	task_done(doca_aes_gcm_task_decrypt_as_task(t), ctx_ud, false);
}

static doca_error_t
encrypt_supported(const struct doca_devinfo *devinfo)
{
	return doca_aes_gcm_cap_task_encrypt_is_supported(devinfo);
}

static doca_error_t
decrypt_supported(const struct doca_devinfo *devinfo)
{
	return doca_aes_gcm_cap_task_decrypt_is_supported(devinfo);
}

static doca_error_t
max_list_len(const struct resources *r, uint32_t *len)
{
	const struct doca_devinfo *info = doca_dev_as_devinfo(r->state.dev);

	return r->mode == AES_GCM_MODE_ENCRYPT ? doca_aes_gcm_cap_task_encrypt_get_max_list_buf_num_elem(info, len)
					       : doca_aes_gcm_cap_task_decrypt_get_max_list_buf_num_elem(info, len);
}

static doca_error_t
set_conf(struct resources *r)
{
	if (r->mode == AES_GCM_MODE_ENCRYPT)
		return doca_aes_gcm_task_encrypt_set_conf(r->aes_gcm, encrypt_ok, encrypt_err, 1);
	return doca_aes_gcm_task_decrypt_set_conf(r->aes_gcm, decrypt_ok, decrypt_err, 1);
}

/* Device (by -p, with the direction's task), context and Core objects for max_bufs buffers. */
static doca_error_t
allocate_resources(const char *pci, uint32_t max_bufs, struct resources *r)
{
	union doca_data ud = {.ptr = r};
	uint32_t max_list = 0;
	doca_error_t result;

	result = open_doca_device_with_pci(pci, r->mode == AES_GCM_MODE_ENCRYPT ? encrypt_supported : decrypt_supported,
					   &r->state.dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device for DOCA AES-GCM: %s", doca_error_get_descr(result));
		return result;
	}
	result = max_list_len(r, &max_list);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get task max_buf_list_len capability: %s", doca_error_get_descr(result));
		return result;
	}
	if (max_bufs > max_list) {
		DOCA_LOG_ERR("Number of doca_buf [%u] exceed the limitation [%u]", max_bufs, max_list);
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = doca_aes_gcm_create(r->state.dev, &r->aes_gcm);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create AES-GCM engine: %s", doca_error_get_descr(result));
		return result;
	}
	r->state.ctx = doca_aes_gcm_as_ctx(r->aes_gcm);
	result = create_core_objects(&r->state, max_bufs);
	if (result == DOCA_SUCCESS)
		result = doca_pe_connect_ctx(r->state.pe, r->state.ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(r->state.ctx, state_changed);
	if (result == DOCA_SUCCESS)
		result = set_conf(r);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(r->state.ctx, ud);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Unable to set up the AES-GCM context: %s", doca_error_get_descr(result));
	return result;
}

/* Stop (an IDLE context: SUCCESS), destroy the context, then the Core objects. */
static doca_error_t
destroy_resources(struct resources *r)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	if (r->aes_gcm != NULL) {
		tmp = request_stop_ctx(r->state.pe, r->state.ctx);
		DOCA_ERROR_PROPAGATE(result, tmp);
		tmp = doca_aes_gcm_destroy(r->aes_gcm);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy DOCA AES-GCM: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		r->aes_gcm = NULL;
	}
	tmp = destroy_core_objects(&r->state);
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

/* --- the task ---------------------------------------------------------------------------------- */

static doca_error_t
alloc_task(struct resources *r, const struct aes_gcm_cfg *cfg, struct doca_buf *src, struct doca_buf *dst,
	   struct doca_aes_gcm_key *key, struct doca_task **task)
{
	union doca_data ud = {.u64 = 0};
	doca_error_t result;

	if (r->mode == AES_GCM_MODE_ENCRYPT) {
		struct doca_aes_gcm_task_encrypt *t;

		result = doca_aes_gcm_task_encrypt_alloc_init(r->aes_gcm, src, dst, key, cfg->iv, cfg->iv_length,
							      cfg->tag_size, cfg->aad_size, ud, &t);
		*task = result == DOCA_SUCCESS ? doca_aes_gcm_task_encrypt_as_task(t) : NULL;
	} else {
		struct doca_aes_gcm_task_decrypt *t;

		result = doca_aes_gcm_task_decrypt_alloc_init(r->aes_gcm, src, dst, key, cfg->iv, cfg->iv_length,
							      cfg->tag_size, cfg->aad_size, ud, &t);
		*task = result == DOCA_SUCCESS ? doca_aes_gcm_task_decrypt_as_task(t) : NULL;
	}
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to allocate %s task: %s", r->mode == AES_GCM_MODE_ENCRYPT ? "encrypt" : "decrypt",
			     doca_error_get_descr(result));
	return result;
}

/* Submit one task and progress until its callback has stopped the context; the task's status. */
static doca_error_t
submit_and_wait(struct resources *r, const struct aes_gcm_cfg *cfg, struct doca_buf *src, struct doca_buf *dst,
		struct doca_aes_gcm_key *key)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 10000};
	struct doca_task *task;
	doca_error_t result;

	result = alloc_task(r, cfg, src, dst, key, &task);
	if (result != DOCA_SUCCESS)
		return result;
	r->remaining++;
	result = doca_task_submit(task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit %s task: %s", modes[r->mode].task, doca_error_get_descr(result));
		r->remaining--;
		doca_task_free(task);
		return result;
	}
	r->run_pe = true;
	while (r->run_pe)
		if (doca_pe_progress(r->state.pe) == 0)
			nanosleep(&ts, NULL);
	return r->task_result;
}

/* The head destination buffer's data to the output file and the log. */
static doca_error_t
write_result(const struct resources *r, const struct aes_gcm_cfg *cfg, struct doca_buf *dst, FILE *out)
{
	void *head = NULL;
	size_t len = 0;
	char *dump;

	doca_buf_get_head(dst, &head);
	doca_buf_get_data_len(dst, &len);
	if (fwrite(head, 1, len, out) != len || fflush(out) != 0) {
		DOCA_LOG_ERR("Failed to write the output file %s", cfg->output_path);
		return DOCA_ERROR_IO_FAILED;
	}
	DOCA_LOG_INFO("File was %s successfully and saved in: %s", modes[r->mode].done, cfg->output_path);
	dump = hex_dump(head, len);
	if (dump == NULL) {
		DOCA_LOG_ERR("Failed to allocate memory for printing buffer content");
		return DOCA_ERROR_NO_MEMORY;
	}
	DOCA_LOG_INFO("AES-GCM %s data:\n%s", modes[r->mode].done, dump);
	free(dump);
	return DOCA_SUCCESS;
}

/* With the context running: map both buffers, make the key, run the task, write the result. */
static doca_error_t
run_task(struct resources *r, const struct aes_gcm_cfg *cfg, uint8_t *data, size_t size, uint8_t *dst_mem,
	 size_t dst_size, FILE *out)
{
	struct program_core_objects *s = &r->state;
	struct doca_buf *src = NULL, *dst = NULL;
	struct doca_aes_gcm_key *key = NULL;
	doca_error_t result, tmp;

	result = doca_mmap_set_memrange(s->dst_mmap, dst_mem, dst_size);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(s->dst_mmap);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(s->src_mmap, data, size);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(s->src_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to map the buffers: %s", doca_error_get_descr(result));
		return result;
	}
	result = allocate_doca_buf_list(s->buf_inv, s->src_mmap, data, size, cfg->num_src_buf, true, &src);
	if (result == DOCA_SUCCESS)
		result = allocate_doca_buf_list(s->buf_inv, s->dst_mmap, dst_mem, dst_size, cfg->num_dst_buf, false,
						&dst);
	if (result == DOCA_SUCCESS) {
		result = doca_aes_gcm_key_create(r->aes_gcm, cfg->raw_key, cfg->raw_key_type, &key);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Unable to create DOCA AES-GCM key: %s", doca_error_get_descr(result));
	}
	if (result == DOCA_SUCCESS)
		result = submit_and_wait(r, cfg, src, dst, key);
	if (result == DOCA_SUCCESS)
		result = write_result(r, cfg, dst, out);
	else
		DOCA_LOG_ERR("AES-GCM %s task failed: %s", r->mode == AES_GCM_MODE_ENCRYPT ? "encrypt" : "decrypt",
			     doca_error_get_descr(result));
	/* The key outlives the context's run (the callback stopped it) and goes before the context. */
	if (key != NULL && (tmp = doca_aes_gcm_key_destroy(key)) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy DOCA AES-GCM key: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	/* DOCA_ERROR_PROPAGATE evaluates its second argument only while result is SUCCESS. */
	tmp = dst != NULL ? doca_buf_dec_refcount(dst, NULL) : DOCA_SUCCESS;
	DOCA_ERROR_PROPAGATE(result, tmp);
	tmp = src != NULL ? doca_buf_dec_refcount(src, NULL) : DOCA_SUCCESS;
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

/* --- the run ------------------------------------------------------------------------------------ */

/* The whole file at path (NULL and logged on failure; an empty file is refused). */
static uint8_t *
read_input(const char *path, size_t *size)
{
	doca_error_t err;
	struct stat st;
	uint8_t *data;
	ssize_t n = 0;
	int fd = sample_open_regular_file(path, O_RDONLY, 0, "input file", &st, &err);

	if (fd < 0)
		return NULL;
	data = st.st_size > 0 ? malloc((size_t)st.st_size) : NULL;
	if (data != NULL)
		n = read(fd, data, (size_t)st.st_size);
	close(fd);
	if (data == NULL || n != st.st_size) {
		DOCA_LOG_ERR("Failed to read the input file %s (%s)", path,
			     st.st_size == 0 ? "it is empty" : "short read or out of memory");
		free(data);
		return NULL;
	}
	*size = (size_t)st.st_size;
	return data;
}

static doca_error_t
run_file(struct resources *r, const struct aes_gcm_cfg *cfg, uint8_t *data, size_t size, FILE *out)
{
	const struct doca_devinfo *info = doca_dev_as_devinfo(r->state.dev);
	uint64_t max_size = 0;
	uint8_t *dst_mem;
	doca_error_t result, tmp;

	result = r->mode == AES_GCM_MODE_ENCRYPT ? doca_aes_gcm_cap_task_encrypt_get_max_buf_size(info, &max_size)
						 : doca_aes_gcm_cap_task_decrypt_get_max_buf_size(info, &max_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to query AES-GCM max buf size: %s", doca_error_get_descr(result));
		return result;
	}
	if (size > max_size) {
		/* DOCA's samples skip the task here and still report success. */
		DOCA_LOG_ERR("File size %zu > max buffer size %" PRIu64, size, max_size);
		return DOCA_SUCCESS;
	}
	result = doca_ctx_start(r->state.ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start context: %s", doca_error_get_descr(result));
		return result;
	}
	dst_mem = calloc(1, max_size);
	if (dst_mem == NULL) {
		DOCA_LOG_ERR("Failed to allocate memory: %s", doca_error_get_descr(DOCA_ERROR_NO_MEMORY));
		return DOCA_ERROR_NO_MEMORY;
	}
	result = run_task(r, cfg, data, size, dst_mem, max_size, out);
	/* The mmaps still cover dst_mem: stop the context and destroy them before freeing it. */
	tmp = destroy_resources(r);
	DOCA_ERROR_PROPAGATE(result, tmp);
	free(dst_mem);
	return result;
}

static doca_error_t
run_sample(struct aes_gcm_cfg *cfg, enum aes_gcm_mode mode)
{
	struct resources r = {.mode = mode};
	uint8_t *data;
	size_t size = 0;
	doca_error_t result, tmp;
	FILE *out;

	data = read_input(cfg->file_path, &size);
	if (data == NULL)
		return DOCA_ERROR_IO_FAILED;
	out = fopen(cfg->output_path, "w");
	if (out == NULL) {
		DOCA_LOG_ERR("Unable to open output file: %s", cfg->output_path);
		free(data);
		return DOCA_ERROR_IO_FAILED;
	}
	result = allocate_resources(cfg->pci_address, (uint32_t)cfg->num_src_buf + (uint32_t)cfg->num_dst_buf, &r);
	if (result == DOCA_SUCCESS)
		result = run_file(&r, cfg, data, size, out);
	tmp = destroy_resources(&r);
	DOCA_ERROR_PROPAGATE(result, tmp);
	fclose(out);
	free(data);
	return result;
}

static enum aes_gcm_mode sample_mode;

static doca_error_t
run(const void *cfg)
{
	return run_sample((struct aes_gcm_cfg *)cfg, sample_mode);
}

int
aes_gcm_sample_main(enum aes_gcm_mode mode, int argc, char **argv)
{
	struct aes_gcm_cfg cfg = {
		.output_path = "/tmp/out.txt",
		.pci_address = "03:00.0",
		.raw_key_type = DOCA_AES_GCM_KEY_256,
		.iv_length = AES_GCM_MAX_IV,
		.tag_size = 12,
		.num_src_buf = 1,
		.num_dst_buf = 1,
	};

	sample_mode = mode;
	return sample_main_with_params(modes[mode].name + 5, modes[mode].name, DOCA_LOG_LEVEL_WARNING, &cfg,
				       register_params, run, argc, argv);
}

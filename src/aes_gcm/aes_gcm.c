/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AES-GCM context (an accel context, accel_internal.h), its capability
 * queries, answered from the device's model (struct sd_dev_caps), and its keys.
 * A key is a copy of the raw bytes, wiped when it is destroyed, together with
 * every thread's cipher state that was keyed with it.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "aes_gcm_internal.h"

SD_LOG_REGISTER(aes_gcm.ctx);

/* Key ids start at 1: a cipher slot holding 0 holds no key. */
static _Atomic uint64_t next_key_id = 1;

static inline struct doca_aes_gcm *
aes_from_accel(struct sd_accel *accel)
{
	return sd_container_of(accel, struct doca_aes_gcm, accel);
}

/* doca_ctx_start(): at least one task family must be configured. */
static doca_error_t
aes_may_start(struct sd_accel *accel)
{
	struct doca_aes_gcm *aes = aes_from_accel(accel);

	if (aes->pools[SD_AES_GCM_ENCRYPT] == NULL && aes->pools[SD_AES_GCM_DECRYPT] == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: AES-GCM context has no task type enabled; call "
			     "doca_aes_gcm_task_encrypt_set_conf() or doca_aes_gcm_task_decrypt_set_conf() before "
			     "doca_ctx_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_aes_gcm_create(struct doca_dev *dev, struct doca_aes_gcm **aes_gcm)
{
	const struct doca_devinfo *info;
	struct doca_aes_gcm *aes;

	if (dev == NULL || aes_gcm == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_create: NULL argument (dev %p, aes_gcm %p)", (void *)dev, (void *)aes_gcm);
		return DOCA_ERROR_INVALID_VALUE;
	}
	info = sd_dev_devinfo(dev);
	if (!sd_devinfo_caps(info)->aes_gcm) {
		DOCA_LOG_ERR("doca_aes_gcm_create: device %s (model %s) has no AES-GCM engine; pick a device for "
			     "which doca_aes_gcm_cap_task_encrypt_is_supported() returns DOCA_SUCCESS (e.g. a "
			     "bluefield-3 or the soft model)",
			     sd_devinfo_pci_addr(info), sd_devinfo_model(info));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	aes = sd_fault_create("aes_gcm", "doca_aes_gcm_create") ? NULL : calloc(1, sizeof(*aes));
	if (aes == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	aes->caps = sd_devinfo_caps(info);
	sd_list_init(&aes->keys);
	sd_accel_init(&aes->accel, dev, "AES-GCM", log_source, aes_may_start);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*aes_gcm = aes;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_aes_gcm_destroy(struct doca_aes_gcm *aes_gcm)
{
	doca_error_t err;

	if (aes_gcm == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_destroy: aes_gcm is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&aes_gcm->accel.ctx) == DOCA_CTX_STATE_IDLE && !sd_list_empty(&aes_gcm->keys)) {
		DOCA_LOG_ERR("doca_aes_gcm_destroy: the context still has keys; destroy them with "
			     "doca_aes_gcm_key_destroy() first");
		return DOCA_ERROR_IN_USE;
	}
	/* BAD_STATE unless IDLE (logged by Core). */
	err = sd_accel_fini(&aes_gcm->accel, "doca_aes_gcm_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_dev_put(sd_ctx_dev(&aes_gcm->accel.ctx));
	free(aes_gcm);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_aes_gcm_as_ctx(struct doca_aes_gcm *aes_gcm)
{
	if (aes_gcm == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_as_ctx: aes_gcm is NULL");
		return NULL;
	}
	return &aes_gcm->accel.ctx;
}

DOCA_EXPERIMENTAL doca_error_t
doca_aes_gcm_cap_get_max_num_tasks(struct doca_aes_gcm *aes_gcm, uint32_t *max_num_tasks)
{
	if (aes_gcm == NULL || max_num_tasks == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_cap_get_max_num_tasks: NULL argument (aes_gcm %p, max_num_tasks %p)",
			     (void *)aes_gcm, (void *)max_num_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*max_num_tasks = aes_gcm->caps->aes_gcm_max_num_tasks;
	return DOCA_SUCCESS;
}

/* --- capabilities --------------------------------------------------------------------- */

/* The caps of devinfo for a value query, or NULL (logged) when the query cannot be answered. */
static const struct sd_dev_caps *
query_caps(const struct doca_devinfo *devinfo, const void *out, const char *api)
{
	if (devinfo == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, output %p)", api, (const void *)devinfo, out);
		return NULL;
	}
	if (!sd_devinfo_caps(devinfo)->aes_gcm) {
		DOCA_LOG_ERR("%s: device %s (model %s) has no AES-GCM engine; check "
			     "doca_aes_gcm_cap_task_encrypt_is_supported() first",
			     api, sd_devinfo_pci_addr(devinfo), sd_devinfo_model(devinfo));
		return NULL;
	}
	return sd_devinfo_caps(devinfo);
}

static inline doca_error_t
query_status(const struct doca_devinfo *devinfo, const void *out)
{
	return devinfo == NULL || out == NULL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_SUPPORTED;
}

/* A yes/no query: an expected answer for device filters, so NOT_SUPPORTED is not logged. */
static doca_error_t
is_supported(const struct doca_devinfo *devinfo, const char *api)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_devinfo_caps(devinfo)->aes_gcm ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t
key_type_supported(const struct doca_devinfo *devinfo, enum doca_aes_gcm_key_type type, const char *api)
{
	doca_error_t err = is_supported(devinfo, api);

	if (err != DOCA_SUCCESS)
		return err;
	return type == DOCA_AES_GCM_KEY_128 || type == DOCA_AES_GCM_KEY_256 ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t
query_max_iv_len(const struct doca_devinfo *devinfo, uint32_t *out, const char *api)
{
	if (query_caps(devinfo, out, api) == NULL)
		return query_status(devinfo, out);
	*out = SD_AES_GCM_IV_LEN;
	return DOCA_SUCCESS;
}

static doca_error_t
max_buf_size(const struct doca_devinfo *devinfo, uint64_t *out, const char *api)
{
	const struct sd_dev_caps *caps = query_caps(devinfo, out, api);

	if (caps == NULL)
		return query_status(devinfo, out);
	*out = caps->aes_gcm_max_buf_size;
	return DOCA_SUCCESS;
}

static doca_error_t
max_list_len(const struct doca_devinfo *devinfo, uint32_t *out, const char *api)
{
	const struct sd_dev_caps *caps = query_caps(devinfo, out, api);

	if (caps == NULL)
		return query_status(devinfo, out);
	*out = caps->aes_gcm_max_list_num_elem;
	return DOCA_SUCCESS;
}

/* The seven queries of one task family (both families have the same engine and answers). */
#define AES_GCM_CAPS(D)                                                                                                \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_is_supported(const struct doca_devinfo *devinfo)    \
	{                                                                                                              \
		return is_supported(devinfo, __func__);                                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_get_max_iv_len(const struct doca_devinfo *devinfo,  \
										  uint32_t *max_iv_len)                \
	{                                                                                                              \
		return query_max_iv_len(devinfo, max_iv_len, __func__);                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_is_tag_96_supported(                                \
		const struct doca_devinfo *devinfo)                                                                    \
	{                                                                                                              \
		return is_supported(devinfo, __func__);                                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_is_tag_128_supported(                               \
		const struct doca_devinfo *devinfo)                                                                    \
	{                                                                                                              \
		return is_supported(devinfo, __func__);                                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_is_key_type_supported(                              \
		const struct doca_devinfo *devinfo, enum doca_aes_gcm_key_type key_type)                               \
	{                                                                                                              \
		return key_type_supported(devinfo, key_type, __func__);                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_get_max_buf_size(                                   \
		const struct doca_devinfo *devinfo, uint64_t *max_buffer_size)                                         \
	{                                                                                                              \
		return max_buf_size(devinfo, max_buffer_size, __func__);                                               \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_##D##_get_max_list_buf_num_elem(                          \
		const struct doca_devinfo *devinfo, uint32_t *max_list_num_elem)                                       \
	{                                                                                                              \
		return max_list_len(devinfo, max_list_num_elem, __func__);                                             \
	}

AES_GCM_CAPS(encrypt)
AES_GCM_CAPS(decrypt)

/* --- keys -------------------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_aes_gcm_key_create(struct doca_aes_gcm *aes_gcm, const void *raw_key, enum doca_aes_gcm_key_type raw_key_type,
			struct doca_aes_gcm_key **key)
{
	struct doca_aes_gcm_key *k;
	uint32_t len;

	if (aes_gcm == NULL || raw_key == NULL || key == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_key_create: NULL argument (aes_gcm %p, raw_key %s, key %p)", (void *)aes_gcm,
			     raw_key != NULL ? "set" : "NULL", (void *)key);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (raw_key_type != DOCA_AES_GCM_KEY_128 && raw_key_type != DOCA_AES_GCM_KEY_256) {
		DOCA_LOG_ERR("doca_aes_gcm_key_create: key type %d is not supported; use DOCA_AES_GCM_KEY_128 (16 "
			     "bytes) or DOCA_AES_GCM_KEY_256 (32 bytes)",
			     (int)raw_key_type);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	len = raw_key_type == DOCA_AES_GCM_KEY_128 ? 16 : 32;
	k = calloc(1, sizeof(*k));
	if (k == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_key_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	k->cipher = sd_aes_gcm_cipher(len);
	if (k->cipher == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_key_create: OpenSSL offers no AES-%u-GCM cipher (provider not loaded?)",
			     len * 8);
		free(k);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	k->owner = aes_gcm;
	k->len = len;
	k->id = atomic_fetch_add_explicit(&next_key_id, 1, memory_order_relaxed);
	memcpy(k->raw, raw_key, len);
	sd_list_insert_tail(&aes_gcm->keys, &k->link);
	*key = k;
	return DOCA_SUCCESS;
}

/* Is a task of the context that has not been delivered yet using key? */
static bool
key_in_flight(const struct doca_aes_gcm_key *key)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &key->owner->accel.order)
	{
		const struct sd_aes_gcm_task *t = (const struct sd_aes_gcm_task *)sd_task_from_link(pos);

		if (t->key == key)
			return true;
	}
	return false;
}

DOCA_EXPERIMENTAL doca_error_t
doca_aes_gcm_key_destroy(struct doca_aes_gcm_key *key)
{
	if (key == NULL) {
		DOCA_LOG_ERR("doca_aes_gcm_key_destroy: key is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (key_in_flight(key)) {
		DOCA_LOG_ERR("doca_aes_gcm_key_destroy: a task submitted with this key has not completed; destroy "
			     "the key after its tasks' callbacks ran (or after doca_ctx_stop())");
		return DOCA_ERROR_IN_USE;
	}
	sd_list_del(&key->link);
	sd_aes_gcm_forget_key(key->id);
	OPENSSL_cleanse(key->raw, sizeof(key->raw));
	free(key);
	return DOCA_SUCCESS;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SHA context: creation on a device with a SHA engine, the capability
 * queries (answered from the device's model, dev_caps.c), the two task
 * families' configuration, and the algorithms OpenSSL provides for them.  The
 * tasks live in sha_task.c and sha_task_api.c; Core's engine context runs them.
 */
#include <pthread.h>
#include <stdlib.h>

#include "sha_internal.h"

SD_LOG_REGISTER(sha);

static const struct sd_sha_alg algs[] = {
	[DOCA_SHA_ALGORITHM_SHA1] = {"SHA1", 20, 64},
	[DOCA_SHA_ALGORITHM_SHA256] = {"SHA256", 32, 64},
	[DOCA_SHA_ALGORITHM_SHA512] = {"SHA512", 64, 128},
};

const struct sd_sha_alg *
sd_sha_alg(enum doca_sha_algorithm alg)
{
	return (unsigned)alg < SD_ARRAY_SIZE(algs) ? &algs[alg] : NULL;
}

/*
 * Fetched once: an EVP_MD from EVP_MD_fetch() is initialised without the
 * method-store look-up OpenSSL 3 makes for every EVP_DigestInit of a legacy
 * EVP_sha256()-style pointer (which matters for small tasks).  Kept for the
 * process's life.
 */
static EVP_MD *fetched[SD_ARRAY_SIZE(algs)];
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;

static void
fetch_mds(void)
{
	for (size_t i = 0; i < SD_ARRAY_SIZE(algs); i++)
		fetched[i] = EVP_MD_fetch(NULL, algs[i].name, NULL);
}

const EVP_MD *
sd_sha_evp_md(enum doca_sha_algorithm alg)
{
	static const EVP_MD *(*const legacy[])(void) = {EVP_sha1, EVP_sha256, EVP_sha512};

	pthread_once(&fetch_once, fetch_mds);
	return fetched[alg] != NULL ? fetched[alg] : legacy[alg]();
}

/* --- the EVP contexts a family's tasks own --------------------------------------------- */

static void
mds_free(struct sd_sha_mds *mds)
{
	for (uint32_t i = 0; i < mds->n; i++)
		EVP_MD_CTX_free(mds->v[i]);
	free(mds->v);
	*mds = (struct sd_sha_mds){0};
}

/* --- the context ------------------------------------------------------------------------ */

static doca_error_t
sha_may_start(struct sd_accel *accel)
{
	struct doca_sha *sha = sd_container_of(accel, struct doca_sha, accel);

	if (sha->hash_pool == NULL && sha->partial_pool == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: SHA context has no task type enabled; call doca_sha_task_hash_set_conf() "
			     "or doca_sha_task_partial_hash_set_conf() before doca_ctx_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_create(struct doca_dev *dev, struct doca_sha **sha_out)
{
	const struct doca_devinfo *info;
	struct doca_sha *sha;

	if (dev == NULL || sha_out == NULL) {
		DOCA_LOG_ERR("doca_sha_create: NULL argument (dev %p, sha %p)", (void *)dev, (void *)sha_out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	info = sd_dev_devinfo(dev);
	if (!sd_devinfo_caps(info)->sha_hash && !sd_devinfo_caps(info)->sha_partial_hash) {
		DOCA_LOG_ERR("doca_sha_create: device %s (%s, model %s) has no SHA engine; pick a device for which "
			     "doca_sha_cap_task_hash_get_supported() returns DOCA_SUCCESS",
			     sd_devinfo_pci_addr(info), sd_devinfo_ibdev_name(info), sd_devinfo_model(info));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	sha = sd_fault_create("sha", "doca_sha_create") ? NULL : calloc(1, sizeof(*sha));
	if (sha == NULL) {
		DOCA_LOG_ERR("doca_sha_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	sha->caps = sd_devinfo_caps(info);
	sd_accel_init(&sha->accel, dev, "SHA", log_source, sha_may_start);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*sha_out = sha;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_destroy(struct doca_sha *sha)
{
	doca_error_t err;

	if (sha == NULL) {
		DOCA_LOG_ERR("doca_sha_destroy: sha is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE unless IDLE (logged by Core); the pools and any task still allocated go with it. */
	err = sd_accel_fini(&sha->accel, "doca_sha_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	mds_free(&sha->hash_mds);
	mds_free(&sha->partial_mds);
	sd_dev_put(sd_ctx_dev(&sha->accel.ctx));
	free(sha);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_sha_as_ctx(struct doca_sha *sha)
{
	if (sha == NULL) {
		DOCA_LOG_ERR("doca_sha_as_ctx: sha is NULL");
		return NULL;
	}
	return &sha->accel.ctx;
}

/* --- capabilities ------------------------------------------------------------------------- */

static doca_error_t
cap_supported(const struct doca_devinfo *devinfo, enum doca_sha_algorithm alg, bool partial, const char *api)
{
	const struct sd_dev_caps *caps;

	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_sha_alg(alg) == NULL) {
		DOCA_LOG_ERR("%s: algorithm %d is not a doca_sha_algorithm (SHA1 0, SHA256 1, SHA512 2)", api,
			     (int)alg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	caps = sd_devinfo_caps(devinfo);
	/* An expected answer for device filters: not logged as an error. */
	return (partial ? caps->sha_partial_hash : caps->sha_hash) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_cap_task_hash_get_supported(struct doca_devinfo const *devinfo, enum doca_sha_algorithm algorithm)
{
	return cap_supported(devinfo, algorithm, false, "doca_sha_cap_task_hash_get_supported");
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_cap_task_partial_hash_get_supported(struct doca_devinfo const *devinfo, enum doca_sha_algorithm algorithm)
{
	return cap_supported(devinfo, algorithm, true, "doca_sha_cap_task_partial_hash_get_supported");
}

/*
 * The checks of the value queries: arguments (an algorithm when with_alg), and a
 * device with a SHA engine.
 */
static doca_error_t
check_cap_query(const struct doca_devinfo *devinfo, const void *out, bool with_alg, enum doca_sha_algorithm alg,
		const char *api)
{
	if (devinfo == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, output %p)", api, (const void *)devinfo, out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (with_alg && sd_sha_alg(alg) == NULL) {
		DOCA_LOG_ERR("%s: algorithm %d is not a doca_sha_algorithm (SHA1 0, SHA256 1, SHA512 2)", api,
			     (int)alg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(devinfo)->sha_hash && !sd_devinfo_caps(devinfo)->sha_partial_hash) {
		DOCA_LOG_ERR("%s: device %s (model %s) has no SHA engine; check "
			     "doca_sha_cap_task_hash_get_supported() first",
			     api, sd_devinfo_pci_addr(devinfo), sd_devinfo_model(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_cap_get_max_list_buf_num_elem(struct doca_devinfo const *devinfo, uint32_t *max_list_num_elem)
{
	doca_error_t err = check_cap_query(devinfo, max_list_num_elem, false, DOCA_SHA_ALGORITHM_SHA1,
					   "doca_sha_cap_get_max_list_buf_num_elem");

	if (err == DOCA_SUCCESS)
		*max_list_num_elem = sd_devinfo_caps(devinfo)->sha_max_list_num_elem;
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_cap_get_max_src_buf_size(struct doca_devinfo const *devinfo, uint64_t *max_buf_size)
{
	doca_error_t err = check_cap_query(devinfo, max_buf_size, false, DOCA_SHA_ALGORITHM_SHA1,
					   "doca_sha_cap_get_max_src_buf_size");

	if (err == DOCA_SUCCESS)
		*max_buf_size = sd_devinfo_caps(devinfo)->sha_max_src_buf_size;
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_cap_get_min_dst_buf_size(struct doca_devinfo const *devinfo, enum doca_sha_algorithm task_type,
				  uint32_t *min_buf_size)
{
	doca_error_t err = check_cap_query(devinfo, min_buf_size, true, task_type, "doca_sha_cap_get_min_dst_buf_size");

	if (err == DOCA_SUCCESS)
		*min_buf_size = sd_sha_alg(task_type)->digest_len;
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_cap_get_partial_hash_block_size(struct doca_devinfo const *devinfo, enum doca_sha_algorithm algorithm,
					 uint32_t *partial_block_size)
{
	doca_error_t err = check_cap_query(devinfo, partial_block_size, true, algorithm,
					   "doca_sha_cap_get_partial_hash_block_size");

	if (err == DOCA_SUCCESS)
		*partial_block_size = sd_sha_alg(algorithm)->block_len;
	return err;
}

/* --- task configuration --------------------------------------------------------------------- */

static doca_error_t
set_conf(struct doca_sha *sha, bool partial, doca_task_completion_cb_t ok_cb, doca_task_completion_cb_t err_cb,
	 uint8_t log_num_tasks, const char *api)
{
	struct sd_sha_mds next = {0};
	const char *family = partial ? "partial hash" : "hash";
	doca_error_t err;

	if (sha == NULL) {
		DOCA_LOG_ERR("%s: sha is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!(partial ? sha->caps->sha_partial_hash : sha->caps->sha_hash)) {
		const struct doca_devinfo *info = sd_dev_devinfo(sd_ctx_dev(&sha->accel.ctx));

		DOCA_LOG_ERR("%s: device %s (model %s) cannot run SHA %s tasks; check "
			     "doca_sha_cap_task_%s_get_supported() first",
			     api, sd_devinfo_pci_addr(info), sd_devinfo_model(info), family,
			     partial ? "partial_hash" : "hash");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (log_num_tasks > SD_SHA_MAX_LOG_TASKS) {
		DOCA_LOG_ERR("%s: log_num_tasks %u asks for 2^%u tasks, more than 2^%u; lower it", api,
			     (unsigned)log_num_tasks, (unsigned)log_num_tasks, SD_SHA_MAX_LOG_TASKS);
		return DOCA_ERROR_INVALID_VALUE;
	}
	next.cap = 1u << log_num_tasks;
	next.v = calloc(next.cap, sizeof(*next.v));
	if (next.v == NULL) {
		DOCA_LOG_ERR("%s: out of memory for %u %s tasks", api, next.cap, family);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* BAD_STATE unless IDLE, or tasks of the pool still allocated (logged by Core). */
	err = sd_task_pool_configure(&sha->accel.ctx, partial ? &sha->partial_pool : &sha->hash_pool, family,
				     sizeof(struct sd_sha_task), next.cap, 1u << SD_SHA_MAX_LOG_TASKS, ok_cb, err_cb,
				     api);
	if (err != DOCA_SUCCESS) {
		free(next.v);
		return err;
	}
	/* The pool's slots are new (zeroed): the old tasks' EVP contexts have no owner left but us. */
	mds_free(partial ? &sha->partial_mds : &sha->hash_mds);
	*(partial ? &sha->partial_mds : &sha->hash_mds) = next;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_hash_set_conf(struct doca_sha *sha, doca_sha_task_hash_completion_cb_t task_completion_cb,
			    doca_sha_task_hash_completion_cb_t task_error_cb, uint8_t log_num_tasks)
{
	return set_conf(sha, false, SD_TASK_CB(task_completion_cb), SD_TASK_CB(task_error_cb), log_num_tasks,
			"doca_sha_task_hash_set_conf");
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_conf(struct doca_sha *sha, doca_sha_task_partial_hash_completion_cb_t task_completion_cb,
				    doca_sha_task_partial_hash_completion_cb_t task_error_cb, uint8_t log_num_tasks)
{
	return set_conf(sha, true, SD_TASK_CB(task_completion_cb), SD_TASK_CB(task_error_cb), log_num_tasks,
			"doca_sha_task_partial_hash_set_conf");
}

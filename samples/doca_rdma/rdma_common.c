/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA sample plumbing: resources of one RDMA context, descriptor files, buf and
 * task helpers, the state callback and progress loop, and the main() skeleton.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_COMMON);

doca_error_t
allocate_rdma_resources(struct rdma_config *cfg, uint32_t mmap_permissions, uint32_t rdma_permissions, tasks_check func,
			struct rdma_resources *resources)
{
	doca_error_t result, tmp;

	resources->cfg = cfg;
	resources->first_error = DOCA_SUCCESS;

	/* DC targets are addressed per message: no connection objects to multiply or to hand to RDMA-CM. */
	if (cfg->transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC && (cfg->num_connections > 1 || cfg->use_rdma_cm)) {
		DOCA_LOG_ERR("DC transport type supports only a single out-of-band connection (got -nc %u%s); "
			     "use -tt RC",
			     cfg->num_connections, cfg->use_rdma_cm ? " with -cm" : "");
		return DOCA_ERROR_INVALID_VALUE;
	}

	result = open_doca_device_with_ibdev_name((const uint8_t *)cfg->device_name, strlen(cfg->device_name), func,
						  &resources->doca_device);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device %s: %s", cfg->device_name, doca_error_get_descr(result));
		return result;
	}

	resources->mmap_memrange = calloc(1, RDMA_MEM_RANGE_LEN);
	if (resources->mmap_memrange == NULL) {
		DOCA_LOG_ERR("Failed to allocate %d bytes for the memory range", RDMA_MEM_RANGE_LEN);
		result = DOCA_ERROR_NO_MEMORY;
		goto close_device;
	}
	result = doca_mmap_create(&resources->mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the mmap: %s", doca_error_get_descr(result));
		goto free_memrange;
	}
	result = doca_mmap_set_permissions(resources->mmap, mmap_permissions);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the mmap permissions: %s", doca_error_get_descr(result));
		goto destroy_mmap;
	}
	result = doca_mmap_set_memrange(resources->mmap, resources->mmap_memrange, RDMA_MEM_RANGE_LEN);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the mmap memory range: %s", doca_error_get_descr(result));
		goto destroy_mmap;
	}
	result = doca_mmap_add_dev(resources->mmap, resources->doca_device);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to add the device to the mmap: %s", doca_error_get_descr(result));
		goto destroy_mmap;
	}
	result = doca_mmap_start(resources->mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the mmap: %s", doca_error_get_descr(result));
		goto destroy_mmap;
	}

	result = doca_pe_create(&resources->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the progress engine: %s", doca_error_get_descr(result));
		goto stop_mmap;
	}
	result = doca_rdma_create(resources->doca_device, &resources->rdma);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the RDMA context: %s", doca_error_get_descr(result));
		goto destroy_pe;
	}
	resources->rdma_ctx = doca_rdma_as_ctx(resources->rdma);
	if (resources->rdma_ctx == NULL) {
		DOCA_LOG_ERR("Failed to get the context of the RDMA object");
		result = DOCA_ERROR_UNEXPECTED;
		goto destroy_rdma;
	}
	result = doca_rdma_set_permissions(resources->rdma, rdma_permissions);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the RDMA permissions: %s", doca_error_get_descr(result));
		goto destroy_rdma;
	}
	if (cfg->is_gid_index_set) {
		result = doca_rdma_set_gid_index(resources->rdma, cfg->gid_index);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to set GID index %u: %s", cfg->gid_index, doca_error_get_descr(result));
			goto destroy_rdma;
		}
	}
	result = doca_rdma_set_max_num_connections(resources->rdma, (uint16_t)cfg->num_connections);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the maximum number of connections to %u: %s", cfg->num_connections,
			     doca_error_get_descr(result));
		goto destroy_rdma;
	}
	result = doca_rdma_set_transport_type(resources->rdma, cfg->transport_type);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the transport type: %s", doca_error_get_descr(result));
		goto destroy_rdma;
	}
	result = doca_pe_connect_ctx(resources->pe, resources->rdma_ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect the RDMA context to the progress engine: %s",
			     doca_error_get_descr(result));
		goto destroy_rdma;
	}
	return DOCA_SUCCESS;

destroy_rdma:
	tmp = doca_rdma_destroy(resources->rdma);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the RDMA context: %s", doca_error_get_descr(tmp));
	resources->rdma = NULL;
	resources->rdma_ctx = NULL;
destroy_pe:
	tmp = doca_pe_destroy(resources->pe);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the progress engine: %s", doca_error_get_descr(tmp));
	resources->pe = NULL;
stop_mmap:
	tmp = doca_mmap_stop(resources->mmap);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to stop the mmap: %s", doca_error_get_descr(tmp));
destroy_mmap:
	tmp = doca_mmap_destroy(resources->mmap);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the mmap: %s", doca_error_get_descr(tmp));
	resources->mmap = NULL;
free_memrange:
	free(resources->mmap_memrange);
	resources->mmap_memrange = NULL;
close_device:
	tmp = doca_dev_close(resources->doca_device);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to close the device: %s", doca_error_get_descr(tmp));
	resources->doca_device = NULL;
	return result;
}

/* Name of connection file i: the path itself, or "<path>-%04u" for multi-connection samples. */
static void
connection_file_name(const struct rdma_resources *res, const char *path, uint32_t i, char *out, size_t size)
{
	if (res->sample != NULL && (res->sample->params & RDMA_PARAM_NUM_CONNECTIONS))
		snprintf(out, size, "%s-%04u", path, i);
	else
		snprintf(out, size, "%s", path);
}

/* Note a descriptor file this run may delete at the end (see struct rdma_owned_file). */
static void
own_file(struct rdma_resources *res, const char *path, const struct stat *st)
{
	struct rdma_owned_file *f;

	/* The table holds every file a run can touch: 2 per connection and -m. */
	if (res->num_owned_files == RDMA_MAX_OWNED_FILES)
		return;
	f = &res->owned_files[res->num_owned_files++];
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->dev = st->st_dev;
	f->ino = st->st_ino;
}

/* Delete path only if it still names the file (dev, ino) this run wrote or used. */
static void
remove_file_if_same(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		/* Already gone: the peer deletes the files it used, ours included. */
		if (errno != ENOENT)
			DOCA_LOG_WARN("Failed to look at %s before deleting it: %s", path, strerror(errno));
		return;
	}
	if (st.st_dev != dev || st.st_ino != ino) {
		DOCA_LOG_WARN("%s is no longer the descriptor file this run used; left in place", path);
		return;
	}
	if (unlink(path) != 0 && errno != ENOENT)
		DOCA_LOG_WARN("Failed to delete %s: %s", path, strerror(errno));
}

/* Remember the first failure of the teardown, log every one. */
static void
teardown_step(doca_error_t *result, doca_error_t tmp, const char *what)
{
	if (tmp == DOCA_SUCCESS)
		return;
	DOCA_LOG_ERR("Failed to %s: %s", what, doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(*result, tmp);
}

doca_error_t
destroy_rdma_resources(struct rdma_resources *resources, struct rdma_config *cfg)
{
	enum doca_ctx_states state;
	doca_error_t result = DOCA_SUCCESS;
	uint32_t i;

	if (resources->rdma_ctx != NULL && doca_ctx_get_state(resources->rdma_ctx, &state) == DOCA_SUCCESS &&
	    state != DOCA_CTX_STATE_IDLE)
		(void)request_stop_ctx(resources->pe, resources->rdma_ctx);

	if (resources->remote_mmap != NULL) {
		teardown_step(&result, doca_mmap_stop(resources->remote_mmap), "stop the remote mmap");
		teardown_step(&result, doca_mmap_destroy(resources->remote_mmap), "destroy the remote mmap");
		resources->remote_mmap = NULL;
	}
	if (resources->remote_se != NULL) {
		teardown_step(&result, doca_sync_event_remote_net_destroy(resources->remote_se),
			      "destroy the remote sync event");
		resources->remote_se = NULL;
	}
	if (resources->cm_addr != NULL) {
		teardown_step(&result, doca_rdma_addr_destroy(resources->cm_addr), "destroy the RDMA-CM address");
		resources->cm_addr = NULL;
	}
	if (resources->negotiation_mmap != NULL) {
		teardown_step(&result, doca_mmap_destroy(resources->negotiation_mmap), "destroy the negotiation mmap");
		resources->negotiation_mmap = NULL;
	}
	free(resources->negotiation_buf);
	resources->negotiation_buf = NULL;
	if (resources->rdma != NULL) {
		teardown_step(&result, doca_rdma_destroy(resources->rdma), "destroy the RDMA context");
		resources->rdma = NULL;
		resources->rdma_ctx = NULL;
	}
	if (resources->pe != NULL) {
		teardown_step(&result, doca_pe_destroy(resources->pe), "destroy the progress engine");
		resources->pe = NULL;
	}
	if (resources->mmap != NULL) {
		teardown_step(&result, doca_mmap_stop(resources->mmap), "stop the mmap");
		teardown_step(&result, doca_mmap_destroy(resources->mmap), "destroy the mmap");
		resources->mmap = NULL;
	}
	free(resources->mmap_memrange);
	resources->mmap_memrange = NULL;
	for (i = 0; i < RDMA_MAX_CONNECTIONS; i++) {
		free(resources->remote_conn_desc[i]);
		resources->remote_conn_desc[i] = NULL;
	}
	free(resources->remote_resource_desc);
	resources->remote_resource_desc = NULL;
	if (resources->doca_device != NULL) {
		teardown_step(&result, doca_dev_close(resources->doca_device), "close the device");
		resources->doca_device = NULL;
	}
	/* cfg stays in the signature DOCA's samples have; the files to delete are in resources. */
	(void)cfg;
	for (i = 0; i < resources->num_owned_files; i++)
		remove_file_if_same(resources->owned_files[i].path, resources->owned_files[i].dev,
				    resources->owned_files[i].ino);
	resources->num_owned_files = 0;
	return result;
}

/*
 * Create path (it must not exist) and write len bytes to it; *st identifies the
 * new file.  A file this function created is deleted again if writing fails.
 */
static doca_error_t
create_file(const char *file_path, const void *data, size_t len, struct stat *st)
{
	const char *p = data;
	size_t done = 0;
	ssize_t n;
	int fd;

	/*
	 * O_EXCL: a descriptor left over from another run must never be handed to
	 * the peer, and an existing FIFO is never opened (so never waited on).
	 */
	fd = open(file_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			DOCA_LOG_ERR("File %s already exists; delete it (a previous run may have left it) or choose "
				     "another path",
				     file_path);
		else
			DOCA_LOG_ERR("Failed to create %s: %s", file_path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	if (fstat(fd, st) != 0) {
		DOCA_LOG_ERR("Failed to stat %s: %s", file_path, strerror(errno));
		close(fd);
		/* Cannot tell which file is ours: leave it rather than delete a stranger's. */
		return DOCA_ERROR_IO_FAILED;
	}
	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			DOCA_LOG_ERR("Failed to write %s: %s", file_path, n < 0 ? strerror(errno) : "short write");
			close(fd);
			goto remove;
		}
		done += (size_t)n;
	}
	if (close(fd) != 0) {
		DOCA_LOG_ERR("Failed to write %s: %s", file_path, strerror(errno));
		goto remove;
	}
	return DOCA_SUCCESS;

remove:
	remove_file_if_same(file_path, st->st_dev, st->st_ino);
	return DOCA_ERROR_IO_FAILED;
}

doca_error_t
write_file(const char *file_path, const char *string, size_t string_len)
{
	struct stat st;

	return create_file(file_path, string, string_len, &st);
}

/* write_file() that records the new file as this run's (deleted at the end). */
static doca_error_t
write_owned_file(struct rdma_resources *res, const char *file_path, const void *data, size_t len)
{
	struct stat st;
	doca_error_t result;

	result = create_file(file_path, data, len, &st);
	if (result == DOCA_SUCCESS)
		own_file(res, file_path, &st);
	return result;
}

/* read_file(), also returning the file's identity in *st. */
static doca_error_t
load_file(const char *file_path, char **string, size_t *string_len, struct stat *st)
{
	doca_error_t result;
	char *buf;
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = sample_open_regular_file(file_path, O_RDONLY, 0, "descriptor file", st, &result);
	if (fd < 0)
		return result;
	if (st->st_size <= 0 || st->st_size > RDMA_DESC_MAX_LEN) {
		DOCA_LOG_ERR("%s holds %lld bytes; a descriptor has 1..%d bytes", file_path, (long long)st->st_size,
			     RDMA_DESC_MAX_LEN);
		close(fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf = malloc((size_t)st->st_size);
	if (buf == NULL) {
		DOCA_LOG_ERR("Failed to allocate %lld bytes to read %s", (long long)st->st_size, file_path);
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	while (done < (size_t)st->st_size) {
		n = read(fd, buf + done, (size_t)st->st_size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			DOCA_LOG_ERR("Failed to read %s: %s", file_path, n < 0 ? strerror(errno) : "file shrank");
			free(buf);
			close(fd);
			return DOCA_ERROR_IO_FAILED;
		}
		done += (size_t)n;
	}
	close(fd);
	*string = buf;
	*string_len = done;
	return DOCA_SUCCESS;
}

doca_error_t
read_file(const char *file_path, char **string, size_t *string_len)
{
	struct stat st;

	return load_file(file_path, string, string_len, &st);
}

void
wait_for_enter(void)
{
	int c;

	/* The prompt must be visible even when stdout is a pipe. */
	fflush(stdout);
	fflush(stderr);
	do {
		c = getchar();
	} while (c != '\n' && c != EOF);
}

void
rdma_record_error(struct rdma_resources *res, doca_error_t err)
{
	if (err != DOCA_SUCCESS && res->first_error == DOCA_SUCCESS)
		res->first_error = err;
}

void
rdma_fail(struct rdma_resources *res, doca_error_t err)
{
	rdma_record_error(res, err);
	/* SUCCESS (now IDLE), IN_PROGRESS (flushing) or already stopping: all end the run. */
	(void)doca_ctx_stop(res->rdma_ctx);
}

void
rdma_finish(struct rdma_resources *res)
{
	doca_error_t result;

	if (res->cfg->use_rdma_cm)
		rdma_record_error(res, rdma_cm_disconnect(res));
	result = doca_ctx_stop(res->rdma_ctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to stop the RDMA context: %s", doca_error_get_descr(result));
		rdma_record_error(res, result);
	}
}

void
rdma_task_done(struct rdma_resources *res, doca_error_t status)
{
	rdma_record_error(res, status);
	if (res->num_remaining_tasks > 0 && --res->num_remaining_tasks == 0)
		rdma_finish(res);
}

void
rdma_task_complete(struct rdma_resources *res, struct doca_task *task, const struct doca_buf *buf1,
		   const struct doca_buf *buf2, doca_error_t status)
{
	rdma_release_buf(buf1);
	rdma_release_buf(buf2);
	doca_task_free(task);
	rdma_task_done(res, status);
}

void
rdma_task_failed(struct rdma_resources *res, struct doca_task *task, const char *what, const struct doca_buf *buf1,
		 const struct doca_buf *buf2)
{
	doca_error_t status = doca_task_get_status(task);

	/* An error callback with a successful status would be a library bug: still fail the sample. */
	if (status == DOCA_SUCCESS)
		status = DOCA_ERROR_UNKNOWN;
	DOCA_LOG_ERR("RDMA %s task failed: %s (%s)", what, doca_error_get_descr(status), doca_error_get_name(status));
	rdma_task_complete(res, task, buf1, buf2, status);
}

void
rdma_put_text(struct rdma_resources *res, size_t offset, const char *text)
{
	/* A 256-character string fills the slice without its NUL: readers bound by length. */
	memset(res->mmap_memrange + offset, 0, RDMA_MSG_LEN);
	memcpy(res->mmap_memrange + offset, text, strnlen(text, RDMA_MSG_LEN));
}

doca_error_t
rdma_local_buf(struct rdma_resources *res, size_t offset, size_t len, bool with_data, struct doca_buf **buf)
{
	void *addr = res->mmap_memrange + offset;
	doca_error_t result;

	if (with_data)
		result = doca_buf_inventory_buf_get_by_data(res->buf_inventory, res->mmap, addr, len, buf);
	else
		result = doca_buf_inventory_buf_get_by_addr(res->buf_inventory, res->mmap, addr, len, buf);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to get a buf over the local memory: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
rdma_remote_buf(struct rdma_resources *res, size_t len, bool with_data, struct doca_buf **buf)
{
	void *remote_addr;
	size_t remote_len;
	doca_error_t result;

	result = doca_mmap_get_memrange(res->remote_mmap, &remote_addr, &remote_len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the memory range of the remote mmap: %s", doca_error_get_descr(result));
		return result;
	}
	if (remote_len < len) {
		DOCA_LOG_ERR("The responder exported %zu bytes; this sample needs %zu", remote_len, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (with_data)
		result =
			doca_buf_inventory_buf_get_by_data(res->buf_inventory, res->remote_mmap, remote_addr, len, buf);
	else
		result =
			doca_buf_inventory_buf_get_by_addr(res->buf_inventory, res->remote_mmap, remote_addr, len, buf);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to get a buf over the remote memory: %s", doca_error_get_descr(result));
	return result;
}

void
rdma_release_buf(const struct doca_buf *buf)
{
	doca_error_t result;

	if (buf == NULL)
		return;
	/* Tasks hand back const bufs; the inventory owns them and takes them back here. */
	result = doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)buf, NULL);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to release a buf: %s", doca_error_get_descr(result));
}

doca_error_t
rdma_submit(struct doca_task *task, const char *what)
{
	doca_error_t result;

	result = doca_task_submit(task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit the %s task: %s", what, doca_error_get_descr(result));
		doca_task_free(task);
	}
	return result;
}

int
rdma_buf_text(const struct doca_buf *buf, const char **text)
{
	void *data = NULL;
	size_t len = 0;

	if (buf == NULL || doca_buf_get_data(buf, &data) != DOCA_SUCCESS ||
	    doca_buf_get_data_len(buf, &len) != DOCA_SUCCESS || data == NULL) {
		*text = "";
		return 0;
	}
	*text = data;
	return (int)strnlen(data, len);
}

doca_error_t
rdma_post_receive(struct rdma_resources *res, size_t offset, size_t len)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_receive *task;
	struct doca_buf *dst = NULL;
	doca_error_t result;

	if (len > 0) {
		result = rdma_local_buf(res, offset, len, false, &dst);
		if (result != DOCA_SUCCESS)
			return result;
	}
	result = doca_rdma_task_receive_allocate_init(res->rdma, dst, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA receive task: %s", doca_error_get_descr(result));
		rdma_release_buf(dst);
		return result;
	}
	res->num_remaining_tasks++;
	result = rdma_submit(doca_rdma_task_receive_as_task(task), "RDMA receive");
	if (result != DOCA_SUCCESS) {
		res->num_remaining_tasks--;
		rdma_release_buf(dst);
	}
	return result;
}

void
rdma_receive_error(struct doca_rdma_task_receive *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_receive_as_task(task), "receive",
			 doca_rdma_task_receive_get_dst_buf(task), NULL);
}

/* --- out-of-band exchange ---------------------------------------------------- */

doca_error_t
rdma_export_resource(struct rdma_resources *res, const void **desc, size_t *desc_len)
{
	const uint8_t *se_desc;
	doca_error_t result;

	switch (res->sample->resource) {
	case RDMA_RESOURCE_MMAP:
		result = doca_mmap_export_rdma(res->mmap, res->doca_device, desc, desc_len);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to export the mmap for RDMA: %s", doca_error_get_descr(result));
		return result;
	case RDMA_RESOURCE_SYNC_EVENT:
		result = doca_sync_event_export_to_remote_net(res->sync_event, &se_desc, desc_len);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to export the sync event to the remote net: %s",
				     doca_error_get_descr(result));
		else
			*desc = se_desc;
		return result;
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}

doca_error_t
rdma_import_resource(struct rdma_resources *res, const void *desc, size_t desc_len)
{
	doca_error_t result;

	switch (res->sample->resource) {
	case RDMA_RESOURCE_MMAP:
		result = doca_mmap_create_from_export(NULL, desc, desc_len, res->doca_device, &res->remote_mmap);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to create the remote mmap from the responder's export: %s",
				     doca_error_get_descr(result));
		return result;
	case RDMA_RESOURCE_SYNC_EVENT:
		result = doca_sync_event_remote_net_create_from_export(res->doca_device, desc, desc_len,
								       &res->remote_se);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to create the remote sync event from the responder's export: %s",
				     doca_error_get_descr(result));
		return result;
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}

/*
 * Connection i: export, write the descriptor (and, for a responder's first
 * connection, the resource descriptor), ask for the peer's file and Enter, read
 * it and connect.  A passive DC side stops after writing.
 */
static doca_error_t
oob_exchange_one(struct rdma_resources *res, uint32_t i, const void *resource_desc, size_t resource_desc_len)
{
	const struct rdma_sample *s = res->sample;
	struct rdma_config *cfg = res->cfg;
	char local_path[RDMA_PATH_SIZE], remote_path[RDMA_PATH_SIZE];
	const void *desc;
	size_t desc_len, remote_len;
	char *remote_desc;
	struct stat st;
	bool passive = cfg->transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC && s->dc_passive;
	doca_error_t result;

	result = doca_rdma_export(res->rdma, &desc, &desc_len, &res->connections[i]);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to export connection %u: %s", i, doca_error_get_descr(result));
		return result;
	}
	res->num_connections = i + 1;

	connection_file_name(res, cfg->local_connection_desc_path, i, local_path, sizeof(local_path));
	connection_file_name(res, cfg->remote_connection_desc_path, i, remote_path, sizeof(remote_path));
	result = write_owned_file(res, local_path, desc, desc_len);
	if (result != DOCA_SUCCESS)
		return result;
	if (s->role == RDMA_ROLE_RESPONDER && i == 0) {
		result = write_owned_file(res, cfg->remote_resource_desc_path, resource_desc, resource_desc_len);
		if (result != DOCA_SUCCESS)
			return result;
		DOCA_LOG_INFO("You can now copy %s and %s to the %s", local_path, cfg->remote_resource_desc_path,
			      s->peer);
	} else
		DOCA_LOG_INFO("You can now copy %s to the %s", local_path, s->peer);

	if (passive) {
		DOCA_LOG_INFO("DC transport: the %s connects to this side; nothing to read", s->peer);
		return DOCA_SUCCESS;
	}
	if (s->role == RDMA_ROLE_REQUESTER)
		DOCA_LOG_INFO("Please copy %s and %s from the %s and then press enter", remote_path,
			      cfg->remote_resource_desc_path, s->peer);
	else
		DOCA_LOG_INFO("Please copy %s from the %s and then press enter", remote_path, s->peer);
	wait_for_enter();

	result = load_file(remote_path, &remote_desc, &remote_len, &st);
	if (result != DOCA_SUCCESS)
		return result;
	res->remote_conn_desc[i] = remote_desc;
	result = doca_rdma_connect(res->rdma, remote_desc, remote_len, res->connections[i]);
	if (result != DOCA_SUCCESS) {
		/* Not used: the file stays where it is for the operator to look at. */
		DOCA_LOG_ERR("Failed to connect connection %u to the %s: %s", i, s->peer, doca_error_get_descr(result));
		return result;
	}
	own_file(res, remote_path, &st);
	return DOCA_SUCCESS;
}

doca_error_t
rdma_oob_connect_and_run(struct rdma_resources *res)
{
	const struct rdma_sample *s = res->sample;
	const void *resource_desc = NULL;
	size_t resource_desc_len = 0, len;
	struct stat st;
	char *blob;
	doca_error_t result;
	uint32_t i;

	if (s->role == RDMA_ROLE_RESPONDER) {
		result = rdma_export_resource(res, &resource_desc, &resource_desc_len);
		if (result != DOCA_SUCCESS)
			return result;
	}
	for (i = 0; i < res->cfg->num_connections; i++) {
		result = oob_exchange_one(res, i, resource_desc, resource_desc_len);
		if (result != DOCA_SUCCESS)
			return result;
	}
	if (s->role == RDMA_ROLE_REQUESTER) {
		result = load_file(res->cfg->remote_resource_desc_path, &blob, &len, &st);
		if (result != DOCA_SUCCESS)
			return result;
		res->remote_resource_desc = blob;
		result = rdma_import_resource(res, blob, len);
		if (result != DOCA_SUCCESS)
			return result;
		own_file(res, res->cfg->remote_resource_desc_path, &st);
	}
	return s->run(res);
}

/* --- context life ------------------------------------------------------------ */

static void
rdma_state_changed_callback(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev_state,
			    enum doca_ctx_states next_state)
{
	struct rdma_resources *res = user_data.ptr;
	doca_error_t result;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_INFO("RDMA context entered starting state");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("RDMA context is running");
		/* Connections are made from here, as DOCA's samples do; this may block on stdin. */
		if (res->cfg->use_rdma_cm)
			result = rdma_cm_connect(res);
		else
			result = rdma_oob_connect_and_run(res);
		if (result != DOCA_SUCCESS)
			rdma_fail(res, result);
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("RDMA context entered stopping state. Any inflight tasks will be flushed");
		break;
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("RDMA context has been stopped");
		res->run_pe_progress = false;
		break;
	default:
		break;
	}
}

/* Start the context and progress it until it is IDLE again. */
static doca_error_t
run_context(struct rdma_resources *res)
{
	const struct rdma_sample *s = res->sample;
	struct timespec pause = {.tv_sec = 0, .tv_nsec = 10 * 1000};
	union doca_data ctx_user_data = {.ptr = res};
	uint32_t num_bufs = RDMA_INVENTORY_PER_CONN * res->cfg->num_connections;
	doca_error_t result;

	if (s->setup != NULL) {
		result = s->setup(res);
		if (result != DOCA_SUCCESS)
			return result;
	}
	result = doca_ctx_set_state_changed_cb(res->rdma_ctx, rdma_state_changed_callback);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the state change callback: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_ctx_set_user_data(res->rdma_ctx, ctx_user_data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the context user data: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_buf_inventory_create(num_bufs, &res->buf_inventory);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create a buf inventory of %u elements: %s", num_bufs,
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_buf_inventory_start(res->buf_inventory);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the buf inventory: %s", doca_error_get_descr(result));
		return result;
	}
	if (res->cfg->use_rdma_cm) {
		result = config_rdma_cm_callback_and_negotiation_task(res, s->role == RDMA_ROLE_RESPONDER,
								      s->role == RDMA_ROLE_REQUESTER);
		if (result != DOCA_SUCCESS)
			return result;
	}

	/* Set before the start: the RUNNING callback may run inside doca_ctx_start(). */
	res->run_pe_progress = true;
	result = doca_ctx_start(res->rdma_ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the RDMA context: %s", doca_error_get_descr(result));
		res->run_pe_progress = false;
		return result;
	}
	while (res->run_pe_progress) {
		if (doca_pe_progress(res->pe) == 0)
			nanosleep(&pause, NULL);
	}
	return res->first_error;
}

/* The whole sample once the flags are parsed. */
static doca_error_t
run_sample(const struct rdma_sample *s, struct rdma_config *cfg)
{
	struct rdma_resources res;
	doca_error_t result, tmp;

	memset(&res, 0, sizeof(res));
	res.sample = s;
	result = allocate_rdma_resources(cfg, s->mmap_perm, s->rdma_perm, s->cap, &res);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate RDMA resources: %s", doca_error_get_descr(result));
		return result;
	}

	result = run_context(&res);

	/* The context is normally IDLE here; stopping it again must succeed. */
	tmp = request_stop_ctx(res.pe, res.rdma_ctx);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to stop the RDMA context: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	if (s->teardown != NULL) {
		/* Not inside DOCA_ERROR_PROPAGATE: it skips its second argument after a failure. */
		tmp = s->teardown(&res);
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res.buf_inventory != NULL) {
		tmp = doca_buf_inventory_stop(res.buf_inventory);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to stop the buf inventory: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		tmp = doca_buf_inventory_destroy(res.buf_inventory);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the buf inventory: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	tmp = destroy_rdma_resources(&res, cfg);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy RDMA resources: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

int
rdma_sample_main(const struct rdma_sample *sample, int argc, char **argv)
{
	struct rdma_config cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	set_default_config_value(&cfg);

	/* Without a log there is no way to report anything: fail silently. */
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;

	DOCA_LOG_INFO("Starting the sample");

	result = doca_argp_init(sample->name, &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to initialize ARGP: %s", doca_error_get_descr(result));
		goto sample_exit;
	}
	result = register_rdma_common_params();
	if (result == DOCA_SUCCESS)
		result = register_rdma_params(sample->params);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register the sample's parameters: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse the sample's input: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}

	result = run_sample(sample, &cfg);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("%s sample failed: %s (%s)", sample->name, doca_error_get_descr(result),
			     doca_error_get_name(result));
	else
		exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}

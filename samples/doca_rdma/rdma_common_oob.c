/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The out-of-band exchange of the RDMA samples: descriptor files written with
 * O_EXCL and read whole, the Enter presses between them, and the list of files
 * this run may delete at the end (those it wrote, the peer's it used).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_COMMON_OOB);

/* Name of connection file i: the path itself, or "<path>-%04u" for multi-connection samples. */
static void
connection_file_name(const struct rdma_resources *res, const char *path, uint32_t i, char *out, size_t size)
{
	if (res->numbered_files)
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

void
rdma_remove_owned_files(struct rdma_resources *res)
{
	uint32_t i;

	for (i = 0; i < res->num_owned_files; i++)
		remove_file_if_same(res->owned_files[i].path, res->owned_files[i].dev, res->owned_files[i].ino);
	res->num_owned_files = 0;
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

/* create_file() that records the new file as this run's (deleted at the end). */
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

/*
 * Read a whole regular file (1..RDMA_DESC_MAX_LEN bytes) into a malloc'd buffer
 * the caller frees, and return its identity in *st.  A FIFO or another
 * non-regular file is refused at once (INVALID_VALUE), never waited on.
 */
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

/*
 * doca_rdma_export() connection i, write the descriptor to -ld (and
 * resource_desc, when given, to -m) and say which files to copy to the peer.
 */
static doca_error_t
oob_export_connection(struct rdma_resources *res, uint32_t i, const void *resource_desc, size_t resource_desc_len)
{
	struct rdma_config *cfg = res->cfg;
	char local_path[RDMA_PATH_SIZE];
	const void *desc;
	size_t desc_len;
	doca_error_t result;

	result = doca_rdma_export(res->rdma, &desc, &desc_len, &res->connections[i]);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to export connection %u: %s", i, doca_error_get_descr(result));
		return result;
	}
	res->num_connections = i + 1;

	connection_file_name(res, cfg->local_connection_desc_path, i, local_path, sizeof(local_path));
	result = write_owned_file(res, local_path, desc, desc_len);
	if (result != DOCA_SUCCESS)
		return result;
	if (resource_desc == NULL) {
		DOCA_LOG_INFO("You can now copy %s to the %s", local_path, res->peer);
		return DOCA_SUCCESS;
	}
	result = write_owned_file(res, cfg->remote_resource_desc_path, resource_desc, resource_desc_len);
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("You can now copy %s and %s to the %s", local_path, cfg->remote_resource_desc_path,
			      res->peer);
	return result;
}

/* With DC the passive side (receiver, responder) only exports: the peer connects to it. */
static bool
oob_peer_connects_here(struct rdma_resources *res)
{
	if (res->cfg->transport_type != DOCA_RDMA_TRANSPORT_TYPE_DC)
		return false;
	DOCA_LOG_INFO("DC transport: the %s connects to this side; nothing to read", res->peer);
	return true;
}

/* Ask for the peer's file(s) and Enter, read -re and doca_rdma_connect() connection i to it. */
static doca_error_t
oob_connect_to_peer(struct rdma_resources *res, uint32_t i)
{
	struct rdma_config *cfg = res->cfg;
	char remote_path[RDMA_PATH_SIZE];
	size_t remote_len;
	char *remote_desc;
	struct stat st;
	doca_error_t result;

	connection_file_name(res, cfg->remote_connection_desc_path, i, remote_path, sizeof(remote_path));
	if (res->role == RDMA_ROLE_REQUESTER)
		DOCA_LOG_INFO("Please copy %s and %s from the %s and then press enter", remote_path,
			      cfg->remote_resource_desc_path, res->peer);
	else
		DOCA_LOG_INFO("Please copy %s from the %s and then press enter", remote_path, res->peer);
	wait_for_enter();

	result = load_file(remote_path, &remote_desc, &remote_len, &st);
	if (result != DOCA_SUCCESS)
		return result;
	res->remote_conn_desc[i] = remote_desc;
	result = doca_rdma_connect(res->rdma, remote_desc, remote_len, res->connections[i]);
	if (result != DOCA_SUCCESS) {
		/* Not used: the file stays where it is for the operator to look at. */
		DOCA_LOG_ERR("Failed to connect connection %u to the %s: %s", i, res->peer,
			     doca_error_get_descr(result));
		return result;
	}
	own_file(res, remote_path, &st);
	return DOCA_SUCCESS;
}

/* The exchange of connection i (see rdma_oob_connect_and_run). */
static doca_error_t
oob_exchange(struct rdma_resources *res, uint32_t i, const void *resource_desc, size_t resource_desc_len)
{
	doca_error_t result;

	result = oob_export_connection(res, i, resource_desc, resource_desc_len);
	if (result != DOCA_SUCCESS || (res->dc_passive && oob_peer_connects_here(res)))
		return result;
	return oob_connect_to_peer(res, i);
}

/* Requester: read the responder's -m descriptor and import it. */
static doca_error_t
oob_import_resource(struct rdma_resources *res)
{
	const char *path = res->cfg->remote_resource_desc_path;
	struct stat st;
	size_t len;
	char *blob;
	doca_error_t result;

	result = load_file(path, &blob, &len, &st);
	if (result != DOCA_SUCCESS)
		return result;
	res->remote_resource_desc = blob;
	result = rdma_import_resource(res, blob, len);
	if (result != DOCA_SUCCESS)
		return result;
	own_file(res, path, &st);
	return DOCA_SUCCESS;
}

doca_error_t
rdma_oob_connect_and_run(struct rdma_resources *res)
{
	const void *resource_desc = NULL;
	size_t resource_desc_len = 0;
	doca_error_t result;
	uint32_t i;

	if (res->role == RDMA_ROLE_RESPONDER) {
		result = rdma_export_resource(res, &resource_desc, &resource_desc_len);
		if (result != DOCA_SUCCESS)
			return result;
	}
	for (i = 0; i < res->cfg->num_connections; i++) {
		/* The resource descriptor goes with the first connection's file. */
		result = oob_exchange(res, i, i == 0 ? resource_desc : NULL, resource_desc_len);
		if (result != DOCA_SUCCESS)
			return result;
	}
	if (res->role == RDMA_ROLE_REQUESTER) {
		result = oob_import_resource(res);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return res->run(res);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sample helpers (see common.h).  Every device lookup walks the devinfo list once
 * with a matcher, opens the first match and destroys the list; the opened device
 * stays valid after the list is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_log.h>

#include "common.h"

DOCA_LOG_REGISTER(SAMPLES::COMMON);

/* Does this devinfo match what the caller asked for? */
typedef bool (*devinfo_matcher)(const struct doca_devinfo *devinfo, const void *arg);

struct name_match {
	const char *value;
	size_t len;
};

/*
 * Open the first device accepted by match (NULL: any) and by func (NULL: any).
 * what names the criterion in the "not found" message.
 */
static doca_error_t
open_first_matching(devinfo_matcher match, const void *arg, tasks_check func, const char *what,
		    struct doca_dev **retval)
{
	struct doca_devinfo **dev_list;
	uint32_t nb_devs, i;
	doca_error_t result;

	if (retval == NULL) {
		DOCA_LOG_ERR("No output pointer given for the opened device");
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = doca_devinfo_create_list(&dev_list, &nb_devs);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to load the list of DOCA devices: %s", doca_error_get_descr(result));
		return result;
	}

	result = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < nb_devs; i++) {
		if (match != NULL && !match(dev_list[i], arg))
			continue;
		if (func != NULL && func(dev_list[i]) != DOCA_SUCCESS)
			continue;
		result = doca_dev_open(dev_list[i], retval);
		if (result == DOCA_SUCCESS)
			break;
		DOCA_LOG_WARN("Failed to open a matching device: %s", doca_error_get_descr(result));
	}
	doca_devinfo_destroy_list(dev_list);

	if (result == DOCA_ERROR_NOT_FOUND)
		DOCA_LOG_WARN("No DOCA device matches %s%s", what,
			      func != NULL ? " and offers the required capability" : "");
	return result;
}

static bool
match_pci(const struct doca_devinfo *devinfo, const void *arg)
{
	uint8_t is_equal = 0;

	return doca_devinfo_is_equal_pci_addr(devinfo, arg, &is_equal) == DOCA_SUCCESS && is_equal;
}

doca_error_t
open_doca_device_with_pci(const char *pci_addr, tasks_check func, struct doca_dev **retval)
{
	char what[64];

	if (pci_addr == NULL) {
		DOCA_LOG_ERR("No PCI address given");
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(what, sizeof(what), "PCI address %.32s", pci_addr);
	return open_first_matching(match_pci, pci_addr, func, what, retval);
}

static bool
match_ibdev_name(const struct doca_devinfo *devinfo, const void *arg)
{
	const struct name_match *want = arg;
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE] = {0};

	if (doca_devinfo_get_ibdev_name(devinfo, name, sizeof(name)) != DOCA_SUCCESS)
		return false;
	return strlen(name) == want->len && memcmp(name, want->value, want->len) == 0;
}

doca_error_t
open_doca_device_with_ibdev_name(const uint8_t *value, size_t val_size, tasks_check func, struct doca_dev **retval)
{
	struct name_match want;
	char what[96];

	if (value == NULL || val_size == 0 || val_size > DOCA_DEVINFO_IBDEV_NAME_SIZE) {
		DOCA_LOG_ERR("IB device name must be 1..%d bytes long", DOCA_DEVINFO_IBDEV_NAME_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Callers pass either the string length or the buffer size: compare the string. */
	want.value = (const char *)value;
	want.len = strnlen(want.value, val_size);
	snprintf(what, sizeof(what), "IB device name %.*s", (int)want.len, want.value);
	return open_first_matching(match_ibdev_name, &want, func, what, retval);
}

static bool
match_iface_name(const struct doca_devinfo *devinfo, const void *arg)
{
	const struct name_match *want = arg;
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE] = {0};

	if (doca_devinfo_get_iface_name(devinfo, name, sizeof(name)) != DOCA_SUCCESS)
		return false;
	return strncmp(name, want->value, want->len) == 0;
}

doca_error_t
open_doca_device_with_iface_name(const uint8_t *value, size_t val_size, tasks_check func, struct doca_dev **retval)
{
	struct name_match want;
	char what[96];

	if (value == NULL || val_size == 0 || val_size > DOCA_DEVINFO_IFACE_NAME_SIZE) {
		DOCA_LOG_ERR("Interface name must be 1..%d bytes long", DOCA_DEVINFO_IFACE_NAME_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	want.value = (const char *)value;
	want.len = strnlen(want.value, val_size);
	snprintf(what, sizeof(what), "interface name %.*s", (int)want.len, want.value);
	return open_first_matching(match_iface_name, &want, func, what, retval);
}

static bool
match_sf_index(const struct doca_devinfo *devinfo, const void *arg)
{
	enum doca_pci_func_type type;
	uint32_t index;

	if (doca_devinfo_get_pci_func_type(devinfo, &type) != DOCA_SUCCESS || type != DOCA_PCI_FUNC_TYPE_SF)
		return false;
	return doca_devinfo_get_sf_index(devinfo, &index) == DOCA_SUCCESS && index == *(const uint32_t *)arg;
}

doca_error_t
open_doca_device_with_sf_index(uint32_t sf_index, tasks_check func, struct doca_dev **retval)
{
	char what[48];

	snprintf(what, sizeof(what), "SF index %u", sf_index);
	return open_first_matching(match_sf_index, &sf_index, func, what, retval);
}

doca_error_t
open_doca_device_with_capabilities(tasks_check func, struct doca_dev **retval)
{
	return open_first_matching(NULL, NULL, func, "any device", retval);
}

/* Does this representor match what the caller asked for? */
typedef bool (*rep_matcher)(const struct doca_devinfo_rep *rep, const void *arg);

static doca_error_t
open_first_rep_matching(struct doca_dev *local, enum doca_devinfo_rep_filter filter, rep_matcher match, const void *arg,
			struct doca_dev_rep **retval)
{
	struct doca_devinfo_rep **rep_list;
	uint32_t nb_reps, i;
	doca_error_t result;

	if (local == NULL || retval == NULL) {
		DOCA_LOG_ERR("Representor lookup needs a local device and an output pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = doca_devinfo_rep_create_list(local, filter, &rep_list, &nb_reps);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to list the representors of the device (available only on the DPU): %s",
			     doca_error_get_descr(result));
		return result;
	}
	result = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < nb_reps; i++) {
		if (!match(rep_list[i], arg))
			continue;
		result = doca_dev_rep_open(rep_list[i], retval);
		break;
	}
	doca_devinfo_rep_destroy_list(rep_list);
	if (result == DOCA_ERROR_NOT_FOUND)
		DOCA_LOG_WARN("No representor of the device matches the request");
	else if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to open the representor: %s", doca_error_get_descr(result));
	return result;
}

static bool
match_rep_vuid(const struct doca_devinfo_rep *rep, const void *arg)
{
	const struct name_match *want = arg;
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE] = {0};

	if (doca_devinfo_rep_get_vuid(rep, vuid, sizeof(vuid)) != DOCA_SUCCESS)
		return false;
	return strlen(vuid) == want->len && memcmp(vuid, want->value, want->len) == 0;
}

doca_error_t
open_doca_device_rep_with_vuid(struct doca_dev *local, enum doca_devinfo_rep_filter filter, const uint8_t *value,
			       size_t val_size, struct doca_dev_rep **retval)
{
	struct name_match want;

	if (value == NULL || val_size == 0 || val_size > DOCA_DEVINFO_REP_VUID_SIZE) {
		DOCA_LOG_ERR("Representor VUID must be 1..%d bytes long", DOCA_DEVINFO_REP_VUID_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	want.value = (const char *)value;
	want.len = strnlen(want.value, val_size);
	return open_first_rep_matching(local, filter, match_rep_vuid, &want, retval);
}

static bool
match_rep_pci(const struct doca_devinfo_rep *rep, const void *arg)
{
	uint8_t is_equal = 0;

	return doca_devinfo_rep_is_equal_pci_addr(rep, arg, &is_equal) == DOCA_SUCCESS && is_equal;
}

doca_error_t
open_doca_device_rep_with_pci(struct doca_dev *local, enum doca_devinfo_rep_filter filter, const char *pci_addr,
			      struct doca_dev_rep **retval)
{
	if (pci_addr == NULL) {
		DOCA_LOG_ERR("No representor PCI address given");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return open_first_rep_matching(local, filter, match_rep_pci, pci_addr, retval);
}

doca_error_t
create_core_objects(struct program_core_objects *state, uint32_t max_bufs)
{
	doca_error_t result;

	if (state == NULL || state->dev == NULL) {
		DOCA_LOG_ERR("Open the device before creating the core objects");
		return DOCA_ERROR_INVALID_VALUE;
	}

	result = doca_mmap_create(&state->src_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the source mmap: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_mmap_add_dev(state->src_mmap, state->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to add the device to the source mmap: %s", doca_error_get_descr(result));
		goto destroy_src_mmap;
	}

	result = doca_mmap_create(&state->dst_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the destination mmap: %s", doca_error_get_descr(result));
		goto destroy_src_mmap;
	}
	result = doca_mmap_add_dev(state->dst_mmap, state->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to add the device to the destination mmap: %s", doca_error_get_descr(result));
		goto destroy_dst_mmap;
	}

	if (max_bufs != 0) {
		result = doca_buf_inventory_create(max_bufs, &state->buf_inv);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to create an inventory of %u buffers: %s", max_bufs,
				     doca_error_get_descr(result));
			goto destroy_dst_mmap;
		}
		result = doca_buf_inventory_start(state->buf_inv);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to start the buffer inventory: %s", doca_error_get_descr(result));
			goto destroy_buf_inv;
		}
	}

	result = doca_pe_create(&state->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the progress engine: %s", doca_error_get_descr(result));
		goto destroy_buf_inv;
	}
	return DOCA_SUCCESS;

destroy_buf_inv:
	if (state->buf_inv != NULL) {
		doca_buf_inventory_destroy(state->buf_inv);
		state->buf_inv = NULL;
	}
destroy_dst_mmap:
	doca_mmap_destroy(state->dst_mmap);
	state->dst_mmap = NULL;
destroy_src_mmap:
	doca_mmap_destroy(state->src_mmap);
	state->src_mmap = NULL;
	return result;
}

doca_error_t
request_stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	enum doca_ctx_states state;
	doca_error_t result;

	result = doca_ctx_stop(ctx);
	if (result == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	if (result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to stop the context: %s", doca_error_get_descr(result));
		return result;
	}

	/* Asynchronous stop: in-flight tasks are flushed through their callbacks. */
	for (;;) {
		if (doca_pe_progress(pe) == 0)
			usleep(10);
		result = doca_ctx_get_state(ctx, &state);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to read the context state: %s", doca_error_get_descr(result));
			return result;
		}
		if (state == DOCA_CTX_STATE_IDLE)
			return DOCA_SUCCESS;
	}
}

doca_error_t
destroy_core_objects(struct program_core_objects *state)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	if (state->pe != NULL) {
		tmp = doca_pe_destroy(state->pe);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the progress engine: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		state->pe = NULL;
	}
	if (state->buf_inv != NULL) {
		tmp = doca_buf_inventory_destroy(state->buf_inv);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the buffer inventory: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		state->buf_inv = NULL;
	}
	if (state->dst_mmap != NULL) {
		tmp = doca_mmap_destroy(state->dst_mmap);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the destination mmap: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		state->dst_mmap = NULL;
	}
	if (state->src_mmap != NULL) {
		tmp = doca_mmap_destroy(state->src_mmap);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the source mmap: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		state->src_mmap = NULL;
	}
	if (state->dev != NULL) {
		tmp = doca_dev_close(state->dev);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to close the device: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		state->dev = NULL;
	}
	return result;
}

doca_error_t
allocate_doca_buf_list(struct doca_buf_inventory *buf_inv, struct doca_mmap *mmap, void *addr, size_t addr_len,
		       int num_buf, bool set_data_pointer, struct doca_buf **dbuf)
{
	struct doca_buf *head = NULL, *seg;
	uint8_t *cur = addr;
	size_t seg_len, first_len;
	doca_error_t result;
	int i;

	if (num_buf < 1 || (size_t)num_buf > addr_len) {
		DOCA_LOG_ERR("Cannot split %zu bytes into %d non-empty buffers", addr_len, num_buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	seg_len = addr_len / (size_t)num_buf;
	first_len = seg_len + addr_len % (size_t)num_buf;

	for (i = 0; i < num_buf; i++) {
		size_t len = i == 0 ? first_len : seg_len;

		result = doca_buf_inventory_buf_get_by_addr(buf_inv, mmap, cur, len, &seg);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to get buffer %d of %d: %s", i + 1, num_buf, doca_error_get_descr(result));
			goto release_list;
		}
		if (set_data_pointer) {
			result = doca_buf_set_data(seg, cur, len);
			if (result != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to set the data of buffer %d: %s", i + 1,
					     doca_error_get_descr(result));
				doca_buf_dec_refcount(seg, NULL);
				goto release_list;
			}
		}
		if (head == NULL) {
			head = seg;
		} else {
			result = doca_buf_chain_list(head, seg);
			if (result != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to chain buffer %d: %s", i + 1, doca_error_get_descr(result));
				doca_buf_dec_refcount(seg, NULL);
				goto release_list;
			}
		}
		cur += len;
	}
	*dbuf = head;
	return DOCA_SUCCESS;

release_list:
	/* Releasing the head releases every buffer already chained to it. */
	if (head != NULL)
		doca_buf_dec_refcount(head, NULL);
	return result;
}

doca_error_t
sample_logging_init(uint32_t sdk_level)
{
	struct doca_log_backend *sdk_log;
	doca_error_t result;

	result = doca_log_backend_create_standard();
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (result != DOCA_SUCCESS)
		return result;
	return doca_log_backend_set_sdk_level(sdk_log, sdk_level);
}

char *
hex_dump(const void *data, size_t size)
{
	/* "OOOOOOOO: " + two groups of 8 "XX " each closed by a space + 16 ASCII characters + "\n" */
	enum { PER_LINE = 16, LINE_LEN = 10 + 2 * (8 * 3 + 1) + PER_LINE + 1 };
	const uint8_t *bytes = data;
	size_t lines = (size + PER_LINE - 1) / PER_LINE;
	char *out, *p;

	out = malloc(lines * LINE_LEN + 1);
	if (out == NULL)
		return NULL;
	p = out;
	for (size_t off = 0; off < size; off += PER_LINE) {
		char ascii[PER_LINE];

		p += sprintf(p, "%08zX: ", off);
		for (size_t i = 0; i < PER_LINE; i++) {
			bool have = off + i < size;
			uint8_t c = have ? bytes[off + i] : 0;

			p += have ? sprintf(p, "%02X ", c) : sprintf(p, "   ");
			ascii[i] = !have ? ' ' : (c >= ' ' && c <= '~') ? (char)c : '.';
			if (i % 8 == 7)
				*p++ = ' ';
		}
		memcpy(p, ascii, PER_LINE);
		p += PER_LINE;
		*p++ = '\n';
	}
	/* No newline after the last line. */
	if (p > out)
		p--;
	*p = '\0';
	return out;
}

/* Copy a string flag into dst (size bytes with the NUL); INVALID_VALUE when too long. */
doca_error_t
copy_string_param(const char *flag, const char *value, char *dst, size_t size)
{
	size_t len = strnlen(value, size);

	if (len == size) {
		DOCA_LOG_ERR("%s is too long: at most %zu characters are accepted", flag, size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(dst, value, len + 1);
	return DOCA_SUCCESS;
}

int
sample_open_regular_file(const char *path, int flags, unsigned int mode, const char *what, struct stat *st,
			 doca_error_t *err)
{
	struct stat sb;
	int fd, fl;

	/* Refuse a non-regular file before open(): opening a FIFO for writing fails with a confusing ENXIO. */
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		goto not_regular;
	fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, (mode_t)mode);
	if (fd < 0) {
		DOCA_LOG_ERR("Failed to open %s (the %s): %s", path, what, strerror(errno));
		*err = errno == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_IO_FAILED;
		return -1;
	}
	/* The path may have been replaced between stat() and open(): the descriptor decides. */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		goto not_regular;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		DOCA_LOG_ERR("Failed to set up the %s %s: %s", what, path, strerror(errno));
		close(fd);
		*err = DOCA_ERROR_IO_FAILED;
		return -1;
	}
	if (st != NULL)
		*st = sb;
	return fd;

not_regular:
	DOCA_LOG_ERR("The %s %s is not a regular file (a FIFO, a device or a directory); give the path of a "
		     "regular file",
		     what, path);
	*err = DOCA_ERROR_INVALID_VALUE;
	return -1;
}

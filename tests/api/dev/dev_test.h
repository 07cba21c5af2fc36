/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the device tests: choose the topology of the (forked) test case
 * before its first DOCA call, look devices up, and capture the SDK log.
 */
#ifndef DEV_TEST_H_
#define DEV_TEST_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_log.h>

#include "sd_test.h"

/* The topology is loaded once per process: call one of these first in a case. */
static inline void
use_builtin_topology(void)
{
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
}

/* Write json to a file in the case's temporary directory and point SOFTDOCA_TOPOLOGY at it. */
static inline const char *
use_topology_text(const char *json)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/topology.json", sd_test_tmpdir());
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fputs(json, f) >= 0, 1);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", path, 1), 0);
	return path;
}

/* Everything the library logs from now on at level or worse lands in a file. */
static inline int
capture_sdk_log_at(uint32_t level)
{
	char path[512];
	struct doca_log_backend *b = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/sdk.log", sd_test_tmpdir());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
	ASSERT(fd >= 0);
	ASSERT_OK(doca_log_backend_create_with_fd_sdk(fd, &b));
	ASSERT_OK(doca_log_backend_set_sdk_level(b, level));
	return fd;
}

/* ... WARNING and worse. */
static inline int
capture_sdk_log(void)
{
	return capture_sdk_log_at(DOCA_LOG_LEVEL_WARNING);
}

/* The captured log so far (static buffer). */
static inline const char *
captured_log(int fd)
{
	static char buf[16384];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	ASSERT(n >= 0);
	buf[n] = '\0';
	return buf;
}

#define ASSERT_LOG_HAS(fd, needle)                                                                                     \
	do {                                                                                                           \
		const char *sd_log_ = captured_log(fd);                                                                \
		if (strstr(sd_log_, (needle)) == NULL)                                                                 \
			sd_test_fail(__FILE__, __LINE__, "log lacks \"%s\"; log was:\n%s", (needle), sd_log_);         \
	} while (0)

/* The function with this IB device name, or NULL. */
static inline struct doca_devinfo *
find_ibdev(struct doca_devinfo **list, uint32_t n, const char *name)
{
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	uint32_t i;

	for (i = 0; i < n; i++) {
		ASSERT_OK(doca_devinfo_get_ibdev_name(list[i], ibdev, sizeof(ibdev)));
		if (strcmp(ibdev, name) == 0)
			return list[i];
	}
	return NULL;
}

/* Open the function with this IB device name (list created and destroyed inside). */
static inline struct doca_dev *
open_ibdev(const char *name)
{
	struct doca_devinfo **list = NULL, *info;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	info = find_ibdev(list, n, name);
	if (info == NULL)
		sd_test_fail(__FILE__, __LINE__, "no device %s", name);
	ASSERT_OK(doca_dev_open(info, &dev));
	ASSERT_OK(doca_devinfo_destroy_list(list));
	return dev;
}

#endif /* DEV_TEST_H_ */

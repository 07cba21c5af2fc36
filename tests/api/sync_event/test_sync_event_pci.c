/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sync events across PCI between two processes: export, creation from the
 * export, set / add / wait in both directions, the imported event's rules, and
 * forged or stale descriptors.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_sync_event.h>

#include "sd_test_peer.h"

/* The exporting side of DOCA's sync_event_local_pci: remote-PCI publisher, CPU subscriber. */
static struct doca_sync_event *
exported_event(struct doca_dev *dev, const uint8_t **blob, size_t *sz)
{
	struct doca_sync_event *ev;

	ASSERT_OK(doca_sync_event_create(&ev));
	ASSERT_OK(doca_sync_event_add_publisher_location_remote_pci(ev));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(ev, dev));
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_OK(doca_sync_event_update_set(ev, 7));
	ASSERT_OK(doca_sync_event_export_to_remote_pci(ev, dev, blob, sz));
	ASSERT_EQ(*sz, 48);
	return ev;
}

TEST(set_and_wait_both_ways_between_processes)
{
	struct doca_dev *host = sd_test_open_pci("b1:00.0");
	const uint8_t *blob;
	struct doca_sync_event *ev;
	size_t sz;
	pid_t child;
	uint8_t copy[48];

	ev = exported_event(host, &blob, &sz);
	memcpy(copy, blob, sz);
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct doca_dev *dpu = sd_test_open_pci("03:00.0");
		struct doca_sync_event *rev;
		uint64_t fetched = 0;

		ASSERT_OK(doca_sync_event_create_from_export(dpu, copy, sizeof(copy), &rev));
		/* an imported event is used as it is */
		ASSERT_ERR(doca_sync_event_add_subscriber_location_cpu(rev, dpu), DOCA_ERROR_NOT_PERMITTED);
		ASSERT_OK(doca_sync_event_start(rev));
		/* the importer sees the exporter's value: 7 as exported, or already the 1 it sets */
		ASSERT_OK(doca_sync_event_get(rev, &fetched));
		ASSERT(fetched == 7 || fetched == 1);
		ASSERT_OK(doca_sync_event_wait_eq_yield(rev, 1, UINT64_MAX));
		ASSERT_OK(doca_sync_event_update_set(rev, 2));
		ASSERT_OK(doca_sync_event_wait_gt(rev, 2, UINT64_MAX)); /* 3, or already more */
		for (int i = 0; i < 10000; i++)
			ASSERT_OK(doca_sync_event_update_add(rev, 1, &fetched));
		ASSERT_ERR(doca_sync_event_export_to_remote_pci(rev, dpu, &blob, &sz), DOCA_ERROR_NOT_PERMITTED);
		ASSERT_OK(doca_sync_event_stop(rev));
		ASSERT_OK(doca_sync_event_destroy(rev));
		_exit(0);
	}
	ASSERT_OK(doca_sync_event_update_set(ev, 1));
	ASSERT_OK(doca_sync_event_wait_eq_yield(ev, 2, 0xff));
	ASSERT_OK(doca_sync_event_update_set(ev, 3));
	/* adds from both processes at once: atomics on one page, none lost */
	for (int i = 0; i < 10000; i++)
		ASSERT_OK(doca_sync_event_update_add(ev, 1, NULL));
	sd_test_reap(child);
	{
		uint64_t v;

		ASSERT_OK(doca_sync_event_get(ev, &v));
		ASSERT_EQ(v, 3 + 20000);
	}
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_sync_event_destroy(ev));
}

TEST(forged_and_stale_descriptors)
{
	struct doca_dev *host = sd_test_open_pci("b1:00.0");
	struct doca_sync_event *ev, *rev = NULL;
	const uint8_t *blob;
	uint8_t bad[48];
	size_t sz;
	pid_t child;

	ev = exported_event(host, &blob, &sz);
	/* malformed */
	memcpy(bad, blob, sz);
	bad[0] ^= 1;
	ASSERT_ERR(doca_sync_event_create_from_export(host, bad, sz, &rev), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sync_event_create_from_export(host, blob, sz - 1, &rev), DOCA_ERROR_INVALID_VALUE);
	memcpy(bad, blob, sz);
	bad[4] = 9;
	ASSERT_ERR(doca_sync_event_create_from_export(host, bad, sz, &rev), DOCA_ERROR_UNSUPPORTED_VERSION);
	/* another key: the page is not that event's */
	memcpy(bad, blob, sz);
	bad[30] ^= 0x40;
	ASSERT_ERR(doca_sync_event_create_from_export(host, bad, sz, &rev), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_PTR_EQ(rev, NULL);
	/* an exporter that is gone */
	child = fork();
	ASSERT(child >= 0);
	if (child == 0)
		_exit(0); /* a process that existed and is gone */
	sd_test_reap(child);
	memcpy(bad, blob, sz);
	bad[12] = (uint8_t)(child & 0xff);
	bad[13] = (uint8_t)((child >> 8) & 0xff);
	bad[14] = (uint8_t)((child >> 16) & 0xff);
	bad[15] = (uint8_t)((child >> 24) & 0xff);
	ASSERT_ERR(doca_sync_event_create_from_export(host, bad, sz, &rev), DOCA_ERROR_NOT_FOUND);
	/* the exporter's own copy still works */
	ASSERT_OK(doca_sync_event_create_from_export(host, blob, sz, &rev));
	ASSERT_OK(doca_sync_event_start(rev));
	ASSERT_OK(doca_sync_event_update_set(rev, 42));
	{
		uint64_t v;

		ASSERT_OK(doca_sync_event_get(ev, &v));
		ASSERT_EQ(v, 42);
	}
	ASSERT_OK(doca_sync_event_stop(rev));
	ASSERT_OK(doca_sync_event_destroy(rev));
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_sync_event_destroy(ev));
}

TEST(export_needs_a_remote_pci_location_and_own_storage)
{
	struct doca_dev *host = sd_test_open_pci("b1:00.0");
	struct doca_sync_event *ev;
	const uint8_t *blob = NULL;
	static uint64_t storage;
	size_t sz = 0;

	ASSERT_OK(doca_sync_event_create(&ev));
	ASSERT_OK(doca_sync_event_add_publisher_location_cpu(ev, host));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(ev, host));
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_ERR(doca_sync_event_export_to_remote_pci(ev, host, &blob, &sz), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(blob, NULL);
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_sync_event_destroy(ev));
	ASSERT_OK(doca_sync_event_create(&ev));
	ASSERT_OK(doca_sync_event_add_publisher_location_remote_pci(ev));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(ev, host));
	ASSERT_OK(doca_sync_event_set_addr(ev, &storage));
	ASSERT_OK(doca_sync_event_start(ev));
	ASSERT_ERR(doca_sync_event_export_to_remote_pci(ev, host, &blob, &sz), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_sync_event_stop(ev));
	ASSERT_OK(doca_sync_event_destroy(ev));
}

int
main(int argc, char **argv)
{
	setenv("SOFTDOCA_TOPOLOGY", "builtin", 1);
	return sd_test_main(argc, argv);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A library counting what ibv_get_device_list shows it, built under three
 * names (tests/api/ibverbs/meson.build): libuct_probe.so and
 * librdmacm_probe.so are the callers libsoftdoca_ibverbs shows rdma-core's
 * devices only (UCX's transports, librdmacm), libother_probe.so any other
 * library (test_ibverbs_devices).
 */
#include <infiniband/verbs.h>

int probe_num_devices(void);

__attribute__((visibility("default"))) int
probe_num_devices(void)
{
	struct ibv_device **list;
	int n = -1;

	list = ibv_get_device_list(&n);
	if (list == NULL)
		return 0; /* rdma-core has no RDMA subsystem here: no device */
	ibv_free_device_list(list);
	return n;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_dev.h on the built-in topology: device lists and their
 * lifetime, open/close references, every devinfo getter and its refusals, PCI
 * address comparison, representors.  Internal state is peeked at through
 * dev_internal.h where the public API cannot show it (users -> IN_USE).
 */
#include <arpa/inet.h>
#include <ifaddrs.h>

#include "dev_test.h"
#include "dev_internal.h"

static struct doca_devinfo **
builtin_list(uint32_t *n)
{
	struct doca_devinfo **list = NULL;

	use_builtin_topology();
	ASSERT_OK(doca_devinfo_create_list(&list, n));
	ASSERT_NOT_NULL(list);
	return list;
}

/* A host-built program (this test) sees the host's functions only, in topology order. */
TEST(host_program_lists_only_host_functions)
{
	static const char *const ibdev[] = {"mlx5_0", "mlx5_1"};
	static const char *const pci[] = {"0000:b1:00.0", "0000:b1:00.1"};
	static const char *const iface[] = {"ens1f0np0", "ens1f1np1"};
	char buf[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint32_t n = 0, i;
	struct doca_devinfo **list = builtin_list(&n);

	ASSERT_EQ(sd_dev_process_side(), SD_DEV_SIDE_HOST);
	ASSERT_EQ(n, 2);
	ASSERT_PTR_EQ(list[2], NULL);
	for (i = 0; i < n; i++) {
		uint16_t vhca = 99;
		uint8_t eq = 7;

		ASSERT_OK(doca_devinfo_get_ibdev_name(list[i], buf, DOCA_DEVINFO_IBDEV_NAME_SIZE));
		ASSERT_STR_EQ(buf, ibdev[i]);
		ASSERT_OK(doca_devinfo_get_pci_addr_str(list[i], buf));
		ASSERT_STR_EQ(buf, pci[i]);
		ASSERT_OK(doca_devinfo_get_iface_name(list[i], buf, sizeof(buf)));
		ASSERT_STR_EQ(buf, iface[i]);
		ASSERT_OK(doca_devinfo_get_vhca_id(list[i], &vhca));
		ASSERT_EQ(vhca, i);
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[i], "03:00.0", &eq));
		ASSERT_EQ(eq, 0);
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[i], "03:00.1", &eq));
		ASSERT_EQ(eq, 0);
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

/* The machine still has four functions: the DPU's keep their indexes (descriptors name them). */
TEST(topology_keeps_every_function)
{
	const struct sd_topology *topo;

	use_builtin_topology();
	topo = sd_topology_get();
	ASSERT_NOT_NULL(topo);
	ASSERT_EQ(topo->num_devs, 4);
	ASSERT_STR_EQ(topo->devs[2].pci_addr, "0000:03:00.0");
	ASSERT_EQ(topo->devs[2].side, SD_DEV_SIDE_DPU);
	ASSERT_STR_EQ(topo->devs[3].pci_addr, "0000:03:00.1");
}

/* A topology without a host-side function has nothing for a host program. */
TEST(host_program_on_a_dpu_only_topology_finds_nothing)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 5;
	int fd;

	use_topology_text("{\"devices\": [{\"functions\": [{\"side\": \"dpu\", \"pci_addr\": \"03:00.0\", "
			  "\"ibdev\": \"mlx5_0\", \"iface\": \"p0\"}]}]}");
	fd = capture_sdk_log();
	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_NOT_FOUND);
	ASSERT_EQ(n, 5);
	ASSERT_PTR_EQ(list, NULL);
	ASSERT_LOG_HAS(fd, "has no host-side function");
}

TEST(two_lists_share_the_same_devinfos)
{
	uint32_t n1 = 0, n2 = 0;
	struct doca_devinfo **l1 = builtin_list(&n1), **l2 = NULL;

	ASSERT_OK(doca_devinfo_create_list(&l2, &n2));
	ASSERT_EQ(n1, n2);
	ASSERT(l1 != l2);
	ASSERT_PTR_EQ(l1[3], l2[3]);
	ASSERT_OK(doca_devinfo_destroy_list(l1));
	ASSERT_OK(doca_devinfo_destroy_list(l2));
}

TEST(list_null_arguments_are_refused_and_outputs_untouched)
{
	struct doca_devinfo **list = (struct doca_devinfo **)(uintptr_t)0x1234;
	uint32_t n = 77;

	use_builtin_topology();
	ASSERT_ERR(doca_devinfo_create_list(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(n, 77);
	ASSERT_ERR(doca_devinfo_create_list(&list, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(list, (void *)(uintptr_t)0x1234);
	ASSERT_ERR(doca_devinfo_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(devinfo_getters_report_the_default_values)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	uint8_t ipv4[DOCA_DEVINFO_IPV4_ADDR_SIZE], mac[DOCA_DEVINFO_MAC_ADDR_SIZE], u8 = 9;
	static const uint8_t lo_ipv4[4] = {127, 0, 0, 1}, zero_mac[6] = {0};
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_SF;
	uint64_t rate = 0;
	uint16_t lid = 9;
	uint32_t i;

	for (i = 0; i < n; i++) {
		bool dpu = i >= 2;

		ASSERT_OK(doca_devinfo_get_ipv4_addr(list[i], ipv4, sizeof(ipv4)));
		ASSERT_MEM_EQ(ipv4, lo_ipv4, 4);
		ASSERT_OK(doca_devinfo_get_mac_addr(list[i], mac, sizeof(mac)));
		ASSERT_MEM_EQ(mac, zero_mac, 6);
		ASSERT_OK(doca_devinfo_get_lid(list[i], &lid));
		ASSERT_EQ(lid, 0);
		ASSERT_OK(doca_devinfo_get_active_rate(list[i], &rate));
		ASSERT_EQ(rate, 100000000000ULL);
		ASSERT_OK(doca_devinfo_get_pci_func_type(list[i], &type));
		ASSERT_EQ(type, DOCA_PCI_FUNC_TYPE_PF);
		ASSERT_OK(doca_devinfo_cap_is_hotplug_manager_supported(list[i], &u8));
		ASSERT_EQ(u8, dpu);
		ASSERT_OK(doca_devinfo_rep_cap_is_filter_all_supported(list[i], &u8));
		ASSERT_EQ(u8, dpu);
		ASSERT_OK(doca_devinfo_rep_cap_is_filter_net_supported(list[i], &u8));
		ASSERT_EQ(u8, dpu);
		ASSERT_OK(doca_devinfo_rep_cap_is_filter_emulated_supported(list[i], &u8));
		ASSERT_EQ(u8, dpu);
		ASSERT_OK(doca_devinfo_cap_is_notification_moderation_supported(list[i], &u8));
		ASSERT_EQ(u8, 1);
		ASSERT_OK(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(list[i], &u8));
		ASSERT_EQ(u8, 1);
		type = DOCA_PCI_FUNC_TYPE_SF;
		u8 = 9;
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(ipv6_getter_matches_the_netdev)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	static const uint8_t lo6[16] = {[15] = 1};
	uint8_t ipv6[16], untouched[16];
	doca_error_t ret;

	memset(ipv6, 0xee, sizeof(ipv6));
	memcpy(untouched, ipv6, sizeof(ipv6));
	ret = doca_devinfo_get_ipv6_addr(list[0], ipv6, sizeof(ipv6));
	/* lo carries ::1 unless IPv6 is disabled on this machine. */
	if (ret == DOCA_ERROR_NOT_FOUND) {
		struct ifaddrs *ifs, *ifa;

		ASSERT_MEM_EQ(ipv6, untouched, 16);
		ASSERT_EQ(getifaddrs(&ifs), 0);
		for (ifa = ifs; ifa != NULL; ifa = ifa->ifa_next)
			ASSERT(ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET6 ||
			       strcmp(ifa->ifa_name, "lo") != 0);
		freeifaddrs(ifs);
	} else {
		ASSERT_OK(ret);
		ASSERT_MEM_EQ(ipv6, lo6, 16);
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(gid_is_ipv4_mapped_address_of_lo)
{
	static const uint8_t gid[16] = {[10] = 0xff, [11] = 0xff, [12] = 127, [13] = 0, [14] = 0, [15] = 1};
	uint32_t n = 0, i;
	struct doca_devinfo **list = builtin_list(&n);

	for (i = 0; i < n; i++) {
		ASSERT_MEM_EQ(list[i]->gid, gid, 16);
		ASSERT_STR_EQ(list[i]->netdev, "lo");
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(getters_refuse_null_arguments)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	struct doca_devinfo *d = list[0];
	char s[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t b[16], u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	enum doca_pci_func_type t;

	ASSERT_ERR(doca_devinfo_get_pci_addr_str(NULL, s), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_pci_addr_str(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_is_equal_pci_addr(NULL, "b1:00.0", &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_is_equal_pci_addr(d, NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_is_equal_pci_addr(d, "b1:00.0", NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_ipv4_addr(NULL, b, 4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_ipv4_addr(d, NULL, 4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_ipv6_addr(NULL, b, 16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_ipv6_addr(d, NULL, 16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_mac_addr(NULL, b, 6), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_mac_addr(d, NULL, 6), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_iface_name(NULL, s, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_iface_name(d, NULL, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_ibdev_name(NULL, s, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_ibdev_name(d, NULL, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_lid(NULL, &u16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_lid(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_active_rate(NULL, &u64), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_active_rate(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_vhca_id(NULL, &u16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_vhca_id(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_pci_func_type(NULL, &t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_pci_func_type(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_sf_index(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_sf_index(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_cap_is_hotplug_manager_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_cap_is_hotplug_manager_supported(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_cap_is_notification_moderation_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_cap_is_notification_moderation_supported(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_cap_is_filter_all_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_cap_is_filter_all_supported(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_cap_is_filter_net_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_cap_is_filter_net_supported(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_cap_is_filter_emulated_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_cap_is_filter_emulated_supported(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(d, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(getters_refuse_small_buffers_and_leave_them_untouched)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	char s[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t b[16];
	int fd = capture_sdk_log();

	memset(s, 'x', sizeof(s));
	memset(b, 0xee, sizeof(b));
	ASSERT_ERR(doca_devinfo_get_iface_name(list[0], s, DOCA_DEVINFO_IFACE_NAME_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(fd, "doca_devinfo_get_iface_name: output buffer of 255 bytes is too small");
	ASSERT_ERR(doca_devinfo_get_ibdev_name(list[0], s, DOCA_DEVINFO_IBDEV_NAME_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(s[0], 'x');
	ASSERT_ERR(doca_devinfo_get_ipv4_addr(list[0], b, DOCA_DEVINFO_IPV4_ADDR_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_get_mac_addr(list[0], b, DOCA_DEVINFO_MAC_ADDR_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	if (sd_topology_get()->devs[0].has_ipv6)
		ASSERT_ERR(doca_devinfo_get_ipv6_addr(list[0], b, DOCA_DEVINFO_IPV6_ADDR_SIZE - 1),
			   DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(b[0], 0xee);
	/* The exact sizes are enough. */
	ASSERT_OK(doca_devinfo_get_ibdev_name(list[0], s, DOCA_DEVINFO_IBDEV_NAME_SIZE));
	ASSERT_OK(doca_devinfo_get_mac_addr(list[0], b, DOCA_DEVINFO_MAC_ADDR_SIZE));
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(sf_index_of_a_pf_is_not_supported)
{
	uint32_t n = 0, sf = 1234;
	struct doca_devinfo **list = builtin_list(&n);

	ASSERT_ERR(doca_devinfo_get_sf_index(list[0], &sf), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(sf, 1234);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(pci_compare_accepts_both_forms_any_case)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	static const char *const same[] = {"0000:b1:00.0", "b1:00.0", "B1:00.0", "0000:B1:00.0"};
	static const char *const other[] = {"b1:00.1", "0001:b1:00.0", "03:00.0", "0000:b2:00.0"};
	size_t i;
	uint8_t eq;

	for (i = 0; i < SD_ARRAY_SIZE(same); i++) {
		eq = 7;
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[0], same[i], &eq));
		ASSERT_EQ(eq, 1);
	}
	for (i = 0; i < SD_ARRAY_SIZE(other); i++) {
		eq = 7;
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[0], other[i], &eq));
		ASSERT_EQ(eq, 0);
	}
	ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[1], "b1:00.1", &eq));
	ASSERT_EQ(eq, 1);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(pci_compare_refuses_malformed_addresses)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	static const char *const bad[] = {"",	     "b1:00",	     "zz:00.0", "0000:b1:00.0x", "b1:20.0",
					  "b1:00.8", " b1:00.0",     "b1-00.0", "0000:b1:00:0",	 "00000:b1:00.0",
					  "b1:0.0",  "0x00:b1:00.0", "+b1:00.0"};
	size_t i;
	uint8_t eq = 7;
	int fd = capture_sdk_log();

	for (i = 0; i < SD_ARRAY_SIZE(bad); i++)
		ASSERT_ERR(doca_devinfo_is_equal_pci_addr(list[0], bad[i], &eq), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(eq, 7);
	ASSERT_LOG_HAS(fd, "\"b1:20.0\" is not a PCI address");
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(opened_dev_outlives_the_list)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	struct doca_dev *dev = NULL;
	struct doca_devinfo *info;
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE], pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

	ASSERT_OK(doca_dev_open(list[1], &dev));
	ASSERT_NOT_NULL(dev);
	ASSERT_OK(doca_devinfo_destroy_list(list));
	info = doca_dev_as_devinfo(dev);
	ASSERT_NOT_NULL(info);
	ASSERT_OK(doca_devinfo_get_ibdev_name(info, name, sizeof(name)));
	ASSERT_STR_EQ(name, "mlx5_1");
	ASSERT_OK(doca_devinfo_get_pci_addr_str(info, pci));
	ASSERT_STR_EQ(pci, "0000:b1:00.1");
	ASSERT_OK(doca_dev_close(dev));
}

TEST(open_same_devinfo_shares_one_dev_with_references)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	struct doca_dev *a = NULL, *b = NULL, *c = NULL, *other = NULL;

	ASSERT_OK(doca_dev_open(list[0], &a));
	ASSERT_OK(doca_dev_open(list[0], &b));
	ASSERT_PTR_EQ(a, b);
	ASSERT_EQ(a->refcount, 2);
	ASSERT_OK(doca_dev_open(list[1], &other));
	ASSERT(other != a);
	ASSERT_OK(doca_dev_close(b));
	/* One reference left: the object is still the devinfo's open dev. */
	ASSERT_EQ(a->refcount, 1);
	ASSERT_PTR_EQ(doca_dev_as_devinfo(a), list[0]);
	ASSERT_OK(doca_dev_open(list[0], &c));
	ASSERT_PTR_EQ(c, a);
	ASSERT_OK(doca_dev_close(c));
	ASSERT_OK(doca_dev_close(a));
	ASSERT_PTR_EQ(list[0]->dev, NULL);
	ASSERT_OK(doca_dev_close(other));
	/* Reopening after the last close gives a fresh, working device. */
	ASSERT_OK(doca_dev_open(list[0], &a));
	ASSERT_EQ(a->refcount, 1);
	ASSERT_PTR_EQ(doca_dev_as_devinfo(a), list[0]);
	ASSERT_OK(doca_dev_close(a));
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(close_null_is_success)
{
	use_builtin_topology();
	ASSERT_OK(doca_dev_close(NULL));
}

TEST(as_devinfo_of_null_is_null)
{
	use_builtin_topology();
	ASSERT_PTR_EQ(doca_dev_as_devinfo(NULL), NULL);
	ASSERT_PTR_EQ(doca_dev_rep_as_devinfo(NULL), NULL);
}

TEST(open_refuses_null_and_foreign_devinfo)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);
	struct doca_dev *dev = (struct doca_dev *)(uintptr_t)0x1234;
	uint64_t fake[64] = {0};

	ASSERT_ERR(doca_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dev_open(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dev_open((struct doca_devinfo *)fake, &dev), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(dev, (void *)(uintptr_t)0x1234);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(close_with_users_is_in_use_and_names_the_count)
{
	struct doca_dev *dev, *again;
	int fd;

	use_builtin_topology();
	fd = capture_sdk_log();
	dev = open_ibdev("mlx5_0");
	/* What doca_mmap_add_dev / a context on the device do. */
	sd_dev_get(dev);
	sd_dev_get(dev);
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	ASSERT_LOG_HAS(fd, "doca_dev_close: device mlx5_0 (0000:b1:00.0) is still used by 2 mmap(s)/context(s)");
	/* Still open and shared. */
	again = open_ibdev("mlx5_0");
	ASSERT_PTR_EQ(again, dev);
	/* Not the last reference: dropping it is fine even with users. */
	ASSERT_OK(doca_dev_close(again));
	sd_dev_put(dev);
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	sd_dev_put(dev);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(accelerate_resource_reclaim)
{
	struct doca_dev *dev;

	use_builtin_topology();
	dev = open_ibdev("mlx5_1");
	ASSERT_OK(doca_dev_accelerate_resource_reclaim(dev));
	ASSERT_ERR(doca_dev_accelerate_resource_reclaim(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(dev_index_lookup_matches_the_list)
{
	uint32_t n = 0;
	struct doca_devinfo **list = builtin_list(&n);

	ASSERT_PTR_EQ(sd_devinfo_by_index(1), list[1]);
	ASSERT_EQ(list[1]->index, 1);
	/* The DPU's functions are not listed here but keep their indexes. */
	ASSERT_NOT_NULL(sd_devinfo_by_index(3));
	ASSERT_EQ(sd_devinfo_by_index(3)->index, 3);
	ASSERT_PTR_EQ(sd_devinfo_by_index(4), NULL);
	ASSERT_STR_EQ(sd_topology_get()->source, "built-in");
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(default_caps_follow_the_side)
{
	const struct sd_topology *topo;
	uint32_t i;

	use_builtin_topology();
	topo = sd_topology_get();
	ASSERT_NOT_NULL(topo);
	ASSERT_EQ(topo->num_devs, 4);
	for (i = 0; i < topo->num_devs; i++) {
		const struct sd_dev_caps *c = &topo->devs[i].caps;
		bool host = i < 2;

		ASSERT_EQ(topo->devs[i].side, host ? SD_DEV_SIDE_HOST : SD_DEV_SIDE_DPU);
		ASSERT_EQ(c->dma_memcpy, 1);
		ASSERT_EQ(c->dma_max_buf_size, 1ULL << 30);
		ASSERT_EQ(c->dma_max_buf_list_len, 32);
		ASSERT_EQ(c->dma_max_num_tasks, 16384);
		ASSERT_EQ(c->pci_export, 1); /* both sides, both ways */
		ASSERT_EQ(c->pci_import, 1);
		ASSERT_EQ(c->rdma, 1);
		ASSERT_EQ(c->rdma_max_send_queue_size, 8192);
		ASSERT_EQ(c->rdma_max_recv_queue_size, 8192);
		ASSERT_EQ(c->rdma_max_send_buf_list_len, 32);
		ASSERT_EQ(c->rdma_max_recv_buf_list_len, 32);
		ASSERT_EQ(c->rdma_max_message_size, 1U << 30);
		ASSERT_EQ(c->rdma_max_connections, 1024);
		ASSERT_EQ(c->rdma_dc, 1);
		ASSERT_EQ(c->gid_table_size, 1);
	}
}

TEST(rep_list_on_host_side_is_not_supported)
{
	struct doca_devinfo_rep **reps = (struct doca_devinfo_rep **)(uintptr_t)0x1234;
	uint32_t nr = 77;
	struct doca_dev *dev;
	int fd;

	use_builtin_topology();
	fd = capture_sdk_log();
	dev = open_ibdev("mlx5_0");
	ASSERT_ERR(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(nr, 77);
	ASSERT_PTR_EQ(reps, (void *)(uintptr_t)0x1234);
	ASSERT_LOG_HAS(fd, "representors are available only on the DPU side");
	ASSERT_OK(doca_dev_close(dev));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

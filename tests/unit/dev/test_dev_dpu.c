/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dev.h seen by a program built with the DPU personality (this file is
 * compiled against include/dpu's doca_build_config.h, as `pkg-config` from
 * <libdir>/softdoca/dpu/pkgconfig would compile it): it lists the DPU's functions
 * (03:00.x) only, cannot open a host function (b1:00.x) by PCI address, and
 * reaches the host's functions as representors of its own.
 */
#include "dev_test.h"
#include "dev_internal.h"

#ifndef DOCA_ARCH_DPU
#error "test_dev_dpu must be built with the DPU personality (dpu_inc)"
#endif

/* What DOCA's samples do to open a device by PCI address (samples/common). */
static doca_error_t
open_by_pci(const char *pci, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL;
	doca_error_t ret = DOCA_ERROR_NOT_FOUND;
	uint32_t n = 0, i;
	uint8_t eq;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (i = 0; i < n; i++) {
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[i], pci, &eq));
		if (eq) {
			ret = doca_dev_open(list[i], dev);
			break;
		}
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
	return ret;
}

TEST(side_is_declared_before_main)
{
	ASSERT_EQ(sd_dev_process_side(), SD_DEV_SIDE_DPU);
}

TEST(dpu_program_lists_only_dpu_functions)
{
	static const char *const ibdev[] = {"mlx5_2", "mlx5_3"};
	static const char *const pci[] = {"0000:03:00.0", "0000:03:00.1"};
	char buf[DOCA_DEVINFO_IFACE_NAME_SIZE];
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, i;

	use_builtin_topology();
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_EQ(n, 2);
	ASSERT_PTR_EQ(list[2], NULL);
	for (i = 0; i < n; i++) {
		uint8_t eq = 7;

		ASSERT_OK(doca_devinfo_get_ibdev_name(list[i], buf, DOCA_DEVINFO_IBDEV_NAME_SIZE));
		ASSERT_STR_EQ(buf, ibdev[i]);
		ASSERT_OK(doca_devinfo_get_pci_addr_str(list[i], buf));
		ASSERT_STR_EQ(buf, pci[i]);
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[i], "b1:00.0", &eq));
		ASSERT_EQ(eq, 0);
		ASSERT_OK(doca_devinfo_is_equal_pci_addr(list[i], "b1:00.1", &eq));
		ASSERT_EQ(eq, 0);
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(opening_a_host_function_by_pci_is_not_found)
{
	struct doca_dev *dev = NULL;

	use_builtin_topology();
	ASSERT_ERR(open_by_pci("b1:00.0", &dev), DOCA_ERROR_NOT_FOUND);
	ASSERT_PTR_EQ(dev, NULL);
	ASSERT_ERR(open_by_pci("0000:b1:00.1", &dev), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(open_by_pci("03:00.0", &dev));
	ASSERT_NOT_NULL(dev);
	ASSERT_OK(doca_dev_close(dev));
}

/* On the DPU the host's PFs are reachable only as representors of the DPU's functions. */
TEST(host_functions_are_representors_of_dpu_functions)
{
	static const char *const owner[] = {"03:00.0", "03:00.0", "03:00.1"};
	static const char *const rep[] = {"0000:b1:00.0", "0000:b1:00.2", "0000:b1:00.1"};
	struct doca_devinfo_rep **reps = NULL;
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	struct doca_dev *dev = NULL;
	uint32_t nr = 0, k = 0, i, j;

	use_builtin_topology();
	for (i = 0; i < 2; i++) {
		ASSERT_OK(open_by_pci(owner[k], &dev));
		ASSERT_OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr));
		ASSERT_EQ(nr, i == 0 ? 2 : 1);
		for (j = 0; j < nr; j++, k++) {
			ASSERT_OK(doca_devinfo_rep_get_pci_addr_str(reps[j], pci));
			ASSERT_STR_EQ(pci, rep[k]);
		}
		ASSERT_OK(doca_devinfo_rep_destroy_list(reps));
		ASSERT_OK(doca_dev_close(dev));
	}
	ASSERT_EQ(k, 3);
}

/* A topology without a DPU-side function has nothing for a DPU program. */
TEST(dpu_program_on_a_host_only_topology_finds_nothing)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 5;
	int fd;

	use_topology_text("{\"devices\": [{\"functions\": [{\"side\": \"host\", \"pci_addr\": \"b1:00.0\", "
			  "\"ibdev\": \"mlx5_0\", \"iface\": \"h0\"}]}]}");
	fd = capture_sdk_log();
	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_NOT_FOUND);
	ASSERT_EQ(n, 5);
	ASSERT_PTR_EQ(list, NULL);
	ASSERT_LOG_HAS(fd, "has no DPU-side function");
}

TEST(rep_list_on_dpu_side_filters)
{
	struct doca_devinfo_rep **reps = NULL;
	uint32_t nr = 0;
	struct doca_dev *dev;
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE], pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type t = DOCA_PCI_FUNC_TYPE_SF;
	uint16_t vhca = 99;
	uint8_t u8 = 9;

	use_builtin_topology();
	dev = open_ibdev("mlx5_2");
	ASSERT_OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr));
	ASSERT_EQ(nr, 2);
	ASSERT_PTR_EQ(reps[2], NULL);
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));

	ASSERT_OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nr));
	ASSERT_EQ(nr, 1);
	ASSERT_OK(doca_devinfo_rep_get_vuid(reps[0], vuid, sizeof(vuid)));
	ASSERT_STR_EQ(vuid, "bf0-pf0hpf");
	ASSERT_OK(doca_devinfo_rep_get_pci_addr_str(reps[0], pci));
	ASSERT_STR_EQ(pci, "0000:b1:00.0");
	ASSERT_OK(doca_devinfo_rep_get_iface_name(reps[0], iface, sizeof(iface)));
	ASSERT_STR_EQ(iface, "pf0hpf");
	ASSERT_OK(doca_devinfo_rep_get_pci_func_type(reps[0], &t));
	ASSERT_EQ(t, DOCA_PCI_FUNC_TYPE_PF);
	ASSERT_OK(doca_devinfo_rep_get_is_hotplug(reps[0], &u8));
	ASSERT_EQ(u8, 0);
	ASSERT_OK(doca_devinfo_rep_get_vhca_id(reps[0], &vhca));
	ASSERT_EQ(vhca, 0);
	ASSERT_OK(doca_devinfo_rep_is_equal_pci_addr(reps[0], "B1:00.0", &u8));
	ASSERT_EQ(u8, 1);
	ASSERT_OK(doca_devinfo_rep_is_equal_pci_addr(reps[0], "0000:b1:00.1", &u8));
	ASSERT_EQ(u8, 0);
	ASSERT_ERR(doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00", &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));

	ASSERT_OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_EMULATED, &reps, &nr));
	ASSERT_EQ(nr, 1);
	ASSERT_OK(doca_devinfo_rep_get_is_hotplug(reps[0], &u8));
	ASSERT_EQ(u8, 1);
	ASSERT_OK(doca_devinfo_rep_get_vuid(reps[0], vuid, sizeof(vuid)));
	ASSERT_STR_EQ(vuid, "bf0-virtio-net0");
	ASSERT_OK(doca_devinfo_rep_get_vhca_id(reps[0], &vhca));
	ASSERT_EQ(vhca, 4);
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));

	ASSERT_OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED,
					       &reps, &nr));
	ASSERT_EQ(nr, 2);
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(rep_list_refuses_bad_arguments)
{
	struct doca_devinfo_rep **reps = NULL;
	uint32_t nr = 0;
	struct doca_dev *dev;
	uint8_t eq = 0;

	use_builtin_topology();
	dev = open_ibdev("mlx5_3");
	ASSERT_ERR(doca_devinfo_rep_create_list(dev, 1 << 0, &reps, &nr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_create_list(dev, 1 << 3, &reps, &nr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_create_list(NULL, 0, &reps, &nr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_create_list(dev, 0, NULL, &nr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_create_list(dev, 0, &reps, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	/* mlx5_3 (p1) represents the host's second PF. */
	ASSERT_OK(doca_devinfo_rep_create_list(dev, 0, &reps, &nr));
	ASSERT_EQ(nr, 1);
	ASSERT_OK(doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00.1", &eq));
	ASSERT_EQ(eq, 1);
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(rep_open_close_and_getter_refusals)
{
	struct doca_devinfo_rep **reps = NULL;
	struct doca_dev_rep *r1 = NULL, *r2 = NULL;
	uint32_t nr = 0;
	struct doca_dev *dev;
	char s[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type t;
	uint16_t u16;
	uint8_t u8;

	use_builtin_topology();
	dev = open_ibdev("mlx5_2");
	ASSERT_OK(doca_devinfo_rep_create_list(dev, 0, &reps, &nr));
	ASSERT_OK(doca_dev_rep_open(reps[0], &r1));
	ASSERT_OK(doca_dev_rep_open(reps[0], &r2));
	ASSERT_PTR_EQ(doca_dev_rep_as_devinfo(r1), reps[0]);
	ASSERT_PTR_EQ(doca_dev_rep_as_devinfo(r2), reps[0]);
	ASSERT_ERR(doca_dev_rep_open(NULL, &r1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dev_rep_open(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dev_rep_close(NULL), DOCA_ERROR_INVALID_VALUE);

	memset(s, 'x', sizeof(s));
	ASSERT_ERR(doca_devinfo_rep_get_vuid(reps[0], s, DOCA_DEVINFO_REP_VUID_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_iface_name(reps[0], s, DOCA_DEVINFO_IFACE_NAME_SIZE - 1),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(s[0], 'x');
	ASSERT_ERR(doca_devinfo_rep_get_vuid(NULL, s, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_vuid(reps[0], NULL, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_pci_addr_str(NULL, s), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_pci_addr_str(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_pci_func_type(NULL, &t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_pci_func_type(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_is_hotplug(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_is_hotplug(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_iface_name(NULL, s, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_iface_name(reps[0], NULL, sizeof(s)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_vhca_id(NULL, &u16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_get_vhca_id(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_is_equal_pci_addr(NULL, "b1:00.0", &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_is_equal_pci_addr(reps[0], NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00.0", NULL), DOCA_ERROR_INVALID_VALUE);

	ASSERT_OK(doca_dev_rep_close(r1));
	ASSERT_OK(doca_dev_rep_close(r2));
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));
	ASSERT_OK(doca_dev_close(dev));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

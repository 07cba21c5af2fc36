/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_caps: list the (emulated) DOCA devices, their representors and
 * capabilities, as text or JSON.  Every record is built once as a json-c object
 * and then printed either as JSON or as indented "key value" text.
 *
 * Identity comes from the public doca_dev.h getters; the side, netdev, GID and
 * the capability table from softdoca's own public calls (softdoca_dev.h), so the
 * tool needs nothing but libdoca_common.
 *
 * Like every DOCA program it sees the devices of the side it was built for
 * (docs/personalities.md): the host build lists the host's functions, the DPU
 * build the DPU's functions and, with --list-rep-devs, their representors.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_version.h>
#include <softdoca_dev.h>

#define EXIT_USAGE 2

#ifdef DOCA_ARCH_DPU
#define PERSONALITY "dpu"
#else
#define PERSONALITY "host"
#endif

struct options {
	bool list_devs;
	bool list_reps;
	bool version;
	bool json;
	const char *pci_addr; /* only this function (-p), or NULL */
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: doca_caps [options]\n"
		     "Show the DOCA devices softdoca emulates and what they can do, as seen from the\n"
		     "" PERSONALITY " side (this doca_caps was built with the " PERSONALITY " personality).\n"
		     "With no option, dump the capabilities of every device function.\n"
		     "\n"
		     "  -l, --list-devs         list device functions (PCI address, IB device, interface,\n"
		     "                          netdev, side, GID, MAC, IPv4/IPv6)\n"
		     "  -r, --list-rep-devs     list the representors of the DPU's functions (DPU build only)\n"
		     "  -p, --pci-addr <addr>   only the function at this PCI address (DDDD:BB:DD.F or BB:DD.F)\n"
		     "  -v, --version           print the DOCA API version and softdoca's\n"
		     "  -j, --json              machine-readable JSON output (combines with the above)\n"
		     "  -h, --help              this text\n"
		     "\n"
		     "The topology comes from $SOFTDOCA_TOPOLOGY, else /etc/softdoca/topology.json,\n"
		     "else the built-in default (docs/devices.md).\n");
}

/* 0: run; 1: help printed; EXIT_USAGE: bad command line (usage on stderr). */
static int
parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"list-devs", no_argument, NULL, 'l'},
		{"list-rep-devs", no_argument, NULL, 'r'},
		{"pci-addr", required_argument, NULL, 'p'},
		{"version", no_argument, NULL, 'v'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "lrp:vjh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->list_devs = true;
			break;
		case 'r':
			o->list_reps = true;
			break;
		case 'p':
			o->pci_addr = optarg;
			break;
		case 'v':
			o->version = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "doca_caps: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

static const char *
func_type_str(enum doca_pci_func_type t)
{
	switch (t) {
	case DOCA_PCI_FUNC_TYPE_PF:
		return "PF";
	case DOCA_PCI_FUNC_TYPE_VF:
		return "VF";
	case DOCA_PCI_FUNC_TYPE_SF:
		return "SF";
	}
	return "unknown";
}

static void
add_str(struct json_object *obj, const char *key, const char *val)
{
	json_object_object_add(obj, key, json_object_new_string(val));
}

static void
add_addr(struct json_object *obj, const char *key, int family, const void *addr)
{
	char text[INET6_ADDRSTRLEN];

	if (inet_ntop(family, addr, text, sizeof(text)) != NULL)
		add_str(obj, key, text);
}

/* Identity of one function: what --list-devs shows and every record starts with. */
static struct json_object *
devinfo_record(const struct doca_devinfo *d)
{
	struct json_object *obj = json_object_new_object();
	char s[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type t;
	enum softdoca_side side;
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE], ip[DOCA_DEVINFO_IPV6_ADDR_SIZE], gid[SOFTDOCA_GID_SIZE];
	uint8_t has_v4 = 0, has_v6 = 0;
	uint16_t vhca;

	if (doca_devinfo_get_pci_addr_str(d, s) == DOCA_SUCCESS)
		add_str(obj, "pci_addr", s);
	if (doca_devinfo_get_ibdev_name(d, s, DOCA_DEVINFO_IBDEV_NAME_SIZE) == DOCA_SUCCESS)
		add_str(obj, "ibdev_name", s);
	if (doca_devinfo_get_iface_name(d, s, sizeof(s)) == DOCA_SUCCESS)
		add_str(obj, "iface_name", s);
	if (softdoca_devinfo_get_side(d, &side) == DOCA_SUCCESS)
		add_str(obj, "side", side == SOFTDOCA_SIDE_DPU ? "dpu" : "host");
	if (softdoca_devinfo_get_device_name(d, s, sizeof(s)) == DOCA_SUCCESS)
		add_str(obj, "device", s);
	if (softdoca_devinfo_get_model(d, s, sizeof(s)) == DOCA_SUCCESS)
		add_str(obj, "model", s);
	if (doca_devinfo_get_pci_func_type(d, &t) == DOCA_SUCCESS)
		add_str(obj, "pci_func_type", func_type_str(t));
	if (doca_devinfo_get_vhca_id(d, &vhca) == DOCA_SUCCESS)
		json_object_object_add(obj, "vhca_id", json_object_new_int(vhca));
	if (softdoca_devinfo_get_netdev(d, s, sizeof(s)) == DOCA_SUCCESS)
		add_str(obj, "netdev", s);
	if (softdoca_devinfo_get_gid(d, gid, sizeof(gid)) == DOCA_SUCCESS)
		add_addr(obj, "gid", AF_INET6, gid);
	if (doca_devinfo_get_mac_addr(d, mac, sizeof(mac)) == DOCA_SUCCESS) {
		snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		add_str(obj, "mac_addr", s);
	}
	/* Absent addresses are simply left out (the getters would warn and say NOT_FOUND). */
	softdoca_devinfo_get_has_ip_addr(d, &has_v4, &has_v6);
	if (has_v4 && doca_devinfo_get_ipv4_addr(d, ip, DOCA_DEVINFO_IPV4_ADDR_SIZE) == DOCA_SUCCESS)
		add_addr(obj, "ipv4_addr", AF_INET, ip);
	if (has_v6 && doca_devinfo_get_ipv6_addr(d, ip, DOCA_DEVINFO_IPV6_ADDR_SIZE) == DOCA_SUCCESS)
		add_addr(obj, "ipv6_addr", AF_INET6, ip);
	return obj;
}

/* Every capability: the core ones from doca_dev.h, then the table the DMA/RDMA caps read. */
static struct json_object *
caps_record(const struct doca_devinfo *d)
{
	struct json_object *caps = json_object_new_object();
	uint32_t i, n = 0;
	uint8_t v;

	if (doca_devinfo_cap_is_hotplug_manager_supported(d, &v) == DOCA_SUCCESS)
		json_object_object_add(caps, "hotplug_manager", json_object_new_boolean(v));
	if (doca_devinfo_rep_cap_is_filter_all_supported(d, &v) == DOCA_SUCCESS)
		json_object_object_add(caps, "rep_filter_all", json_object_new_boolean(v));
	if (doca_devinfo_rep_cap_is_filter_net_supported(d, &v) == DOCA_SUCCESS)
		json_object_object_add(caps, "rep_filter_net", json_object_new_boolean(v));
	if (doca_devinfo_rep_cap_is_filter_emulated_supported(d, &v) == DOCA_SUCCESS)
		json_object_object_add(caps, "rep_filter_emulated", json_object_new_boolean(v));
	softdoca_cap_get_num(&n);
	for (i = 0; i < n; i++) {
		const char *name, *api;
		enum softdoca_cap_type type;
		uint64_t val;

		if (softdoca_cap_get_info(i, &name, &type, &api) != DOCA_SUCCESS ||
		    softdoca_devinfo_get_cap(d, i, &val) != DOCA_SUCCESS)
			continue;
		switch (type) {
		case SOFTDOCA_CAP_BOOL:
			json_object_object_add(caps, name, json_object_new_boolean(val != 0));
			break;
		case SOFTDOCA_CAP_U32:
			json_object_object_add(caps, name, json_object_new_int64((int64_t)val));
			break;
		case SOFTDOCA_CAP_U64:
			json_object_object_add(caps, name, json_object_new_uint64(val));
			break;
		}
	}
	return caps;
}

/* The representors of dev that one DOCA_DEVINFO_REP_FILTER_* selects. */
struct rep_list {
	struct doca_devinfo_rep **reps;
	uint32_t n;
};

static bool
rep_in(const struct rep_list *l, const struct doca_devinfo_rep *rep)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->reps[i] == rep)
			return true;
	return false;
}

/* Which filters select rep: the lists DOCA's own filters make say it. */
static const char *
rep_filter_str(const struct rep_list *emulated, const struct doca_devinfo_rep *rep, const struct rep_list *net)
{
	bool is_emulated = rep_in(emulated, rep);

	if (is_emulated && rep_in(net, rep))
		return "net,emulated";
	return is_emulated ? "emulated" : "net";
}

/* The representors of one opened DPU-side function, appended to arr. */
static doca_error_t
add_reps(struct doca_dev *dev, struct json_object *arr)
{
	struct doca_devinfo_rep **reps;
	struct rep_list net = {0}, emulated = {0};
	char s[DOCA_DEVINFO_IFACE_NAME_SIZE], owner[DOCA_DEVINFO_PCI_ADDR_SIZE];
	enum doca_pci_func_type t;
	uint32_t i, n;
	uint16_t vhca;
	uint8_t hp;
	doca_error_t ret;

	ret = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n);
	if (ret != DOCA_SUCCESS)
		return ret;
	/* A filter that selects nothing answers NOT_FOUND: an empty list. */
	doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &net.reps, &net.n);
	doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_EMULATED, &emulated.reps, &emulated.n);
	doca_devinfo_get_pci_addr_str(doca_dev_as_devinfo(dev), owner);
	for (i = 0; i < n; i++) {
		struct json_object *obj = json_object_new_object();

		add_str(obj, "dev_pci_addr", owner);
		if (doca_devinfo_rep_get_pci_addr_str(reps[i], s) == DOCA_SUCCESS)
			add_str(obj, "pci_addr", s);
		if (doca_devinfo_rep_get_vuid(reps[i], s, DOCA_DEVINFO_REP_VUID_SIZE) == DOCA_SUCCESS)
			add_str(obj, "vuid", s);
		if (doca_devinfo_rep_get_iface_name(reps[i], s, sizeof(s)) == DOCA_SUCCESS)
			add_str(obj, "iface_name", s);
		if (doca_devinfo_rep_get_pci_func_type(reps[i], &t) == DOCA_SUCCESS)
			add_str(obj, "pci_func_type", func_type_str(t));
		if (doca_devinfo_rep_get_is_hotplug(reps[i], &hp) == DOCA_SUCCESS)
			json_object_object_add(obj, "is_hotplug", json_object_new_boolean(hp));
		if (doca_devinfo_rep_get_vhca_id(reps[i], &vhca) == DOCA_SUCCESS)
			json_object_object_add(obj, "vhca_id", json_object_new_int(vhca));
		add_str(obj, "filter", rep_filter_str(&emulated, reps[i], &net));
		json_object_array_add(arr, obj);
	}
	if (net.reps != NULL)
		doca_devinfo_rep_destroy_list(net.reps);
	if (emulated.reps != NULL)
		doca_devinfo_rep_destroy_list(emulated.reps);
	doca_devinfo_rep_destroy_list(reps);
	return DOCA_SUCCESS;
}

/* Text form of one record: "key  value" lines, nested objects as indented sections. */
static void
print_text(struct json_object *obj, int indent, const char *skip)
{
	uint32_t ncaps = 0, i;

	json_object_object_foreach(obj, key, val)
	{
		const char *api = NULL;

		if (skip != NULL && strcmp(key, skip) == 0)
			continue;
		if (json_object_is_type(val, json_type_object)) {
			printf("%*s%s:\n", indent, "", key);
			print_text(val, indent + 8, NULL);
			continue;
		}
		softdoca_cap_get_num(&ncaps);
		for (i = 0; i < ncaps; i++) {
			const char *name, *doca_api;
			enum softdoca_cap_type type;

			if (softdoca_cap_get_info(i, &name, &type, &doca_api) == DOCA_SUCCESS && strcmp(name, key) == 0)
				api = doca_api;
		}
		if (api != NULL)
			printf("%*s%-32s %-12s %s\n", indent, "", key, json_object_get_string(val), api);
		else
			printf("%*s%-32s %s\n", indent, "", key, json_object_get_string(val));
	}
}

static void
print_records(struct json_object *arr, const char *title_key, const char *title)
{
	size_t i;

	for (i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *rec = json_object_array_get_idx(arr, i), *t;

		json_object_object_get_ex(rec, title_key, &t);
		printf("%s: %s\n", title, json_object_get_string(t));
		print_text(rec, 8, title_key);
	}
}

/* Fill "devices" (identity, plus caps when with_caps) and "representors" as asked. */
static int
collect(const struct options *o, bool with_caps, struct json_object *devs, struct json_object *reps)
{
	struct doca_devinfo **list = NULL;
	enum softdoca_side side;
	uint32_t n = 0, i;
	doca_error_t ret;
	uint8_t eq;

	ret = doca_devinfo_create_list(&list, &n);
	if (ret == DOCA_ERROR_NOT_FOUND)
		return 0;
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: cannot list devices: %s (%s)\n", doca_error_get_descr(ret),
			doca_error_get_name(ret));
		return EXIT_FAILURE;
	}
	for (i = 0; i < n; i++) {
		struct json_object *rec;
		struct doca_dev *dev;

		if (o->pci_addr != NULL) {
			ret = doca_devinfo_is_equal_pci_addr(list[i], o->pci_addr, &eq);
			if (ret != DOCA_SUCCESS) {
				fprintf(stderr, "doca_caps: bad PCI address '%s'\n", o->pci_addr);
				doca_devinfo_destroy_list(list);
				return EXIT_USAGE;
			}
			if (!eq)
				continue;
		}
		if (devs != NULL) {
			rec = devinfo_record(list[i]);
			if (with_caps)
				json_object_object_add(rec, "caps", caps_record(list[i]));
			json_object_array_add(devs, rec);
		}
		if (reps != NULL && softdoca_devinfo_get_side(list[i], &side) == DOCA_SUCCESS &&
		    side == SOFTDOCA_SIDE_DPU && doca_dev_open(list[i], &dev) == DOCA_SUCCESS) {
			add_reps(dev, reps);
			doca_dev_close(dev);
		}
	}
	doca_devinfo_destroy_list(list);
	return 0;
}

int
main(int argc, char **argv)
{
	struct options o = {0};
	struct json_object *root, *devs = NULL, *reps = NULL;
	bool caps_mode;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret == 1)
		return EXIT_SUCCESS;
	if (ret != 0)
		return ret;
	caps_mode = !o.list_devs && !o.list_reps && !o.version;
	root = json_object_new_object();
	if (o.version) {
		struct json_object *v = json_object_new_object();

		add_str(v, "doca_api", DOCA_VERSION_STRING);
		add_str(v, "doca_runtime", doca_version_runtime());
		add_str(v, "softdoca", SOFTDOCA_VERSION);
		add_str(v, "personality", PERSONALITY);
		json_object_object_add(root, "version", v);
	}
	if (o.list_devs || caps_mode)
		devs = json_object_new_array();
	if (o.list_reps)
		reps = json_object_new_array();
#ifndef DOCA_ARCH_DPU
	/* As on hardware, representors exist on the DPU side only. */
	if (o.list_reps)
		fprintf(stderr, "doca_caps: representors are listed on the DPU side; run the DPU build of doca_caps "
				"(<libdir>/softdoca/dpu/bin/doca_caps, docs/devices.md)\n");
#endif
	ret = 0;
	if (devs != NULL || reps != NULL)
		ret = collect(&o, caps_mode, devs, reps);
	if (devs != NULL)
		json_object_object_add(root, "devices", devs);
	if (reps != NULL)
		json_object_object_add(root, "representors", reps);
	if (ret == 0 && o.json) {
		printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
									    JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (ret == 0) {
		if (o.version)
			printf("DOCA API version %s (runtime %s), softdoca %s, %s personality\n", DOCA_VERSION_STRING,
			       doca_version_runtime(), SOFTDOCA_VERSION, PERSONALITY);
		if (devs != NULL)
			print_records(devs, "pci_addr", "PCI");
		if (reps != NULL)
			print_records(reps, "pci_addr", "Representor PCI");
	}
	json_object_put(root);
	return ret;
}

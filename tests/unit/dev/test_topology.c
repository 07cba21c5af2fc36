/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The topology file: every key is honoured (through the public getters, and the
 * caps table in dev_internal.h), the documented examples load, and every kind of
 * broken file ends in DOCA_ERROR_BAD_CONFIG with a log naming file and problem.
 */
#include <ifaddrs.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <time.h>

#include "dev_test.h"
#include "dev_internal.h"
#include "softdoca_dev.h"
#include "sd_test_peer.h"

/* Expect the load to fail with BAD_CONFIG, and the log to contain both needles. */
static void
expect_bad_config(const char *json, const char *needle1, const char *needle2)
{
	struct doca_devinfo **list = (struct doca_devinfo **)(uintptr_t)0x1234;
	uint32_t n = 77;
	const char *path = use_topology_text(json);
	int fd = capture_sdk_log();

	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_BAD_CONFIG);
	ASSERT_EQ(n, 77);
	ASSERT_PTR_EQ(list, (void *)(uintptr_t)0x1234);
	ASSERT_LOG_HAS(fd, path);
	ASSERT_LOG_HAS(fd, needle1);
	if (needle2 != NULL)
		ASSERT_LOG_HAS(fd, needle2);
	/* A broken topology stays broken: no silent fallback to the default. */
	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_BAD_CONFIG);
	ASSERT_PTR_EQ(sd_topology_get(), NULL);
}

#define ONE_FN(fn_body) "{\"devices\": [{\"functions\": [" fn_body "]}]}"
#define HOST_FN "{\"side\": \"host\", \"pci_addr\": \"b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"h0\""

TEST(json_syntax_error_names_file_line_and_json_c_message)
{
	expect_bad_config("{\n  \"devices\": [\n    {,}\n  ]\n}\n", "line 3", "invalid JSON");
}

TEST(truncated_file_is_bad_config)
{
	expect_bad_config("{\"devices\": [", "unexpected end of file", NULL);
}

TEST(empty_file_is_bad_config)
{
	expect_bad_config("", "Failed to load device topology", NULL);
}

TEST(trailing_garbage_is_bad_config)
{
	expect_bad_config("{\"devices\": []} x", "text after the end", NULL);
}

TEST(missing_key_is_named)
{
	expect_bad_config(ONE_FN("{\"side\": \"host\", \"pci_addr\": \"b1:00.0\", \"iface\": \"h0\"}"),
			  "devices[0].functions[0]", "missing key \"ibdev\"");
}

TEST(missing_devices_is_named)
{
	expect_bad_config("{\"version\": 1}", "missing key \"devices\"", NULL);
}

TEST(unknown_key_is_refused)
{
	expect_bad_config(ONE_FN(HOST_FN ", \"ibdevv\": \"x\"}"), "unknown key \"ibdevv\"", NULL);
}

TEST(unknown_cap_is_refused)
{
	expect_bad_config(ONE_FN(HOST_FN ", \"caps\": {\"dma_memcopy\": false}}"), "unknown capability \"dma_memcopy\"",
			  NULL);
}

TEST(wrong_type_is_refused)
{
	expect_bad_config(ONE_FN(HOST_FN ", \"caps\": {\"dma_max_buf_size\": \"big\"}}"),
			  "devices[0].functions[0].caps.dma_max_buf_size", "expected a int, found a string");
}

TEST(negative_and_oversized_numbers_are_refused)
{
	expect_bad_config(ONE_FN(HOST_FN ", \"vhca_id\": 65536}"), "65536 is larger than the maximum 65535", NULL);
}

TEST(negative_number_is_refused)
{
	expect_bad_config(ONE_FN(HOST_FN ", \"caps\": {\"dma_max_num_tasks\": -1}}"), "must not be negative", NULL);
}

TEST(bad_pci_address_is_refused)
{
	expect_bad_config(ONE_FN("{\"side\": \"host\", \"pci_addr\": \"b1:00\", \"ibdev\": \"m\", \"iface\": \"h\"}"),
			  "\"b1:00\" is not a PCI address", NULL);
}

TEST(bad_side_is_refused)
{
	expect_bad_config(ONE_FN("{\"side\": \"arm\", \"pci_addr\": \"b1:00.0\", \"ibdev\": \"m\", \"iface\": \"h\"}"),
			  "\"arm\" is not one of \"host\", \"dpu\"", NULL);
}

TEST(duplicate_ibdev_is_refused)
{
	expect_bad_config(ONE_FN(HOST_FN "}, {\"side\": \"dpu\", \"pci_addr\": \"03:00.0\", \"ibdev\": \"mlx5_0\", "
					 "\"iface\": \"p0\"}"),
			  "IB device name \"mlx5_0\" is used by two functions", NULL);
}

TEST(duplicate_pci_address_is_refused)
{
	expect_bad_config(ONE_FN(HOST_FN "}, {\"side\": \"dpu\", \"pci_addr\": \"0000:B1:00.0\", \"ibdev\": \"m1\", "
					 "\"iface\": \"p0\"}"),
			  "PCI address 0000:b1:00.0 is used by mlx5_0 and m1", NULL);
}

TEST(representors_on_host_side_are_refused)
{
	expect_bad_config(ONE_FN(HOST_FN ", \"representors\": []}"), "representors exist only on \"dpu\"", NULL);
}

TEST(unsupported_version_is_refused)
{
	expect_bad_config("{\"version\": 2, \"devices\": []}", "format version 2 is not supported", NULL);
}

TEST(too_long_iface_is_refused)
{
	expect_bad_config(ONE_FN("{\"side\": \"host\", \"pci_addr\": \"b1:00.0\", \"ibdev\": \"m\", "
				 "\"iface\": \"an_interface_name_too_long\"}"),
			  "is too long (at most 16 characters)", NULL);
}

TEST(nonexistent_file_is_bad_config)
{
	char path[512];
	struct doca_devinfo **list;
	uint32_t n;
	int fd = capture_sdk_log();

	snprintf(path, sizeof(path), "%s/does-not-exist.json", sd_test_tmpdir());
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", path, 1), 0);
	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_BAD_CONFIG);
	ASSERT_LOG_HAS(fd, path);
	ASSERT_LOG_HAS(fd, "No such file or directory");
}

/* A FIFO must be refused at once: an open without O_NONBLOCK would wait for a writer forever. */
TEST(fifo_is_refused_without_blocking)
{
	char path[512];
	struct doca_devinfo **list;
	struct timespec t0, t1;
	uint32_t n;
	int fd = capture_sdk_log();

	snprintf(path, sizeof(path), "%s/topology.fifo", sd_test_tmpdir());
	ASSERT_EQ(mkfifo(path, 0600), 0);
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", path, 1), 0);
	alarm(5); /* a blocked open ends the case (SIGALRM) instead of hanging it */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_BAD_CONFIG);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	ASSERT(t1.tv_sec - t0.tv_sec < 2);
	ASSERT_LOG_HAS(fd, path);
	ASSERT_LOG_HAS(fd, "not a regular file");
}

TEST(nonexistent_netdev_is_bad_config)
{
	expect_bad_config("{\"devices\": [{\"netdev\": \"sd-no-such0\", \"functions\": [" HOST_FN "}]}]}",
			  "netdev \"sd-no-such0\" does not exist", "mlx5_0");
}

TEST(no_devices_is_not_found)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 5;

	use_topology_text("{\"version\": 1, \"devices\": []}");
	ASSERT_ERR(doca_devinfo_create_list(&list, &n), DOCA_ERROR_NOT_FOUND);
	ASSERT_EQ(n, 5);
	ASSERT_PTR_EQ(list, NULL);
}

TEST(every_function_key_is_honoured)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, sf = 0;
	char s[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type t;
	uint64_t rate = 0;
	uint16_t u16 = 0;
	uint8_t u8 = 9;
	struct doca_devinfo *d;

	/* The function is a DPU-side one: list as a DPU-built program would. */
	sd_dev_process_side_set(SD_DEV_SIDE_DPU);
	use_topology_text(
		"{\"devices\": [{\"name\": \"lab\", \"caps\": {\"rdma_max_send_queue_size\": 64},\n"
		" \"functions\": [\n"
		"  {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.0\", \"ibdev\": \"mlx5_7\", \"iface\": "
		"\"en3f0pf0sf4\",\n"
		"   \"func_type\": \"sf\", \"sf_index\": 4, \"vhca_id\": 77, \"lid\": 3,\n"
		"   \"active_rate\": 25000000000, \"hotplug_manager\": false, \"netdev\": \"lo\",\n"
		"   \"caps\": {\"dma_memcpy\": false, \"dma_max_buf_size\": 4096, \"rdma_dc\": false,\n"
		"            \"accelerate_resource_reclaim\": false, \"notification_moderation\": false},\n"
		"   \"representors\": [{\"pci_addr\": \"b1:00.3\", \"iface\": \"pf0vf1\", \"func_type\": \"VF\",\n"
		"                       \"filter\": [\"net\", \"emulated\"]}]}\n"
		" ]}]}\n");
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_EQ(n, 1);
	d = list[0];
	ASSERT_OK(doca_devinfo_get_ibdev_name(d, s, DOCA_DEVINFO_IBDEV_NAME_SIZE));
	ASSERT_STR_EQ(s, "mlx5_7");
	ASSERT_OK(doca_devinfo_get_iface_name(d, s, sizeof(s)));
	ASSERT_STR_EQ(s, "en3f0pf0sf4");
	ASSERT_OK(doca_devinfo_get_pci_func_type(d, &t));
	ASSERT_EQ(t, DOCA_PCI_FUNC_TYPE_SF);
	ASSERT_OK(doca_devinfo_get_sf_index(d, &sf));
	ASSERT_EQ(sf, 4);
	ASSERT_OK(doca_devinfo_get_vhca_id(d, &u16));
	ASSERT_EQ(u16, 77);
	ASSERT_OK(doca_devinfo_get_lid(d, &u16));
	ASSERT_EQ(u16, 3);
	ASSERT_OK(doca_devinfo_get_active_rate(d, &rate));
	ASSERT_EQ(rate, 25000000000ULL);
	ASSERT_OK(doca_devinfo_cap_is_hotplug_manager_supported(d, &u8));
	ASSERT_EQ(u8, 0);
	ASSERT_OK(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(d, &u8));
	ASSERT_EQ(u8, 0);
	ASSERT_OK(doca_devinfo_cap_is_notification_moderation_supported(d, &u8));
	ASSERT_EQ(u8, 0);
	/* Caps: the function's own over the device's over the defaults. */
	ASSERT_EQ(d->caps.dma_memcpy, 0);
	ASSERT_EQ(d->caps.dma_max_buf_size, 4096);
	ASSERT_EQ(d->caps.rdma_dc, 0);
	ASSERT_EQ(d->caps.rdma_max_send_queue_size, 64);
	ASSERT_EQ(d->caps.rdma_max_recv_queue_size, 8192);
	ASSERT_EQ(d->caps.pci_import, 1);
	ASSERT_STR_EQ(d->device_name, "lab");
	ASSERT_EQ(d->num_reps, 1);
	ASSERT_EQ(d->reps[0].func_type, DOCA_PCI_FUNC_TYPE_VF);
	ASSERT_EQ(d->reps[0].filter, DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED);
	ASSERT_STR_EQ(d->reps[0].vuid, "lab-0000:b1:00.3");
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(reclaim_refused_when_cap_is_off)
{
	struct doca_dev *dev;

	use_topology_text(ONE_FN(HOST_FN ", \"caps\": {\"accelerate_resource_reclaim\": false}}"));
	dev = open_ibdev("mlx5_0");
	ASSERT_ERR(doca_dev_accelerate_resource_reclaim(dev), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_dev_close(dev));
}

#define MODEL_DEV(model, caps) "{\"devices\": [{\"model\": \"" model "\", " caps "\"functions\": [" HOST_FN "}]}]}"

/* The engines a function has with each model, before and after a caps override. */
TEST(models_decide_the_engines)
{
	const struct sd_dev_caps *c;
	struct doca_devinfo **list;
	char model[SOFTDOCA_MODEL_NAME_SIZE];
	uint32_t n;

	use_topology_text(MODEL_DEV("bluefield-3", "\"caps\": {\"sha_hash\": true}, "));
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	c = &list[0]->caps;
	ASSERT_OK(softdoca_devinfo_get_model(list[0], model, sizeof(model)));
	ASSERT_STR_EQ(model, "bluefield-3");
	ASSERT(!c->compress_deflate && c->decompress_deflate && c->decompress_lz4_stream && c->ec && c->aes_gcm);
	ASSERT(c->verbs && c->dma_memcpy && !c->sha_partial_hash);
	ASSERT(c->sha_hash); /* the override wins over the model */
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(bluefield2_and_connectx7_models)
{
	struct sd_dev_caps c;

	ASSERT(sd_dev_model_caps("bluefield-2", &c));
	ASSERT(c.compress_deflate && c.decompress_deflate && c.sha_hash && c.dma_memcpy);
	ASSERT(!c.decompress_lz4_stream && !c.ec && !c.aes_gcm && !c.verbs);
	ASSERT(sd_dev_model_caps("connectx-7", &c));
	ASSERT(c.rdma && c.verbs && c.aes_gcm && c.ec);
	ASSERT(!c.dma_memcpy && !c.compress_deflate && !c.decompress_deflate && !c.sha_hash && !c.cache_invalidate);
	ASSERT(sd_dev_model_caps("soft", &c));
	ASSERT(c.compress_deflate && c.decompress_lz4_block && c.sha_partial_hash && c.ec && c.aes_gcm && c.verbs);
}

TEST(unknown_model_is_refused)
{
	expect_bad_config(MODEL_DEV("bluefield-9", ""), "\"bluefield-9\" is not a model; known: \"soft\"", NULL);
}

/* docs/examples/<name>, read whole into a static buffer. */
static const char *
example(const char *name)
{
	static char text[65536];
	const char *dir = getenv("SD_DOCS_EXAMPLES");
	char path[1024];
	size_t n;
	FILE *f;

	if (dir == NULL)
		SKIP("SD_DOCS_EXAMPLES is not set (run through meson test)");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	ASSERT_NOT_NULL(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* Replace every occurrence of from (same length as to or longer) in text. */
static void
replace_all(char *text, const char *from, const char *to)
{
	char *p;

	while ((p = strstr(text, from)) != NULL) {
		memcpy(p, to, strlen(to));
		memmove(p + strlen(to), p + strlen(from), strlen(p + strlen(from)) + 1);
	}
}

TEST(two_devices_example_loads_with_auto_representors)
{
	static char text[65536];
	struct doca_devinfo **list = NULL;
	struct doca_devinfo_rep **reps = NULL;
	struct doca_dev *dev;
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE], iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	const struct doca_devinfo *fns;
	uint32_t n = 0, nr = 0;

	/* The example names veth netdevs; rebase it on lo, which every machine has. */
	snprintf(text, sizeof(text), "%s", example("two-devices.json"));
	replace_all(text, "sdveth0", "lo");
	replace_all(text, "sdveth1", "lo");
	use_topology_text(text);
	ASSERT_NOT_NULL(sd_topology_get());
	fns = sd_topology_get()->devs;
	ASSERT_EQ(sd_topology_get()->num_devs, 4);
	ASSERT_STR_EQ(fns[0].device_name, "bf0");
	ASSERT_STR_EQ(fns[3].device_name, "bf1");
	ASSERT_EQ(fns[3].device_index, 1);
	ASSERT_EQ(fns[0].caps.dma_max_buf_size, 1ULL << 30);
	ASSERT_EQ(fns[2].caps.dma_max_buf_size, 16777216);
	ASSERT_EQ(fns[2].caps.dma_memcpy, 1);
	ASSERT_EQ(fns[3].caps.dma_memcpy, 0);
	ASSERT_EQ(fns[3].caps.dma_max_buf_size, 16777216);
	/* A host program lists the two host PFs, a DPU program the two DPU PFs. */
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_EQ(n, 2);
	ASSERT_PTR_EQ(list[1], &fns[2]);
	ASSERT_OK(doca_devinfo_destroy_list(list));
	sd_dev_process_side_set(SD_DEV_SIDE_DPU);
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_EQ(n, 2);
	ASSERT_PTR_EQ(list[0], &fns[1]);
	ASSERT_PTR_EQ(list[1], &fns[3]);
	/* bf1's DPU PF represents bf1's host PF, as pf0hpf. */
	ASSERT_OK(doca_dev_open(list[1], &dev));
	ASSERT_OK(doca_devinfo_destroy_list(list));
	ASSERT_OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nr));
	ASSERT_EQ(nr, 1);
	ASSERT_OK(doca_devinfo_rep_get_pci_addr_str(reps[0], pci));
	ASSERT_STR_EQ(pci, "0000:ca:00.0");
	ASSERT_OK(doca_devinfo_rep_get_iface_name(reps[0], iface, sizeof(iface)));
	ASSERT_STR_EQ(iface, "pf0hpf");
	ASSERT_OK(doca_devinfo_rep_destroy_list(reps));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(real_netdev_addresses_and_gid)
{
	struct ifaddrs *ifs, *ifa;
	char name[IF_NAMESIZE + 1] = "";
	uint8_t ipv4[4] = {0}, mac[6] = {0}, got[6], gid[16] = {[10] = 0xff, [11] = 0xff};
	struct doca_devinfo **list = NULL;
	char json[512];
	uint32_t n;

	ASSERT_EQ(getifaddrs(&ifs), 0);
	for (ifa = ifs; ifa != NULL; ifa = ifa->ifa_next)
		if (ifa->ifa_addr != NULL && ifa->ifa_addr->sa_family == AF_INET && strcmp(ifa->ifa_name, "lo") != 0 &&
		    name[0] == '\0') {
			snprintf(name, sizeof(name), "%s", ifa->ifa_name);
			memcpy(ipv4, &((struct sockaddr_in *)(void *)ifa->ifa_addr)->sin_addr, 4);
		}
	for (ifa = ifs; ifa != NULL; ifa = ifa->ifa_next)
		if (ifa->ifa_addr != NULL && ifa->ifa_addr->sa_family == AF_PACKET && strcmp(ifa->ifa_name, name) == 0)
			memcpy(mac, ((struct sockaddr_ll *)(void *)ifa->ifa_addr)->sll_addr, 6);
	freeifaddrs(ifs);
	if (name[0] == '\0')
		SKIP("no netdev other than lo has an IPv4 address here");
	snprintf(json, sizeof(json), "{\"devices\": [{\"netdev\": \"%s\", \"functions\": [" HOST_FN "}]}]}", name);
	use_topology_text(json);
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_OK(doca_devinfo_get_ipv4_addr(list[0], got, 4));
	ASSERT_MEM_EQ(got, ipv4, 4);
	ASSERT_OK(doca_devinfo_get_mac_addr(list[0], got, 6));
	ASSERT_MEM_EQ(got, mac, 6);
	memcpy(&gid[12], ipv4, 4);
	ASSERT_MEM_EQ(list[0]->gid, gid, 16);
	ASSERT_STR_EQ(list[0]->netdev, name);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

/* Print everything the public API and the caps table say about the topology. */
static void
dump_topology(FILE *out)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, i, j, ncaps;
	const struct sd_dev_cap_desc *caps = sd_dev_cap_descs(&ncaps);

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (i = 0; i < n; i++) {
		const struct doca_devinfo *d = list[i];

		fprintf(out, "%u %d %s %s %s %s %s %u %u %u %u %u %" PRIu64 " %d\n", d->index, d->side, d->pci_addr,
			d->ibdev_name, d->iface_name, d->netdev, d->device_name, d->device_index, d->vhca_id, d->lid,
			d->func_type, d->sf_index, d->active_rate, d->hotplug_manager);
		for (j = 0; j < ncaps; j++) {
			const char *f = (const char *)&d->caps + caps[j].offset;

			fprintf(out, " %s=%" PRIu64, caps[j].name,
				caps[j].kind == SD_DEV_CAP_BOOL	 ? (uint64_t) * (const bool *)f
				: caps[j].kind == SD_DEV_CAP_U32 ? (uint64_t) * (const uint32_t *)f
								 : *(const uint64_t *)f);
		}
		fputc('\n', out);
		for (j = 0; j < d->num_reps; j++) {
			const struct doca_devinfo_rep *r = &d->reps[j];

			fprintf(out, " rep %s %s %s %d %d %u %u\n", r->vuid, r->pci_addr, r->iface_name, r->func_type,
				r->is_hotplug, r->vhca_id, r->filter);
		}
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

/* Run dump_topology() in a child whose SOFTDOCA_TOPOLOGY is env; return its output file. */
static void
dump_in_child(const char *env, const char *out_path)
{
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen(out_path, "w");

		if (f == NULL || setenv("SOFTDOCA_TOPOLOGY", env, 1) != 0)
			_exit(3);
		dump_topology(f);
		_exit(fclose(f) == 0 ? 0 : 4);
	}
	sd_test_reap(pid);
}

TEST(docs_default_json_is_the_builtin_topology)
{
	char a[512], b[512], ex[1024], ta[16384], tb[16384];
	const char *dir;
	FILE *f;
	size_t na, nb;

	(void)example("default.json");
	dir = getenv("SD_DOCS_EXAMPLES");
	snprintf(ex, sizeof(ex), "%s/default.json", dir);
	snprintf(a, sizeof(a), "%s/builtin.txt", sd_test_tmpdir());
	snprintf(b, sizeof(b), "%s/file.txt", sd_test_tmpdir());
	dump_in_child("builtin", a);
	dump_in_child(ex, b);
	f = fopen(a, "r");
	ASSERT_NOT_NULL(f);
	na = fread(ta, 1, sizeof(ta) - 1, f);
	fclose(f);
	f = fopen(b, "r");
	ASSERT_NOT_NULL(f);
	nb = fread(tb, 1, sizeof(tb) - 1, f);
	fclose(f);
	ta[na] = '\0';
	tb[nb] = '\0';
	ASSERT(na > 100);
	ASSERT_STR_EQ(ta, tb);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

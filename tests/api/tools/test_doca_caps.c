/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_caps driven as a person would: flags in, text or JSON out, exit status.
 * The tool's path comes from $DOCA_CAPS (set by meson); JSON output is parsed
 * with json-c and checked field by field against the built-in topology.
 */
#include <errno.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include <doca_version.h>

#include "sd_test.h"

struct run {
	char out[65536];
	char err[16384];
	int status; /* exit code */
};

/* Drain both pipes until EOF so a chatty child never blocks. */
static void
drain(int out_fd, int err_fd, struct run *r)
{
	size_t no = 0, ne = 0;
	struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
	int open_fds = 2;

	while (open_fds > 0) {
		int i;

		if (poll(p, 2, -1) < 0) {
			ASSERT_EQ(errno, EINTR);
			continue;
		}
		for (i = 0; i < 2; i++) {
			char *buf = i == 0 ? r->out + no : r->err + ne;
			size_t room = i == 0 ? sizeof(r->out) - 1 - no : sizeof(r->err) - 1 - ne;
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(p[i].fd, buf, room);
			ASSERT(n >= 0);
			if (n == 0 || room == 0) {
				p[i].fd = -1;
				open_fds--;
			} else if (i == 0) {
				no += (size_t)n;
			} else {
				ne += (size_t)n;
			}
		}
	}
	r->out[no] = '\0';
	r->err[ne] = '\0';
}

/*
 * Run doca_caps with args (NULL-terminated) and the given SOFTDOCA_TOPOLOGY: the
 * host build (tool_env DOCA_CAPS) or the DPU build (DOCA_CAPS_DPU).
 */
static struct run *
run_tool(const char *tool_env, const char *topology, const char *const *args)
{
	static struct run r;
	const char *tool = getenv(tool_env);
	const char *argv[16] = {"doca_caps"};
	int out[2], err[2], status = 0;
	pid_t pid;
	size_t i;

	if (tool == NULL)
		SKIP("DOCA_CAPS / DOCA_CAPS_DPU is not set (run through meson test)");
	for (i = 0; args[i] != NULL && i < 14; i++)
		argv[i + 1] = args[i];
	ASSERT_EQ(pipe(out), 0);
	ASSERT_EQ(pipe(err), 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		close(out[0]);
		close(err[0]);
		setenv("SOFTDOCA_TOPOLOGY", topology, 1);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	memset(&r, 0, sizeof(r));
	drain(out[0], err[0], &r);
	close(out[0]);
	close(err[0]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status));
	r.status = WEXITSTATUS(status);
	return &r;
}

static struct run *
run_caps(const char *topology, const char *const *args)
{
	return run_tool("DOCA_CAPS", topology, args);
}

#define RUN(topology, ...) run_tool("DOCA_CAPS", (topology), (const char *const[]){__VA_ARGS__, NULL})
#define RUN_DPU(topology, ...) run_tool("DOCA_CAPS_DPU", (topology), (const char *const[]){__VA_ARGS__, NULL})

#define ASSERT_HAS(text, needle)                                                                                       \
	do {                                                                                                           \
		if (strstr((text), (needle)) == NULL)                                                                  \
			sd_test_fail(__FILE__, __LINE__, "output lacks \"%s\"; it was:\n%s", (needle), (text));        \
	} while (0)

static struct json_object *
parse_json(const char *text)
{
	struct json_object *root = json_tokener_parse(text);

	if (root == NULL)
		sd_test_fail(__FILE__, __LINE__, "output is not JSON:\n%s", text);
	return root;
}

static struct json_object *
member(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(obj, key, &v))
		sd_test_fail(__FILE__, __LINE__, "no key \"%s\" in %s", key, json_object_to_json_string(obj));
	return v;
}

static const char *
str_member(struct json_object *obj, const char *key)
{
	return json_object_get_string(member(obj, key));
}

TEST(list_devs_text_has_every_field)
{
	struct run *r = RUN("builtin", "--list-devs");

	ASSERT_EQ(r->status, 0);
	ASSERT_HAS(r->out, "PCI: 0000:b1:00.0");
	ASSERT_HAS(r->out, "PCI: 0000:b1:00.1");
	ASSERT_HAS(r->out, "ibdev_name                       mlx5_1");
	ASSERT_HAS(r->out, "iface_name                       ens1f0np0");
	ASSERT_HAS(r->out, "netdev                           lo");
	ASSERT_HAS(r->out, "gid                              ::ffff:127.0.0.1");
	ASSERT_HAS(r->out, "side                             host");
	ASSERT_HAS(r->out, "mac_addr                         00:00:00:00:00:00");
	ASSERT_HAS(r->out, "ipv4_addr                        127.0.0.1");
	/* The host's doca_caps sees no DPU function. */
	ASSERT(strstr(r->out, "03:00") == NULL);
	ASSERT(strstr(r->out, "dpu") == NULL);
	/* --list-devs is not the capability dump. */
	ASSERT(strstr(r->out, "dma_memcpy") == NULL);
}

TEST(dpu_build_lists_the_dpu_functions)
{
	struct run *r = RUN_DPU("builtin", "--list-devs");

	ASSERT_EQ(r->status, 0);
	ASSERT_HAS(r->out, "PCI: 0000:03:00.0");
	ASSERT_HAS(r->out, "PCI: 0000:03:00.1");
	ASSERT_HAS(r->out, "ibdev_name                       mlx5_3");
	ASSERT_HAS(r->out, "side                             dpu");
	ASSERT(strstr(r->out, "b1:00") == NULL);
	ASSERT(strstr(r->out, "host") == NULL);
}

TEST(list_devs_json_describes_the_builtin_topology)
{
	static const char *const pci[] = {"0000:b1:00.0", "0000:b1:00.1", "0000:03:00.0", "0000:03:00.1"};
	static const char *const ibdev[] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
	struct json_object *root = NULL, *devs = NULL;
	struct run *r;
	size_t i;

	/* Host build: functions 0 and 1; DPU build: 2 and 3. */
	for (i = 0; i < 4; i++) {
		struct json_object *d;

		if (i % 2 == 0) {
			r = i == 0 ? RUN("builtin", "-l", "--json") : RUN_DPU("builtin", "-l", "--json");
			ASSERT_EQ(r->status, 0);
			root = parse_json(r->out);
			devs = member(root, "devices");
			ASSERT_EQ(json_object_array_length(devs), 2);
		}
		d = json_object_array_get_idx(devs, i % 2);
		ASSERT_STR_EQ(str_member(d, "pci_addr"), pci[i]);
		ASSERT_STR_EQ(str_member(d, "ibdev_name"), ibdev[i]);
		ASSERT_STR_EQ(str_member(d, "side"), i < 2 ? "host" : "dpu");
		ASSERT_STR_EQ(str_member(d, "netdev"), "lo");
		ASSERT_STR_EQ(str_member(d, "gid"), "::ffff:127.0.0.1");
		ASSERT_STR_EQ(str_member(d, "ipv4_addr"), "127.0.0.1");
		ASSERT_STR_EQ(str_member(d, "mac_addr"), "00:00:00:00:00:00");
		ASSERT_STR_EQ(str_member(d, "pci_func_type"), "PF");
		ASSERT_EQ(json_object_get_int(member(d, "vhca_id")), i);
		ASSERT(!json_object_object_get_ex(d, "caps", NULL));
		if (i == 2)
			ASSERT_STR_EQ(str_member(d, "iface_name"), "p0");
		if (i % 2 == 1)
			json_object_put(root);
	}
}

TEST(default_is_a_capability_dump)
{
	struct run *r = RUN("builtin", "--json");
	struct json_object *root = parse_json(r->out), *droot, *devs, *host, *dpu;

	ASSERT_EQ(r->status, 0);
	devs = member(root, "devices");
	ASSERT_EQ(json_object_array_length(devs), 2);
	host = member(json_object_array_get_idx(devs, 0), "caps");
	r = RUN_DPU("builtin", "--json");
	ASSERT_EQ(r->status, 0);
	droot = parse_json(r->out);
	devs = member(droot, "devices");
	ASSERT_EQ(json_object_array_length(devs), 2);
	dpu = member(json_object_array_get_idx(devs, 0), "caps");
	ASSERT_EQ(json_object_get_boolean(member(host, "dma_memcpy")), 1);
	ASSERT_EQ(json_object_get_uint64(member(host, "dma_max_buf_size")), 1ULL << 30);
	ASSERT_EQ(json_object_get_int64(member(host, "dma_max_buf_list_len")), 32);
	ASSERT_EQ(json_object_get_int64(member(host, "dma_max_num_tasks")), 16384);
	ASSERT_EQ(json_object_get_boolean(member(host, "pci_export")), 1);
	ASSERT_EQ(json_object_get_boolean(member(host, "pci_import")), 1);
	ASSERT_EQ(json_object_get_boolean(member(dpu, "pci_export")), 1);
	ASSERT_EQ(json_object_get_boolean(member(dpu, "pci_import")), 1);
	ASSERT_EQ(json_object_get_int64(member(host, "rdma_max_send_queue_size")), 8192);
	ASSERT_EQ(json_object_get_int64(member(host, "rdma_max_message_size")), 1 << 30);
	ASSERT_EQ(json_object_get_int64(member(host, "rdma_max_connections")), 1024);
	ASSERT_EQ(json_object_get_boolean(member(host, "rdma_dc")), 1);
	ASSERT_EQ(json_object_get_int64(member(host, "gid_table_size")), 1);
	ASSERT_EQ(json_object_get_boolean(member(host, "hotplug_manager")), 0);
	ASSERT_EQ(json_object_get_boolean(member(dpu, "hotplug_manager")), 1);
	ASSERT_EQ(json_object_get_boolean(member(dpu, "rep_filter_emulated")), 1);
	ASSERT_EQ(json_object_get_boolean(member(host, "clock_nic_free_running")), 1);
	ASSERT_EQ(json_object_get_boolean(member(dpu, "cache_invalidate")), 1);
	ASSERT_EQ(json_object_get_uint64(member(host, "cache_invalidate_max_buf_size")), 1ULL << 30);
	/* 4 core caps from doca_dev.h + 41 in the table. */
	ASSERT_EQ(json_object_object_length(host), 45);
	json_object_put(root);
	json_object_put(droot);
}

TEST(default_text_dump_names_the_doca_call)
{
	struct run *r = RUN("builtin", NULL);

	ASSERT_EQ(r->status, 0);
	ASSERT_HAS(r->out, "PCI: 0000:b1:00.0");
	ASSERT_HAS(r->out, "caps:");
	ASSERT_HAS(r->out, "doca_dma_cap_task_memcpy_get_max_buf_size");
	ASSERT_HAS(r->out, "1073741824");
}

TEST(list_rep_devs_json)
{
	struct run *r = RUN_DPU("builtin", "--list-rep-devs", "-j");
	struct json_object *root = parse_json(r->out), *reps, *rep;

	ASSERT_EQ(r->status, 0);
	ASSERT(!json_object_object_get_ex(root, "devices", NULL));
	reps = member(root, "representors");
	ASSERT_EQ(json_object_array_length(reps), 3);
	rep = json_object_array_get_idx(reps, 1);
	ASSERT_STR_EQ(str_member(rep, "dev_pci_addr"), "0000:03:00.0");
	ASSERT_STR_EQ(str_member(rep, "pci_addr"), "0000:b1:00.2");
	ASSERT_STR_EQ(str_member(rep, "vuid"), "bf0-virtio-net0");
	ASSERT_STR_EQ(str_member(rep, "filter"), "emulated");
	ASSERT_EQ(json_object_get_boolean(member(rep, "is_hotplug")), 1);
	rep = json_object_array_get_idx(reps, 2);
	ASSERT_STR_EQ(str_member(rep, "dev_pci_addr"), "0000:03:00.1");
	ASSERT_STR_EQ(str_member(rep, "iface_name"), "pf1hpf");
	json_object_put(root);
}

/* As on hardware, the host sees no representors: an empty list and a pointer to the DPU build. */
TEST(list_rep_devs_on_the_host_is_empty)
{
	struct run *r = RUN("builtin", "--list-rep-devs", "-j");
	struct json_object *root = parse_json(r->out);

	ASSERT_EQ(r->status, 0);
	ASSERT_EQ(json_object_array_length(member(root, "representors")), 0);
	ASSERT_HAS(r->err, "representors are listed on the DPU side");
	json_object_put(root);
}

TEST(version_text_and_json)
{
	struct run *r = RUN("builtin", "--version");
	struct json_object *root;

	ASSERT_EQ(r->status, 0);
	ASSERT_HAS(r->out, DOCA_VERSION_STRING);
	ASSERT_HAS(r->out, "softdoca");
	ASSERT(strstr(r->out, "PCI:") == NULL);
	r = RUN("builtin", "-v", "-j");
	ASSERT_EQ(r->status, 0);
	root = parse_json(r->out);
	ASSERT_STR_EQ(str_member(member(root, "version"), "doca_api"), DOCA_VERSION_STRING);
	ASSERT_NOT_NULL(str_member(member(root, "version"), "softdoca"));
	ASSERT_STR_EQ(str_member(member(root, "version"), "personality"), "host");
	json_object_put(root);
	r = RUN_DPU("builtin", "-v", "-j");
	root = parse_json(r->out);
	ASSERT_STR_EQ(str_member(member(root, "version"), "personality"), "dpu");
	json_object_put(root);
}

TEST(pci_filter_keeps_one_function)
{
	struct run *r = RUN_DPU("builtin", "-l", "-j", "-p", "03:00.1");
	struct json_object *root = parse_json(r->out), *devs;

	ASSERT_EQ(r->status, 0);
	devs = member(root, "devices");
	ASSERT_EQ(json_object_array_length(devs), 1);
	ASSERT_STR_EQ(str_member(json_object_array_get_idx(devs, 0), "ibdev_name"), "mlx5_3");
	json_object_put(root);
	/* The host's doca_caps does not know the DPU's functions. */
	r = RUN("builtin", "-l", "-j", "-p", "03:00.1");
	ASSERT_EQ(r->status, 0);
	root = parse_json(r->out);
	ASSERT_EQ(json_object_array_length(member(root, "devices")), 0);
	json_object_put(root);
	r = RUN("builtin", "-l", "-p", "zz");
	ASSERT_EQ(r->status, 2);
}

TEST(unknown_flag_prints_usage_on_stderr_and_exits_2)
{
	struct run *r = RUN("builtin", "--frobnicate");

	ASSERT_EQ(r->status, 2);
	ASSERT_HAS(r->err, "Usage: doca_caps");
	ASSERT_STR_EQ(r->out, "");
	r = RUN("builtin", "stray");
	ASSERT_EQ(r->status, 2);
}

TEST(help_goes_to_stdout)
{
	struct run *r = RUN("builtin", "-h");

	ASSERT_EQ(r->status, 0);
	ASSERT_HAS(r->out, "--list-rep-devs");
	ASSERT_HAS(r->out, "--json");
}

/* A topology file in the case's temporary directory. */
static const char *
topology_file(const char *json)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/topology.json", sd_test_tmpdir());
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	ASSERT(fputs(json, f) >= 0);
	ASSERT_EQ(fclose(f), 0);
	return path;
}

TEST(broken_topology_fails_with_the_reason)
{
	const char *path = topology_file("{\"devices\": 3}");
	struct run *r;

	r = run_caps(path, (const char *const[]){"-l", NULL});
	ASSERT_EQ(r->status, 1);
	ASSERT_HAS(r->err, path);
	ASSERT_HAS(r->err, "expected a array");
	ASSERT_HAS(r->err, "DOCA_ERROR_BAD_CONFIG");
}

TEST(config_caps_show_up)
{
	struct run *r;
	struct json_object *root, *caps;
	const char *path =
		topology_file("{\"devices\": [{\"functions\": [{\"side\": \"dpu\", \"pci_addr\": \"03:00.0\","
			      " \"ibdev\": \"mlx5_9\", \"iface\": \"p0\","
			      " \"caps\": {\"dma_memcpy\": false}}]}]}");

	r = run_tool("DOCA_CAPS_DPU", path, (const char *const[]){"--json", NULL});
	ASSERT_EQ(r->status, 0);
	root = parse_json(r->out);
	caps = member(json_object_array_get_idx(member(root, "devices"), 0), "caps");
	ASSERT_EQ(json_object_get_boolean(member(caps, "dma_memcpy")), 0);
	ASSERT_EQ(json_object_get_boolean(member(caps, "rdma")), 1);
	json_object_put(root);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

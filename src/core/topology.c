/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated machine's device topology: chosen once per process (the file in
 * SOFTDOCA_TOPOLOGY, else /etc/softdoca/topology.json, else the built-in default),
 * completed with the real addresses of each function's netdev, and never freed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/sd_env.h"
#include "sd_log.h"
#include "topology_internal.h"

SD_LOG_REGISTER(core.topology);

#define TOPOLOGY_ENV "SOFTDOCA_TOPOLOGY"
#define TOPOLOGY_SYSTEM_FILE "/etc/softdoca/topology.json"
#define TOPOLOGY_BUILTIN "builtin" /* SOFTDOCA_TOPOLOGY value that forces the default */
#define TOPOLOGY_MAX_FILE (1 << 20)

/*
 * The default machine: one BlueField with two host PFs (b1:00.0 is the DOCA host
 * samples' default) and two DPU-side PFs (03:00.0 is the DPU samples' default),
 * all carrying RDMA over "lo".  docs/examples/default.json is this same text and
 * a test checks that they agree.
 */
static const char builtin_topology[] =
	"{\n"
	"  \"version\": 1,\n"
	"  \"devices\": [{\n"
	"    \"name\": \"bf0\",\n"
	"    \"netdev\": \"lo\",\n"
	"    \"functions\": [\n"
	"      {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\",\n"
	"       \"vhca_id\": 0},\n"
	"      {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"ens1f1np1\",\n"
	"       \"vhca_id\": 1},\n"
	"      {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.0\", \"ibdev\": \"mlx5_2\", \"iface\": \"p0\",\n"
	"       \"vhca_id\": 2,\n"
	"       \"representors\": [\n"
	"         {\"vuid\": \"bf0-pf0hpf\", \"pci_addr\": \"0000:b1:00.0\", \"iface\": \"pf0hpf\",\n"
	"          \"func_type\": \"PF\", \"vhca_id\": 0, \"filter\": [\"net\"]},\n"
	"         {\"vuid\": \"bf0-virtio-net0\", \"pci_addr\": \"0000:b1:00.2\", \"iface\": \"vnet0\",\n"
	"          \"func_type\": \"PF\", \"hotplug\": true, \"vhca_id\": 4, \"filter\": [\"emulated\"]}\n"
	"       ]},\n"
	"      {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.1\", \"ibdev\": \"mlx5_3\", \"iface\": \"p1\",\n"
	"       \"vhca_id\": 3,\n"
	"       \"representors\": [\n"
	"         {\"vuid\": \"bf0-pf1hpf\", \"pci_addr\": \"0000:b1:00.1\", \"iface\": \"pf1hpf\",\n"
	"          \"func_type\": \"PF\", \"vhca_id\": 1, \"filter\": [\"net\"]}\n"
	"       ]}\n"
	"    ]\n"
	"  }]\n"
	"}\n";

static pthread_once_t topology_once = PTHREAD_ONCE_INIT;
static struct sd_topology topology;
static doca_error_t topology_status = DOCA_ERROR_BAD_STATE;

/* Read a whole (small) file; *text is NUL-terminated and freed by the caller. */
static doca_error_t
read_file(const char *path, char **text, size_t *len)
{
	struct stat st;
	char *buf;
	size_t done = 0;
	int fd, err;

	/* O_NONBLOCK: a FIFO (or a device) must be refused below, not block the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		DOCA_LOG_ERR("Failed to load device topology %s: cannot open: %s", path, strerror(errno));
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > TOPOLOGY_MAX_FILE) {
		DOCA_LOG_ERR("Failed to load device topology %s: not a regular file of at most %d bytes", path,
			     TOPOLOGY_MAX_FILE);
		close(fd);
		return DOCA_ERROR_BAD_CONFIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		DOCA_LOG_ERR("Failed to load device topology %s: out of memory", path);
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			DOCA_LOG_ERR("Failed to load device topology %s: read: %s", path, strerror(err));
			free(buf);
			close(fd);
			return DOCA_ERROR_BAD_CONFIG;
		}
		done += (size_t)n;
	}
	close(fd);
	buf[done] = '\0';
	*text = buf;
	*len = done;
	return DOCA_SUCCESS;
}

/* RoCE-style GID: IPv4-mapped address, else the IPv6 address, else fe80::EUI-64 of the MAC. */
static void
derive_gid(struct doca_devinfo *fn)
{
	memset(fn->gid, 0, sizeof(fn->gid));
	if (fn->has_ipv4) {
		fn->gid[10] = 0xff;
		fn->gid[11] = 0xff;
		memcpy(&fn->gid[12], fn->ipv4, 4);
	} else if (fn->has_ipv6) {
		memcpy(fn->gid, fn->ipv6, 16);
	} else {
		fn->gid[0] = 0xfe;
		fn->gid[1] = 0x80;
		fn->gid[8] = fn->mac[0] ^ 0x02;
		fn->gid[9] = fn->mac[1];
		fn->gid[10] = fn->mac[2];
		fn->gid[11] = 0xff;
		fn->gid[12] = 0xfe;
		fn->gid[13] = fn->mac[3];
		fn->gid[14] = fn->mac[4];
		fn->gid[15] = fn->mac[5];
	}
}

/*
 * Copy the netdev's first IPv4 address, first IPv6 address (a global one before
 * a link-local one) and MAC into the function.
 */
static void
fill_addresses(struct doca_devinfo *fn, const struct ifaddrs *list)
{
	const struct ifaddrs *ifa;
	bool v6_link_local = false;

	for (ifa = list; ifa != NULL; ifa = ifa->ifa_next) {
		if (ifa->ifa_addr == NULL || strcmp(ifa->ifa_name, fn->netdev) != 0)
			continue;
		if (ifa->ifa_addr->sa_family == AF_INET && !fn->has_ipv4) {
			const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)ifa->ifa_addr;

			memcpy(fn->ipv4, &sin->sin_addr, 4);
			fn->has_ipv4 = true;
		} else if (ifa->ifa_addr->sa_family == AF_INET6 && (!fn->has_ipv6 || v6_link_local)) {
			const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)(const void *)ifa->ifa_addr;
			bool ll = IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr);

			if (fn->has_ipv6 && ll)
				continue;
			memcpy(fn->ipv6, &sin6->sin6_addr, 16);
			fn->has_ipv6 = true;
			v6_link_local = ll;
		} else if (ifa->ifa_addr->sa_family == AF_PACKET) {
			const struct sockaddr_ll *sll = (const struct sockaddr_ll *)(const void *)ifa->ifa_addr;

			if (sll->sll_halen == 6)
				memcpy(fn->mac, sll->sll_addr, 6);
		}
	}
	derive_gid(fn);
}

static doca_error_t
resolve_netdevs(struct sd_topology *topo)
{
	struct ifaddrs *list;
	uint32_t i;

	if (topo->num_devs == 0)
		return DOCA_SUCCESS;
	if (getifaddrs(&list) != 0) {
		DOCA_LOG_ERR("Failed to load device topology %s: getifaddrs: %s", topo->source, strerror(errno));
		return DOCA_ERROR_BAD_CONFIG;
	}
	for (i = 0; i < topo->num_devs; i++) {
		struct doca_devinfo *fn = &topo->devs[i];

		if (if_nametoindex(fn->netdev) == 0) {
			DOCA_LOG_ERR("Failed to load device topology %s: function %s (%s): netdev \"%s\" does not "
				     "exist in this network namespace; create it or name an existing one in \"netdev\"",
				     topo->source, fn->ibdev_name, fn->pci_addr, fn->netdev);
			freeifaddrs(list);
			return DOCA_ERROR_BAD_CONFIG;
		}
		fill_addresses(fn, list);
	}
	freeifaddrs(list);
	return DOCA_SUCCESS;
}

static void
free_topology(struct sd_topology *topo)
{
	uint32_t i;

	for (i = 0; i < topo->num_devs; i++)
		free(topo->devs[i].reps);
	free(topo->devs);
	topo->devs = NULL;
	topo->num_devs = 0;
}

static void
load_topology(void)
{
	const char *env = sd_env_str(TOPOLOGY_ENV);
	struct sd_topology topo = {0};
	char *text = NULL;
	size_t len;
	doca_error_t ret;

	if (env != NULL && env[0] != '\0' && strcmp(env, TOPOLOGY_BUILTIN) != 0)
		snprintf(topo.source, sizeof(topo.source), "%s", env);
	else if ((env == NULL || env[0] == '\0') && access(TOPOLOGY_SYSTEM_FILE, F_OK) == 0)
		snprintf(topo.source, sizeof(topo.source), "%s", TOPOLOGY_SYSTEM_FILE);
	else
		snprintf(topo.source, sizeof(topo.source), "built-in");

	if (strcmp(topo.source, "built-in") == 0) {
		ret = sd_topology_parse(builtin_topology, sizeof(builtin_topology) - 1, topo.source, &topo);
	} else {
		ret = read_file(topo.source, &text, &len);
		if (ret == DOCA_SUCCESS)
			ret = sd_topology_parse(text, len, topo.source, &topo);
		free(text);
	}
	if (ret == DOCA_SUCCESS) {
		ret = resolve_netdevs(&topo);
		if (ret != DOCA_SUCCESS)
			free_topology(&topo);
	}
	if (ret == DOCA_SUCCESS) {
		DOCA_LOG_DBG("Loaded device topology %s: %u device functions", topo.source, topo.num_devs);
		topology = topo;
	}
	topology_status = ret;
}

const struct sd_topology *
sd_topology_get(void)
{
	pthread_once(&topology_once, load_topology);
	return topology_status == DOCA_SUCCESS ? &topology : NULL;
}

doca_error_t
sd_topology_status(void)
{
	pthread_once(&topology_once, load_topology);
	return topology_status;
}

struct doca_devinfo *
sd_devinfo_by_index(uint32_t index)
{
	const struct sd_topology *topo = sd_topology_get();

	if (topo == NULL || index >= topo->num_devs)
		return NULL;
	return &topo->devs[index];
}

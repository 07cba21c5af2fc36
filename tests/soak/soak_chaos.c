/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The soak's places and link chaos.  The two namespaces are the test bed's
 * (python/softdoca_testbed/netns.py builds them around the test and names them in SD_NETNS_*;
 * without root it says why in SD_NETNS_SKIP): the long-lived process runs in A, a netns
 * cycle's peer enters B.  The driver's chaos on the veth: a cut (B's end down for 0.2-1.5 s,
 * then up), or tc shaping for 1-4 s (a tbf rate limit of 20 or 1 Mbit/s, or netem delay with
 * loss when the kernel has sch_netem), one event at a time; each start and end bumps link_epoch, which lets a cycle
 * that saw one fail.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "sd_test.h"
#include "soak.h"

enum link_event { EV_NONE, EV_CUT, EV_TBF, EV_TBF_SLOW, EV_NETEM };

static enum link_event active;
static bool have_netem; /* the kernel has sch_netem (probed once) */
static double active_until, next_event;
static uint32_t chaos_seed;

static void
copy_env(char *dst, size_t cap, const char *name)
{
	const char *v = getenv(name);

	snprintf(dst, cap, "%s", v != NULL ? v : "");
}

void
soak_chaos_init(void)
{
	const char *skip = getenv("SD_NETNS_SKIP");

	chaos_seed = (uint32_t)getpid() * 2654435761u | 1;
	next_event = soak_now() + 2;
	copy_env(soak->ns_a, sizeof(soak->ns_a), "SD_NETNS_A");
	copy_env(soak->ns_b, sizeof(soak->ns_b), "SD_NETNS_B");
	copy_env(soak->veth_a, sizeof(soak->veth_a), "SD_NETNS_VETH_A");
	copy_env(soak->veth_b, sizeof(soak->veth_b), "SD_NETNS_VETH_B");
	copy_env(soak->addr_b, sizeof(soak->addr_b), "SD_NETNS_ADDR_B");
	soak->netns = soak->ns_a[0] != '\0' && soak->ns_b[0] != '\0' && getenv("SOAK_NO_NETNS") == NULL;
	if (soak->netns) {
		char probe[256];

		snprintf(probe, sizeof(probe), "ip netns exec %s tc qdisc add dev %s root netem delay 1ms 2>/dev/null",
			 soak->ns_b, soak->veth_b);
		have_netem = system(probe) == 0;
		snprintf(probe, sizeof(probe), "ip netns exec %s tc qdisc del dev %s root 2>/dev/null", soak->ns_b,
			 soak->veth_b);
		if (have_netem && system(probe) != 0)
			sd_test_fail(__FILE__, __LINE__, "chaos: cannot remove the netem probe: %s", probe);
		soak->netem = have_netem;
	}
	if (!soak->netns)
		snprintf(soak->skip_netns, sizeof(soak->skip_netns), "%s",
			 skip != NULL			   ? skip
			 : getenv("SOAK_NO_NETNS") != NULL ? "SOAK_NO_NETNS is set"
							   : "not run under python3 -m softdoca_testbed.netns");
}

/*
 * Join a namespace as `ip netns exec` does: the network namespace, then a mount namespace of
 * this process's own with /sys mounted again, so that /sys/class/net (where UCX lists its
 * devices) shows the namespace's interfaces.  Single-threaded callers only (fresh forks).
 */
void
soak_enter_ns(const char *ns)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
		sd_test_fail(__FILE__, __LINE__, "cannot enter network namespace %s: %m", ns);
	close(fd);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0 ||
	    umount2("/sys", MNT_DETACH) != 0 || mount(ns, "/sys", "sysfs", 0, NULL) != 0)
		sd_test_fail(__FILE__, __LINE__, "cannot mount the /sys of network namespace %s: %m", ns);
}

void
soak_use_where(enum soak_where w, bool peer_side)
{
	const char *dev = w == W_NETNS ? (peer_side ? soak->veth_b : soak->veth_a) : "lo";

	/*
	 * The RDMA-CM's own UCX context lists every netdev unless told (rdma-cm.md): pinned to the
	 * cycle's link, it neither offers lo across the namespaces nor trips over the veth the
	 * chaos just cut (both seen unpinned, docs/robustness.md).
	 */
	setenv("SD_CM_UCX_NET_DEVICES", dev, 1);
	if (w == W_SHM) {
		unsetenv("UCX_TLS");
		unsetenv("UCX_NET_DEVICES");
		unsetenv("SOFTDOCA_FABRIC_CMA");
		return;
	}
	/* what makes two namespaces on one kernel behave as two hosts (netns.py's TCP_ENV) */
	setenv("UCX_TLS", "tcp", 1);
	setenv("UCX_NET_DEVICES", dev, 1);
	if (w == W_NETNS)
		setenv("SOFTDOCA_FABRIC_CMA", "0", 1);
	else
		unsetenv("SOFTDOCA_FABRIC_CMA");
}

/* Run a command; the driver has no softdoca state, so system() is safe here. */
static void __attribute__((format(printf, 1, 2))) sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		sd_test_fail(__FILE__, __LINE__, "chaos: '%s' failed", cmd);
}

/* One end running again (UCX opens only interfaces with carrier); 5 s at most. */
static void
wait_carrier(const char *ns, const char *veth)
{
	/* the driver's /sys is the root namespace's: read the namespace's through ip netns exec */
	sh("ip netns exec %s sh -c 'for i in $(seq 100); do [ \"$(cat /sys/class/net/%s/operstate)\" = up ] && "
	   "exit 0; sleep 0.05; done; exit 1'",
	   ns, veth);
}

static void
event_start(enum link_event ev)
{
	double now = soak_now();

	if (ev == EV_CUT) {
		/* announce the cut, then look: a netns cycle that started connecting first wins */
		__atomic_store_n(&soak->link_cut, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&soak->in_setup, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&soak->link_cut, 0, __ATOMIC_SEQ_CST);
			return;
		}
	}
	switch (ev) {
	case EV_CUT:
		sh("ip -n %s link set %s down", soak->ns_b, soak->veth_b);
		soak->link_cuts++;
		break;
	case EV_NETEM:
		sh("ip netns exec %s tc qdisc replace dev %s root netem delay 10ms 5ms loss 2%%", soak->ns_b,
		   soak->veth_b);
		break;
	case EV_TBF:
	case EV_TBF_SLOW:
		sh("ip netns exec %s tc qdisc replace dev %s root tbf rate %s burst 32kb latency 100ms", soak->ns_b,
		   soak->veth_b, ev == EV_TBF ? "20mbit" : "1mbit");
		break;
	case EV_NONE:
		return;
	}
	if (ev == EV_CUT) {
		active_until = now + 0.2 + (double)(sd_test_rand(&chaos_seed) % 1300) / 1000.0;
	} else {
		active_until = now + 1 + (double)(sd_test_rand(&chaos_seed) % 3000) / 1000.0;
		soak->tc_changes++;
	}
	active = ev;
	__atomic_add_fetch(&soak->link_epoch, 1, __ATOMIC_SEQ_CST);
}

static void
event_end(void)
{
	if (active == EV_CUT) {
		sh("ip -n %s link set %s up", soak->ns_b, soak->veth_b);
		wait_carrier(soak->ns_a, soak->veth_a);
		wait_carrier(soak->ns_b, soak->veth_b);
		__atomic_store_n(&soak->link_cut, 0, __ATOMIC_SEQ_CST);
	} else if (active != EV_NONE)
		sh("ip netns exec %s tc qdisc del dev %s root", soak->ns_b, soak->veth_b);
	active = EV_NONE;
	__atomic_add_fetch(&soak->link_epoch, 1, __ATOMIC_SEQ_CST);
	next_event = soak_now() + 1 + (double)(sd_test_rand(&chaos_seed) % 4000) / 1000.0;
}

void
soak_chaos_tick(void)
{
	double now = soak_now();

	if (!soak->netns)
		return;
	if (active != EV_NONE && now >= active_until)
		event_end();
	else if (active == EV_NONE && now >= next_event)
		event_start((enum link_event)(EV_CUT + sd_test_rand(&chaos_seed) % (have_netem ? 4 : 3)));
}

void
soak_chaos_restore(void)
{
	if (active != EV_NONE)
		event_end();
}

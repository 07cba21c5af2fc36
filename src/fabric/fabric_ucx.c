/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric devices: one UCP context + worker per netdev per process, shared by
 * every ctx opened on it, plus the small helpers (clock, id tables, status
 * mapping) the other fabric files use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fabric_internal.h"
#include "../util/sd_env.h"
#include "../core/sd_core.h"

SD_LOG_REGISTER(fabric.ucx);

/* UCX tcp receive segment = largest AM fragment over tcp (see ucx_open). */
#define FABRIC_TCP_RX_SEG_SIZE "512K"
#define FABRIC_MM_FIFO_ELEM_SIZE "256" /* ucx_configure */

/* Devices opened by this process, by netdev name. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_list registry = SD_LIST_INIT(registry);

void
fabric_dev_lock(struct fabric_dev *dev)
{
	pthread_mutex_lock(&dev->w.lock);
}

void
fabric_dev_unlock(struct fabric_dev *dev)
{
	pthread_mutex_unlock(&dev->w.lock);
}

/*
 * Id tables map a 32-bit id carried on the wire to a local object.  Id 0 is
 * never used; a freed slot reads NULL.
 */
doca_error_t
fabric_id_alloc(void ***table, uint32_t *cap, void *obj, uint32_t *id)
{
	uint32_t i;
	void **t;

	for (i = 0; i < *cap; i++) {
		if ((*table)[i] == NULL) {
			(*table)[i] = obj;
			*id = i + 1;
			return DOCA_SUCCESS;
		}
	}
	t = realloc(*table, sizeof(*t) * (*cap ? *cap * 2 : 16));
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(t + *cap, 0, sizeof(*t) * (*cap ? *cap : 16));
	*table = t;
	*cap = *cap ? *cap * 2 : 16;
	t[i] = obj;
	*id = i + 1;
	return DOCA_SUCCESS;
}

void *
fabric_id_lookup(void **table, uint32_t cap, uint32_t id)
{
	if (id == 0 || id > cap)
		return NULL;
	return table[id - 1];
}

void
fabric_id_free(void **table, uint32_t cap, uint32_t id)
{
	if (id != 0 && id <= cap)
		table[id - 1] = NULL;
}

/* The kernel's boot id names "this machine": equal ids can use shm/cma. */
static void
read_host_id(uint8_t id[16])
{
	char text[64] = {0};
	FILE *f;
	int i, j;

	memset(id, 0, 16);
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f == NULL)
		return;
	if (fgets(text, sizeof(text), f) == NULL)
		text[0] = '\0';
	fclose(f);
	for (i = 0, j = 0; text[i] != '\0' && j < 32; i++) {
		char c = text[i];
		int v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else
			continue;
		id[j / 2] |= (uint8_t)(v << ((j % 2) ? 0 : 4));
		j++;
	}
}

/* Whether the comma-separated transport list names one of names[] (substring match, as UCX aliases nest). */
static bool
tls_mentions(const char *tls, const char *const names[], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strstr(tls, names[i]) != NULL)
			return true;
	return false;
}

/*
 * Whether UCX may use shared memory for this process: UCX_TLS lists the
 * allowed transports ("^x" excludes).  Decides the error handling mode of
 * same-host endpoints (sd_fabric_ep_connect).
 */
static bool
shm_allowed(void)
{
	const char *tls = getenv("UCX_TLS");
	static const char *const shm_names[] = {"all", "sm", "shm", "posix", "sysv", "cma", "xpmem", "knem"};

	if (tls == NULL || tls[0] == '\0' || tls[0] == '^')
		return true;
	return tls_mentions(tls, shm_names, SD_ARRAY_SIZE(shm_names));
}

/*
 * Whether UCX_TLS leaves tcp in: tcp settings are only passed when it does,
 * because UCX warns (on stdout) about a setting no opened transport took.
 */
static bool
tcp_allowed(void)
{
	const char *tls = getenv("UCX_TLS");
	static const char *const tcp_names[] = {"tcp"};
	static const char *const all_names[] = {"all", "tcp"};

	if (tls == NULL || tls[0] == '\0')
		return true;
	if (tls[0] == '^')
		return !tls_mentions(tls + 1, tcp_names, SD_ARRAY_SIZE(tcp_names));
	return tls_mentions(tls, all_names, SD_ARRAY_SIZE(all_names));
}

/*
 * The tcp receive segment our UCP contexts use, in bytes (it travels in the
 * connection blob so that mismatched tcp peers refuse to connect instead of
 * aborting): the user's UCX_TCP_RX_SEG_SIZE (UCX memory units: a number with
 * an optional b/k/m/g suffix), else our default; 0 when tcp is not allowed or
 * the value does not parse (no check then).
 */
static uint32_t
tcp_seg_bytes(void)
{
	const char *v = getenv("UCX_TCP_RX_SEG_SIZE");
	unsigned long long n;
	char *end;

	if (!tcp_allowed())
		return 0;
	if (v == NULL)
		v = FABRIC_TCP_RX_SEG_SIZE;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || end == v)
		return 0;
	switch (*end) {
	case 'g':
	case 'G':
		n <<= 10;
		/* fallthrough */
	case 'm':
	case 'M':
		n <<= 10;
		/* fallthrough */
	case 'k':
	case 'K':
		n <<= 10;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	return (*end == '\0' && n <= UINT32_MAX) ? (uint32_t)n : 0;
}

/* UCX settings of a device's context (before ucp_init). */
static void
ucx_configure(ucp_config_t *config, void *arg)
{
	const char *netdev = arg;
	ucs_status_t st;

	/* Network transports only on the device's netdev; shm/cma are not net devices. */
	if (netdev != NULL && netdev[0] != '\0' && getenv("UCX_NET_DEVICES") == NULL) {
		st = ucp_config_modify(config, "NET_DEVICES", netdev);
		if (st != UCS_OK)
			DOCA_LOG_WARN("Failed to restrict UCX to netdev %s: %s", netdev, ucs_status_string(st));
	}
	/* A dead peer must surface in bounded time even over shm (default is far longer). */
	if (getenv("UCX_KEEPALIVE_INTERVAL") == NULL)
		(void)ucp_config_modify(config, "KEEPALIVE_INTERVAL", "1s");
	/*
	 * Over tcp our endpoints use UCP_ERR_HANDLING_MODE_PEER, which in UCX 1.13
	 * leaves no put-zcopy lane: a rendezvous payload (AM write, large send)
	 * travels as AM zcopy fragments of at most TCP_RX_SEG_SIZE (64K by
	 * default), each one sendmsg and one recv into the receive buffer.  512K
	 * fragments cut that from ~16 to ~3 syscalls a side per MiB (+20-40 %
	 * MiB/s and bytes per CPU-second across two namespaces, docs/rdma-ucx.md).
	 * The receiver must accept the sender's fragments, so both ends need the
	 * same value: every softdoca process sets it unless the user did.
	 */
	if (getenv("UCX_TCP_RX_SEG_SIZE") == NULL && tcp_allowed())
		(void)ucp_config_modify(config, "RX_SEG_SIZE", FABRIC_TCP_RX_SEG_SIZE);
	/*
	 * Over shared memory a message of up to a FIFO element goes inline
	 * (am_short); 128-byte elements hold 112 bytes, less than softdoca's
	 * 40-byte header, 64 bytes of payload and UCP's AM and reply headers, so
	 * a 64-byte send was a bcopy (3x the instructions of ucp_am_bw's send).
	 * 256-byte elements: +40 % 64-byte sends/s.  Sender and receiver must
	 * agree (the sender steps through the receiver's FIFO by its own element
	 * size: a mismatch hangs both), and nothing in a connection says which
	 * one the peer uses, so every softdoca process sets it, a user's
	 * UCX_MM_FIFO_ELEM_SIZE included (docs/rdma-ucx.md).
	 */
	if (shm_allowed())
		(void)ucp_config_modify(config, "MM_FIFO_ELEM_SIZE", FABRIC_MM_FIFO_ELEM_SIZE);
}

static doca_error_t
ucx_open(struct fabric_dev *dev, const char *netdev)
{
	bool mt = sd_env_bool("SOFTDOCA_FABRIC_UCX_MT", false);
	char thread_name[FABRIC_WORKER_THREAD_NAME_LEN];
	struct fabric_worker_attr attr = {
		.name = "softdoca",
		.thread_name = thread_name,
		.configure = ucx_configure,
		.configure_arg = (void *)(uintptr_t)netdev,
		/*
		 * SERIALIZED: dev->w.lock already serializes every worker call (we
		 * need it for our own queues anyway), so UCX's MULTI locking would be
		 * paid twice.  SOFTDOCA_FABRIC_UCX_MT=1 selects MULTI, for measurement only.
		 */
		.thread_mode = mt ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SERIALIZED,
		.am_id = FABRIC_AM_ID,
		.am_cb = fabric_am_handler,
		.am_arg = dev,
	};

	/* "sdfab:" and the netdev's first 9 characters: a thread name has at most 15 */
	snprintf(thread_name, sizeof(thread_name), FABRIC_WORKER_THREAD_PREFIX ":%.*s",
		 (int)(sizeof(thread_name) - sizeof(FABRIC_WORKER_THREAD_PREFIX ":")),
		 dev->netdev[0] != '\0' ? dev->netdev : "all");
	return fabric_worker_open(&dev->w, &attr);
}

static doca_error_t
dev_create(const char *netdev, struct fabric_dev **out)
{
	struct fabric_dev *dev;
	bool direct = sd_env_bool("SOFTDOCA_FABRIC_CMA", true);
	doca_error_t err;

	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return DOCA_ERROR_NO_MEMORY;
	sd_list_init(&dev->ctxs);
	sd_list_init(&dev->watches);
	sd_list_init(&dev->ack_eps);
	snprintf(dev->netdev, sizeof(dev->netdev), "%s", netdev ? netdev : "");
	read_host_id(dev->host_id);
	{
		struct stat st;

		dev->pid_ns = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
	}
	dev->shm_enabled = shm_allowed();
	dev->tcp_seg = tcp_seg_bytes();
	dev->direct_enabled = direct;
	dev->mapped_enabled = sd_env_bool("SOFTDOCA_FABRIC_MAPPED", true);
	dev->eager_rma_max = (uint32_t)sd_env_u64("SOFTDOCA_FABRIC_EAGER_RMA", FABRIC_EAGER_RMA_DEFAULT, 0, 8192);
	fabric_recs_init(dev);
	err = ucx_open(dev, netdev);
	if (err != DOCA_SUCCESS)
		goto cleanup_dev;
	err = fabric_worker_start(&dev->w, &fabric_dev_svc_ops, dev);
	if (err != DOCA_SUCCESS)
		goto cleanup_worker;
	dev->refcnt = 1;
	*out = dev;
	return DOCA_SUCCESS;

cleanup_worker:
	fabric_worker_close(&dev->w);
cleanup_dev:
	fabric_recs_fini(dev);
	free(dev);
	return err;
}

doca_error_t
sd_fabric_dev_open(const char *netdev, struct fabric_dev **out)
{
	struct fabric_dev *dev;
	struct sd_list *pos;
	doca_error_t err;

	if (out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (netdev == NULL)
		netdev = "";
	if (strlen(netdev) >= sizeof(dev->netdev))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	sd_list_for_each(pos, &registry)
	{
		dev = sd_container_of(pos, struct fabric_dev, node);
		if (strcmp(dev->netdev, netdev) == 0) {
			dev->refcnt++;
			pthread_mutex_unlock(&registry_lock);
			*out = dev;
			return DOCA_SUCCESS;
		}
	}
	err = dev_create(netdev, &dev);
	if (err == DOCA_SUCCESS) {
		sd_list_insert_tail(&registry, &dev->node);
		*out = dev;
	}
	pthread_mutex_unlock(&registry_lock);
	return err;
}

doca_error_t
sd_fabric_dev_open_last(struct fabric_dev **out)
{
	struct fabric_dev *dev = NULL;

	if (out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	if (!sd_list_empty(&registry)) {
		dev = sd_container_of(registry.prev, struct fabric_dev, node);
		dev->refcnt++;
	}
	pthread_mutex_unlock(&registry_lock);
	if (dev == NULL)
		return sd_fabric_dev_open(NULL, out);
	*out = dev;
	return DOCA_SUCCESS;
}

void
sd_fabric_dev_close(struct fabric_dev *dev)
{
	if (dev == NULL)
		return;
	pthread_mutex_lock(&registry_lock);
	if (--dev->refcnt > 0) {
		pthread_mutex_unlock(&registry_lock);
		return;
	}
	sd_list_del(&dev->node);
	pthread_mutex_unlock(&registry_lock);

	fabric_worker_stop(&dev->w);
	if (!sd_list_empty(&dev->ctxs))
		DOCA_LOG_WARN("Fabric device %s closed with contexts still open", dev->netdev);
	fabric_worker_close(&dev->w);
	free(dev->eps);
	free(dev->mrs);
	fabric_recs_fini(dev);
	free(dev);
}

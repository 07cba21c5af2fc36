/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The owning side of the Verbs address service (fabric_addr.h): QPN
 * allocation, one TCP listener per local IP address on port (base + slot), and
 * the resolver thread that answers queries.  The asking side is
 * fabric_addr_resolve.c; the wire format fabric_addr_proto.h.
 *
 * Locking: svc.life serializes the calls that may start or stop the thread
 * (add, remove); svc.lock guards the listeners' tables and the published
 * blobs.  The thread takes svc.lock only to copy the listener fds and to copy
 * an answer; it never calls into the rest of the fabric (devices, queue
 * pairs).  Listener fds are opened by add() and closed only after the thread
 * was joined, so the thread never polls a closed fd.  Listener records are
 * never freed: a restarted service tries the same slot first and continues the
 * round-robin index, so a QPN just given back is not handed out again at once.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "../util/sd_time.h"
#include "fabric_addr.h"
#include "fabric_addr_internal.h"
#include "fabric_addr_proto.h"
#include "fabric_worker.h"

SD_LOG_REGISTER(fabric.addr);

#define ADDR_MAX_LISTENERS 16 /* distinct local IP addresses with QPs */
#define ADDR_MAX_CLIENTS 64   /* queries served at once; more wait in the backlog */
#define ADDR_SERVE_MS 500     /* a client has this long to send its request and read the answer */
#define ADDR_LOG_PER_SEC 10   /* malformed-request lines per second, the rest counted */
#define ADDR_BACKLOG 128
#define ACCEPT_PAUSE_MS 100 /* the listeners rest this long when accept() runs out of fds or memory */
#define ADDR_THREAD_NAME FABRIC_WORKER_THREAD_PREFIX "-addr" /* beside the fabric's other threads */

struct addr_entry {
	bool published, bound;
	uint8_t peer_gid[16];
	uint32_t peer_qpn;
	uint32_t blob_len;
	uint8_t blob[SD_FABRIC_ADDR_BLOB_MAX];
};

struct addr_listener {
	struct sd_fabric_addr_ip ip; /* port 0: the key; the listening port is base + slot */
	int fd;			     /* -1 while the service is stopped */
	uint32_t slot;		     /* 0: none taken yet */
	uint32_t next_index;
	uint32_t num_qps;
	struct addr_entry **entries; /* [SD_FABRIC_ADDR_MAX_INDEX + 1], by index */
};

static struct {
	pthread_mutex_t life; /* add / remove: thread start and stop */
	pthread_mutex_t lock; /* everything below */
	struct addr_listener *listeners[ADDR_MAX_LISTENERS];
	uint32_t num_listeners;
	uint32_t num_qps; /* over all listeners; the thread runs while > 0 */
	bool running, stop;
	pthread_t thread;
	int wake_fd; /* eventfd: a listener was opened, or stop */
} svc = {
	.life = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake_fd = -1,
};

/* One query being served by the thread. */
struct addr_client {
	int fd; /* -1: free */
	uint32_t slot;
	struct sd_fabric_addr_ip peer;
	uint64_t deadline_ns;
	size_t have; /* request bytes read */
	uint8_t req[sizeof(struct sd_fabric_addr_req_wire)];
	size_t out_len, out_off; /* answer bytes, written so far */
	uint8_t out[sizeof(struct sd_fabric_addr_resp_wire) + SD_FABRIC_ADDR_BLOB_MAX];
};

/* ---------------------------------------------------------------- owner side */

static struct addr_listener *
listener_by_slot(uint32_t slot)
{
	for (uint32_t i = 0; i < svc.num_listeners; i++)
		if (svc.listeners[i]->slot == slot && svc.listeners[i]->num_qps > 0)
			return svc.listeners[i];
	return NULL;
}

/* The entry of qpn, or NULL.  svc.lock held. */
static struct addr_entry *
entry_of(uint32_t qpn, struct addr_listener **owner)
{
	struct addr_listener *l;

	if (!sd_fabric_addr_qpn_valid(qpn))
		return NULL;
	l = listener_by_slot(sd_fabric_addr_qpn_slot(qpn));
	if (l == NULL)
		return NULL;
	if (owner != NULL)
		*owner = l;
	return l->entries[sd_fabric_addr_qpn_index(qpn)];
}

/* True when another listener of this process holds slot: QPNs must stay unique in the process. */
static bool
slot_taken_here(const struct addr_listener *self, uint32_t slot)
{
	for (uint32_t i = 0; i < svc.num_listeners; i++)
		if (svc.listeners[i] != self && svc.listeners[i]->fd >= 0 && svc.listeners[i]->slot == slot)
			return true;
	return false;
}

/* Bind and listen on ip:port; 0, or the errno of the step that failed. */
static int
try_listen(const struct sd_fabric_addr_ip *ip, uint16_t port, int *fd_out)
{
	struct sd_fabric_addr_ip a = *ip;
	int one = 1;
	int fd, err;

	sd_fabric_addr_ip_set_port(&a, port);
	fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	/*
	 * SO_REUSEADDR lets a restarted owner bind while old connections sit in
	 * TIME_WAIT; SO_REUSEPORT is not set, so a second listener on the port fails.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
		goto fail;
	if (a.ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&a.ss, a.len) != 0 || listen(fd, ADDR_BACKLOG) != 0)
		goto fail;
	*fd_out = fd;
	return 0;
fail:
	err = errno;
	close(fd);
	return err;
}

/*
 * Take a slot for l: its previous one first, then from a pid-derived start,
 * skipping ports in use (EADDRINUSE from bind or listen) and slots of this
 * process's other listeners.  svc.lock held.
 */
static doca_error_t
listener_open(struct addr_listener *l)
{
	uint16_t base = sd_fabric_addr_port_base();
	uint32_t start = l->slot != 0 ? l->slot : (uint32_t)getpid() % SD_FABRIC_ADDR_MAX_SLOT + 1;
	char name[SD_FABRIC_ADDR_IP_STRLEN];

	for (uint32_t k = 0; k < SD_FABRIC_ADDR_MAX_SLOT; k++) {
		uint32_t slot = (start - 1 + k) % SD_FABRIC_ADDR_MAX_SLOT + 1;
		int fd = -1, err;

		if (slot_taken_here(l, slot))
			continue;
		err = try_listen(&l->ip, (uint16_t)(base + slot), &fd);
		if (err == EADDRINUSE)
			continue;
		if (err != 0) {
			DOCA_LOG_ERR("Failed to open the Verbs address listener on %s port %u: %s",
				     sd_fabric_addr_ip_str(&l->ip, name, sizeof(name)), base + slot, strerror(err));
			return DOCA_ERROR_OPERATING_SYSTEM;
		}
		if (l->slot != slot)
			l->next_index = 1;
		l->slot = slot;
		l->fd = fd;
		DOCA_LOG_DBG("Verbs address listener on %s port %u (slot %u)",
			     sd_fabric_addr_ip_str(&l->ip, name, sizeof(name)), base + slot, slot);
		return DOCA_SUCCESS;
	}
	DOCA_LOG_ERR("Failed to open the Verbs address listener on %s: every port %u..%u is in use; free some or move "
		     "the range with SOFTDOCA_VERBS_PORT_BASE",
		     sd_fabric_addr_ip_str(&l->ip, name, sizeof(name)), base + 1, base + SD_FABRIC_ADDR_MAX_SLOT);
	return DOCA_ERROR_FULL;
}

/* The listener record of ip, made on first use.  svc.lock held. */
static doca_error_t
listener_get(const struct sd_fabric_addr_ip *ip, struct addr_listener **out)
{
	struct addr_listener *l;

	for (uint32_t i = 0; i < svc.num_listeners; i++) {
		if (sd_fabric_addr_ip_equal(&svc.listeners[i]->ip, ip)) {
			*out = svc.listeners[i];
			return DOCA_SUCCESS;
		}
	}
	if (svc.num_listeners == ADDR_MAX_LISTENERS) {
		DOCA_LOG_ERR("Failed to add a Verbs QP address: %u local IP addresses already have QPs",
			     ADDR_MAX_LISTENERS);
		return DOCA_ERROR_FULL;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return DOCA_ERROR_NO_MEMORY;
	l->entries = calloc(SD_FABRIC_ADDR_MAX_INDEX + 1, sizeof(*l->entries));
	if (l->entries == NULL) {
		free(l);
		return DOCA_ERROR_NO_MEMORY;
	}
	l->ip = *ip;
	l->fd = -1;
	l->next_index = 1;
	svc.listeners[svc.num_listeners++] = l;
	*out = l;
	return DOCA_SUCCESS;
}

static void *resolver_thread(void *arg);

/* Start the thread (svc.life held, svc.lock not held, not running); it owns and frees clients. */
static doca_error_t
service_start(void)
{
	struct addr_client *clients = calloc(ADDR_MAX_CLIENTS, sizeof(*clients));
	int err;

	if (clients == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (uint32_t i = 0; i < ADDR_MAX_CLIENTS; i++)
		clients[i].fd = -1;
	svc.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (svc.wake_fd < 0) {
		DOCA_LOG_ERR("Failed to start the Verbs address service: eventfd: %s", strerror(errno));
		free(clients);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	svc.stop = false;
	err = pthread_create(&svc.thread, NULL, resolver_thread, clients);
	if (err != 0) {
		DOCA_LOG_ERR("Failed to start the Verbs address service thread: %s", strerror(err));
		free(clients);
		close(svc.wake_fd);
		svc.wake_fd = -1;
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	(void)pthread_setname_np(svc.thread, ADDR_THREAD_NAME);
	svc.running = true;
	return DOCA_SUCCESS;
}

static void
wake(void)
{
	uint64_t one = 1;

	if (write(svc.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		DOCA_LOG_WARN("Failed to wake the Verbs address thread: %s", strerror(errno));
}

/* Stop and join the thread, close every listener (svc.life held, svc.lock not held). */
static void
service_stop(void)
{
	pthread_mutex_lock(&svc.lock);
	svc.stop = true;
	wake();
	pthread_mutex_unlock(&svc.lock);
	pthread_join(svc.thread, NULL);
	pthread_mutex_lock(&svc.lock);
	for (uint32_t i = 0; i < svc.num_listeners; i++) {
		if (svc.listeners[i]->fd >= 0)
			close(svc.listeners[i]->fd);
		svc.listeners[i]->fd = -1;
	}
	close(svc.wake_fd);
	svc.wake_fd = -1;
	svc.running = false;
	pthread_mutex_unlock(&svc.lock);
}

/*
 * fork(): the child has the parent's listeners and entries but not its thread.
 * It keeps nothing of them (its QPs are copies it cannot use); the next QP it
 * makes starts a service of its own, on other slots.
 */
static void
fork_prepare(void)
{
	pthread_mutex_lock(&svc.life);
	pthread_mutex_lock(&svc.lock);
}

static void
fork_parent(void)
{
	pthread_mutex_unlock(&svc.lock);
	pthread_mutex_unlock(&svc.life);
}

static void
fork_child(void)
{
	for (uint32_t i = 0; i < svc.num_listeners; i++) {
		struct addr_listener *l = svc.listeners[i];

		if (l->fd >= 0)
			close(l->fd);
		/* the entries are the parent's: dropped, not freed (a child that execs loses them anyway) */
		svc.listeners[i] = NULL;
	}
	if (svc.wake_fd >= 0)
		close(svc.wake_fd);
	svc.wake_fd = -1;
	svc.num_listeners = 0;
	svc.num_qps = 0;
	svc.running = false;
	svc.stop = false;
	/* Taken by this thread's original in fork_prepare; unlocked, not re-initialised (see core/log.c). */
	pthread_mutex_unlock(&svc.lock);
	pthread_mutex_unlock(&svc.life);
}

__attribute__((constructor)) static void
addr_fork_handlers(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The next free index of l, round-robin from next_index; 0 when all are used.  svc.lock held. */
static uint32_t
take_index(struct addr_listener *l)
{
	for (uint32_t k = 0; k < SD_FABRIC_ADDR_MAX_INDEX; k++) {
		uint32_t index = (l->next_index - 1 + k) % SD_FABRIC_ADDR_MAX_INDEX + 1;

		if (l->entries[index] == NULL) {
			l->next_index = index % SD_FABRIC_ADDR_MAX_INDEX + 1;
			return index;
		}
	}
	return 0;
}

doca_error_t
sd_fabric_addr_add(const struct doca_devinfo *devinfo, uint32_t *qpn)
{
	struct addr_listener *l = NULL;
	struct addr_entry *e;
	struct sd_fabric_addr_ip ip;
	uint32_t index;
	doca_error_t err;

	if (devinfo == NULL || qpn == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!sd_fabric_addr_ip_of_dev(&ip, devinfo)) {
		DOCA_LOG_ERR("Failed to add a Verbs QP address on %s: netdev %s has no IP address; give it one",
			     sd_devinfo_ibdev_name(devinfo), sd_devinfo_netdev(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;

	pthread_mutex_lock(&svc.life);
	if (!svc.running) {
		err = service_start();
		if (err != DOCA_SUCCESS)
			goto unlock_life;
	}
	pthread_mutex_lock(&svc.lock);
	err = listener_get(&ip, &l);
	if (err == DOCA_SUCCESS && l->fd < 0) {
		err = listener_open(l);
		if (err == DOCA_SUCCESS)
			wake();
	}
	if (err != DOCA_SUCCESS)
		goto unlock;
	index = take_index(l);
	if (index == 0) {
		DOCA_LOG_ERR("Failed to add a Verbs QP address on %s: all %u QP numbers of this process on its address "
			     "are in use",
			     sd_devinfo_ibdev_name(devinfo), SD_FABRIC_ADDR_MAX_INDEX);
		err = DOCA_ERROR_FULL;
		goto unlock;
	}
	l->entries[index] = e;
	l->num_qps++;
	svc.num_qps++;
	*qpn = sd_fabric_addr_qpn(l->slot, index);
	pthread_mutex_unlock(&svc.lock);
	pthread_mutex_unlock(&svc.life);
	return DOCA_SUCCESS;

unlock:
	pthread_mutex_unlock(&svc.lock);
	if (svc.num_qps == 0)
		service_stop();
unlock_life:
	pthread_mutex_unlock(&svc.life);
	free(e);
	return err;
}

doca_error_t
sd_fabric_addr_publish(uint32_t qpn, const void *blob, size_t len)
{
	struct addr_entry *e;

	if (blob == NULL || len == 0 || len > SD_FABRIC_ADDR_BLOB_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&svc.lock);
	e = entry_of(qpn, NULL);
	if (e != NULL) {
		memcpy(e->blob, blob, len);
		e->blob_len = (uint32_t)len;
		e->published = true;
	}
	pthread_mutex_unlock(&svc.lock);
	return e != NULL ? DOCA_SUCCESS : DOCA_ERROR_NOT_FOUND;
}

void
sd_fabric_addr_bind(uint32_t qpn, const uint8_t peer_gid[16], uint32_t peer_qpn)
{
	struct addr_entry *e;

	if (peer_gid == NULL)
		return;
	pthread_mutex_lock(&svc.lock);
	e = entry_of(qpn, NULL);
	if (e != NULL) {
		memcpy(e->peer_gid, peer_gid, sizeof(e->peer_gid));
		e->peer_qpn = peer_qpn;
		e->bound = true;
	}
	pthread_mutex_unlock(&svc.lock);
}

void
sd_fabric_addr_remove(uint32_t qpn)
{
	struct addr_listener *l = NULL;
	struct addr_entry *e;
	bool last = false;

	pthread_mutex_lock(&svc.life);
	pthread_mutex_lock(&svc.lock);
	e = entry_of(qpn, &l);
	if (e != NULL) {
		l->entries[sd_fabric_addr_qpn_index(qpn)] = NULL;
		l->num_qps--;
		last = --svc.num_qps == 0;
	}
	pthread_mutex_unlock(&svc.lock);
	free(e);
	if (last)
		service_stop();
	pthread_mutex_unlock(&svc.life);
}

/* --------------------------------------------------------- the resolver thread */

/* At most ADDR_LOG_PER_SEC malformed-request lines a second, so a flood cannot fill the log. */
static bool
log_allowed(void)
{
	static uint64_t window_ns;
	static uint32_t in_window, suppressed;
	uint64_t now = sd_coarse_now_ns();

	if (now - window_ns >= 1000000000ull) {
		if (suppressed != 0)
			DOCA_LOG_WARN("%u more malformed Verbs address requests were not logged", suppressed);
		window_ns = now;
		in_window = 0;
		suppressed = 0;
	}
	if (in_window < ADDR_LOG_PER_SEC) {
		in_window++;
		return true;
	}
	suppressed++;
	return false;
}

static void
client_close(struct addr_client *c)
{
	close(c->fd);
	c->fd = -1;
}

static void
client_refuse(struct addr_client *c, const char *why)
{
	char peer[SD_FABRIC_ADDR_IP_STRLEN];

	if (log_allowed())
		DOCA_LOG_WARN("Failed to serve a Verbs address request from %s: %s; connection closed",
			      sd_fabric_addr_ip_str(&c->peer, peer, sizeof(peer)), why);
	client_close(c);
}

/* The connection comes from the address in the request's source GID. */
static bool
source_matches(const struct addr_client *c, const uint8_t gid[16])
{
	struct sd_fabric_addr_ip claimed;

	if (sd_fabric_addr_ip_of_gid(&claimed, gid, "") != NULL)
		return false;
	return sd_fabric_addr_ip_equal(&claimed, &c->peer);
}

/* A full request arrived: build the answer under svc.lock. */
static void
client_answer(struct addr_client *c)
{
	struct sd_fabric_addr_resp resp = {.status = SD_FABRIC_ADDR_NO_QP};
	struct sd_fabric_addr_req req;
	const char *why = NULL;
	struct addr_entry *e;

	if (sd_fabric_addr_req_parse(c->req, sizeof(c->req), &req, &why) != DOCA_SUCCESS) {
		client_refuse(c, why);
		return;
	}
	if (!source_matches(c, req.src_gid)) {
		client_refuse(c, "the connection's source address is not the request's source GID");
		return;
	}
	pthread_mutex_lock(&svc.lock);
	e = sd_fabric_addr_qpn_slot(req.dest_qpn) == c->slot ? entry_of(req.dest_qpn, NULL) : NULL;
	if (e == NULL)
		resp.status = SD_FABRIC_ADDR_NO_QP;
	else if (!e->published)
		resp.status = SD_FABRIC_ADDR_NOT_READY;
	else if (e->bound && (e->peer_qpn != req.src_qpn || memcmp(e->peer_gid, req.src_gid, 16) != 0))
		resp.status = SD_FABRIC_ADDR_BOUND;
	else {
		resp.status = SD_FABRIC_ADDR_OK;
		resp.blob_len = e->blob_len;
		memcpy(c->out + sizeof(struct sd_fabric_addr_resp_wire), e->blob, e->blob_len);
	}
	pthread_mutex_unlock(&svc.lock);
	sd_fabric_addr_resp_encode(&resp, c->out);
	c->out_len = sizeof(struct sd_fabric_addr_resp_wire) + resp.blob_len;
	c->out_off = 0;
}

/* Read or write what the socket takes now; close when done, refused or failed. */
static void
client_io(struct addr_client *c)
{
	ssize_t n;

	if (c->out_len == 0) {
		n = recv(c->fd, c->req + c->have, sizeof(c->req) - c->have, 0);
		if (n == 0) {
			client_refuse(c, "closed before a full 40-byte request");
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				client_close(c);
			return;
		}
		c->have += (size_t)n;
		if (c->have < sizeof(c->req))
			return;
		client_answer(c);
		if (c->fd < 0)
			return;
	}
	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				client_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	client_close(c);
}

/* Accept what lf has waiting into free client slots. */
static void
accept_clients(int lf, uint32_t slot, struct addr_client *clients, uint64_t *paused_until)
{
	for (uint32_t i = 0; i < ADDR_MAX_CLIENTS; i++) {
		struct addr_client *c = &clients[i];

		if (c->fd >= 0)
			continue;
		memset(c, 0, offsetof(struct addr_client, out));
		c->peer.len = sizeof(c->peer.ss);
		c->fd = accept4(lf, (struct sockaddr *)&c->peer.ss, &c->peer.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c->fd < 0) {
			/* EAGAIN: nothing more; out of fds or memory: the listeners rest (no busy loop) */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				DOCA_LOG_WARN("Verbs address thread: accept: %s; the listeners rest %d ms",
					      strerror(errno), ACCEPT_PAUSE_MS);
				*paused_until = sd_now_ns() + ACCEPT_PAUSE_MS * 1000000ull;
			}
			return;
		}
		c->slot = slot;
		c->deadline_ns = sd_now_ns() + ADDR_SERVE_MS * 1000000ull;
	}
}

static void *
resolver_thread(void *arg)
{
	struct pollfd pfd[1 + ADDR_MAX_LISTENERS + ADDR_MAX_CLIENTS];
	uint32_t slots[ADDR_MAX_LISTENERS];
	struct addr_client *clients = arg;
	uint64_t paused_until = 0;

	for (;;) {
		uint32_t nl = 0, nc = 0, ci[ADDR_MAX_CLIENTS];
		uint64_t now = sd_now_ns(), next = now + 1000000000ull;
		bool room = false;
		int n = 1;

		for (uint32_t i = 0; i < ADDR_MAX_CLIENTS; i++) {
			struct addr_client *c = &clients[i];

			if (c->fd >= 0 && now >= c->deadline_ns)
				client_refuse(c, c->out_len == 0 ? "no full request within the deadline"
								 : "answer not read within the deadline");
			if (c->fd < 0) {
				room = true;
				continue;
			}
			next = SD_MIN(next, c->deadline_ns);
			ci[nc++] = i;
		}
		pfd[0] = (struct pollfd){.fd = svc.wake_fd, .events = POLLIN};
		pthread_mutex_lock(&svc.lock);
		if (svc.stop) {
			pthread_mutex_unlock(&svc.lock);
			break;
		}
		/* With every client slot busy the listeners are not polled: new queries wait in the backlog. */
		if (now < paused_until) {
			room = false;
			next = SD_MIN(next, paused_until);
		}
		for (uint32_t i = 0; room && i < svc.num_listeners; i++) {
			if (svc.listeners[i]->fd < 0)
				continue;
			slots[nl++] = svc.listeners[i]->slot;
			pfd[n++] = (struct pollfd){.fd = svc.listeners[i]->fd, .events = POLLIN};
		}
		pthread_mutex_unlock(&svc.lock);
		for (uint32_t i = 0; i < nc; i++)
			pfd[n++] = (struct pollfd){.fd = clients[ci[i]].fd,
						   .events = clients[ci[i]].out_len == 0 ? POLLIN : POLLOUT};
		if (poll(pfd, (nfds_t)n, (int)((next - now) / 1000000ull) + 1) < 0) {
			if (errno != EINTR)
				DOCA_LOG_WARN("Verbs address thread: poll: %s", strerror(errno));
			continue;
		}
		if (pfd[0].revents != 0) {
			uint64_t v;

			if (read(svc.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				DOCA_LOG_WARN("Verbs address thread: read of its wake-up fd: %s", strerror(errno));
		}
		for (uint32_t i = 0; i < nc; i++)
			if (pfd[1 + nl + i].revents != 0)
				client_io(&clients[ci[i]]);
		for (uint32_t i = 0; i < nl; i++)
			if (pfd[1 + i].revents != 0)
				accept_clients(pfd[1 + i].fd, slots[i], clients, &paused_until);
	}
	for (uint32_t i = 0; i < ADDR_MAX_CLIENTS; i++)
		if (clients[i].fd >= 0)
			client_close(&clients[i]);
	free(clients);
	return NULL;
}

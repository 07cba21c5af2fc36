/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI export (host side) and import (DPU side), in one process and across two:
 * a forked child exports a buffer and hands the descriptor over a pipe; the
 * parent imports it, reads the child's bytes, then sees the export revoked,
 * forged, malformed, or its exporter gone.  Reads mmap_pci_proto.h to forge
 * descriptors and calls sd_mmap_pci_validate like the DMA engine does.
 */
#include <errno.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmap_internal.h"
#include "mmap_pci_proto.h"
#include "xproc.h"
#include "mmap_dpu.h"
#include "sd_test_peer.h"

#define BUF_LEN 4096

static uint8_t mem[BUF_LEN];

static uint8_t
pattern(size_t i)
{
	return (uint8_t)(i * 7 + 0x5a);
}

/* ---- a child process that exports memory on request ---- */

struct exporter {
	pid_t pid;
	int cmd; /* parent -> child */
	int ack; /* child -> parent */
	uint8_t desc[SD_MMAP_PCI_DESC_MAX_LEN];
	size_t desc_len;
};

static void
full_write(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(3);
}

static void
full_read(int fd, void *p, size_t n)
{
	ssize_t got = 0, r;

	while ((size_t)got < n) {
		r = read(fd, (uint8_t *)p + got, n - (size_t)got);
		if (r <= 0)
			sd_test_fail(__FILE__, __LINE__, "short read from the exporter (%zd, %s)", r, strerror(errno));
		got += r;
	}
}

/*
 * Child: export BUF_LEN pattern bytes with perm, then serve 's'top, 'd'estroy,
 * 't'racer (the Yama exception it holds, as a doca_error_t-sized int) and 'q'uit.
 */
static void
exporter_main(int cmd, int ack, uint32_t perm)
{
	struct doca_dev *dev = open_ibdev(HOST_IBDEV);
	uint8_t *buf = malloc(BUF_LEN);
	struct doca_mmap *m;
	const void *desc;
	size_t len;
	char c;

	if (buf == NULL)
		_exit(4);
	for (size_t i = 0; i < BUF_LEN; i++)
		buf[i] = pattern(i);
	m = started_mmap(buf, BUF_LEN, perm, dev);
	if (doca_mmap_export_pci(m, dev, &desc, &len) != DOCA_SUCCESS)
		_exit(5);
	full_write(ack, &len, sizeof(len));
	full_write(ack, desc, len);
	while (read(cmd, &c, 1) == 1) {
		doca_error_t err = DOCA_SUCCESS;

		if (c == 's')
			err = doca_mmap_stop(m);
		else if (c == 'd')
			err = doca_mmap_destroy(m);
		else if (c == 't')
			err = (doca_error_t)sd_xproc_ptracer_current();
		else if (c == 'q')
			break;
		full_write(ack, &err, sizeof(err));
	}
	_exit(0);
}

static struct exporter
exporter_start(uint32_t perm)
{
	struct exporter e;
	int to_child[2], to_parent[2];

	use_builtin_topology();
	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	e.pid = fork();
	ASSERT(e.pid >= 0);
	if (e.pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		exporter_main(to_child[0], to_parent[1], perm);
	}
	close(to_child[0]);
	close(to_parent[1]);
	e.cmd = to_child[1];
	e.ack = to_parent[0];
	full_read(e.ack, &e.desc_len, sizeof(e.desc_len));
	ASSERT(e.desc_len > 0 && e.desc_len <= SD_MMAP_PCI_DESC_MAX_LEN);
	full_read(e.ack, e.desc, e.desc_len);
	return e;
}

static doca_error_t
exporter_do(struct exporter *e, char c)
{
	doca_error_t err;

	full_write(e->cmd, &c, 1);
	full_read(e->ack, &err, sizeof(err));
	return err;
}

static void
exporter_quit(struct exporter *e)
{

	full_write(e->cmd, "q", 1);
	sd_test_reap(e->pid);
}

/* ---- descriptor surgery ---- */

static void
put32(uint8_t *desc, size_t off, uint32_t v)
{
	v = htole32(v);
	memcpy(desc + off, &v, sizeof(v));
}

static void
put64(uint8_t *desc, size_t off, uint64_t v)
{
	v = htole64(v);
	memcpy(desc + off, &v, sizeof(v));
}

static uint64_t
get64(const uint8_t *desc, size_t off)
{
	uint64_t v;

	memcpy(&v, desc + off, sizeof(v));
	return le64toh(v);
}

#define OFF(f) offsetof(struct sd_mmap_pci_desc, f)

static doca_error_t
try_import(const void *desc, size_t len, struct doca_dev *dpu)
{
	struct doca_mmap *r = SENTINEL_PTR;
	doca_error_t err = doca_mmap_create_from_export(NULL, desc, len, dpu, &r);

	if (err == DOCA_SUCCESS)
		ASSERT_OK(doca_mmap_destroy(r));
	else
		ASSERT_PTR_EQ(r, SENTINEL_PTR);
	return err;
}

/* ---- tests ---- */

TEST(export_refusals)
{
	struct doca_dev *host = open_host_dev(), *dpu = open_dpu_dev();
	struct doca_mmap *m = NULL;
	const void *desc = SENTINEL_PTR;
	size_t len = 77;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_add_dev(m, host));
	ASSERT_OK(doca_mmap_add_dev(m, dpu));
	ASSERT_ERR(doca_mmap_export_pci(m, host, &desc, &len), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_start(m));
	/* default LOCAL_READ_WRITE has no PCI flag */
	ASSERT_ERR(doca_mmap_export_pci(m, host, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "no PCI access flag");
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(m));
	/* a DPU-side function exports too (the host-driven copy) */
	ASSERT_OK(doca_mmap_export_pci(m, dpu, &desc, &len));
	desc = SENTINEL_PTR;
	len = 77;
	ASSERT_ERR(doca_mmap_export_pci(NULL, host, &desc, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_export_pci(m, NULL, &desc, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_export_pci(m, host, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_export_pci(m, host, &desc, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(desc, SENTINEL_PTR);
	ASSERT_EQ(len, 77);
	ASSERT_OK(doca_mmap_destroy(m));

	/* a device that was not added */
	m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_ONLY, NULL);
	ASSERT_ERR(doca_mmap_export_pci(m, host, &desc, &len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(fd, "doca_mmap_export_pci: device was not added to this mmap");
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(host));
	ASSERT_OK(doca_dev_close(dpu));
}

TEST(export_descriptor_shape_and_lifetime)
{
	struct doca_dev *host = open_host_dev();
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_ONLY, host);
	const void *d1 = NULL, *d2 = NULL;
	size_t l1 = 0, l2 = 0;
	uint8_t exported = 0, first[96];
	struct sd_mmap_pci_desc_info info;

	ASSERT_OK(doca_mmap_export_pci(m, host, &d1, &l1));
	ASSERT(l1 <= 512);
	ASSERT_EQ(l1, 96);
	ASSERT_OK(sd_mmap_pci_desc_parse(d1, l1, &info, NULL));
	ASSERT_EQ(info.pid, getpid());
	ASSERT_EQ(info.addr, (uint64_t)(uintptr_t)mem);
	ASSERT_EQ(info.len, sizeof(mem));
	ASSERT_EQ(info.perm, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	ASSERT_OK(doca_mmap_get_exported(m, &exported));
	ASSERT_EQ(exported, 1);
	/* exporting again returns the same descriptor owned by the mmap */
	ASSERT_OK(doca_mmap_export_pci(m, host, &d2, &l2));
	ASSERT_PTR_EQ(d2, d1);
	ASSERT_EQ(l2, l1);
	memcpy(first, d1, sizeof(first));
	/* [I] stop on an exported mmap succeeds and revokes the export */
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_get_exported(m, &exported));
	ASSERT_EQ(exported, 0);
	/* a new export carries a new key */
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_export_pci(m, host, &d2, &l2));
	ASSERT(memcmp((const uint8_t *)d2 + OFF(key), first + OFF(key), 16) != 0);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(host));
}

TEST(same_process_import)
{
	struct doca_dev *host = open_host_dev(), *dpu = open_dpu_dev();
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_WRITE, host), *r = NULL;
	struct doca_buf_inventory *inv = started_inventory(2);
	struct doca_buf *b = NULL;
	union doca_data ud = {.u64 = 0xabc}, out = {.u64 = 0};
	const void *desc;
	size_t len;
	void *addr;
	uint32_t perm = 0;
	uint8_t v = 0;

	ASSERT_OK(doca_mmap_export_pci(m, host, &desc, &len));
	ASSERT_OK(doca_mmap_create_from_export(&ud, desc, len, dpu, &r));
	ASSERT_OK(doca_mmap_get_memrange(r, &addr, &len));
	ASSERT_PTR_EQ(addr, mem);
	ASSERT_EQ(len, sizeof(mem));
	ASSERT_OK(doca_mmap_get_permissions(r, &perm));
	ASSERT_EQ(perm, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	ASSERT_OK(doca_mmap_get_user_data(r, &out));
	ASSERT_EQ(out.u64, 0xabc);
	ASSERT_OK(doca_mmap_get_from_export(r, &v));
	ASSERT_EQ(v, 1);
	ASSERT_EQ(r->kind, SD_MMAP_PCI_REMOTE);
	ASSERT_EQ(r->peer.pid, getpid());
	/* usable without start; not configurable; not re-exportable */
	ASSERT_ERR(doca_mmap_start(r), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_mmap_set_permissions(r, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_add_dev(r, host), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_set_memrange(r, mem, 1), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_mmap_export_pci(r, dpu, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
	/* bufs over the exporter's range; outside it is refused */
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(inv, r, mem, sizeof(mem), &b));
	ASSERT_ERR(doca_buf_inventory_buf_get_by_data(inv, r, mem + sizeof(mem) - 1, 2, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(sd_mmap_pci_validate(r));
	ASSERT_ERR(doca_mmap_stop(r), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	/* [I] stop on a from-export mmap succeeds; the memrange stays readable */
	ASSERT_OK(doca_mmap_stop(r));
	ASSERT_OK(doca_mmap_get_memrange(r, &addr, &len));
	ASSERT_PTR_EQ(addr, mem);
	ASSERT_OK(doca_mmap_destroy(r));
	/* the import held the DPU device until destroy */
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_buf_inventory_destroy(inv));
	ASSERT_OK(doca_dev_close(host));
	ASSERT_OK(doca_dev_close(dpu));
}

TEST(import_follows_the_pci_import_capability)
{
	struct doca_dev *host = open_host_dev();
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_ONLY, host);
	const void *desc;
	size_t len;

	/* a host function imports, as on BlueField (the host-driven copy) */
	ASSERT_OK(doca_mmap_export_pci(m, host, &desc, &len));
	ASSERT_OK(try_import(desc, len, host));
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(host));
}

TEST(import_refused_where_the_caps_say_no)
{
	struct doca_dev *lab;
	struct doca_mmap *m;
	const void *desc;
	size_t len;
	int fd = capture_sdk_log();

	/* a function whose caps say no refuses, naming the capability query (the topology loads once a process) */
	use_topology_text("{\"devices\": [{\"functions\": [{\"side\": \"host\", \"pci_addr\": \"b1:00.0\", "
			  "\"ibdev\": \"mlx5_0\", \"iface\": \"h0\", \"caps\": {\"pci_import\": false}}]}]}");
	lab = open_ibdev("mlx5_0");
	m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_ONLY, lab);
	ASSERT_OK(doca_mmap_export_pci(m, lab, &desc, &len));
	ASSERT_ERR(try_import(desc, len, lab), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(fd, "doca_mmap_cap_is_create_from_export_pci_supported");
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(lab));
}

TEST(revoked_in_process_export_is_refused)
{
	struct doca_dev *host = open_host_dev(), *dpu = open_dpu_dev();
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_ONLY, host), *r = NULL;
	uint8_t copy[SD_MMAP_PCI_DESC_MAX_LEN];
	const void *desc;
	size_t len;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_export_pci(m, host, &desc, &len));
	memcpy(copy, desc, len);
	ASSERT_OK(doca_mmap_create_from_export(NULL, copy, len, dpu, &r));
	ASSERT_OK(doca_mmap_destroy(m)); /* destroy revokes too */
	ASSERT_ERR(sd_mmap_pci_validate(r), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "is revoked or its key does not match");
	ASSERT_ERR(try_import(copy, len, dpu), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_mmap_destroy(r));
	ASSERT_ERR(sd_mmap_pci_validate(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(cross_process_read_then_revoke_then_exit)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dev *dpu = open_dpu_dev();
	struct doca_buf_inventory *inv = started_inventory(1);
	struct doca_mmap *r = NULL;
	struct doca_buf *b = NULL;
	uint8_t got[BUF_LEN];
	struct iovec local = {got, sizeof(got)}, remote;
	void *addr;
	size_t len;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create_from_export(NULL, e.desc, e.desc_len, dpu, &r));
	ASSERT_OK(doca_mmap_get_memrange(r, &addr, &len));
	ASSERT_EQ(len, BUF_LEN);
	ASSERT_EQ(r->peer.pid, e.pid);
	/* the exporter's bytes, read the way the cross-process engine reads them */
	remote.iov_base = addr;
	remote.iov_len = len;
	ASSERT_EQ(process_vm_readv(e.pid, &local, 1, &remote, 1, 0), (ssize_t)BUF_LEN);
	for (size_t i = 0; i < BUF_LEN; i++)
		ASSERT_EQ(got[i], pattern(i));
	ASSERT_OK(sd_mmap_pci_validate(r));
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(inv, r, addr, len, &b));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));

	/* the host stops its mmap: the next check (before a copy) fails cleanly */
	ASSERT_OK(exporter_do(&e, 's'));
	ASSERT_ERR(sd_mmap_pci_validate(r), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(try_import(e.desc, e.desc_len, dpu), DOCA_ERROR_NOT_PERMITTED);

	/* the host exits: the exporter is gone */
	exporter_quit(&e);
	ASSERT_ERR(try_import(e.desc, e.desc_len, dpu), DOCA_ERROR_NOT_FOUND);
	ASSERT_LOG_HAS(fd, "is not a running process");
	ASSERT_ERR(sd_mmap_pci_validate(r), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(doca_mmap_stop(r));
	ASSERT_OK(doca_mmap_destroy(r));
	ASSERT_OK(doca_buf_inventory_destroy(inv));
}

/* Until the exporter's tracer exception is want, for up to 2 s (its door thread hears a hang-up). */
static bool
exporter_tracer_becomes(struct exporter *e, long want)
{
	for (int i = 0; i < 200; i++) {
		if ((long)exporter_do(e, 't') == want)
			return true;
		usleep(10000);
	}
	return false;
}

TEST(the_importer_alone_is_the_exporters_tracer_while_it_imports)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct doca_dev *dpu = open_dpu_dev();
	struct doca_mmap *r1 = NULL, *r2 = NULL;

	/* the export alone lets no process trace the exporter */
	ASSERT_EQ((long)exporter_do(&e, 't'), 0);
	ASSERT_OK(doca_mmap_create_from_export(NULL, e.desc, e.desc_len, dpu, &r1));
	ASSERT_EQ((long)exporter_do(&e, 't'), (long)getpid());
	ASSERT_OK(doca_mmap_create_from_export(NULL, e.desc, e.desc_len, dpu, &r2));
	ASSERT_OK(doca_mmap_destroy(r1));
	ASSERT_EQ((long)exporter_do(&e, 't'), (long)getpid()); /* r2 still imports */
	ASSERT_OK(doca_mmap_destroy(r2));
	ASSERT(exporter_tracer_becomes(&e, 0));
	/* a descriptor whose key is wrong knocks in vain: nothing held, the import refused */
	{
		uint8_t forged[SD_MMAP_PCI_DESC_MAX_LEN];

		memcpy(forged, e.desc, e.desc_len);
		forged[OFF(key)] ^= 1;
		ASSERT_ERR(try_import(forged, e.desc_len, dpu), DOCA_ERROR_NOT_PERMITTED);
		ASSERT_EQ((long)exporter_do(&e, 't'), 0);
	}
	exporter_quit(&e);
}

TEST(cross_process_destroy_revokes)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct doca_dev *dpu = open_dpu_dev();
	struct doca_mmap *r = NULL;

	ASSERT_OK(doca_mmap_create_from_export(NULL, e.desc, e.desc_len, dpu, &r));
	ASSERT_OK(exporter_do(&e, 'd'));
	ASSERT_ERR(sd_mmap_pci_validate(r), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_mmap_destroy(r));
	exporter_quit(&e);
}

TEST(forged_descriptors_are_not_permitted)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dev *dpu = open_dpu_dev();
	uint8_t d[SD_MMAP_PCI_DESC_MAX_LEN];
	size_t n = e.desc_len;
	uint64_t addr = get64(e.desc, OFF(addr)), rec = get64(e.desc, OFF(record_addr));
	int fd = capture_sdk_log();

	ASSERT_OK(try_import(e.desc, n, dpu));

	/* one flipped key byte */
	memcpy(d, e.desc, n);
	d[OFF(key) + 5] ^= 0x01;
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	/* a wider or shifted range than exported */
	memcpy(d, e.desc, n);
	put64(d, OFF(len), BUF_LEN + 1);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "use the descriptor unmodified");
	memcpy(d, e.desc, n);
	put64(d, OFF(addr), addr - 4096);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	/* more permission than exported */
	memcpy(d, e.desc, n);
	put32(d, OFF(perm), DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	/* the record address pointing at another (unused) slot, or at nothing */
	memcpy(d, e.desc, n);
	put64(d, OFF(record_addr), rec + sizeof(struct sd_xproc_rec));
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	memcpy(d, e.desc, n);
	put64(d, OFF(record_addr), 0x1000);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "no export record at 0x1000");
	/* the record address pointing at memory that is not a record (the buffer itself) */
	memcpy(d, e.desc, n);
	put64(d, OFF(record_addr), addr);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_PERMITTED);
	exporter_quit(&e);
}

TEST(exporter_identity_is_checked)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dev *dpu = open_dpu_dev();
	uint8_t d[SD_MMAP_PCI_DESC_MAX_LEN];
	size_t n = e.desc_len;
	pid_t dead;
	int fd = capture_sdk_log();

	/* a start time that is not the exporter's: the pid was reused */
	memcpy(d, e.desc, n);
	put64(d, OFF(start_time), get64(e.desc, OFF(start_time)) + 1);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_FOUND);
	ASSERT_LOG_HAS(fd, "now belongs to another process");
	/* the pid of a process that has exited */
	dead = fork();
	ASSERT(dead >= 0);
	if (dead == 0)
		_exit(0);
	sd_test_reap(dead);
	memcpy(d, e.desc, n);
	put32(d, OFF(pid), (uint32_t)dead);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_NOT_FOUND);
	/* a device index the topology does not have */
	memcpy(d, e.desc, n);
	put32(d, OFF(dev_index), 1000);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	exporter_quit(&e);
}

TEST(malformed_descriptors)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dev *dpu = open_dpu_dev();
	uint8_t d[1024];
	size_t n = e.desc_len;
	int fd = capture_sdk_log();

	/* truncated, at every length */
	for (size_t cut = 0; cut < n; cut++)
		ASSERT_ERR(try_import(e.desc, cut, dpu), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(fd, "malformed PCI export descriptor");
	/* oversized: trailing bytes, or beyond 512 */
	memset(d, 0, sizeof(d));
	memcpy(d, e.desc, n);
	ASSERT_ERR(try_import(d, n + 1, dpu), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(try_import(d, 513, dpu), DOCA_ERROR_INVALID_VALUE);
	put32(d, OFF(hdr.total_len), 513);
	ASSERT_ERR(try_import(d, 513, dpu), DOCA_ERROR_INVALID_VALUE);
	put32(d, OFF(hdr.total_len), 200);
	ASSERT_ERR(try_import(d, 200, dpu), DOCA_ERROR_INVALID_VALUE);
	/* garbage */
	for (size_t i = 0; i < sizeof(d); i++)
		d[i] = (uint8_t)(i * 31 + 7);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	/* another version with a sound header */
	memcpy(d, e.desc, n);
	d[OFF(hdr.version)] = 2;
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_UNSUPPORTED_VERSION);
	/* unknown kind, non-zero reserved fields */
	memcpy(d, e.desc, n);
	d[OFF(hdr.kind)] = 7;
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	memcpy(d, e.desc, n);
	d[OFF(hdr.reserved)] = 1;
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	memcpy(d, e.desc, n);
	d[OFF(reserved) + 15] = 1;
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	/* permission bits: none, both, unknown */
	memcpy(d, e.desc, n);
	put32(d, OFF(perm), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	put32(d, OFF(perm), DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	put32(d, OFF(perm), DOCA_ACCESS_FLAG_PCI_READ_ONLY | (1u << 12));
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	/* empty or wrapping range, bad record address, pid 0 */
	memcpy(d, e.desc, n);
	put64(d, OFF(len), 0);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	put64(d, OFF(len), UINT64_MAX);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	memcpy(d, e.desc, n);
	put64(d, OFF(record_addr), get64(e.desc, OFF(record_addr)) + 4);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	memcpy(d, e.desc, n);
	put32(d, OFF(pid), 0);
	ASSERT_ERR(try_import(d, n, dpu), DOCA_ERROR_INVALID_VALUE);
	/* the original still imports: every refusal above was about the mutation */
	ASSERT_OK(try_import(e.desc, n, dpu));
	exporter_quit(&e);
}

TEST(descriptor_survives_a_file_read_capped_at_512_bytes)
{
	struct exporter e = exporter_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dev *dpu = open_dpu_dev();
	char path[512];
	uint8_t d[512];
	size_t n;
	FILE *f;

	/* as doca_dma_copy_host writes it and doca_dma_copy_dpu reads it */
	snprintf(path, sizeof(path), "%s/export_desc.txt", sd_test_tmpdir());
	f = fopen(path, "wb");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fwrite(e.desc, 1, e.desc_len, f), e.desc_len);
	ASSERT_EQ(fclose(f), 0);
	f = fopen(path, "rb");
	ASSERT_NOT_NULL(f);
	n = fread(d, 1, sizeof(d), f);
	fclose(f);
	ASSERT_EQ(n, e.desc_len);
	ASSERT_OK(try_import(d, n, dpu));
	exporter_quit(&e);
}

TEST(other_user_is_refused_by_the_kernel)
{
	struct doca_dev *host, *dpu;
	struct doca_mmap *m;
	const void *desc;
	size_t len;
	pid_t pid;
	int fd;

	if (geteuid() != 0)
		SKIP("needs root to run the importer as another user");
	host = open_host_dev();
	dpu = open_dpu_dev();
	m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_ONLY, host);
	ASSERT_OK(doca_mmap_export_pci(m, host, &desc, &len));
	fd = capture_sdk_log();
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct doca_mmap *r = NULL;

		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		_exit(doca_mmap_create_from_export(NULL, desc, len, dpu, &r) == DOCA_ERROR_NOT_PERMITTED ? 0 : 11);
	}
	sd_test_reap(pid);
	ASSERT_LOG_HAS(fd, "EPERM");
	ASSERT_OK(doca_mmap_destroy(m));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

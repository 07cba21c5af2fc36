/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one trust rule for copies into and out of another process
 * (docs/security.md "One rule for every cross-process copy").
 *
 *  1. The peer is a process this side identified itself: the other end of a
 *     connected Unix socket (SO_PEERCRED, same user), or the process a
 *     descriptor names and whose start time it states.  Never a pid taken
 *     from a message.
 *  2. Every range of the peer's memory that is read or written lies inside a
 *     grant its owner published: a record in the owner's own memory (the
 *     grant table of libdoca_common) holding the range, the permission and a
 *     random 128-bit key.  A message or descriptor only says where the record
 *     is and which key to expect; the record is read through the kernel from
 *     the peer's address space, so a record the peer never wrote - another
 *     process's memory, a dead or exec'd peer, a revoked grant - never
 *     matches.
 *  3. The record is read again right before each copy (in the same system
 *     call as the other bytes that copy needs, where it can be).
 *  4. Yama: a process whose memory a peer copies allows exactly that peer as
 *     its tracer, while it needs to (sd_xproc_ptracer_hold / _release).
 *
 * The fabric's same-host path (src/fabric/fabric_direct.c) follows the same
 * rule with records in a sealed memfd it maps, checked without a system call.
 */
#ifndef SD_XPROC_H_
#define SD_XPROC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <doca_error.h>

#include "../util/sd_util.h"

/* --- the peer ------------------------------------------------------------------- */

struct sd_xproc_peer {
	pid_t pid; /* 0: no peer */
	uid_t uid;
	int pidfd; /* -1 when the kernel gave none */
};

#define SD_XPROC_PEER_NONE ((struct sd_xproc_peer){.pid = 0, .uid = (uid_t)-1, .pidfd = -1})

/*
 * The process at the other end of connected Unix socket fd.  NOT_PERMITTED
 * when it runs as another user (*reason says so); OPERATING_SYSTEM when the
 * kernel does not say who it is.  Nothing is logged: the caller knows the API.
 */
SD_EXPORT doca_error_t sd_xproc_peer_from_socket(int fd, struct sd_xproc_peer *peer, const char **reason);
/* Close what the peer holds (its pidfd); the struct becomes SD_XPROC_PEER_NONE. */
SD_EXPORT void sd_xproc_peer_fini(struct sd_xproc_peer *peer);

/*
 * Start time of a process in clock ticks after boot (/proc/<pid>/stat field
 * 22): with the pid, the identity of a process across pid reuse.  NOT_FOUND
 * when no such process exists.
 */
SD_EXPORT doca_error_t sd_xproc_start_time(pid_t pid, uint64_t *start_time);

/* --- grants: what this process lets its peers touch ----------------------------- */

#define SD_XPROC_READ 1u  /* a peer may read the range */
#define SD_XPROC_WRITE 2u /* a peer may write the range */

#define SD_XPROC_KEY_LEN 16
#define SD_XPROC_GRANTS 4096 /* live grants per process */

/*
 * A grant record, in the owner's memory, read by peers with process_vm_readv
 * (64 bytes, native byte order: both ends run on one kernel).
 *
 *    0   8  magic   SD_XPROC_REC_MAGIC
 *    8   4  live    1 while the grant stands, 0 once revoked
 *   12   4  perm    SD_XPROC_READ | SD_XPROC_WRITE
 *   16   8  addr
 *   24   8  len
 *   32  16  key     random, zeroed on revocation
 *   48   4  tag     the owner's own meaning (a PCI export: its DOCA access flags)
 *   52  12  reserved
 *
 * Publication writes every field, then live = 1 (release).  Revocation writes
 * live = 0, then zeroes the key, so a reader that sees the old key read a
 * record that was live when the key was there; a read torn across a slot reuse
 * can only mix a zeroed or a new random key, which never matches.
 */
#define SD_XPROC_REC_MAGIC 0x44524345524d4453ull /* "SDMRECRD" little-endian */

struct sd_xproc_rec {
	uint64_t magic;
	uint32_t live;
	uint32_t perm;
	uint64_t addr;
	uint64_t len;
	uint8_t key[SD_XPROC_KEY_LEN];
	uint32_t tag;
	uint8_t reserved[12];
};
_Static_assert(sizeof(struct sd_xproc_rec) == 64, "a grant record is 64 bytes");

/* What a peer is told of a grant (the record's address and its key). */
struct sd_xproc_ref {
	uint64_t rec_addr;
	uint8_t key[SD_XPROC_KEY_LEN];
};

/*
 * Publish [addr, addr + len) with perm (and tag) for peers; *ref names it.
 * NO_MEMORY when SD_XPROC_GRANTS grants are live (nothing logged).
 */
SD_EXPORT doca_error_t sd_xproc_grant(const void *addr, size_t len, uint32_t perm, uint32_t tag,
				      struct sd_xproc_ref *ref);
/* Revoke a grant of this process: from its return on, no peer's check passes. Idempotent on a zeroed ref. */
SD_EXPORT void sd_xproc_revoke(struct sd_xproc_ref *ref);
/* Whether ref names a grant of this process that stands (its record and key; constant-time key compare). */
SD_EXPORT bool sd_xproc_grant_live(const struct sd_xproc_ref *ref);

/* --- the copier's side -------------------------------------------------------------- */

/*
 * Check a record read from the peer against what this side expects: live,
 * the key, perm bits present, and [addr, addr + len) inside it.
 * NOT_PERMITTED with *reason otherwise.  Pure.
 */
SD_EXPORT doca_error_t sd_xproc_rec_check(const struct sd_xproc_rec *rec, const struct sd_xproc_ref *ref, uint64_t addr,
					  uint64_t len, uint32_t perm, const char **reason);

/*
 * Read the peer's record named by ref into *rec (one system call).
 * NOT_FOUND: the peer is gone; NOT_PERMITTED: the kernel refused (ptrace
 * rule) or there is no record at that address; *reason says which.
 */
SD_EXPORT doca_error_t sd_xproc_rec_fetch(const struct sd_xproc_peer *peer, const struct sd_xproc_ref *ref,
					  struct sd_xproc_rec *rec, const char **reason);

/*
 * Move len bytes between local iovecs and the peer's iovecs (write: local ->
 * peer), continuing partial transfers; both arrays are consumed (modified).
 * The caller has checked every remote range against the peer's grant.
 * SUCCESS, or NOT_FOUND (peer gone), NOT_PERMITTED (kernel refused, *reason),
 * DRIVER (a range the peer no longer maps, *reason).
 */
SD_EXPORT doca_error_t sd_xproc_copy(const struct sd_xproc_peer *peer, bool write, struct iovec *liov, size_t ln,
				     struct iovec *riov, size_t rn, size_t len, const char **reason);

/* --- shareable memory: the mapped path ------------------------------------------------ */

/*
 * A registered range that already lies in memory another process can map (a
 * memfd, POSIX or SysV shared memory, a hugetlbfs or regular file mapped
 * MAP_SHARED) can be copied with memcpy instead of the kernel's copy.  The
 * owner finds the object behind the range in /proc/self/maps and keeps a
 * descriptor of it open while the range is registered; it names that
 * descriptor (number, inode, device, offset) in the record it publishes - the
 * record is the owner's own word, never a message's.  The peer takes the
 * descriptor with pidfd_getfd (the same ptrace rule as process_vm_writev),
 * checks that it is that object and large enough, and maps exactly the
 * registered range.  Every copy is still checked against the owner's record
 * right before it is done; a revoked range is not touched.  Nothing of the
 * application's memory is remapped.  docs/security.md "The mapped path".
 */
struct sd_xproc_share {
	int32_t fd; /* the owner's own descriptor of the object (close-on-exec); -1: not shareable */
	uint32_t pad;
	uint64_t off; /* offset in the object of the range's first byte */
	uint64_t ino;
	uint64_t dev;
};

#define SD_XPROC_SHARE_NONE ((struct sd_xproc_share){.fd = -1})

/*
 * Owner side: whether [addr, addr + len) of this process lies in one shared
 * object it can hand to a peer; *share names it (fd -1 when not, with *what
 * saying why: private memory, no descriptor reachable, ...).  Never fails
 * otherwise; nothing logged.
 */
SD_EXPORT void sd_xproc_share_find(const void *addr, size_t len, struct sd_xproc_share *share, const char **what);
/* Close the owner's descriptor; *share becomes SD_XPROC_SHARE_NONE. */
SD_EXPORT void sd_xproc_share_drop(struct sd_xproc_share *share);

/* Peer side: a mapping of a peer's registered range. */
struct sd_xproc_window {
	uint8_t *base; /* the range's first byte; NULL: no window */
	uint64_t len;  /* the range's length */
	void *map;     /* what to munmap */
	size_t map_len;
	bool writable; /* the owner's descriptor allows writes */
	bool guarded;  /* the object can shrink under the mapping: copies catch SIGBUS */
};

/*
 * Map len bytes at share->off of the object behind the peer's descriptor
 * share->fd, after checking it is the object share names and holds the
 * range.  NOT_PERMITTED (the kernel refused the descriptor), NOT_FOUND (no
 * such descriptor, or another object), INVALID_VALUE (too small), NO_MEMORY
 * (mmap); *reason says which.  Nothing logged.
 */
SD_EXPORT doca_error_t sd_xproc_window_map(const struct sd_xproc_peer *peer, const struct sd_xproc_share *share,
					   uint64_t len, struct sd_xproc_window *win, const char **reason);
SD_EXPORT void sd_xproc_window_unmap(struct sd_xproc_window *win);

/*
 * Copy len bytes between local and the window at offset off (write: local ->
 * window); the caller checked the range against the owner's record.  DRIVER
 * when the object shrank under the mapping (the copy stopped where it did;
 * caught, never a crash); NOT_SUPPORTED when the window needs that guard and
 * the program has replaced softdoca's SIGBUS handler (copy through the kernel
 * instead).
 */
SD_EXPORT doca_error_t sd_xproc_window_copy(const struct sd_xproc_window *win, bool write, uint64_t off, void *local,
					    size_t len);

/* --- Yama: who may ptrace this process ---------------------------------------------- */

/*
 * While held, peer pid may read and write this process's memory under Yama
 * ptrace_scope 1.  One distinct peer: it alone is the tracer exception.  Yama
 * keeps a single exception per process, so while two or more distinct peers
 * hold, the exception is widened to any process of this user (logged once);
 * it narrows again as they release.  Without Yama nothing changes (the
 * registry still answers sd_xproc_ptracer_current).
 */
SD_EXPORT void sd_xproc_ptracer_hold(pid_t pid);
SD_EXPORT void sd_xproc_ptracer_release(pid_t pid);
/* What the exception is now: 0 none, a pid, or -1 for any (tests). */
SD_EXPORT long sd_xproc_ptracer_current(void);
/* Yama's ptrace_scope (0-3), or -1 when the kernel has no Yama. */
SD_EXPORT int sd_xproc_yama_scope(void);

/* --- the door: how a peer no one named becomes the tracer ------------------------------ */

/*
 * An owner whose peer is unknown when it grants (a PCI export: the descriptor
 * travels out of band, by file or socket) opens a door: a Unix socket in the
 * runtime directory (sd_rundir.h) named by its pid and start time, served by
 * a thread of libdoca_common.  A process of the same user that connects and
 * knocks with a grant that stands here (the record address and key the
 * descriptor carries) is held as a Yama tracer (sd_xproc_ptracer_hold) until
 * it disconnects or the door closes.  Knowing the key is the proof: another
 * process of the user that connects without it is refused and gains nothing.
 * The wire format is xproc_door_proto.h.
 *
 * sd_xproc_door_open/close count: the door exists while opens exceed closes.
 * Open fails only when the socket or its thread cannot be made (*reason).
 */
SD_EXPORT doca_error_t sd_xproc_door_open(const char **reason);
SD_EXPORT void sd_xproc_door_close(void);

/*
 * Knock on the door of process pid (started at start_time) with the grant ref
 * names; on success *fd is the open connection that keeps this process the
 * owner's tracer until closed.  NOT_FOUND: no door (the owner is gone, runs
 * an older softdoca or another runtime directory); NOT_PERMITTED: the door is
 * not pid's, or the owner refused the grant; TIME_OUT: its backlog is full or no answer within
 * 2 s; *reason says which.
 */
SD_EXPORT doca_error_t sd_xproc_door_knock(pid_t pid, uint64_t start_time, const struct sd_xproc_ref *ref, int *fd,
					   const char **reason);

#endif /* SD_XPROC_H_ */

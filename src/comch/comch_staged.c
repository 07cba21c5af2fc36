/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The staged path of the Comch fast path (docs/comch.md "The staged path";
 * layout: comch_proto.h "The staging area").  A consumer whose buffers are
 * private memory cannot be written without two system calls per message (the
 * grant read and process_vm_writev).  Its shared ring carries a staging area
 * instead: the producer copies a message of up to SD_COMCH_STAGE_MAX bytes there
 * and publishes the completion; the consumer copies the bytes into its own
 * posted buffer when it reaps that completion, before its PE reports the task.
 * No system call on either side, and the producer never touches the consumer's
 * process: the area is memory both mapped from the consumer's sealed memfd.
 *
 * A producer's send completes only after its data landed (as on hardware): a
 * staged send waits on the producer's staged list until the consumer's
 * stage_freed passes its bytes, and its producer's progress completes it; sends
 * after it wait behind it, so a producer's sends complete in order.  While the
 * list is not empty the producer does not let its PE sleep (arm says work is
 * pending): the consumer frees without telling anyone.  A consumer that goes
 * (CONSUMER_GONE, the connection's end) before copying fails the sends it did
 * not copy with NOT_CONNECTED; its record stays on fp->gone_consumers until the
 * last of them is done.
 *
 * The producer stages only while the ring's granted word is 1 (the consumer
 * clears it first when it stops), only into room the consumer freed, and only
 * once its mapped window is known to be absent (comch_mapped.c: buffers in a
 * shared object are written in place, one copy).  Anything else - a message
 * larger than SD_COMCH_STAGE_MAX, a full area, a consumer that made none,
 * SOFTDOCA_COMCH_STAGE=0 on either side - takes the buffer path.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "../util/sd_env.h"
#include "comch_internal.h"

static _Atomic uint64_t staged_sends;

uint64_t
sd_comch_staged_sends(void)
{
	return atomic_load_explicit(&staged_sends, memory_order_relaxed);
}

bool
sd_comch_staged_offer(void)
{
	return sd_env_bool("SOFTDOCA_COMCH_STAGE", true);
}

bool
sd_comch_staged_take(const struct sd_comch_remote_consumer *rc, size_t len, uint64_t *at)
{
	if (!rc->stage_use || !rc->win_tried || rc->win.base != NULL)
		return false;
	/* The consumer's grant is live; a cleared word sends us to the kernel's read of it (NOT_CONNECTED). */
	if (!sd_comch_shring_granted(rc->shared, rc->info.ring_cap))
		return false;
	return sd_comch_shring_stage_alloc(rc->shared, rc->info.ring_cap, rc->stage_head, len, at);
}

void
sd_comch_staged_write(struct sd_comch_remote_consumer *rc, uint64_t at, const void *data, size_t len)
{
	uint8_t *area = sd_comch_shring_stage_area(rc->shared, rc->info.ring_cap);

	memcpy(area + (at & (SD_COMCH_STAGE_LEN - 1)), data, len);
	rc->stage_head = at + len;
	atomic_fetch_add_explicit(&staged_sends, 1, memory_order_relaxed);
}

void
sd_comch_staged_copy_out(struct doca_comch_consumer *c, const struct sd_comch_staged *st, void *dst, size_t len)
{
	/* st->off + len lies inside the area (sd_comch_shring_comp_get); dst is this process's own posted room. */
	memcpy(dst, sd_comch_shring_stage_area(c->ring, c->cap) + st->off, len);
	sd_comch_shring_stage_free(c->ring, c->cap, st->end);
}

void
sd_comch_staged_drop(struct doca_comch_consumer *c, const struct sd_comch_staged *st)
{
	sd_comch_shring_stage_free(c->ring, c->cap, st->end);
}

void
sd_comch_staged_pend(struct doca_comch_producer *p, struct doca_comch_producer_task_send *t,
		     struct sd_comch_remote_consumer *rc, uint64_t end)
{
	t->stage_rc = rc;
	t->stage_end = end;
	if (rc != NULL)
		rc->pending++;
	sd_list_insert_tail(&p->staged, &t->stage_node);
}

bool
sd_comch_staged_waiting(const struct doca_comch_producer *p)
{
	return !sd_list_empty(&p->staged);
}

void
sd_comch_staged_unref(struct sd_comch_remote_consumer *rc)
{
	if (--rc->pending == 0 && rc->gone) {
		sd_list_del(&rc->link);
		free(rc);
	}
}

unsigned
sd_comch_staged_progress(struct doca_comch_producer *p)
{
	unsigned n = 0;

	while (!sd_list_empty(&p->staged)) {
		struct doca_comch_producer_task_send *t =
			sd_container_of(p->staged.next, struct doca_comch_producer_task_send, stage_node);
		struct sd_comch_remote_consumer *rc = t->stage_rc;
		doca_error_t status = DOCA_SUCCESS;

		if (rc != NULL) {
			uint64_t freed =
				rc->gone ? rc->gone_freed : sd_comch_shring_stage_freed(rc->shared, rc->info.ring_cap);

			/* Not copied out yet: wait while the consumer can still do it (running counts: compare as
			 * signed). */
			if ((int64_t)(freed - t->stage_end) < 0) {
				if (!rc->gone && p->conn->state == SD_COMCH_CONN_OPEN)
					break;
				status = DOCA_ERROR_NOT_CONNECTED;
			}
			sd_comch_staged_unref(rc);
		}
		sd_list_del(&t->stage_node);
		sd_task_complete(&t->task, status);
		n++;
	}
	return n;
}

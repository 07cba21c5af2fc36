/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdoca's environment knobs: the one reader of SOFTDOCA_* variables.  Each
 * call reads the variable again (tests change them between contexts); a value
 * read is logged once at INFO, a value refused once at WARNING with what is
 * accepted, and the caller's default applies.  Older names (SD_*) are read when
 * the SOFTDOCA_ name is unset, with a one-time deprecation warning.  Every knob
 * is listed in docs/knobs.md.
 */
#ifndef SD_ENV_H_
#define SD_ENV_H_

#include <stdbool.h>
#include <stdint.h>

#include "sd_util.h"

/* The prefix of every softdoca knob. */
#define SD_ENV_PREFIX "SOFTDOCA_"

/*
 * Boolean knob: 1/0, true/false, yes/no, on/off (any case).  def when unset,
 * empty or refused.
 */
SD_EXPORT bool sd_env_bool(const char *name, bool def);

/* Decimal integer in [min, max]; def when unset, empty or refused. */
SD_EXPORT uint64_t sd_env_u64(const char *name, uint64_t def, uint64_t min, uint64_t max);

/*
 * One of n names (exact match); returns its index, or def when unset, empty
 * or refused.
 */
SD_EXPORT unsigned int sd_env_choice(const char *name, const char *const *choices, unsigned int n, unsigned int def);

/* A free-form value (a path); NULL when unset or empty.  Logged like the others. */
SD_EXPORT const char *sd_env_str(const char *name);

#endif /* SD_ENV_H_ */

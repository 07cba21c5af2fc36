/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The environment knob reader (sd_env.h): typed parsing, deprecated names, and
 * one log line per variable and value.  It logs through the SDK log sources of
 * libdoca_common, which it is linked into.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/sd_log.h"
#include "sd_env.h"

SD_LOG_REGISTER(util.env);

/*
 * Names softdoca read before every knob took the SOFTDOCA_ prefix.  Still
 * honoured when the new name is unset, with one warning per process.
 */
static const struct {
	const char *name;
	const char *old;
} aliases[] = {
	{"SOFTDOCA_RDMA_CM_LIVENESS_MS", "SD_RDMA_CM_LIVENESS_MS"},
	{"SOFTDOCA_RDMA_CM_LISTEN", "SD_RDMA_CM_LISTEN"},
	{"SOFTDOCA_FABRIC_CMA", "SD_FABRIC_CMA"},
	{"SOFTDOCA_FABRIC_UCX_MT", "SD_FABRIC_UCX_MT"},
};

/*
 * What has been logged: hashes of "<kind><name>=<value>".  A knob is read at
 * context creation or start, so a handful of entries; when the table is full
 * lines are logged again rather than lost.
 */
#define SEEN_MAX 128
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seen[SEEN_MAX];
static unsigned int num_seen;

static uint64_t
fnv1a(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* True the first time (kind, name, value) is seen in this process. */
static bool
first_time(char kind, const char *name, const char *value)
{
	char k[2] = {kind, '\0'};
	uint64_t h = fnv1a(fnv1a(fnv1a(0xcbf29ce484222325ull, k), name), value);
	bool first = true;

	pthread_mutex_lock(&seen_lock);
	for (unsigned int i = 0; i < num_seen; i++) {
		if (seen[i] == h) {
			first = false;
			break;
		}
	}
	if (first && num_seen < SEEN_MAX)
		seen[num_seen++] = h;
	pthread_mutex_unlock(&seen_lock);
	return first;
}

/* The value of name (or of its deprecated alias); *used is the variable it came from. */
static const char *
lookup(const char *name, const char **used)
{
	const char *s = getenv(name);

	*used = name;
	if (s != NULL && s[0] != '\0')
		return s;
	for (size_t i = 0; i < SD_ARRAY_SIZE(aliases); i++) {
		if (strcmp(aliases[i].name, name) != 0)
			continue;
		s = getenv(aliases[i].old);
		if (s == NULL || s[0] == '\0')
			return NULL;
		if (first_time('D', aliases[i].old, ""))
			DOCA_LOG_WARN("%s is deprecated and will be removed; set %s instead", aliases[i].old, name);
		*used = aliases[i].old;
		return s;
	}
	return NULL;
}

static void
log_read(const char *used, const char *value)
{
	if (first_time('I', used, value))
		DOCA_LOG_INFO("%s=%s read from the environment", used, value);
}

bool
sd_env_bool(const char *name, bool def)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};
	const char *used;
	const char *s = lookup(name, &used);

	if (s == NULL)
		return def;
	for (size_t i = 0; i < SD_ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			log_read(used, s);
			return strcasecmp(s, yes[i]) == 0;
		}
	}
	if (first_time('W', used, s))
		DOCA_LOG_WARN("%s=\"%s\" refused: expected 1/0, true/false, yes/no or on/off; using %s", used, s,
			      def ? "1" : "0");
	return def;
}

uint64_t
sd_env_u64(const char *name, uint64_t def, uint64_t min, uint64_t max)
{
	const char *used;
	const char *s = lookup(name, &used);
	unsigned long long v;
	char *end;

	if (s == NULL)
		return def;
	/* strtoull() takes a sign and leading blanks: only digits are a number here. */
	errno = 0;
	v = (s[0] >= '0' && s[0] <= '9') ? strtoull(s, &end, 10) : 0;
	if (s[0] < '0' || s[0] > '9' || errno != 0 || *end != '\0' || v < min || v > max) {
		if (first_time('W', used, s))
			DOCA_LOG_WARN("%s=\"%s\" refused: expected a decimal integer in [%llu, %llu]; using %llu", used,
				      s, (unsigned long long)min, (unsigned long long)max, (unsigned long long)def);
		return def;
	}
	log_read(used, s);
	return v;
}

unsigned int
sd_env_choice(const char *name, const char *const *choices, unsigned int n, unsigned int def)
{
	char accepted[256];
	size_t off = 0;
	const char *used;
	const char *s = lookup(name, &used);

	if (s == NULL)
		return def;
	for (unsigned int i = 0; i < n; i++) {
		if (strcmp(s, choices[i]) == 0) {
			log_read(used, s);
			return i;
		}
	}
	if (!first_time('W', used, s))
		return def;
	accepted[0] = '\0';
	for (unsigned int i = 0; i < n && off < sizeof(accepted); i++) {
		int w = snprintf(accepted + off, sizeof(accepted) - off, "%s%s", i == 0 ? "" : ", ", choices[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	DOCA_LOG_WARN("%s=\"%s\" refused: expected one of %s; using %s", used, s, accepted,
		      def < n ? choices[def] : "the default");
	return def;
}

const char *
sd_env_str(const char *name)
{
	const char *used;
	const char *s = lookup(name, &used);

	if (s != NULL)
		log_read(used, s);
	return s;
}

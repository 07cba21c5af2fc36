/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion-control groups: a ConnectX feature softdoca does not emulate
 * (doca_verbs_device_attr_get_is_cc_group_supported says NOT_SUPPORTED, max
 * groups 0).  Every call refuses and says so once.
 */
#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.cc_group);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_attr_create(struct doca_verbs_cc_group_attr **attr)
{
	(void)attr;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_attr_create: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_attr_destroy(struct doca_verbs_cc_group_attr *attr)
{
	(void)attr;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_attr_destroy: not supported: congestion-control groups are a "
			     "ConnectX feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_attr_set_hint(struct doca_verbs_cc_group_attr *attr, const void *hint, size_t size)
{
	(void)attr;
	(void)hint;
	(void)size;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_attr_set_hint: not supported: congestion-control groups are a "
			     "ConnectX feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_attr_get_hint(const struct doca_verbs_cc_group_attr *attr, const void **hint, size_t *size)
{
	(void)attr;
	(void)hint;
	(void)size;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_attr_get_hint: not supported: congestion-control groups are a "
			     "ConnectX feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_create(const struct doca_verbs_context *verbs_context, struct doca_verbs_cc_group_attr *attr,
			   struct doca_verbs_cc_group **cc_group)
{
	(void)verbs_context;
	(void)attr;
	(void)cc_group;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_create: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_destroy(struct doca_verbs_cc_group *cc_group)
{
	(void)cc_group;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_destroy: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_modify(struct doca_verbs_cc_group *cc_group, struct doca_verbs_cc_group_attr *attr)
{
	(void)cc_group;
	(void)attr;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_modify: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_query(const struct doca_verbs_cc_group *cc_group, struct doca_verbs_cc_group_attr *attr)
{
	(void)cc_group;
	(void)attr;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_query: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_query_cc_group_caps(const struct doca_verbs_context *verbs_context, struct doca_verbs_cc_group_caps **caps)
{
	(void)verbs_context;
	(void)caps;
	SD_VERBS_REFUSE_ONCE("doca_verbs_query_cc_group_caps: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_caps_free(struct doca_verbs_cc_group_caps *caps)
{
	(void)caps;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_caps_free: not supported: congestion-control groups are a ConnectX "
			     "feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cc_group_caps_get_data(const struct doca_verbs_cc_group_caps *caps, const void **data, size_t *size)
{
	(void)caps;
	(void)data;
	(void)size;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_caps_get_data: not supported: congestion-control groups are a "
			     "ConnectX feature softdoca does not have; leave QPs in the default group");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_cc_group_caps_get_vendor_id(const struct doca_verbs_cc_group_caps *caps)
{
	(void)caps;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_caps_get_vendor_id: not supported: congestion-control groups are a "
			     "ConnectX feature softdoca does not have; leave QPs in the default group; returning 0");
	return 0;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_cc_group_caps_get_format_id(const struct doca_verbs_cc_group_caps *caps)
{
	(void)caps;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cc_group_caps_get_format_id: not supported: congestion-control groups are a "
			     "ConnectX feature softdoca does not have; leave QPs in the default group; returning 0");
	return 0;
}

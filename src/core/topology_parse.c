/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The topology file's JSON format (docs/devices.md) turned into struct
 * doca_devinfo / doca_devinfo_rep arrays, with every capability as data.  Any
 * problem names the source, the JSON path and the rule, then BAD_CONFIG.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "sd_log.h"
#include "topology_internal.h"

SD_LOG_REGISTER(core.topology);

#define TOPOLOGY_FORMAT_VERSION 1
#define PATH_LEN 128

/* Parsing state: where we are, for error messages. */
struct parser {
	const char *source;
};

static doca_error_t __attribute__((format(printf, 3, 4)))
bad(const struct parser *p, const char *path, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	DOCA_LOG_ERR("Failed to load device topology %s: %s: %s", p->source, path, msg);
	return DOCA_ERROR_BAD_CONFIG;
}

/* A JSON path for messages ("devices[0].functions[2].caps"); truncation is harmless. */
static void __attribute__((format(printf, 2, 3))) path_fmt(char out[PATH_LEN], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, PATH_LEN, fmt, ap);
	va_end(ap);
}

static const char *
json_type_str(const struct json_object *obj)
{
	return json_type_to_name(json_object_get_type(obj));
}

/* Refuse keys the format does not know: a typo must not silently keep a default. */
static doca_error_t
check_keys(const struct parser *p, const char *path, struct json_object *obj, const char *const *known)
{
	json_object_object_foreach(obj, key, val)
	{
		size_t i;

		(void)val;
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(known[i], key) == 0)
				break;
		if (known[i] == NULL)
			return bad(p, path, "unknown key \"%s\"", key);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
expect_type(const struct parser *p, const char *path, struct json_object *val, enum json_type type)
{
	if (!json_object_is_type(val, type))
		return bad(p, path, "expected a %s, found a %s", json_type_to_name(type), json_type_str(val));
	return DOCA_SUCCESS;
}

/* Copy a string member; an absent optional key keeps out as it is. */
static doca_error_t
get_str(const struct parser *p, const char *path, struct json_object *obj, const char *key, bool required, char *out,
	size_t out_size)
{
	struct json_object *val;
	char kpath[PATH_LEN];
	const char *s;
	doca_error_t ret;

	path_fmt(kpath, "%s.%s", path, key);
	if (!json_object_object_get_ex(obj, key, &val)) {
		if (required)
			return bad(p, path, "missing key \"%s\"", key);
		return DOCA_SUCCESS;
	}
	ret = expect_type(p, kpath, val, json_type_string);
	if (ret != DOCA_SUCCESS)
		return ret;
	s = json_object_get_string(val);
	if (strlen(s) >= out_size)
		return bad(p, kpath, "\"%s\" is too long (at most %zu characters)", s, out_size - 1);
	strcpy(out, s);
	return DOCA_SUCCESS;
}

static doca_error_t
get_bool(const struct parser *p, const char *path, struct json_object *obj, const char *key, bool *out)
{
	struct json_object *val;
	char kpath[PATH_LEN];
	doca_error_t ret;

	if (!json_object_object_get_ex(obj, key, &val))
		return DOCA_SUCCESS;
	path_fmt(kpath, "%s.%s", path, key);
	ret = expect_type(p, kpath, val, json_type_boolean);
	if (ret != DOCA_SUCCESS)
		return ret;
	*out = json_object_get_boolean(val);
	return DOCA_SUCCESS;
}

/* An unsigned integer member no larger than max; absent keeps *out. */
static doca_error_t
get_uint(const struct parser *p, const char *path, struct json_object *obj, const char *key, uint64_t max,
	 uint64_t *out)
{
	struct json_object *val;
	char kpath[PATH_LEN];
	uint64_t v;
	doca_error_t ret;

	if (!json_object_object_get_ex(obj, key, &val))
		return DOCA_SUCCESS;
	path_fmt(kpath, "%s.%s", path, key);
	ret = expect_type(p, kpath, val, json_type_int);
	if (ret != DOCA_SUCCESS)
		return ret;
	/* json-c keeps large values as uint64 and negative ones as int64. */
	if (json_object_get_int64(val) < 0)
		return bad(p, kpath, "must not be negative (%" PRId64 ")", json_object_get_int64(val));
	v = json_object_get_uint64(val);
	if (v > max)
		return bad(p, kpath, "%" PRIu64 " is larger than the maximum %" PRIu64, v, max);
	*out = v;
	return DOCA_SUCCESS;
}

/* Apply a "caps" object over *caps; every key must be a known capability of the right type. */
static doca_error_t
parse_caps(const struct parser *p, const char *path, struct json_object *obj, struct sd_dev_caps *caps)
{
	struct json_object *cobj;
	char cpath[PATH_LEN];
	doca_error_t ret;

	if (!json_object_object_get_ex(obj, "caps", &cobj))
		return DOCA_SUCCESS;
	path_fmt(cpath, "%s.caps", path);
	ret = expect_type(p, cpath, cobj, json_type_object);
	if (ret != DOCA_SUCCESS)
		return ret;
	json_object_object_foreach(cobj, key, val)
	{
		const struct sd_dev_cap_desc *descs, *d = NULL;
		uint32_t i, num_descs;
		char *field;
		uint64_t v = 0;

		(void)val;
		descs = sd_dev_cap_descs(&num_descs);
		for (i = 0; i < num_descs; i++)
			if (strcmp(descs[i].name, key) == 0)
				d = &descs[i];
		if (d == NULL)
			return bad(p, cpath, "unknown capability \"%s\" (docs/devices.md lists them)", key);
		field = (char *)caps + d->offset;
		switch (d->kind) {
		case SD_DEV_CAP_BOOL:
			ret = get_bool(p, cpath, cobj, key, (bool *)field);
			break;
		case SD_DEV_CAP_U32:
			v = *(uint32_t *)field;
			ret = get_uint(p, cpath, cobj, key, UINT32_MAX, &v);
			*(uint32_t *)field = (uint32_t)v;
			break;
		case SD_DEV_CAP_U64:
			v = *(uint64_t *)field;
			ret = get_uint(p, cpath, cobj, key, UINT64_MAX, &v);
			*(uint64_t *)field = v;
			break;
		}
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return DOCA_SUCCESS;
}

bool
sd_pci_addr_normalize(const char *in, char out[13])
{
	unsigned int dom = 0, bus, devn, fn;
	char tail;
	int n;

	if (in == NULL)
		return false;
	for (n = 0; in[n] != '\0'; n++)
		if (!isxdigit((unsigned char)in[n]) && in[n] != ':' && in[n] != '.')
			return false;
	if (strlen(in) == 12)
		n = sscanf(in, "%4x:%2x:%2x.%1x%c", &dom, &bus, &devn, &fn, &tail) == 4 && in[4] == ':' &&
		    in[7] == ':' && in[10] == '.';
	else if (strlen(in) == 7)
		n = sscanf(in, "%2x:%2x.%1x%c", &bus, &devn, &fn, &tail) == 3 && in[2] == ':' && in[5] == '.';
	else
		n = 0;
	/* A PCI device number has 5 bits, a function number 3. */
	if (!n || devn > 0x1f || fn > 7)
		return false;
	snprintf(out, 13, "%04x:%02x:%02x.%x", dom, bus, devn, fn);
	return true;
}

static doca_error_t
get_pci(const struct parser *p, const char *path, struct json_object *obj, char out[16])
{
	char raw[32] = "";
	char kpath[PATH_LEN];
	doca_error_t ret;

	ret = get_str(p, path, obj, "pci_addr", true, raw, sizeof(raw));
	if (ret != DOCA_SUCCESS)
		return ret;
	path_fmt(kpath, "%s.pci_addr", path);
	if (!sd_pci_addr_normalize(raw, out))
		return bad(p, kpath, "\"%s\" is not a PCI address (\"DDDD:BB:DD.F\" or \"BB:DD.F\", hex)", raw);
	return DOCA_SUCCESS;
}

static doca_error_t
get_func_type(const struct parser *p, const char *path, struct json_object *obj, enum doca_pci_func_type *out)
{
	char raw[8] = "";
	char kpath[PATH_LEN];
	doca_error_t ret;

	ret = get_str(p, path, obj, "func_type", false, raw, sizeof(raw));
	if (ret != DOCA_SUCCESS)
		return ret;
	path_fmt(kpath, "%s.func_type", path);
	if (raw[0] == '\0')
		return DOCA_SUCCESS;
	if (strcasecmp(raw, "pf") == 0)
		*out = DOCA_PCI_FUNC_TYPE_PF;
	else if (strcasecmp(raw, "vf") == 0)
		*out = DOCA_PCI_FUNC_TYPE_VF;
	else if (strcasecmp(raw, "sf") == 0)
		*out = DOCA_PCI_FUNC_TYPE_SF;
	else
		return bad(p, kpath, "\"%s\" is not one of \"PF\", \"VF\", \"SF\"", raw);
	return DOCA_SUCCESS;
}

static doca_error_t
parse_rep_filter(const struct parser *p, const char *path, struct json_object *obj, uint32_t *filter)
{
	struct json_object *arr;
	char kpath[PATH_LEN];
	size_t i, n;
	doca_error_t ret;

	if (!json_object_object_get_ex(obj, "filter", &arr))
		return DOCA_SUCCESS;
	path_fmt(kpath, "%s.filter", path);
	ret = expect_type(p, kpath, arr, json_type_array);
	if (ret != DOCA_SUCCESS)
		return ret;
	n = json_object_array_length(arr);
	if (n == 0)
		return bad(p, kpath, "a representor matches at least one of \"net\", \"emulated\"");
	*filter = 0;
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		const char *s;

		ret = expect_type(p, kpath, v, json_type_string);
		if (ret != DOCA_SUCCESS)
			return ret;
		s = json_object_get_string(v);
		if (strcasecmp(s, "net") == 0)
			*filter |= DOCA_DEVINFO_REP_FILTER_NET;
		else if (strcasecmp(s, "emulated") == 0)
			*filter |= DOCA_DEVINFO_REP_FILTER_EMULATED;
		else
			return bad(p, kpath, "\"%s\" is not one of \"net\", \"emulated\"", s);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
parse_rep(const struct parser *p, const char *path, struct json_object *obj, struct doca_devinfo *owner,
	  struct doca_devinfo_rep *rep)
{
	static const char *const keys[] = {"vuid",    "pci_addr", "iface",  "func_type",
					   "hotplug", "vhca_id",  "filter", NULL};
	uint64_t vhca = 0;
	doca_error_t ret;

	ret = expect_type(p, path, obj, json_type_object);
	if (ret == DOCA_SUCCESS)
		ret = check_keys(p, path, obj, keys);
	if (ret != DOCA_SUCCESS)
		return ret;
	rep->owner = owner;
	rep->func_type = DOCA_PCI_FUNC_TYPE_PF;
	rep->filter = DOCA_DEVINFO_REP_FILTER_NET;
	ret = get_pci(p, path, obj, rep->pci_addr);
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "iface", true, rep->iface_name, sizeof(rep->iface_name));
	if (ret == DOCA_SUCCESS) {
		snprintf(rep->vuid, sizeof(rep->vuid), "%s-%s", owner->device_name, rep->pci_addr);
		ret = get_str(p, path, obj, "vuid", false, rep->vuid, sizeof(rep->vuid));
	}
	if (ret == DOCA_SUCCESS)
		ret = get_func_type(p, path, obj, &rep->func_type);
	if (ret == DOCA_SUCCESS)
		ret = get_bool(p, path, obj, "hotplug", &rep->is_hotplug);
	if (ret == DOCA_SUCCESS)
		ret = get_uint(p, path, obj, "vhca_id", UINT16_MAX, &vhca);
	if (ret == DOCA_SUCCESS)
		ret = parse_rep_filter(p, path, obj, &rep->filter);
	rep->vhca_id = (uint16_t)vhca;
	return ret;
}

/*
 * A DPU-side function without a "representors" key represents the host function
 * with its own rank: the k-th DPU function of a device gets pf<k>hpf for the k-th
 * host function of the same device (as p0 has pf0hpf on a BlueField).
 */
static doca_error_t
auto_reps(struct doca_devinfo *fn, struct doca_devinfo *dev_first, uint32_t dev_count)
{
	uint32_t i, dpu_rank = 0, host_rank = 0;
	struct doca_devinfo *host = NULL;
	struct doca_devinfo_rep *rep;

	for (i = 0; &dev_first[i] != fn; i++)
		if (dev_first[i].side == SD_DEV_SIDE_DPU)
			dpu_rank++;
	for (i = 0; i < dev_count; i++) {
		if (dev_first[i].side != SD_DEV_SIDE_HOST)
			continue;
		if (host_rank++ == dpu_rank) {
			host = &dev_first[i];
			break;
		}
	}
	if (host == NULL)
		return DOCA_SUCCESS;
	rep = calloc(1, sizeof(*rep));
	if (rep == NULL)
		return DOCA_ERROR_NO_MEMORY;
	rep->owner = fn;
	snprintf(rep->vuid, sizeof(rep->vuid), "%s-%s", fn->device_name, host->pci_addr);
	memcpy(rep->pci_addr, host->pci_addr, sizeof(rep->pci_addr));
	snprintf(rep->iface_name, sizeof(rep->iface_name), "pf%uhpf", dpu_rank);
	rep->func_type = host->func_type;
	rep->vhca_id = host->vhca_id;
	rep->filter = DOCA_DEVINFO_REP_FILTER_NET;
	fn->reps = rep;
	fn->num_reps = 1;
	return DOCA_SUCCESS;
}

static doca_error_t
parse_function(const struct parser *p, const char *path, struct json_object *obj, struct json_object *dev_obj,
	       const char *dev_netdev, const char *model, struct doca_devinfo *fn)
{
	static const char *const keys[] = {
		"side",	   "pci_addr", "ibdev",	      "iface",		 "netdev", "func_type",	   "sf_index",
		"vhca_id", "lid",      "active_rate", "hotplug_manager", "caps",   "representors", NULL};
	char side[8] = "", kpath[PATH_LEN];
	uint64_t vhca = fn->index, lid = 0, sf = 0, rate = UINT64_C(100000000000);
	doca_error_t ret;

	ret = expect_type(p, path, obj, json_type_object);
	if (ret == DOCA_SUCCESS)
		ret = check_keys(p, path, obj, keys);
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "side", true, side, sizeof(side));
	if (ret != DOCA_SUCCESS)
		return ret;
	if (strcmp(side, "host") == 0) {
		fn->side = SD_DEV_SIDE_HOST;
	} else if (strcmp(side, "dpu") == 0) {
		fn->side = SD_DEV_SIDE_DPU;
	} else {
		path_fmt(kpath, "%s.side", path);
		return bad(p, kpath, "\"%s\" is not one of \"host\", \"dpu\"", side);
	}
	fn->func_type = DOCA_PCI_FUNC_TYPE_PF;
	fn->hotplug_manager = fn->side == SD_DEV_SIDE_DPU;
	snprintf(fn->netdev, sizeof(fn->netdev), "%s", dev_netdev);
	snprintf(fn->model, sizeof(fn->model), "%s", model);
	if (!sd_dev_model_caps(model, &fn->caps))
		return bad(p, path, "\"%s\" is not a model; known: %s", model, sd_dev_model_names());

	ret = get_pci(p, path, obj, fn->pci_addr);
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "ibdev", true, fn->ibdev_name, sizeof(fn->ibdev_name));
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "iface", true, fn->iface_name, sizeof(fn->iface_name));
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "netdev", false, fn->netdev, sizeof(fn->netdev));
	if (ret == DOCA_SUCCESS)
		ret = get_func_type(p, path, obj, &fn->func_type);
	if (ret == DOCA_SUCCESS)
		ret = get_uint(p, path, obj, "sf_index", UINT32_MAX, &sf);
	if (ret == DOCA_SUCCESS)
		ret = get_uint(p, path, obj, "vhca_id", UINT16_MAX, &vhca);
	if (ret == DOCA_SUCCESS)
		ret = get_uint(p, path, obj, "lid", UINT16_MAX, &lid);
	if (ret == DOCA_SUCCESS)
		ret = get_uint(p, path, obj, "active_rate", UINT64_MAX, &rate);
	if (ret == DOCA_SUCCESS)
		ret = get_bool(p, path, obj, "hotplug_manager", &fn->hotplug_manager);
	/* Device-wide caps first, then the function's own. */
	if (ret == DOCA_SUCCESS)
		ret = parse_caps(p, path, dev_obj, &fn->caps);
	if (ret == DOCA_SUCCESS)
		ret = parse_caps(p, path, obj, &fn->caps);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (fn->ibdev_name[0] == '\0')
		return bad(p, path, "\"ibdev\" must not be empty");
	if (fn->netdev[0] == '\0')
		return bad(p, path, "\"netdev\" must not be empty");
	fn->sf_index = (uint32_t)sf;
	fn->vhca_id = (uint16_t)vhca;
	fn->lid = (uint16_t)lid;
	fn->active_rate = rate;
	return DOCA_SUCCESS;
}

static doca_error_t
parse_fn_reps(const struct parser *p, const char *path, struct json_object *obj, struct doca_devinfo *fn,
	      struct doca_devinfo *dev_first, uint32_t dev_count)
{
	struct json_object *arr;
	char kpath[PATH_LEN], rpath[PATH_LEN];
	size_t i, n;
	doca_error_t ret;

	if (!json_object_object_get_ex(obj, "representors", &arr)) {
		if (fn->side == SD_DEV_SIDE_DPU)
			return auto_reps(fn, dev_first, dev_count);
		return DOCA_SUCCESS;
	}
	path_fmt(kpath, "%s.representors", path);
	if (fn->side == SD_DEV_SIDE_HOST)
		return bad(p, kpath, "representors exist only on \"dpu\" side functions");
	ret = expect_type(p, kpath, arr, json_type_array);
	if (ret != DOCA_SUCCESS)
		return ret;
	n = json_object_array_length(arr);
	if (n == 0)
		return DOCA_SUCCESS;
	fn->reps = calloc(n, sizeof(*fn->reps));
	if (fn->reps == NULL)
		return DOCA_ERROR_NO_MEMORY;
	fn->num_reps = (uint32_t)n;
	for (i = 0; i < n; i++) {
		path_fmt(rpath, "%s[%zu]", kpath, i);
		ret = parse_rep(p, rpath, json_object_array_get_idx(arr, i), fn, &fn->reps[i]);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return DOCA_SUCCESS;
}

/* Names and addresses select devices, so two functions must never share one. */
static doca_error_t
check_unique(const struct parser *p, const struct doca_devinfo *devs, uint32_t num)
{
	uint32_t i, j;

	for (i = 0; i < num; i++) {
		for (j = 0; j < i; j++) {
			if (strcmp(devs[i].ibdev_name, devs[j].ibdev_name) == 0)
				return bad(p, "devices", "IB device name \"%s\" is used by two functions",
					   devs[i].ibdev_name);
			/* An SF shares its parent's PCI address, as on hardware. */
			if (devs[i].func_type != DOCA_PCI_FUNC_TYPE_SF && devs[j].func_type != DOCA_PCI_FUNC_TYPE_SF &&
			    strcmp(devs[i].pci_addr, devs[j].pci_addr) == 0)
				return bad(p, "devices", "PCI address %s is used by %s and %s", devs[i].pci_addr,
					   devs[j].ibdev_name, devs[i].ibdev_name);
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t
parse_device(const struct parser *p, uint32_t dev_idx, struct json_object *obj, struct doca_devinfo *first,
	     uint32_t first_index)
{
	static const char *const keys[] = {"name", "model", "netdev", "caps", "functions", NULL};
	char path[PATH_LEN], fpath[PATH_LEN], name[32], netdev[IF_NAMESIZE + 1] = "lo", model[24] = "soft";
	struct json_object *fns;
	size_t i, n;
	doca_error_t ret;

	path_fmt(path, "devices[%u]", dev_idx);
	snprintf(name, sizeof(name), "bf%u", dev_idx);
	ret = check_keys(p, path, obj, keys);
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "name", false, name, sizeof(name));
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "netdev", false, netdev, sizeof(netdev));
	if (ret == DOCA_SUCCESS)
		ret = get_str(p, path, obj, "model", false, model, sizeof(model));
	if (ret != DOCA_SUCCESS)
		return ret;
	/* Functions were counted (and the array checked) by the caller. */
	json_object_object_get_ex(obj, "functions", &fns);
	n = json_object_array_length(fns);
	for (i = 0; i < n; i++) {
		first[i].index = first_index + (uint32_t)i;
		first[i].device_index = dev_idx;
		snprintf(first[i].device_name, sizeof(first[i].device_name), "%s", name);
		path_fmt(fpath, "%s.functions[%zu]", path, i);
		ret = parse_function(p, fpath, json_object_array_get_idx(fns, i), obj, netdev, model, &first[i]);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	/* Representors refer to host functions, so they come after all functions are known. */
	for (i = 0; i < n; i++) {
		path_fmt(fpath, "%s.functions[%zu]", path, i);
		ret = parse_fn_reps(p, fpath, json_object_array_get_idx(fns, i), &first[i], first, (uint32_t)n);
		if (ret != DOCA_SUCCESS) {
			if (ret == DOCA_ERROR_NO_MEMORY)
				DOCA_LOG_ERR("Failed to load device topology %s: out of memory", p->source);
			return ret;
		}
	}
	return DOCA_SUCCESS;
}

/* Count functions over all devices, checking the document's skeleton on the way. */
static doca_error_t
count_functions(const struct parser *p, struct json_object *devices, uint32_t *total)
{
	char path[PATH_LEN];
	size_t i, n = json_object_array_length(devices);
	uint64_t sum = 0;

	for (i = 0; i < n; i++) {
		struct json_object *dev = json_object_array_get_idx(devices, i), *fns;
		doca_error_t ret;

		path_fmt(path, "devices[%zu]", i);
		ret = expect_type(p, path, dev, json_type_object);
		if (ret != DOCA_SUCCESS)
			return ret;
		if (!json_object_object_get_ex(dev, "functions", &fns))
			return bad(p, path, "missing key \"functions\"");
		path_fmt(path, "devices[%zu].functions", i);
		ret = expect_type(p, path, fns, json_type_array);
		if (ret != DOCA_SUCCESS)
			return ret;
		if (json_object_array_length(fns) == 0)
			return bad(p, path, "a device needs at least one function");
		sum += json_object_array_length(fns);
	}
	if (sum > 4096)
		return bad(p, "devices", "%" PRIu64 " functions; at most 4096 are supported", sum);
	*total = (uint32_t)sum;
	return DOCA_SUCCESS;
}

static void
free_devs(struct doca_devinfo *devs, uint32_t num)
{
	uint32_t i;

	if (devs == NULL)
		return;
	for (i = 0; i < num; i++)
		free(devs[i].reps);
	free(devs);
}

static doca_error_t
parse_root(const struct parser *p, struct json_object *root, struct sd_topology *topo)
{
	static const char *const keys[] = {"version", "devices", NULL};
	struct json_object *devices;
	struct doca_devinfo *devs = NULL;
	uint64_t version = TOPOLOGY_FORMAT_VERSION;
	uint32_t total = 0, first = 0;
	size_t i, n;
	doca_error_t ret;

	ret = expect_type(p, "(top level)", root, json_type_object);
	if (ret == DOCA_SUCCESS)
		ret = check_keys(p, "(top level)", root, keys);
	if (ret == DOCA_SUCCESS)
		ret = get_uint(p, "(top level)", root, "version", UINT32_MAX, &version);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (version != TOPOLOGY_FORMAT_VERSION)
		return bad(p, "version", "format version %" PRIu64 " is not supported (this softdoca reads %d)",
			   version, TOPOLOGY_FORMAT_VERSION);
	if (!json_object_object_get_ex(root, "devices", &devices))
		return bad(p, "(top level)", "missing key \"devices\"");
	ret = expect_type(p, "devices", devices, json_type_array);
	if (ret == DOCA_SUCCESS)
		ret = count_functions(p, devices, &total);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (total > 0) {
		devs = calloc(total, sizeof(*devs));
		if (devs == NULL) {
			DOCA_LOG_ERR("Failed to load device topology %s: out of memory", p->source);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	n = json_object_array_length(devices);
	for (i = 0; i < n; i++) {
		struct json_object *fns, *dev = json_object_array_get_idx(devices, i);

		ret = parse_device(p, (uint32_t)i, dev, &devs[first], first);
		if (ret != DOCA_SUCCESS)
			goto free_devs;
		json_object_object_get_ex(dev, "functions", &fns);
		first += (uint32_t)json_object_array_length(fns);
	}
	ret = check_unique(p, devs, total);
	if (ret != DOCA_SUCCESS)
		goto free_devs;
	topo->devs = devs;
	topo->num_devs = total;
	return DOCA_SUCCESS;

free_devs:
	free_devs(devs, total);
	return ret;
}

/* Line and column of a byte offset, for json-c syntax errors. */
static void
offset_to_line(const char *text, size_t off, unsigned *line, unsigned *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && text[i] != '\0'; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

doca_error_t
sd_topology_parse(const char *text, size_t len, const char *source, struct sd_topology *topo)
{
	struct parser p = {.source = source};
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error jerr;
	size_t end;
	doca_error_t ret;

	if (len > INT32_MAX) {
		DOCA_LOG_ERR("Failed to load device topology %s: file too large (%zu bytes)", source, len);
		return DOCA_ERROR_BAD_CONFIG;
	}
	tok = json_tokener_new();
	if (tok == NULL) {
		DOCA_LOG_ERR("Failed to load device topology %s: out of memory", source);
		return DOCA_ERROR_NO_MEMORY;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	while (end < len && isspace((unsigned char)text[end]))
		end++;
	if (root == NULL || jerr != json_tokener_success || end < len) {
		unsigned line, col;

		offset_to_line(text, end, &line, &col);
		if (jerr == json_tokener_success)
			DOCA_LOG_ERR("Failed to load device topology %s: line %u column %u: %s", source, line, col,
				     root == NULL ? "empty document" : "text after the end of the JSON document");
		else
			DOCA_LOG_ERR("Failed to load device topology %s: line %u column %u: invalid JSON: %s", source,
				     line, col,
				     jerr == json_tokener_continue ? "unexpected end of file"
								   : json_tokener_error_desc(jerr));
		ret = DOCA_ERROR_BAD_CONFIG;
		goto free_root;
	}
	ret = parse_root(&p, root, topo);

free_root:
	json_object_put(root);
	json_tokener_free(tok);
	return ret;
}

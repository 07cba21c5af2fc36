/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp commands (positional words selecting a set of flags), and the
 * outputs: usage text, -h and -v (which end the process with EXIT_SUCCESS).
 */
#include "argp_test.h"

static doca_error_t
cb_run(void *cfg)
{
	check_cfg(cfg);
	event("cmd:run");
	return DOCA_SUCCESS;
}

static doca_error_t
cb_show(void *cfg)
{
	check_cfg(cfg);
	event("cmd:show");
	return DOCA_SUCCESS;
}

static doca_error_t
cb_sub(void *cfg)
{
	check_cfg(cfg);
	event("cmd:sub");
	return DOCA_SUCCESS;
}

static struct doca_argp_cmd *
mk_cmd(const char *name, doca_argp_cmd_cb_t cb)
{
	struct doca_argp_cmd *c = NULL;

	ASSERT_OK(doca_argp_cmd_create(&c));
	doca_argp_cmd_set_name(c, name);
	doca_argp_cmd_set_description(c, "does things");
	doca_argp_cmd_set_callback(c, cb);
	return c;
}

/*
 * prog [-t] run [--speed N (mandatory)] [--level N (inherited)] sub [--deep]
 *      |        show [--all]            |  hidden "secret"
 */
static void
setup_cmds(void)
{
	struct doca_argp_cmd *run, *show, *sub, *secret;
	struct doca_argp_param *p;

	setup_std();
	ASSERT_OK(doca_argp_register_validation_callback(cb_validate));
	run = mk_cmd("run", cb_run);
	p = mk_param("s", "speed", DOCA_ARGP_TYPE_INT, cb_ns);
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_cmd_register_param(run, p));
	p = mk_param(NULL, "level", DOCA_ARGP_TYPE_INT, cb_nd);
	doca_argp_param_set_inherited(p);
	ASSERT_OK(doca_argp_cmd_register_param(run, p));
	sub = mk_cmd("sub", cb_sub);
	ASSERT_OK(doca_argp_cmd_register_param(sub, mk_param(NULL, "deep", DOCA_ARGP_TYPE_BOOLEAN, cb_cm)));
	ASSERT_OK(doca_argp_cmd_register_cmd(run, sub));
	ASSERT_OK(doca_argp_register_cmd(run));

	show = mk_cmd("show", cb_show);
	ASSERT_OK(doca_argp_cmd_register_param(show, mk_param("a", "all", DOCA_ARGP_TYPE_BOOLEAN, cb_cm)));
	ASSERT_OK(doca_argp_register_cmd(show));

	secret = mk_cmd("secret", cb_show);
	doca_argp_cmd_set_hidden(secret);
	ASSERT_OK(doca_argp_register_cmd(secret));
}

TEST(command_selects_its_flags)
{
	setup_cmds();
	ASSERT_OK(START("-t", "x", "run", "--speed", "3", "-ns", "7"));
	/* -s is run's --speed, -ns the program's; the command callback follows the flags. */
	ASSERT_STR_EQ(events, "text=x;ns=3;ns=7;cmd:run;validate;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(command_flag_outside_its_command_is_unknown)
{
	setup_cmds();
	ASSERT_ERR(START("--speed", "3", "run"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
	setup_cmds();
	ASSERT_ERR(START("show", "--speed", "3"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_argp_destroy());
}

TEST(unknown_command_is_not_supported)
{
	setup_cmds();
	ASSERT_ERR(START("walk"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_argp_destroy());
	/* show has no sub-commands: a second word is unexpected. */
	setup_cmds();
	ASSERT_ERR(START("show", "run"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(mandatory_flag_of_selected_command_only)
{
	setup_cmds();
	ASSERT_ERR(START("run"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
	/* run's mandatory --speed does not matter when show is selected, nor without command. */
	events[0] = '\0';
	setup_cmds();
	ASSERT_OK(START("show", "-a"));
	ASSERT_STR_EQ(events, "cm=true;cmd:show;validate;");
	ASSERT_OK(doca_argp_destroy());
	events[0] = '\0';
	setup_cmds();
	ASSERT_OK(START0());
	ASSERT_STR_EQ(events, "validate;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(sub_command_inherits_only_inherited_flags)
{
	setup_cmds();
	ASSERT_OK(START("run", "-s", "1", "sub", "--level", "5", "--deep", "-t", "y"));
	/* Parent command callback before the sub-command's, both after the flags. */
	ASSERT_STR_EQ(events, "ns=1;nd=5;cm=true;text=y;cmd:run;cmd:sub;validate;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_cmds();
	ASSERT_ERR(START("run", "sub", "--speed", "1"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(hidden_command_is_accepted)
{
	setup_cmds();
	ASSERT_OK(START("secret"));
	ASSERT_STR_EQ(events, "cmd:show;validate;");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
cb_cmd_fail(void *cfg)
{
	check_cfg(cfg);
	event("cmd:fail");
	return DOCA_ERROR_NOT_PERMITTED;
}

TEST(command_callback_error_is_returned)
{
	struct doca_argp_cmd *c;

	setup_std();
	ASSERT_OK(doca_argp_register_validation_callback(cb_validate));
	c = mk_cmd("go", cb_cmd_fail);
	ASSERT_OK(doca_argp_register_cmd(c));
	ASSERT_ERR(START("-t", "a", "go"), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_STR_EQ(events, "text=a;cmd:fail;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(command_registration_refusals)
{
	struct doca_argp_cmd *c;

	setup_cmds();
	ASSERT_ERR(doca_argp_register_cmd(mk_cmd("run", cb_run)), DOCA_ERROR_ALREADY_EXIST);
	ASSERT_OK(doca_argp_cmd_create(&c));
	ASSERT_ERR(doca_argp_register_cmd(c), DOCA_ERROR_INITIALIZATION);
	ASSERT_ERR(doca_argp_register_cmd(mk_cmd("-run", cb_run)), DOCA_ERROR_INVALID_VALUE);

	c = mk_cmd("new", cb_run);
	ASSERT_ERR(doca_argp_cmd_register_cmd(c, c), DOCA_ERROR_INVALID_VALUE);
	/* A sub-command may share its parent's name; siblings may not share one. */
	ASSERT_OK(doca_argp_cmd_register_cmd(c, mk_cmd("new", cb_run)));
	ASSERT_ERR(doca_argp_cmd_register_cmd(c, mk_cmd("new", cb_run)), DOCA_ERROR_ALREADY_EXIST);
	ASSERT_OK(doca_argp_cmd_register_param(c, mk_param("x", NULL, DOCA_ARGP_TYPE_INT, cb_ns)));
	ASSERT_ERR(doca_argp_cmd_register_param(c, mk_param("x", NULL, DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_cmd_register_param(c, mk_param("j", NULL, DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_cmd_register_param(NULL, mk_param("y", NULL, DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_INVALID_VALUE);
	/* Commands form a tree: a command cannot go below its own descendant. */
	{
		struct doca_argp_cmd *a = mk_cmd("a", cb_run), *b = mk_cmd("b", cb_run), *d = mk_cmd("d", cb_run);

		ASSERT_OK(doca_argp_cmd_register_cmd(a, b));
		ASSERT_OK(doca_argp_cmd_register_cmd(b, d));
		ASSERT_ERR(doca_argp_cmd_register_cmd(d, a), DOCA_ERROR_INVALID_VALUE);
		ASSERT_ERR(doca_argp_cmd_register_cmd(b, a), DOCA_ERROR_INVALID_VALUE);
		ASSERT_OK(doca_argp_cmd_destroy(a));
	}
	/* Not registered yet: its owner may destroy it (with what it holds). */
	ASSERT_OK(doca_argp_cmd_destroy(c));

	c = mk_cmd("new", cb_run);
	ASSERT_OK(doca_argp_register_cmd(c));
	ASSERT_ERR(doca_argp_cmd_destroy(c), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_argp_cmd_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

/* ---- usage, -h, -v ---- */

static void
setup_usage(void)
{
	struct doca_argp_param *p;

	ASSERT_OK(doca_argp_init(NULL, &test_cfg));
	p = mk_param("p", "pci-addr", DOCA_ARGP_TYPE_STRING, cb_device);
	doca_argp_param_set_arguments(p, "<PCI-ADDRESS>");
	doca_argp_param_set_description(p, "DOCA device PCI address");
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_register_param(p));
	p = mk_param("ns", "num-src-buf", DOCA_ARGP_TYPE_INT, cb_ns);
	doca_argp_param_set_description(p, "Number of source buffers");
	ASSERT_OK(doca_argp_register_param(p));
	p = mk_param(NULL, "hidden-knob", DOCA_ARGP_TYPE_INT, cb_nd);
	doca_argp_param_set_description(p, "never shown");
	doca_argp_param_set_hidden(p);
	ASSERT_OK(doca_argp_register_param(p));
}

static doca_error_t
run_help(void)
{
	setup_usage();
	return start_argv((char *[]){"/usr/local/bin/doca_tool", "-ns", "1", "--help", "--bogus", NULL});
}

/* Column at which the description of `row` starts in text. */
static long
descr_column(const char *text, const char *row, const char *descr)
{
	const char *r = strstr(text, row);
	const char *d = r != NULL ? strstr(r, descr) : NULL;
	const char *line = r;

	if (d == NULL)
		return -1;
	while (line > text && line[-1] != '\n')
		line--;
	return d - line;
}

TEST(help_prints_usage_and_exits_zero)
{
	struct capture c;

	capture_run(run_help, &c);
	/* exit(EXIT_SUCCESS) before --bogus was looked at and before any callback. */
	ASSERT_EQ(c.exit_code, 0);
	ASSERT_CONTAINS(c.out, "Usage: doca_tool [DOCA Flags] [Program Flags]\n");
	ASSERT_CONTAINS(c.out, "\nDOCA Flags:\n  -h, --help ");
	ASSERT_CONTAINS(c.out, "  -v, --version ");
	ASSERT_CONTAINS(c.out, "  -l, --log-level <level> ");
	ASSERT_CONTAINS(c.out, "  --sdk-log-level <level> ");
	ASSERT_CONTAINS(c.out, "  -j, --json <path> ");
	ASSERT_CONTAINS(c.out, "\nProgram Flags:\n  -p, --pci-addr <PCI-ADDRESS> ");
	ASSERT_CONTAINS(c.out, "DOCA device PCI address (mandatory)\n");
	ASSERT_CONTAINS(c.out, "  -ns, --num-src-buf ");
	ASSERT_NOT_CONTAINS(c.out, "hidden-knob");
	ASSERT_NOT_CONTAINS(c.out, "ns=");
	ASSERT_NOT_CONTAINS(c.out, "Commands:");
	/* One column for every description. */
	ASSERT(descr_column(c.out, "-h, --help", "Print a help synopsis") > 0);
	ASSERT_EQ(descr_column(c.out, "-h, --help", "Print a help synopsis"),
		  descr_column(c.out, "-p, --pci-addr", "DOCA device PCI address"));
	ASSERT_EQ(descr_column(c.out, "-h, --help", "Print a help synopsis"),
		  descr_column(c.out, "-ns, --num-src-buf", "Number of source buffers"));
}

static doca_error_t
run_usage_call(void)
{
	setup_cmds();
	doca_argp_usage();
	return DOCA_SUCCESS;
}

TEST(usage_lists_visible_commands)
{
	struct capture c;

	capture_run(run_usage_call, &c);
	ASSERT_EQ(c.exit_code, 100);
	ASSERT_CONTAINS(c.out, "Usage: prog <command> [DOCA Flags] [Program Flags]\n");
	ASSERT_CONTAINS(c.out, "\nCommands:\n");
	ASSERT_CONTAINS(c.out, "  run ");
	ASSERT_CONTAINS(c.out, "  show ");
	ASSERT_NOT_CONTAINS(c.out, "secret");
	/* Command flags appear only once their command is selected. */
	ASSERT_NOT_CONTAINS(c.out, "--speed");
}

static doca_error_t
run_cmd_help(void)
{
	setup_cmds();
	return START("run", "-h");
}

TEST(help_after_command_shows_its_flags)
{
	struct capture c;

	capture_run(run_cmd_help, &c);
	ASSERT_EQ(c.exit_code, 0);
	ASSERT_CONTAINS(c.out, "Usage: prog run <command> [DOCA Flags] [Program Flags]\n");
	ASSERT_CONTAINS(c.out, "  -s, --speed ");
	ASSERT_CONTAINS(c.out, "  --level\n");
	ASSERT_CONTAINS(c.out, "  -t, --text");
	ASSERT_CONTAINS(c.out, "\nCommands:\n  sub ");
	ASSERT_NOT_CONTAINS(c.out, "--all");
}

static doca_error_t
run_version(void)
{
	setup_std();
	return START("-t", "x", "-v");
}

TEST(version_prints_doca_version_and_exits_zero)
{
	struct capture c;

	capture_run(run_version, &c);
	ASSERT_EQ(c.exit_code, 0);
	ASSERT_CONTAINS(c.out, "DOCA SDK     Version (Compilation): " DOCA_VERSION_STRING "\n");
	ASSERT_CONTAINS(c.out, "DOCA Runtime Version (Runtime):     " DOCA_VERSION_STRING "\n");
	ASSERT_NOT_CONTAINS(c.out, "text=");
}

static doca_error_t
cb_version(void *param, void *cfg)
{
	printf("my-tool 1.2.3 (param %s, config %s)\n", param == NULL ? "NULL" : "set",
	       cfg == &test_cfg ? "ok" : "wrong");
	return DOCA_SUCCESS;
}

static doca_error_t
run_version_cb(void)
{
	setup_std();
	if (doca_argp_register_version_callback(cb_version) != DOCA_SUCCESS)
		return DOCA_ERROR_UNEXPECTED;
	return START("--version");
}

TEST(version_callback_replaces_default)
{
	struct capture c;

	capture_run(run_version_cb, &c);
	ASSERT_EQ(c.exit_code, 0);
	ASSERT_STR_EQ(c.out, "my-tool 1.2.3 (param NULL, config ok)\n");
}

static doca_error_t
cb_version_fail(void *param, void *cfg)
{
	return DOCA_ERROR_IO_FAILED;
}

TEST(failing_version_callback_returns_its_error)
{
	setup_std();
	ASSERT_OK(doca_argp_register_version_callback(cb_version_fail));
	ASSERT_ERR(START("-v"), DOCA_ERROR_IO_FAILED);
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
run_help_value(void)
{
	setup_std();
	return START("--help=yes");
}

TEST(help_with_value_is_an_error_not_an_exit)
{
	struct capture c;

	capture_run(run_help_value, &c);
	ASSERT_EQ(c.exit_code, 100 + DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(c.out, "");
	ASSERT_CONTAINS(c.err, "Usage: prog");
}

static doca_error_t
run_usage_before_init(void)
{
	doca_argp_usage();
	return DOCA_SUCCESS;
}

/* Before doca_argp_init() there is nothing to print: no usage, no exit, one line saying why. */
TEST(usage_before_init_does_nothing)
{
	struct capture c;

	capture_run(run_usage_before_init, &c);
	ASSERT_EQ(c.exit_code, 100 + DOCA_SUCCESS);
	ASSERT_STR_EQ(c.out, "");
	ASSERT_CONTAINS(c.err, "doca_argp_usage: argp is not initialised; call doca_argp_init() first");
	ASSERT(strstr(c.err, "Usage:") == NULL);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}

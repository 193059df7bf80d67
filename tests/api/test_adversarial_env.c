/*
 * test_adversarial_env.c - hostile environments (issue 11): every option of
 * base/options.def given values test_options.c does not try: empty, blank,
 * signed, overflowing, at and past each bound, wrong case, longer than a
 * path, a directory for a file; options changed while a device is open;
 * and the options read when the library loads (ACLSIM_FAULT,
 * ACLSIM_FAULT_COUNT, ACLSIM_DIFF, FIU_ENABLE), which need a process of
 * their own: this binary runs itself with --child in a prepared
 * environment. A bad value is reported by aclInit (ACL_ERROR_INVALID_PARAM,
 * one message format) and never crashes or half-configures the library.
 */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "aclsim/aclsim.h"
#include "testutil.h"

extern char **environ;
static const char *self; /* argv[0]: this binary, for the child runs */

static const char *const all_options[] = {
#define OPT(id, name, kind, def, lo, hi, when, help) name,
#include "base/options.def"
#undef OPT
};

/* Every option unset, as the suite starts. */
static int clean(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof all_options / sizeof all_options[0]; i++)
        unsetenv(all_options[i]);
    (void)aclGetRecentErrMsg();
    return 0;
}

static void expect_rejected(const char *name, const char *value, const char *expected)
{
    setenv(name, value, 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    char text[512];
    if (strlen(value) < 256) {
        snprintf(text, sizeof text,
                 "The argument is invalid. Reason: aclInit failed: %s=%s is invalid: %s.", name,
                 value, expected);
        expect_msg("Invalid_Argument(EE1001)", text);
    } else {
        /* A message holds 512 characters: the value fills it, the reason
         * is cut off (the variable is still named). */
        snprintf(text, sizeof text, "Invalid_Argument(EE1001): The argument is invalid. Reason: "
                 "aclInit failed: %s=%.64s", name, value);
        const char *m = aclGetRecentErrMsg();
        assert_non_null(m);
        assert_non_null(strstr(m, text));
    }
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE); /* nothing was started */
    unsetenv(name);
}

/* aclInit with name=value works, and so does a device. */
static void expect_accepted(const char *name, const char *value)
{
    setenv(name, value, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    void *p;
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    expect_no_msg();
    unsetenv(name);
}

static const char at_least_1m[] = "expected a decimal number of at least 1048576";
static const char granule[] =
    "expected a multiple of 64 bytes from 1 MiB to 16 TiB (17592186044416)";

static void test_hbm_bytes_bounds_signs_blanks_and_overflow(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_HBM_BYTES", "1048575", at_least_1m);
    expect_rejected("ACLSIM_HBM_BYTES", "0", at_least_1m);
    expect_rejected("ACLSIM_HBM_BYTES", "+1048576", at_least_1m);
    expect_rejected("ACLSIM_HBM_BYTES", "1048576 ", at_least_1m);
    expect_rejected("ACLSIM_HBM_BYTES", "\t1048576", at_least_1m);
    expect_rejected("ACLSIM_HBM_BYTES", "1e6", at_least_1m);
    expect_rejected("ACLSIM_HBM_BYTES", "18446744073709551616", at_least_1m); /* 2^64 */
    expect_rejected("ACLSIM_HBM_BYTES", "18446744073709551615", granule);     /* 2^64 - 1 */
    expect_rejected("ACLSIM_HBM_BYTES", "17592186044480", granule); /* one granule too many */
    expect_rejected("ACLSIM_HBM_BYTES", "68719476737", granule);    /* off the granule */
    /* The bounds themselves, and an empty value (= unset: the profile's). */
    expect_accepted("ACLSIM_HBM_BYTES", "1048576");
    expect_accepted("ACLSIM_HBM_BYTES", "68719476736");
    expect_accepted("ACLSIM_HBM_BYTES", "68719476800"); /* above the profile's: a larger part */
    expect_accepted("ACLSIM_HBM_BYTES", "");
}

/* The driver's reserve takes at most half of a device smaller than it
 * (sim/policy.c): what is reported is what can be allocated, to the byte. */
static void test_smallest_device_reports_what_it_can_hand_out(void **state)
{
    (void)state;
    size_t fr, total;
    void *p;
    setenv("ACLSIM_HBM_BYTES", "1048576", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    /* Smaller than CANN's 8 MiB reserve: half of it is reserved. */
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(total, 1048576 / 2);
    assert_int_equal(fr, total);
    assert_int_equal(aclrtMalloc(&p, total - 32, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(fr, 0);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_device_count_bounds(void **state)
{
    (void)state;
    static const char range[] = "expected a decimal number from 1 to 64";
    expect_rejected("ACLSIM_DEVICE_COUNT", "-1", range);
    expect_rejected("ACLSIM_DEVICE_COUNT", "4294967297", range); /* 2^32 + 1 */
    expect_rejected("ACLSIM_DEVICE_COUNT", " 2", range);
    /* 64 devices: the last one opens, the next id does not exist. */
    setenv("ACLSIM_DEVICE_COUNT", "064", 1); /* decimal digits: 64 */
    setenv("ACLSIM_HBM_BYTES", "1048576", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    uint32_t n = 0;
    assert_int_equal(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    assert_int_equal(n, 64);
    assert_int_equal(aclrtSetDevice(63), ACL_SUCCESS);
    void *p;
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclrtPtrAttributes a;
    assert_int_equal(aclrtPointerGetAttributes(p, &a), ACL_SUCCESS);
    assert_int_equal(a.location.id, 63);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(64), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: invalid device id 64, "
               "valid range is [0, 64).");
    assert_int_equal(aclrtResetDevice(63), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_soc_names_are_exact(void **state)
{
    (void)state;
    /* Every name is listed, and the nearest (letters without case) named. */
    static const char want[] = "expected one of the SoC profiles Ascend910B1, Ascend910B2, Ascend910B3, Ascend910B4, "
    "Ascend910_9391, Ascend910_9392, Ascend910_9381, Ascend910_9382, Ascend910_9372, "
    "Ascend910_9362, Ascend950PR_9599, Ascend950DT_9581"
                               "; did you mean Ascend910B1?";
    expect_rejected("ACLSIM_SOC", "ascend910b1", want);
    expect_rejected("ACLSIM_SOC", "Ascend910B1 ", want);
    expect_rejected("ACLSIM_SOC", "Ascend910", want);
    /* Each documented profile opens, and aclrtGetSocName says which. */
    static const char *const socs[] = {"Ascend910B1", "Ascend910B2", "Ascend910B4",
                                       "Ascend910_9391", "Ascend910_9392", "Ascend950PR_9599",
                                       "Ascend950DT_9581"};
    for (size_t i = 0; i < sizeof socs / sizeof socs[0]; i++) {
        setenv("ACLSIM_SOC", socs[i], 1);
        assert_int_equal(aclInit(NULL), ACL_SUCCESS);
        assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
        assert_string_equal(aclrtGetSocName(), socs[i]);
        assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
        assert_int_equal(aclFinalize(), ACL_SUCCESS);
    }
    unsetenv("ACLSIM_SOC");
}

static void test_values_longer_than_a_path(void **state)
{
    (void)state;
    static char longv[5000];
    memset(longv, 'a', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    expect_rejected("ACLSIM_SOC", longv, "expected at most 4095 characters");
    expect_rejected("ACLSIM_TRACE", longv, "expected at most 4095 characters");
    expect_rejected("ASCEND_INSTALL_PATH", longv, "expected at most 4095 characters");
    expect_rejected("ACLSIM_HBM_BYTES", longv, at_least_1m);
}

static void test_trace_to_a_directory_or_a_missing_one_fails_init(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_TRACE", "/tmp", "the file cannot be created");
    expect_rejected("ACLSIM_TRACE", "/nonexistent/trace.json", "the file cannot be created");
    /* A good one is written at the runtime's end, even after a failed init:
     * at aclFinalize when no device is open, else when the last one closes
     * (CANN's aclFinalize resets no device: src/acl/aclrt_impl/acl.cpp:547). */
    char path[] = "/tmp/aclsim-adv-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    setenv("ACLSIM_TRACE", path, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    void *p;
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, 4096, 0, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS); /* the last device: the end */
    struct stat st;
    unsetenv("ACLSIM_TRACE");
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 0);
    unlink(path);
}

static void test_words_flags_and_log_levels(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_LEAK_CHECK", "WARN", "expected one of off, warn, error");
    expect_rejected("ACLSIM_LEAK_CHECK", "warn ", "expected one of off, warn, error");
    expect_rejected("ACLSIM_TRACK", "-1", "expected 0 or 1");
    expect_rejected("ACLSIM_TRACK", "true", "expected 0 or 1");
    expect_rejected("ACLSIM_BANNER", "2", "expected 0 or 1");
    expect_rejected("ASCEND_SLOG_PRINT_TO_STDOUT", "2", "expected 0 or 1");
    /* CANN's log library takes a level out of range for its default. */
    expect_accepted("ASCEND_GLOBAL_LOG_LEVEL", "9");
    expect_accepted("ASCEND_GLOBAL_LOG_LEVEL", "-1");
    expect_accepted("ASCEND_GLOBAL_LOG_LEVEL", "warn");
    expect_accepted("ACLSIM_LEAK_CHECK", "off");
    expect_accepted("ACLSIM_TRACK", "1");
    expect_accepted("ACLSIM_TRACK", "00");
    expect_accepted("ASCEND_GLOBAL_LOG_LEVEL", "4");
    /* A path the sim backend does not use is not checked by it. */
    expect_accepted("ASCEND_INSTALL_PATH", "/nonexistent");
}

/* The lines aclAppLog prints on stdout with ASCEND_GLOBAL_LOG_LEVEL=level:
 * one per level from debug to error, counted. */
static int log_lines(const char *level)
{
    char path[] = "/tmp/aclsim-applog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
    setenv("ASCEND_GLOBAL_LOG_LEVEL", level, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    aclAppLog(ACL_DEBUG, __func__, __FILE__, __LINE__, "debug");
    aclAppLog(ACL_INFO, __func__, __FILE__, __LINE__, "info");
    aclAppLog(ACL_WARNING, __func__, __FILE__, __LINE__, "warning");
    aclAppLog(ACL_ERROR, __func__, __FILE__, __LINE__, "error");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    unsetenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
    int n = 0;
    FILE *f = fdopen(fd, "r");
    assert_non_null(f);
    rewind(f);
    for (int c; (c = fgetc(f)) != EOF;)
        n += c == '\n';
    fclose(f);
    unlink(path);
    return n;
}

static void test_log_level_out_of_range_is_the_default(void **state)
{
    (void)state;
    assert_int_equal(log_lines("0"), 4);
    assert_int_equal(log_lines(" 2"), 2); /* strtol's leading blanks, as CANN */
    assert_int_equal(log_lines("4"), 0);
    assert_int_equal(log_lines("3"), 1);
    assert_int_equal(log_lines("9"), 1); /* out of range: the default, errors only */
    assert_int_equal(log_lines("-1"), 1);
    assert_int_equal(log_lines("2x"), 1);
}

/* With several bad values, the first of the catalogue is named, and one
 * fixed value is not enough. */
static void test_several_bad_values(void **state)
{
    (void)state;
    setenv("ACLSIM_DEVICE_COUNT", "0", 1);
    setenv("ACLSIM_TRACK", "9", 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclInit failed: "
               "ACLSIM_DEVICE_COUNT=0 is invalid: expected a decimal number from 1 to 64.");
    unsetenv("ACLSIM_DEVICE_COUNT");
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EE1001)", "The argument is invalid. Reason: aclInit failed: "
               "ACLSIM_TRACK=9 is invalid: expected 0 or 1.");
    unsetenv("ACLSIM_TRACK");
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* The device settings stay as they were while a device is open: a device
 * opened before aclInit keeps its size through it; the next start takes
 * the new values. */
static void test_device_settings_fixed_while_a_device_is_open(void **state)
{
    (void)state;
    size_t fr, total;
    setenv("ACLSIM_HBM_BYTES", "16777216", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS); /* before aclInit: allowed */
    setenv("ACLSIM_HBM_BYTES", "33554432", 1);
    setenv("ACLSIM_SOC", "Ascend950PR_9599", 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(total, 16777216 - (8u << 20));
    assert_string_equal(aclrtGetSocName(), "Ascend910B1");
    /* CANN's aclFinalize resets no device: device 0 stays open, with its size, until reset. */
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(total, 16777216 - (8u << 20));
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total), ACL_SUCCESS);
    assert_int_equal(total, 33554432 - (8u << 20));
    assert_string_equal(aclrtGetSocName(), "Ascend950PR_9599");
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    unsetenv("ACLSIM_HBM_BYTES");
    unsetenv("ACLSIM_SOC");
}

/* ---- Options read when the library loads: a child process each ---- */

/* Run this binary with --child and `env` (NAME=value strings) added to a
 * clean environment; its stdout and stderr go to out. Returns its status. */
static int run_child(const char *const *env, char *out, size_t len)
{
    char *envp[256];
    size_t n = 0;
    for (char **e = environ; *e && n < 200; e++) {
        int ours = 0;
        for (size_t i = 0; i < sizeof all_options / sizeof all_options[0]; i++) {
            size_t l = strlen(all_options[i]);
            ours |= strncmp(*e, all_options[i], l) == 0 && (*e)[l] == '=';
        }
        if (!ours)
            envp[n++] = *e;
    }
    for (; *env && n < 255; env++)
        envp[n++] = (char *)*env;
    envp[n] = NULL;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = {(char *)self, (char *)"--child", NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, self, &fa, NULL, argv, envp), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fds[0], out + got, len - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got == len - 1)
            break;
    }
    out[got] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* What the child does: start, report, use a device, report, stop. */
static int child(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    aclError rc = aclInit(NULL);
    const char *m = aclGetRecentErrMsg();
    printf("init=%d\n", rc);
    if (m && strstr(m, "): ")) /* the first line's text, after "Title(CODE): " */
        printf("msg=%.*s\n", (int)strcspn(strstr(m, "): ") + 3, "\n"), strstr(m, "): ") + 3);
    if (rc != ACL_SUCCESS) {
        printf("init2=%d\n", aclInit(NULL));
        (void)aclGetRecentErrMsg();
    }
    void *a = NULL, *b = NULL;
    printf("set=%d\n", aclrtSetDevice(0));
    printf("malloc1=%d\n", aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    printf("malloc2=%d\n", aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    (void)aclGetRecentErrMsg();
    if (a)
        aclrtFree(a);
    if (b)
        aclrtFree(b);
    aclrtResetDevice(0);
    aclFinalize();
    (void)aclGetRecentErrMsg();
    return 0;
}

static void expect_child(const char *const *env, const char *const *want)
{
    char out[8192];
    int status = run_child(env, out, sizeof out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the child with %s died (status %#x):\n%s", env[0], status, out);
    for (; *want; want++)
        if (!strstr(out, *want))
            fail_msg("the child with %s printed\n%s\nwithout\n%s", env[0], out, *want);
}

static void test_bad_fault_specs_are_reported_at_load_and_by_aclinit(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *why;
    } bad[] = {
        {"acl/rt/nope", "no fault point matches 'acl/rt/nope' (scons faults lists them)"},
        {"acl/rt/malloc@0", "expected a hit count from 1 after '@' (name@n, name@n+)"},
        {"acl/rt/malloc@", "expected a hit count from 1 after '@' (name@n, name@n+)"},
        {"@1", "no fault point matches '' (scons faults lists them)"},
        {"acl/rt/malloc@1x", "expected nothing but '+' after the hit count (name@n, name@n+)"},
        {"acl/rt/malloc@1++", "expected nothing but '+' after the hit count (name@n, name@n+)"},
        {"acl/rt/malloc@99999999999999999999999", "the count is too large"},
        {"acl/rt/malloc,acl/rt/nope", "no fault point matches 'acl/rt/nope' (scons faults lists them)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char env[256], load[512], init[512];
        snprintf(env, sizeof env, "ACLSIM_FAULT=%s", bad[i].spec);
        snprintf(load, sizeof load, "aclsim: ACLSIM_FAULT=%s is invalid: %s; aclInit fails until "
                 "it is fixed\n", bad[i].spec, bad[i].why);
        snprintf(init, sizeof init, "msg=The argument is invalid. Reason: aclInit failed: "
                 "ACLSIM_FAULT=%s is invalid: %s.\n", bad[i].spec, bad[i].why);
        const char *e[] = {env, NULL};
        /* Nothing is armed: both allocations work; aclInit fails every
         * time, since a load-time value cannot change in the process. */
        const char *want[] = {load, "init=100000\n", init, "init2=100000\n", "set=0\n",
                              "malloc1=0\n", "malloc2=0\n", NULL};
        expect_child(e, want);
    }
}

static void test_good_fault_specs_arm_exactly_what_they_say(void **state)
{
    (void)state;
    const char *second[] = {"ACLSIM_FAULT=acl/rt/malloc@2", NULL};
    const char *want2[] = {"init=0\n", "malloc1=0\n", "malloc2=207001\n", NULL};
    expect_child(second, want2);
    const char *empty[] = {"ACLSIM_FAULT=,,,", NULL};
    const char *want_none[] = {"init=0\n", "malloc1=0\n", "malloc2=0\n", NULL};
    expect_child(empty, want_none);
    const char *star[] = {"ACLSIM_FAULT=acl/rt/mal*@1+", NULL};
    const char *want_all[] = {"init=0\n", "malloc1=207001\n", "malloc2=207001\n", NULL};
    expect_child(star, want_all);
    const char *fiu[] = {"FIU_ENABLE=", "FIU_CTRL_FIFO=", NULL}; /* empty: unset */
    expect_child(fiu, want_none);
}

static void test_fault_count_file_and_diff_on_the_sim(void **state)
{
    (void)state;
    const char *nodir[] = {"ACLSIM_FAULT_COUNT=/nonexistent/dir/counts", NULL};
    const char *want_nodir[] = {
        "init=100000\n",
        "msg=The argument is invalid. Reason: aclInit failed: ACLSIM_FAULT_COUNT=/nonexistent/dir/"
        "counts is invalid: the file cannot be created: No such file or directory.\n",
        "malloc1=0\n", NULL};
    expect_child(nodir, want_nodir);
    char path[] = "/tmp/aclsim-adv-counts-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char env[128];
    snprintf(env, sizeof env, "ACLSIM_FAULT_COUNT=%s", path);
    const char *good[] = {env, NULL};
    const char *want_good[] = {"init=0\n", "malloc2=0\n", NULL};
    expect_child(good, want_good);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char counts[16384];
    size_t n = fread(counts, 1, sizeof counts - 1, f);
    counts[n] = '\0';
    fclose(f);
    unlink(path);
    assert_non_null(strstr(counts, "acl/rt/malloc 2\n"));
    assert_non_null(strstr(counts, "lib/host/malloc "));
    /* Differential mode needs a real runtime: on the simulator it says so
     * and the program runs as usual; a value that is no flag is rejected. */
    const char *diff[] = {"ACLSIM_DIFF=1", NULL};
    const char *want_diff[] = {"aclsim diff: ACLSIM_DIFF=1 needs a backend over a real runtime "
                               "(scons hw=ascend); the sim backend has none\n",
                               "init=0\n", "malloc2=0\n", NULL};
    expect_child(diff, want_diff);
    const char *bad_diff[] = {"ACLSIM_DIFF=yes", NULL};
    const char *want_bad_diff[] = {"aclsim: ACLSIM_DIFF=yes is invalid: expected 0 or 1; aclInit "
                                   "fails until it is fixed\n",
                                   "init=100000\n", "malloc1=0\n", NULL};
    expect_child(bad_diff, want_bad_diff);
}

int main(int argc, char **argv)
{
    self = argv[0];
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child();
#define T(f) cmocka_unit_test_setup_teardown(f, clean, clean)
    const struct CMUnitTest tests[] = {
        T(test_hbm_bytes_bounds_signs_blanks_and_overflow),
        T(test_smallest_device_reports_what_it_can_hand_out),
        T(test_device_count_bounds),
        T(test_soc_names_are_exact),
        T(test_values_longer_than_a_path),
        T(test_trace_to_a_directory_or_a_missing_one_fails_init),
        T(test_words_flags_and_log_levels),
        T(test_log_level_out_of_range_is_the_default),
        T(test_several_bad_values),
        T(test_device_settings_fixed_while_a_device_is_open),
        T(test_bad_fault_specs_are_reported_at_load_and_by_aclinit),
        T(test_good_fault_specs_arm_exactly_what_they_say),
        T(test_fault_count_file_and_diff_on_the_sim),
    };
    return cmocka_run_group_tests_name("adversarial environment", tests, NULL, NULL);
}

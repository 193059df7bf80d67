/*
 * test_options.c - aclsim's run-time options (base/options.def): a bad
 * value makes aclInit fail with ACL_ERROR_INVALID_PARAM and a message that
 * names the variable in one format, nothing is left half-built (the next
 * aclInit with a good value works), and the manual (docs/using.md's table,
 * every page) and the catalogue never drift apart.
 */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>
#include "testutil.h"

static const struct {
    const char *name, *help;
} options[] = {
#define OPT(id, name, kind, def, lo, hi, when, help) {name, help},
#include "base/options.def"
#undef OPT
};
#define N_OPTIONS (sizeof options / sizeof options[0])

/* aclInit with name=value must fail naming it; then, with the variable
 * gone, aclInit and a device work. */
static void expect_rejected(const char *name, const char *value, const char *expected)
{
    setenv(name, value, 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    char text[512];
    snprintf(text, sizeof text,
             "The argument is invalid. Reason: aclInit failed: %s=%s is invalid: %s.", name, value,
             expected);
    expect_msg("Invalid_Argument(EE1001)", text);
    unsetenv(name);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    expect_no_msg();
}

static void test_hbm_bytes_with_a_leading_space_is_rejected(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_HBM_BYTES", " 5", "expected a decimal number of at least 1048576");
    expect_rejected("ACLSIM_HBM_BYTES", " -5", "expected a decimal number of at least 1048576");
}

static void test_hbm_bytes_must_be_digits_only(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_HBM_BYTES", "abc", "expected a decimal number of at least 1048576");
    expect_rejected("ACLSIM_HBM_BYTES", "64M", "expected a decimal number of at least 1048576");
    expect_rejected("ACLSIM_HBM_BYTES", "0x100000",
                    "expected a decimal number of at least 1048576");
    expect_rejected("ACLSIM_HBM_BYTES", "-1", "expected a decimal number of at least 1048576");
    expect_rejected("ACLSIM_HBM_BYTES", "99999999999999999999999",
                    "expected a decimal number of at least 1048576");
}

/* Before, a size off the heap's granule passed aclInit and every
 * aclrtSetDevice failed without naming the variable. */
static void test_hbm_bytes_off_the_granule_fails_at_init_not_at_set_device(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_HBM_BYTES", "1048577",
                    "expected a multiple of 64 bytes from 1 MiB to 16 TiB (17592186044416)");
    expect_rejected("ACLSIM_HBM_BYTES", "17592186044480",
                    "expected a multiple of 64 bytes from 1 MiB to 16 TiB (17592186044416)");
    setenv("ACLSIM_HBM_BYTES", "1048640", 1); /* 1 MiB + 64: fine */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    unsetenv("ACLSIM_HBM_BYTES");
}

static void test_device_count_out_of_range_is_rejected(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_DEVICE_COUNT", "0", "expected a decimal number from 1 to 64");
    expect_rejected("ACLSIM_DEVICE_COUNT", "65", "expected a decimal number from 1 to 64");
}

#define SOC_NAMES \
    "expected one of the SoC profiles Ascend910B1, Ascend910B2, Ascend910B3, Ascend910B4, " \
    "Ascend910_9391, Ascend910_9392, Ascend910_9381, Ascend910_9382, Ascend910_9372, " \
    "Ascend910_9362, Ascend950PR_9599, Ascend950DT_9581"

static void test_words_and_flags_are_checked(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_LEAK_CHECK", "maybe", "expected one of off, warn, error");
    expect_rejected("ACLSIM_TRACK", "2", "expected 0 or 1");
    expect_rejected("ACLSIM_BANNER", "yes", "expected 0 or 1");
    /* Too far from every name for a guess: the names alone. */
    expect_rejected("ACLSIM_SOC", "Ascend999", SOC_NAMES);
}

/* A program that prints only return codes still shows why aclInit failed:
 * the complaint is also one line on stderr. */
static void test_bad_setting_is_printed_on_stderr(void **state)
{
    (void)state;
    char path[] = "/tmp/aclsim-options-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    setenv("ACLSIM_SOC", "ascend910b1", 1);
    aclError rc = aclInit(NULL);
    unsetenv("ACLSIM_SOC");
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    assert_int_equal(rc, ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    char text[1024] = "";
    FILE *f = fdopen(fd, "r");
    assert_non_null(f);
    rewind(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    unlink(path);
    const char *want = "aclsim: aclInit failed: ACLSIM_SOC=ascend910b1 is invalid: " SOC_NAMES
                       "; did you mean Ascend910B1?\n";
    assert_string_equal(text, want);
}

static void test_unwritable_trace_fails_init_naming_it(void **state)
{
    (void)state;
    expect_rejected("ACLSIM_TRACE", "/nonexistent-dir/trace.json",
                    "the file cannot be created");
}

/* ---- The documentation ---- */

/* The manual's pages: the front door and every docs/ page. */
static char doc[1 << 18];

static void load_doc(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
}

/* docs/using.md's table of environment variables lists every option. */
static void test_docs_table_lists_every_option(void **state)
{
    (void)state;
    load_doc(ACLSIM_ROOT "/docs/using.md");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        char row[128];
        snprintf(row, sizeof row, "`%s`", options[i].name);
        if (!strstr(doc, row))
            fail_msg("docs/using.md's table does not document %s", options[i].name);
    }
}

/* An ACLSIM_* variable any page names must be one the library reads. */
static void names_no_unknown_option(const char *path)
{
    load_doc(path);
    for (const char *p = strstr(doc, "ACLSIM_"); p; p = strstr(p + 1, "ACLSIM_")) {
        char name[64];
        size_t n = 0;
        while (n < sizeof name - 1 && ((p[n] >= 'A' && p[n] <= 'Z') || p[n] == '_' ||
                                       (p[n] >= '0' && p[n] <= '9')))
            name[n] = p[n], n++;
        name[n] = '\0';
        int known = 0;
        for (size_t i = 0; i < N_OPTIONS; i++)
            known |= strcmp(options[i].name, name) == 0;
        if (!known)
            fail_msg("%s names %s, which base/options.def does not define", path, name);
    }
}

static void test_docs_name_no_option_the_library_lacks(void **state)
{
    (void)state;
    names_no_unknown_option(ACLSIM_ROOT "/README.md");
    DIR *d = opendir(ACLSIM_ROOT "/docs");
    assert_non_null(d);
    int pages = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".md") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/docs/%s", ACLSIM_ROOT, e->d_name);
        names_no_unknown_option(path);
        pages++;
    }
    closedir(d);
    assert_true(pages >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hbm_bytes_with_a_leading_space_is_rejected),
        cmocka_unit_test(test_hbm_bytes_must_be_digits_only),
        cmocka_unit_test(test_hbm_bytes_off_the_granule_fails_at_init_not_at_set_device),
        cmocka_unit_test(test_device_count_out_of_range_is_rejected),
        cmocka_unit_test(test_words_and_flags_are_checked),
        cmocka_unit_test(test_unwritable_trace_fails_init_naming_it),
        cmocka_unit_test(test_bad_setting_is_printed_on_stderr),
        cmocka_unit_test(test_docs_table_lists_every_option),
        cmocka_unit_test(test_docs_name_no_option_the_library_lacks),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}

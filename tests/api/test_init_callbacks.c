/*
 * test_init_callbacks.c - init and finalize callbacks: registration codes,
 * the order and arguments aclInit and aclFinalize call them with, failures
 * (CANN's src/acl/aclrt_impl/init_callback_manager.cpp and acl.cpp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "testutil.h"

#define LOG_MAX 16
static struct {
    int n;
    int who[LOG_MAX];
    char cfg[LOG_MAX][64];
    size_t len[LOG_MAX];
} lg;

static aclError fail_with; /* what the failing callbacks return */

static void log_call(int who, const char *cfg, size_t len)
{
    if (lg.n < LOG_MAX) {
        lg.who[lg.n] = who;
        snprintf(lg.cfg[lg.n], sizeof lg.cfg[0], "%s", cfg ? cfg : "(null)");
        lg.len[lg.n++] = len;
    }
}

static aclError init_a(const char *cfg, size_t len, void *user)
{
    log_call(*(int *)user, cfg, len);
    return ACL_SUCCESS;
}

static aclError init_b(const char *cfg, size_t len, void *user)
{
    log_call(*(int *)user, cfg, len);
    return ACL_SUCCESS;
}

static aclError init_fail(const char *cfg, size_t len, void *user)
{
    log_call(*(int *)user, cfg, len);
    return fail_with;
}

static aclError fini_a(void *user)
{
    log_call(*(int *)user, "", 0);
    return ACL_SUCCESS;
}

static aclError fini_b(void *user)
{
    log_call(*(int *)user, "", 0);
    return ACL_SUCCESS;
}

static aclError fini_fail(void *user)
{
    log_call(*(int *)user, "", 0);
    return fail_with;
}

static int ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};

static int reset_log(void **state)
{
    (void)state;
    memset(&lg, 0, sizeof lg);
    return 0;
}

static void test_register_checks_and_codes(void **state)
{
    (void)state;
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, NULL, NULL),
                     ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, NULL, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_no_msg(); /* CANN reports nothing for these */
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_a, &ids[1]), ACL_SUCCESS);
    /* One entry per type but OTHER, whatever the callback. */
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_b, &ids[2]),
                     ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_a, &ids[1]),
                     ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_a, &ids[3]), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_a, &ids[4]), ACL_SUCCESS);
    /* Any type value is taken. */
    assert_int_equal(aclInitCallbackRegister((aclRegisterCallbackType)77, init_b, NULL), ACL_SUCCESS);
    expect_no_msg();
    /* Unregister: NULL, an empty type, a callback not under the type. */
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, NULL), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_a),
                     ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_b),
                     ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, fini_a),
                     ACL_ERROR_INTERNAL_ERROR);
    expect_no_msg();
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_a),
                     ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister((aclRegisterCallbackType)77, init_b), ACL_SUCCESS);
    /* Nothing registered was run. */
    assert_int_equal(lg.n, 0);
}

/* Register the same set of init and finalize callbacks (ids are types). */
static void register_all(void)
{
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_a, &ids[7]), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_a, &ids[6]), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, init_a, &ids[3]),
                     ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, init_a, &ids[1]),
                     ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_a, &ids[0]), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_b, &ids[5]), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_a, &ids[7]), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, fini_a, &ids[6]),
                     ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, fini_a, &ids[0]),
                     ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, fini_a, &ids[3]),
                     ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, fini_a, &ids[1]),
                     ACL_SUCCESS);
}

static void unregister_all(void)
{
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_b), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_OP_COMPILER, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, init_a), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_a), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, fini_a), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, fini_a), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, fini_a), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_OP_COMPILER, fini_a),
                     ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, fini_a),
                     ACL_SUCCESS);
}

static void expect_order(const int *who, int n)
{
    assert_int_equal(lg.n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(lg.who[i], who[i]);
}

static void test_init_without_config_runs_model_dvpp_other(void **state)
{
    (void)state;
    register_all();
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    /* MODEL, DVPP, then OTHER in registration order; no OP_EXECUTOR
     * without a config file, never OP_COMPILER. */
    const int want[] = {0, 6, 7, 5};
    expect_order(want, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(lg.cfg[i], "");
        assert_int_equal(lg.len[i], 0);
    }
    /* A second aclInit only counts; the finalize callbacks run at the
     * real end only, in their own order. */
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    uint64_t left;
    memset(&lg, 0, sizeof lg);
    assert_int_equal(aclFinalizeReference(&left), ACL_SUCCESS);
    assert_int_equal(left, 1);
    assert_int_equal(lg.n, 0);
    assert_int_equal(aclFinalizeReference(&left), ACL_SUCCESS);
    assert_int_equal(left, 0);
    const int fin[] = {3, 0, 6, 7};
    expect_order(fin, 4);
    unregister_all();
}

static void test_init_with_config_passes_its_contents(void **state)
{
    (void)state;
    char path[] = "/tmp/aclsim-init-cbXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char text[] = "{\"dump\": {}}";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    register_all();
    assert_int_equal(aclInit(path), ACL_SUCCESS);
    const int want[] = {0, 1, 6, 7, 5};
    expect_order(want, 5);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(lg.cfg[i], text);
        assert_int_equal(lg.len[i], sizeof text - 1);
    }
    /* Registered while initialised: runs at once, with the config. */
    memset(&lg, 0, sizeof lg);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, init_fail, &ids[4]),
                     ACL_SUCCESS);
    assert_int_equal(lg.n, 1);
    assert_int_equal(lg.who[0], 4);
    assert_string_equal(lg.cfg[0], text);
    /* A finalize callback registered now does not run now. */
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, fini_b, &ids[4]),
                     ACL_SUCCESS);
    assert_int_equal(lg.n, 1);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    /* The registration's run, then no TDT_QUEUE: aclFinalize never runs that type. */
    const int fin[] = {4, 3, 0, 6, 7};
    expect_order(fin, 5);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, init_fail), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, fini_b),
                     ACL_SUCCESS);
    unregister_all();
    unlink(path);
}

static void test_failing_init_callback_fails_init(void **state)
{
    (void)state;
    fail_with = ACL_ERROR_FAILURE;
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_fail, &ids[0]),
                     ACL_SUCCESS);
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_a, &ids[7]), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_ERROR_FAILURE);
    expect_msg("Inner_Error(EH9999)", "call acl_model init callback failed, ret:500001");
    assert_int_equal(lg.n, 1); /* OTHER never ran */
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE); /* stayed uninitialised */
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_fail), ACL_SUCCESS);
    /* An OTHER callback's failure is returned without a message. */
    assert_int_equal(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_fail, &ids[5]), ACL_SUCCESS);
    fail_with = 123456;
    memset(&lg, 0, sizeof lg);
    assert_int_equal(aclInit(NULL), 123456);
    expect_no_msg();
    const int want[] = {7, 5};
    expect_order(want, 2);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_fail), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_a), ACL_SUCCESS);
}

static void test_failing_finalize_callback_keeps_runtime_initialised(void **state)
{
    (void)state;
    fail_with = ACL_ERROR_INTERNAL_ERROR;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, fini_fail, &ids[0]),
                     ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fini_a, &ids[7]), ACL_SUCCESS);
    uint64_t left = 9;
    assert_int_equal(aclFinalizeReference(&left), ACL_ERROR_INTERNAL_ERROR);
    assert_int_equal(left, 1);
    expect_msg("Inner_Error(EH9999)", "call acl_model finalize callback failed, ret:500000");
    assert_int_equal(aclFinalize(), ACL_ERROR_INTERNAL_ERROR);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "[Finalize][Acl]finalize internal failed, errorCode = 500000"));
    const int want[] = {0, 0};
    expect_order(want, 2); /* OTHER never ran */
    /* Still initialised, the device still open. */
    void *p;
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, fini_fail), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(lg.n, 3);
    assert_int_equal(lg.who[2], 7);
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    assert_int_equal(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, fini_a), ACL_SUCCESS);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, reset_log)
    const struct CMUnitTest tests[] = {
        T(test_register_checks_and_codes),
        T(test_init_without_config_runs_model_dvpp_other),
        T(test_init_with_config_passes_its_contents),
        T(test_failing_init_callback_fails_init),
        T(test_failing_finalize_callback_keeps_runtime_initialised),
    };
    return cmocka_run_group_tests_name("init callbacks", tests, NULL, NULL);
}

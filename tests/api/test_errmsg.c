/*
 * test_errmsg.c - aclGetRecentErrMsg: CANN's report format, per-thread
 * queues, NULL when empty, cleared on read, TraceBack for further messages.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "testutil.h"
#include "acl/acl_rt_allocator.h"

static void test_recent_err_msg_null_when_nothing_failed(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    assert_null(aclGetRecentErrMsg());
}

static void test_recent_err_msg_cleared_on_read(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    assert_non_null(aclGetRecentErrMsg());
    assert_null(aclGetRecentErrMsg());
}

/* "[PID: <pid>] YYYY-MM-DD-HH:MM:SS.mmm.uuu Title(CODE): text", then the
 * Solution line indented by 8 spaces. */
static void test_recent_err_msg_has_cann_header_and_solution(void **state)
{
    (void)state;
    assert_int_equal(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    char want[64];
    snprintf(want, sizeof want, "[PID: %d] ", (int)getpid());
    assert_int_equal(strncmp(m, want, strlen(want)), 0);
    const char *t = m + strlen(want);
    int y, mo, d, h, mi, s, ms, us, n = 0;
    assert_int_equal(sscanf(t, "%4d-%2d-%2d-%2d:%2d:%2d.%3d.%3d %n", &y, &mo, &d, &h, &mi, &s,
                            &ms, &us, &n), 8);
    assert_true(y >= 2024 && mo >= 1 && mo <= 12 && ms < 1000 && us < 1000);
    assert_string_equal(t + n,
                        "Invalid_Argument_Null_Pointer(EH0008): aclrtAllocatorDestroyDesc failed "
                        "because allocatorDesc cannot be a NULL pointer.\n"
                        "        Solution: Try again with a correct pointer argument.");
}

static void test_recent_err_msg_second_failure_goes_to_traceback(void **state)
{
    (void)state;
    aclrtAllocatorUnregister(NULL);
    aclrtAllocatorDestroyDesc(NULL);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    const char *tb = strstr(m, "\n        TraceBack (most recent call last):\n        ");
    assert_non_null(tb);
    assert_non_null(strstr(m, "aclrtAllocatorUnregister failed because stream"));
    assert_non_null(strstr(tb, "aclrtAllocatorDestroyDesc failed because allocatorDesc cannot "
                               "be a NULL pointer."));
    assert_true(strstr(m, "aclrtAllocatorUnregister") < tb);
}

static void test_recent_err_msg_without_solution_has_no_solution_line(void **state)
{
    (void)state;
    aclrtAllocatorDesc out;
    aclrtAllocatorGetByStream((aclrtStream)0x77, &out, NULL, NULL, NULL, NULL, NULL);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_null(strchr(m, '\n'));
    assert_non_null(strstr(m, "Invalid_Argument(EH0012): aclrtAllocatorGetByStream failed."));
}

static void *fail_in_thread(void *arg)
{
    (void)arg;
    aclrtAllocatorUnregister(NULL);
    const char *m = aclGetRecentErrMsg();
    return (void *)(uintptr_t)(m && strstr(m, "aclrtAllocatorUnregister") != NULL);
}

static void test_recent_err_msg_is_per_thread(void **state)
{
    (void)state;
    aclrtAllocatorDestroyDesc(NULL); /* pending here, must not leak there */
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
    pthread_join(t, &ok);
    assert_true(ok != NULL);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "aclrtAllocatorDestroyDesc"));
    assert_null(strstr(m, "aclrtAllocatorUnregister"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recent_err_msg_null_when_nothing_failed),
        cmocka_unit_test(test_recent_err_msg_cleared_on_read),
        cmocka_unit_test(test_recent_err_msg_has_cann_header_and_solution),
        cmocka_unit_test(test_recent_err_msg_second_failure_goes_to_traceback),
        cmocka_unit_test(test_recent_err_msg_without_solution_has_no_solution_line),
        cmocka_unit_test(test_recent_err_msg_is_per_thread),
    };
    return cmocka_run_group_tests_name("errmsg", tests, NULL, NULL);
}

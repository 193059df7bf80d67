/*
 * test_runtime.c - init reference counts, devices, contexts and streams of
 * the ACL layer, with CANN's codes (hicann/runtime
 * src/acl/aclrt_impl/stream.cpp, device.cpp, acl.cpp).
 */
#include <stdlib.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    return 0;
}

static void test_init_twice_repeat_initialize_then_finalize_twice_repeat_finalize(void **state)
{
    (void)state;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

static void test_finalize_reference_counts_down_to_real_finalize(void **state)
{
    (void)state;
    uint64_t left = 99;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    assert_int_equal(aclFinalizeReference(&left), ACL_SUCCESS);
    assert_int_equal(left, 1);
    assert_int_equal(aclFinalizeReference(&left), ACL_SUCCESS);
    assert_int_equal(left, 0);
    assert_int_equal(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS); /* re-init after finalize works */
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_init_unreadable_config_is_invalid_file(void **state)
{
    (void)state;
    assert_int_equal(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

static void test_backend_name_is_the_one_built(void **state)
{
    (void)state;
    assert_string_equal(aclsim_backend_name(), ACLSIM_EXPECT_BACKEND);
}

static void test_device_count_from_environment(void **state)
{
    (void)state;
    uint32_t n = 0;
    assert_int_equal(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetDeviceCount", "count");
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_set_device_out_of_range_invalid_device_id(void **state)
{
    (void)state;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_get_device_without_set_device_is_context_null(void **state)
{
    (void)state;
    int32_t d = -5;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(d, -5);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetDevice", "deviceId");
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_set_device_reference_counted_reset_releases_at_zero(void **state)
{
    (void)state;
    int32_t d = -1;
    aclrtContext ctx = NULL;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    assert_int_equal(d, 1);
    assert_int_equal(aclrtGetCurrentContext(&ctx), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS); /* one reference left */
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclGetRecentErrMsg();
    /* The default context went away with the device. */
    assert_int_equal(aclrtSetCurrentContext(ctx), ACL_ERROR_INVALID_PARAM);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_reset_device_force_ignores_reference_count(void **state)
{
    (void)state;
    int32_t d;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_create_context_becomes_current_and_switches_device(void **state)
{
    (void)state;
    aclrtContext c0, c1, cur;
    int32_t d;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetCurrentContext(&c0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateContext(&c1, 1), ACL_SUCCESS);
    assert_ptr_not_equal(c0, c1);
    assert_int_equal(aclrtGetCurrentContext(&cur), ACL_SUCCESS);
    assert_ptr_equal(cur, c1);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    assert_int_equal(d, 1);
    assert_int_equal(aclrtSetCurrentContext(c0), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&d), ACL_SUCCESS);
    assert_int_equal(d, 0);
    assert_int_equal(aclrtDestroyContext(c1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyContext(c1), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtDestroyContext failed. Parameter context is "
               "invalid. Reason: it is not a live context.");
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_context_null_arguments_rejected(void **state)
{
    (void)state;
    assert_int_equal(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCreateContext", "context");
    assert_int_equal(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDestroyContext", "context");
    assert_int_equal(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtSetCurrentContext", "context");
    assert_int_equal(aclrtGetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetCurrentContext", "context");
}

static void test_stream_lifecycle_and_default_stream(void **state)
{
    (void)state;
    aclrtStream s = NULL;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtCreateStream", "stream");
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_non_null(s);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS); /* default stream */
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_non_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtDestroyStream", "stream");
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* Streams left behind are released with their device, nothing leaks
 * (the leak gate runs this suite under Valgrind). */
static void test_reset_device_releases_leftover_streams(void **state)
{
    (void)state;
    aclrtStream s[5];
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    for (int i = 0; i < 5; i++)
        assert_int_equal(aclrtCreateStream(&s[i]), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s[0]), ACL_ERROR_RT_INTERNAL_ERROR);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_destroy_stream_keeps_allocator_registration(void **state)
{
    (void)state;
    aclrtStream s;
    int obj;
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    aclrtAllocatorSetObjToDesc(d, &obj);
    aclrtAllocatorSetAllocFuncToDesc(d, (aclrtAllocatorAllocFunc)(uintptr_t)0x10);
    aclrtAllocatorSetFreeFuncToDesc(d, (aclrtAllocatorFreeFunc)(uintptr_t)0x20);
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, (aclrtAllocatorGetAddrFromBlockFunc)(uintptr_t)0x30);
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    aclrtAllocatorDesc out = NULL;
    assert_int_equal(aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL),
                     ACL_SUCCESS); /* CANN keeps the stale entry */
    assert_ptr_equal(out, d);
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    aclrtAllocatorDestroyDesc(d);
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* CANN's header marks aclrtGetVersion deprecated (ours follows it); the
 * library still exports it, so the suite still pins it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void test_version_and_run_mode(void **state)
{
    (void)state;
    int32_t a, b, c;
    aclrtRunMode m = ACL_DEVICE;
    assert_int_equal(aclrtGetVersion(&a, &b, &c), ACL_SUCCESS);
    assert_int_equal(a, ACL_MAJOR_VERSION);
    assert_int_equal(b, ACL_MINOR_VERSION);
    assert_int_equal(aclrtGetVersion(NULL, &b, &c), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetVersion", "majorVersion");
    assert_int_equal(aclrtGetRunMode(&m), ACL_SUCCESS);
    assert_int_equal(m, ACL_HOST);
}
#pragma GCC diagnostic pop

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_twice_repeat_initialize_then_finalize_twice_repeat_finalize),
        cmocka_unit_test(test_finalize_reference_counts_down_to_real_finalize),
        cmocka_unit_test(test_init_unreadable_config_is_invalid_file),
        cmocka_unit_test(test_backend_name_is_the_one_built),
        cmocka_unit_test(test_device_count_from_environment),
        cmocka_unit_test(test_set_device_out_of_range_invalid_device_id),
        cmocka_unit_test(test_get_device_without_set_device_is_context_null),
        cmocka_unit_test(test_set_device_reference_counted_reset_releases_at_zero),
        cmocka_unit_test(test_reset_device_force_ignores_reference_count),
        cmocka_unit_test(test_create_context_becomes_current_and_switches_device),
        cmocka_unit_test(test_context_null_arguments_rejected),
        cmocka_unit_test(test_stream_lifecycle_and_default_stream),
        cmocka_unit_test(test_reset_device_releases_leftover_streams),
        cmocka_unit_test(test_destroy_stream_keeps_allocator_registration),
        cmocka_unit_test(test_version_and_run_mode),
    };
    return cmocka_run_group_tests_name("runtime", tests, setup, NULL);
}

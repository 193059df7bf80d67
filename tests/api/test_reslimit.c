/*
 * test_reslimit.c - core limits of devices, streams and threads: CANN's
 * checks, codes and texts (aclrt_impl/device.cpp, runtime api_c_device.cc,
 * api_c_stream.cc, api_error.cc, api_impl.cc), and the values: a device's
 * limits start at its core counts, a stream without its own answers its
 * device's, a thread answers its stream's or its device's.
 */
#include <pthread.h>
#include <stdlib.h>
#include "testutil.h"

/* The default SoC (Ascend910B1): 24 AI cores, 48 vector cores. */
#define CUBE 24u
#define VECTOR 48u

static aclrtStream stream;

static int setup(void **state)
{
    (void)state;
    setenv("ACLSIM_DEVICE_COUNT", "2", 1);
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&stream) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(stream);
    aclrtResetDeviceForce(0);
    aclrtResetDeviceForce(1);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void test_device_limits_bad_input(void **state)
{
    (void)state;
    uint32_t v = 7;
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetDeviceResLimit", "value");
    assert_int_equal(aclrtGetDeviceResLimit(-1, ACL_RT_DEV_RES_CUBE_CORE, &v),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "rtsGetDeviceResLimit failed because value -1 for "
               "parameter devId is invalid. Expected value: greater than or equal to 0.");
    assert_int_equal(aclrtGetDeviceResLimit(0, (aclrtDevResLimitType)2, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the device resource limits of the current "
               "process failed because value DEV_RES_TYPE_MAX(2) for parameter type is invalid. "
               "Expected value: [0, 2).");
    assert_int_equal(aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)9, 1),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the device resource limit failed because "
               "value UNKNOWN(9) for parameter type is invalid. Expected value: [0, 2).");
    assert_int_equal(aclrtSetDeviceResLimit(5, ACL_RT_DEV_RES_CUBE_CORE, 1),
                     ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the device ID validity failed because value "
               "5 for parameter devId is invalid. Expected value: [0, 2).");
    assert_int_equal(aclrtResetDeviceResLimit(-3), ACL_ERROR_RT_INVALID_DEVICEID);
    expect_msg("Invalid_Argument(EE1003)", "rtsResetDeviceResLimit failed because value -3 for "
               "parameter devId is invalid. Expected value: greater than or equal to 0.");
    /* Device 1 is not set: the runtime has no device object for it. */
    FAILS(aclrtGetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_ERROR_RT_DEV_SETUP_ERROR);
    FAILS(aclrtResetDeviceResLimit(1), ACL_ERROR_RT_DEV_SETUP_ERROR);
    assert_int_equal(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, CUBE + 1),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the device resource limit failed because "
               "value 25 for parameter value is invalid. Expected value: must be less than or "
               "equal to 24.");
    assert_int_equal(v, 7); /* nothing written */
}

static void test_device_limits_start_at_core_counts_and_reset(void **state)
{
    (void)state;
    uint32_t v = 0;
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, CUBE);
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, VECTOR);
    assert_int_equal(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 10), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 0), ACL_SUCCESS);
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 10);
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 0);
    assert_int_equal(aclrtResetDeviceResLimit(0), ACL_SUCCESS);
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, VECTOR);
    assert_int_equal(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, CUBE);
    /* A device opens again with its full counts. */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, 3), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtGetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, CUBE);
    assert_int_equal(aclrtResetDeviceForce(1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static void test_stream_limits(void **state)
{
    (void)state;
    uint32_t v = 0;
    static int garbage;
    assert_int_equal(aclrtGetStreamResLimit(stream, ACL_RT_DEV_RES_CUBE_CORE, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetStreamResLimit", "value");
    FAILS(aclrtGetStreamResLimit(&garbage, ACL_RT_DEV_RES_CUBE_CORE, &v),
          ACL_ERROR_RT_INTERNAL_ERROR);
    FAILS(aclrtSetStreamResLimit(&garbage, ACL_RT_DEV_RES_CUBE_CORE, 1),
          ACL_ERROR_RT_INTERNAL_ERROR);
    FAILS(aclrtResetStreamResLimit(&garbage), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_int_equal(aclrtSetStreamResLimit(stream, (aclrtDevResLimitType)2, 1),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the device resource limit for the specified "
               "stream failed because value DEV_RES_TYPE_MAX(2) for parameter type is invalid. "
               "Expected value: [0, 2).");
    assert_int_equal(aclrtGetStreamResLimit(NULL, (aclrtDevResLimitType)-1, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the device resource limits of a specified "
               "stream failed because value UNKNOWN(-1) for parameter type is invalid. Expected "
               "value: [0, 2).");
    assert_int_equal(aclrtSetStreamResLimit(stream, ACL_RT_DEV_RES_VECTOR_CORE, VECTOR + 2),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Setting the device resource limits of a specific "
               "stream failed because value 50 for parameter value is invalid. Expected value: "
               "must be less than or equal to 48.");
    /* Without a limit of its own a stream answers its device's. */
    assert_int_equal(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 12), ACL_SUCCESS);
    assert_int_equal(aclrtGetStreamResLimit(stream, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 12);
    /* Its own need not stay below the device's. */
    assert_int_equal(aclrtSetStreamResLimit(stream, ACL_RT_DEV_RES_CUBE_CORE, 20), ACL_SUCCESS);
    assert_int_equal(aclrtGetStreamResLimit(stream, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 20);
    assert_int_equal(aclrtGetStreamResLimit(stream, ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, VECTOR);
    /* NULL is the default stream, which has none. */
    assert_int_equal(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 12);
    assert_int_equal(aclrtSetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, 2), ACL_SUCCESS);
    assert_int_equal(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 2);
    assert_int_equal(aclrtResetStreamResLimit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtResetStreamResLimit(stream), ACL_SUCCESS);
    assert_int_equal(aclrtGetStreamResLimit(stream, ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 12);
    assert_int_equal(aclrtResetDeviceResLimit(0), ACL_SUCCESS);
}

static void *no_context(void *arg)
{
    uint32_t *v = arg;
    aclError rc = aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, v);
    const char *m = aclGetRecentErrMsg();
    return (void *)(uintptr_t)(rc == ACL_ERROR_RT_CONTEXT_NULL && m != NULL);
}

static void test_thread_limits(void **state)
{
    (void)state;
    uint32_t v = 0;
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetResInCurrentThread", "value");
    assert_int_equal(aclrtGetResInCurrentThread((aclrtDevResLimitType)3, &v),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Obtaining the device resources that can be used by "
               "the current thread failed because value UNKNOWN(3) for parameter type is "
               "invalid. Expected value: [0, 2).");
    /* A thread with no context and no stream of its own. */
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, no_context, &v), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_true(ok != NULL);
    /* The current device answers... */
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, VECTOR);
    /* ...until the thread uses a stream with a limit of that type. */
    assert_int_equal(aclrtSetStreamResLimit(stream, ACL_RT_DEV_RES_VECTOR_CORE, 6), ACL_SUCCESS);
    assert_int_equal(aclrtUseStreamResInCurrentThread(stream), ACL_SUCCESS);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 6);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, CUBE);
    /* Unusing another stream changes nothing. */
    assert_int_equal(aclrtUnuseStreamResInCurrentThread(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 6);
    assert_int_equal(aclrtUnuseStreamResInCurrentThread(stream), ACL_SUCCESS);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, VECTOR);
    /* A stream destroyed while the thread uses it is forgotten. */
    aclrtStream s2;
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtSetStreamResLimit(s2, ACL_RT_DEV_RES_VECTOR_CORE, 4), ACL_SUCCESS);
    assert_int_equal(aclrtUseStreamResInCurrentThread(s2), ACL_SUCCESS);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, 4);
    assert_int_equal(aclrtDestroyStream(s2), ACL_SUCCESS);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v), ACL_SUCCESS);
    assert_int_equal(v, VECTOR);
    static int garbage;
    FAILS(aclrtUseStreamResInCurrentThread(&garbage), ACL_ERROR_RT_INTERNAL_ERROR);
    assert_int_equal(aclrtResetStreamResLimit(stream), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_limits_bad_input),
        cmocka_unit_test(test_device_limits_start_at_core_counts_and_reset),
        cmocka_unit_test(test_stream_limits),
        cmocka_unit_test(test_thread_limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_devtask.c - device tasks: aclrtReduceAsync,
 * aclrtRandomNumAsync and the overflow-status calls. CANN's checks, codes
 * and texts first (aclrt_impl/memory.cpp, kernel.cpp, device.cpp; the
 * runtime's api_error.cc, random_num_task.cc, memory_stars.cc), then the
 * results on the device bytes: reductions element by element, Philox4x32-10
 * against Random123's known answers, the distributions' statistics, the
 * counter carried from task to task, clean overflow status words.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testutil.h"
#include "aclsim/aclsim.h"

static aclrtStream stream;

static void up(const char *soc)
{
    setenv("ACLSIM_HBM_BYTES", "67108864", 1);
    if (soc)
        setenv("ACLSIM_SOC", soc, 1);
    else
        unsetenv("ACLSIM_SOC");
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&stream), ACL_SUCCESS);
}

static void down(void)
{
    assert_int_equal(aclrtDestroyStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    unsetenv("ACLSIM_SOC");
}

/* Device memory holding n bytes of host data (or zeros). */
static void *dev_with(const void *data, size_t n)
{
    void *p = NULL;
    assert_int_equal(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (data)
        assert_int_equal(aclrtMemcpy(p, n, data, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    else
        assert_int_equal(aclrtMemset(p, n, 0, n), ACL_SUCCESS);
    return p;
}

static void to_host(void *host, const void *dev, size_t n)
{
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
}

/* ---- reductions ---- */

static void test_reduce_bad_input(void **state)
{
    (void)state;
    up(NULL);
    float f[4] = {1, 2, 3, 4};
    void *a = dev_with(f, sizeof f), *b = dev_with(f, sizeof f);
    const aclrtReduceKind sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;
    assert_int_equal(aclrtReduceAsync(NULL, b, 16, sum, ACL_FLOAT, stream, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtReduceAsync", "dst");
    assert_int_equal(aclrtReduceAsync(a, NULL, 16, sum, ACL_FLOAT, stream, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtReduceAsync", "src");
    assert_int_equal(aclrtReduceAsync(a, b, 16, sum, ACL_FLOAT, stream, a),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0012)", "aclrtReduceAsync failed. Parameter reserve is "
               "invalid. Reason: reserve is a reserved parameter and must be nullptr.");
    assert_int_equal(aclrtReduceAsync(a, b, 16, sum, ACL_INT64, stream, NULL),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtReduceAsync failed. Value INT64(9) for "
               "parameter type is invalid. Reason: The data type is currently not supported.");
    assert_int_equal(aclrtReduceAsync(a, b, 0, sum, ACL_FLOAT, stream, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Asynchronously performing the Reduce operation "
               "failed because value 0 for parameter cnt is invalid. Expected value: not equal "
               "to 0.");
    assert_int_equal(aclrtReduceAsync(a, b, 16, (aclrtReduceKind)9, ACL_FLOAT, stream, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Asynchronously performing the Reduce operation "
               "failed because value 9 for parameter kind is invalid. Expected value: [10, 14).");
    assert_int_equal(aclrtReduceAsync((char *)a + 2, b, 8, sum, ACL_FLOAT, stream, NULL),
                     ACL_ERROR_RT_ADDR_UNALIGNED);
    expect_msg("Inner_Error(EH9999)", "aclrtReduceAsync failed: memory address unaligned for "
               "DATA_TYPE_FP32(0), runtime result = 107008.");
    /* The 910B's SDMA does not reduce uint8 (CANN's document). Below a
     * real runtime (hw=ascend) its own reason follows a generic one. */
    bool sim = strcmp(ACLSIM_EXPECT_BACKEND, "sim") == 0;
    assert_int_equal(aclrtReduceAsync(a, b, 16, sum, ACL_UINT8, stream, NULL),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    if (sim)
        expect_msg("Not_Supported(EE1006)", "Checking the availability of Reduce on the current "
                   "device failed. Parameter type value DATA_TYPE_UINT8(8) is not supported. "
                   "Reason: The current SoC does not support the reduction operation of this "
                   "data type.");
    else
        expect_msg("Inner_Error(EH9999)", "aclrtReduceAsync failed, runtime result = 207000.");
    assert_int_equal(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT,
                                      stream, NULL),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    if (sim)
        expect_msg("Inner_Error(EH9999)", "aclrtReduceAsync failed: "
                   "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not simulated by aclsim: CANN does not "
                   "document what it computes.");
    else
        expect_msg("Inner_Error(EH9999)", "aclrtReduceAsync failed, runtime result = 207000.");
    /* Past the end of the block, and freed memory: refused. */
    MISUSE_BEGIN();
    FAILS(aclrtReduceAsync(a, b, 64, sum, ACL_FLOAT, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    FAILS(aclrtReduceAsync(a, b, 16, sum, ACL_FLOAT, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    static int garbage;
    FAILS(aclrtReduceAsync(a, a, 16, sum, ACL_FLOAT, &garbage, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    float back[4];
    to_host(back, a, sizeof back);
    assert_memory_equal(back, f, sizeof f); /* nothing ran */
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    down();
}

static void test_reduce_results(void **state)
{
    (void)state;
    up(NULL);
    const aclrtReduceKind sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                          mx = ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
                          mn = ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN;
    /* fp32: the sample's sum, then max and min. */
    float x[4] = {1, 2, 3, 4}, y[4] = {4, -1, 3.5f, 0}, r[4];
    void *dx = dev_with(x, sizeof x), *dy = dev_with(y, sizeof y);
    assert_int_equal(aclrtReduceAsync(dx, dx, sizeof x, sum, ACL_FLOAT, stream, NULL), ACL_SUCCESS);
    to_host(r, dx, sizeof r);
    assert_true(r[0] == 2 && r[1] == 4 && r[2] == 6 && r[3] == 8);
    assert_int_equal(aclrtReduceAsync(dx, dy, sizeof x, mn, ACL_FLOAT, stream, NULL), ACL_SUCCESS);
    to_host(r, dx, sizeof r);
    assert_true(r[0] == 2 && r[1] == -1 && r[2] == 3.5f && r[3] == 0);
    assert_int_equal(aclrtReduceAsync(dx, dy, sizeof x, mx, ACL_FLOAT, stream, NULL), ACL_SUCCESS);
    to_host(r, dx, sizeof r);
    assert_true(r[0] == 4 && r[1] == -1 && r[2] == 3.5f && r[3] == 0);
    /* fp16 and bf16 rounded back to their type; int8 wraps. */
    aclFloat16 h[2] = {aclFloatToFloat16(1.5f), aclFloatToFloat16(1024.0f)}, hr[2];
    aclFloat16 h1[2] = {aclFloatToFloat16(0.25f), aclFloatToFloat16(0.5f)};
    void *dh = dev_with(h, sizeof h), *dh1 = dev_with(h1, sizeof h1);
    assert_int_equal(aclrtReduceAsync(dh, dh1, sizeof h, sum, ACL_FLOAT16, stream, NULL),
                     ACL_SUCCESS);
    to_host(hr, dh, sizeof hr);
    assert_true(aclFloat16ToFloat(hr[0]) == 1.75f);
    assert_true(aclFloat16ToFloat(hr[1]) == 1024.0f); /* 1024.5 ties to even */
    uint16_t bf[2] = {0x3f80, 0xc000}, bf1[2] = {0x3f00, 0x4040}, bfr[2]; /* 1, -2; 0.5, 3 */
    void *db = dev_with(bf, sizeof bf), *db1 = dev_with(bf1, sizeof bf1);
    assert_int_equal(aclrtReduceAsync(db, db1, sizeof bf, sum, ACL_BF16, stream, NULL),
                     ACL_SUCCESS);
    to_host(bfr, db, sizeof bfr);
    assert_int_equal(bfr[0], 0x3fc0); /* 1.5 */
    assert_int_equal(bfr[1], 0x3f80); /* 1 */
    int8_t i8[3] = {100, -100, 5}, j8[3] = {100, -100, -7}, r8[3];
    void *di = dev_with(i8, sizeof i8), *dj = dev_with(j8, sizeof j8);
    assert_int_equal(aclrtReduceAsync(di, dj, sizeof i8, sum, ACL_INT8, stream, NULL), ACL_SUCCESS);
    to_host(r8, di, sizeof r8);
    assert_int_equal(r8[0], -56);
    assert_int_equal(r8[1], 56);
    assert_int_equal(r8[2], -2);
    int32_t i32[2] = {-5, 7}, j32[2] = {3, 9}, r32[2];
    void *d32 = dev_with(i32, sizeof i32), *e32 = dev_with(j32, sizeof j32);
    assert_int_equal(aclrtReduceAsync(d32, e32, sizeof i32, mx, ACL_INT32, stream, NULL),
                     ACL_SUCCESS);
    to_host(r32, d32, sizeof r32);
    assert_true(r32[0] == 3 && r32[1] == 9);
    /* It takes time on its stream (the simulator's clocks). */
    if (strcmp(ACLSIM_EXPECT_BACKEND, "sim") == 0) {
        uint64_t t0 = 0, t1 = 0;
        assert_int_equal(aclsim_clock_stream(stream, &t0), ACL_SUCCESS);
        assert_int_equal(aclrtReduceAsync(dx, dy, sizeof x, sum, ACL_FLOAT, stream, NULL),
                         ACL_SUCCESS);
        assert_int_equal(aclsim_clock_stream(stream, &t1), ACL_SUCCESS);
        assert_true(t1 > t0);
    }
    void *all[] = {dx, dy, dh, dh1, db, db1, di, dj, d32, e32};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        assert_int_equal(aclrtFree(all[i]), ACL_SUCCESS);
    down();
}

static void test_reduce_uint32_on_950(void **state)
{
    (void)state;
    up("Ascend950PR_9599");
    uint32_t a[2] = {4000000000u, 1}, b[2] = {1000000000u, 2}, r[2];
    void *da = dev_with(a, sizeof a), *db = dev_with(b, sizeof b);
    assert_int_equal(aclrtReduceAsync(da, db, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
                                      ACL_UINT32, stream, NULL),
                     ACL_SUCCESS);
    to_host(r, da, sizeof r);
    assert_true(r[0] == 4000000000u && r[1] == 2);
    assert_int_equal(aclrtFree(da), ACL_SUCCESS);
    assert_int_equal(aclrtFree(db), ACL_SUCCESS);
    down();
}

/* ---- random numbers ---- */

static void set_param(aclrtRandomParaInfo *p, const void *v, uint8_t size, uint8_t is_addr)
{
    memset(p, 0, sizeof *p);
    memcpy(p->valueOrAddr, v, size);
    p->size = size;
    p->isAddr = is_addr;
}

/* A task of `type` and `func` with parameters a, b (of size ps), seed and
 * num, its counter and result on the device. */
static aclrtRandomNumTaskInfo task(aclDataType type, aclrtRandomNumFuncType func, const void *a,
                                   const void *b, uint8_t ps, uint64_t seed, uint64_t num,
                                   void *counter, void *result)
{
    aclrtRandomNumTaskInfo t;
    memset(&t, 0, sizeof t);
    t.dataType = type;
    t.randomNumFuncParaInfo.funcType = func;
    set_param(&t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean, a, ps, 0);
    if (b)
        set_param(&t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev, b, ps, 0);
    set_param(&t.randomSeed, &seed, 8, 0);
    set_param(&t.randomNum, &num, 8, 0);
    t.randomCounterAddr = counter;
    t.randomResultAddr = result;
    return t;
}

static void test_random_bad_input(void **state)
{
    (void)state;
    up(NULL);
    void *ctr = dev_with(NULL, 16), *out = dev_with(NULL, 1024);
    float m = 0, s = 1;
    aclrtRandomNumTaskInfo t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &m, &s, 4,
                                    1, 16, ctr, out);
    assert_int_equal(aclrtRandomNumAsync(NULL, stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtRandomNumAsync", "taskInfo");
    aclrtRandomNumTaskInfo u = t;
    u.dataType = ACL_INT8;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0009)", "aclrtRandomNumAsync failed. Value INT8(2) for "
               "parameter taskInfo->dataType is invalid. Reason: The data type is currently not "
               "supported.");
    static int reserved;
    char want[256];
    snprintf(want, sizeof want, "Starting the random number generation task failed because "
             "value %p for parameter reserve is invalid. Expected value: nullptr.",
             (void *)&reserved);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, &reserved), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", want);
    u = t;
    u.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)7;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the validity of the random number "
               "generation type failed because value UNKNOWN(7) for parameter funcType is "
               "invalid. Expected value: [0, 4).");
    u = t;
    u.dataType = ACL_INT32;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the validity of the random number "
               "generation type failed because value RANDOM_NUM_DATATYPE_INT32(0) for parameter "
               "dataType is invalid. Expected value: bf16,fp16,fp32.");
    u = t;
    u.randomCounterAddr = NULL;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Checking the validity of random number "
               "generation task parameters failed because taskInfo->randomCounterAddr cannot be "
               "a NULL pointer.");
    u = t;
    u.randomResultAddr = NULL;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument_Null_Pointer(EE1004)", "Checking the validity of random number "
               "generation task parameters failed because taskInfo->randomResultAddr cannot be a "
               "NULL pointer.");
    u = t;
    u.randomSeed.isAddr = 2;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the parameters for generating a random "
               "number failed because value 2 for parameter paramInfo.isAddr is invalid. "
               "Expected value: 0 or 1.");
    u = t;
    u.randomNum.size = 0;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the parameters for generating a random "
               "number failed because value 0 for parameter paramInfo.size is invalid. Expected "
               "value: [1, 8].");
    u = t;
    u.dataType = ACL_FLOAT16;
    assert_int_equal(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Invalid_Argument(EE1003)", "Verifying the parameters for generating a random "
               "number failed because value 4 for parameter paramInfo.size is invalid. Expected "
               "value: [1, 2].");
    /* Results that do not fit the block. */
    uint64_t many = 4096;
    u = t;
    set_param(&u.randomNum, &many, 8, 0);
    MISUSE_BEGIN();
    FAILS(aclrtRandomNumAsync(&u, stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
    MISUSE_END();
    /* The generator exists on Atlas A2/A3 only: elsewhere CANN refuses
     * silently. */
    assert_int_equal(aclrtFree(ctr), ACL_SUCCESS);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    down();
    up("Ascend950PR_9599");
    ctr = dev_with(NULL, 16);
    out = dev_with(NULL, 1024);
    t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &m, &s, 4, 1, 16, ctr, out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    expect_no_msg();
    assert_int_equal(aclrtFree(ctr), ACL_SUCCESS);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    down();
}

/* uint64 uniform over [0, 2^64-1) gives word pair - 1: Philox's words. */
static void test_random_is_philox4x32_10(void **state)
{
    (void)state;
    up(NULL);
    uint32_t c[4] = {0, 0, 0, 0};
    void *ctr = dev_with(c, 16), *out = dev_with(NULL, 64);
    uint64_t lo = 0, hi = UINT64_MAX, r[2];
    aclrtRandomNumTaskInfo t = task(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi,
                                    8, 0, 2, ctr, out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(r, out, sizeof r);
    assert_true(r[0] == 0xe169c58d6627e8d5ull - 1 && r[1] == 0x9b00dbd8bc57ac4cull - 1);
    to_host(c, ctr, sizeof c);
    assert_true(c[0] == 1 && c[1] == 0 && c[2] == 0 && c[3] == 0); /* one block used */
    /* Counter all ones, key all ones; the counter wraps to zero. */
    uint32_t ones[4] = {~0u, ~0u, ~0u, ~0u};
    assert_int_equal(aclrtMemcpy(ctr, 16, ones, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    t = task(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi, 8, UINT64_MAX, 1, ctr,
             out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(r, out, 8);
    assert_true(r[0] == 0x41c83b0e408f276dull - 1);
    to_host(c, ctr, sizeof c);
    assert_true(c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0);
    /* Random123's third vector, through a seed and counter read from
     * device memory. */
    uint32_t pi[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    uint64_t key = 0x299f31d0a4093822ull, two = 2;
    void *dkey = dev_with(&key, 8), *dnum = dev_with(&two, 8);
    assert_int_equal(aclrtMemcpy(ctr, 16, pi, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    t = task(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi, 8, 0, 0, ctr, out);
    set_param(&t.randomSeed, &dkey, 8, 1);
    set_param(&t.randomNum, &dnum, 8, 1);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(r, out, sizeof r);
    assert_true(r[0] == 0x94fdccebd16cfe09ull - 1 && r[1] == 0x24126ea15001e420ull - 1);
    assert_int_equal(aclrtFree(dkey), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dnum), ACL_SUCCESS);
    assert_int_equal(aclrtFree(ctr), ACL_SUCCESS);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    down();
}

#define N 100000

static double absd(double x)
{
    return x < 0 ? -x : x;
}

/* Sample mean and variance. */
static void moments(const float *v, size_t n, double *mean, double *var)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        q += (v[i] - *mean) * (v[i] - *mean);
    *var = q / (double)(n - 1);
}

static void test_random_distributions(void **state)
{
    (void)state;
    up(NULL);
    float *v = malloc(N * sizeof *v);
    assert_non_null(v);
    void *ctr = dev_with(NULL, 16), *out = dev_with(NULL, N * sizeof(float));
    double mean, var;
    /* Normal(3, 2), the sample's. */
    float m = 3, s = 2;
    aclrtRandomNumTaskInfo t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &m, &s, 4,
                                    7, N, ctr, out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(v, out, N * sizeof *v);
    moments(v, N, &mean, &var);
    assert_true(absd(mean - 3) < 0.03 && absd(var - 4) < 0.12);
    /* The counter moved on: the next task gives other numbers; the same
     * counter again gives the same ones. */
    float first = v[0];
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(v, out, sizeof *v);
    assert_true(v[0] != first);
    assert_int_equal(aclrtMemset(ctr, 16, 0, 16), ACL_SUCCESS);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(v, out, sizeof *v);
    assert_true(v[0] == first);
    /* Truncated at two standard deviations: mean 1, sd 2 in [-3, 5], and
     * its variance 0.7737 of the untruncated one. */
    m = 1;
    t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, &m, &s, 4, 7, N, ctr,
             out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    to_host(v, out, N * sizeof *v);
    for (size_t i = 0; i < N; i++)
        assert_true(v[i] >= -3.0f && v[i] <= 5.0f);
    moments(v, N, &mean, &var);
    assert_true(absd(mean - 1) < 0.03 && absd(var - 4 * 0.7737) < 0.1);
    /* Uniform fp16 in [1, 2]. */
    aclFloat16 lo = aclFloatToFloat16(1), hi = aclFloatToFloat16(2);
    t = task(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi, 2, 9, N, ctr, out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    aclFloat16 *h = (aclFloat16 *)v;
    to_host(h, out, N * sizeof *h);
    double sum = 0;
    for (size_t i = 0; i < N; i++) {
        float f = aclFloat16ToFloat(h[i]);
        assert_true(f >= 1.0f && f <= 2.0f);
        sum += f;
    }
    assert_true(absd(sum / N - 1.5) < 0.01);
    /* Uniform int32 in [1, 100). */
    int32_t imin = 1, imax = 100;
    t = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &imin, &imax, 4, 9, N, ctr, out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    int32_t *iv = (int32_t *)v;
    to_host(iv, out, N * sizeof *iv);
    int seen_lo = 0, seen_hi = 0;
    sum = 0;
    for (size_t i = 0; i < N; i++) {
        assert_true(iv[i] >= 1 && iv[i] < 100);
        seen_lo |= iv[i] == 1;
        seen_hi |= iv[i] == 99;
        sum += iv[i];
    }
    assert_true(seen_lo && seen_hi && absd(sum / N - 50) < 0.5);
    /* A dropout mask drops a fraction 0.4: 60% of the bits are set. */
    float ratio = 0.4f;
    t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, &ratio, NULL, 4, 3, N, ctr,
             out);
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    uint8_t *bits = (uint8_t *)v;
    to_host(bits, out, N / 8);
    size_t ones = 0;
    for (size_t i = 0; i < N / 8; i++)
        ones += (size_t)__builtin_popcount(bits[i]);
    assert_true(absd((double)ones / N - 0.6) < 0.01);
    free(v);
    assert_int_equal(aclrtFree(ctr), ACL_SUCCESS);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    down();
}

/* randomParaAddr receives the two parameters as the runtime copies them. */
static void test_random_parameter_block(void **state)
{
    (void)state;
    up(NULL);
    void *ctr = dev_with(NULL, 16), *out = dev_with(NULL, 64), *para = dev_with(NULL, 16);
    int32_t a = -5, b = 5;
    aclrtRandomNumTaskInfo t = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &a, &b, 4,
                                    1, 4, ctr, out);
    t.randomParaAddr = para;
    assert_int_equal(aclrtRandomNumAsync(&t, stream, NULL), ACL_SUCCESS);
    uint64_t blk[2];
    to_host(blk, para, sizeof blk);
    assert_true(blk[0] == (uint32_t)a && blk[1] == (uint32_t)b);
    assert_int_equal(aclrtFree(ctr), ACL_SUCCESS);
    assert_int_equal(aclrtFree(out), ACL_SUCCESS);
    assert_int_equal(aclrtFree(para), ACL_SUCCESS);
    down();
}

/* ---- overflow status ---- */

static void test_overflow_status(void **state)
{
    (void)state;
    up(NULL);
    uint8_t junk[64];
    memset(junk, 0xab, sizeof junk);
    void *st = dev_with(junk, 64);
    assert_int_equal(aclrtGetOverflowStatus(NULL, 64, stream), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclrtGetOverflowStatus", "outputAddr");
    assert_int_equal(aclrtGetOverflowStatus(st, 32, stream), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Inner_Error(EH9999)", "aclrtGetOverflowStatus failed: Output size 32 is invalid. "
               "Only 64 bytes are supported, runtime result = 107000.");
    assert_int_equal(aclrtGetFloatOverflowStatus(NULL, 64, stream), ACL_ERROR_RT_PARAM_INVALID);
    expect_msg("Inner_Error(EH9999)", "aclrtGetFloatOverflowStatus failed: Check param failed, "
               "outputAddrPtr can not be null, runtime result = 107000.");
    static int garbage;
    FAILS(aclrtResetOverflowStatus(&garbage), ACL_ERROR_RT_INTERNAL_ERROR);
    FAILS(aclrtGetOverflowStatus(st, 64, &garbage), ACL_ERROR_RT_INTERNAL_ERROR);
    /* Nothing overflows on the simulator: the words read clean. */
    assert_int_equal(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION), ACL_SUCCESS);
    assert_int_equal(aclrtSetStreamOverflowSwitch(stream, 1), ACL_SUCCESS);
    assert_int_equal(aclrtGetOverflowStatus(st, 64, stream), ACL_SUCCESS);
    uint8_t back[64], zero[64] = {0};
    to_host(back, st, 64);
    assert_memory_equal(back, zero, 64);
    assert_int_equal(aclrtResetOverflowStatus(stream), ACL_SUCCESS);
    assert_int_equal(aclrtResetFloatOverflowStatus(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(st, 64, junk, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtGetFloatOverflowStatus(st, 64, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    to_host(back, st, 64);
    assert_memory_equal(back, zero, 64);
    assert_int_equal(aclrtFree(st), ACL_SUCCESS);
    down();
}

/* Behind a value wait, a task runs when the wait is satisfied. */
static void test_tasks_wait_behind_a_held_stream(void **state)
{
    (void)state;
    up(NULL);
    float x[2] = {1, 2}, r[2];
    void *dx = dev_with(x, sizeof x), *flag = dev_with(NULL, 8);
    assert_int_equal(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, stream), ACL_SUCCESS);
    assert_int_equal(aclrtReduceAsync(dx, dx, sizeof x, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                                      ACL_FLOAT, stream, NULL),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(r, sizeof r, dx, sizeof x, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    assert_true(r[0] == 1 && r[1] == 2); /* not run yet */
    aclrtStream other;
    assert_int_equal(aclrtCreateStream(&other), ACL_SUCCESS);
    assert_int_equal(aclrtValueWrite(flag, 1, 0, other), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(other), ACL_SUCCESS);
    to_host(r, dx, sizeof r);
    assert_true(r[0] == 2 && r[1] == 4);
    assert_int_equal(aclrtDestroyStream(other), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dx), ACL_SUCCESS);
    assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
    down();
}

/* A held stream nobody can release: in a process of one thread its
 * synchronisation fails at once, without the minute's grace. */
static void test_held_stream_alone_fails_at_once(void **state)
{
    (void)state;
    up(NULL);
    void *flag = dev_with(NULL, 8);
    assert_int_equal(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, stream), ACL_SUCCESS);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(aclrtSynchronizeStream(stream), ACL_ERROR_RT_WAIT_TIMEOUT);
    (void)aclGetRecentErrMsg();
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_true(b.tv_sec - a.tv_sec < 5);
    assert_int_equal(aclrtStreamAbort(stream), ACL_SUCCESS);
    assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
    down();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_bad_input),
        cmocka_unit_test(test_reduce_results),
        cmocka_unit_test(test_reduce_uint32_on_950),
        cmocka_unit_test(test_random_bad_input),
        cmocka_unit_test(test_random_is_philox4x32_10),
        cmocka_unit_test(test_random_distributions),
        cmocka_unit_test(test_random_parameter_block),
        cmocka_unit_test(test_overflow_status),
        cmocka_unit_test(test_tasks_wait_behind_a_held_stream),
        cmocka_unit_test(test_held_stream_alone_fails_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_data.c - data types, fp16 conversions and data buffers (DATA
 * family): sizes as CANN's runtime gives them, CANN's fp16 conversions
 * (fp16_impl.cpp) checked against the compiler's IEEE binary16 where they
 * agree and pinned where CANN departs from it (saturation, exponent 31),
 * data buffers as data_buffer.cpp treats them. No aclInit needed.
 */
#include <float.h>
#include <math.h>
#include "testutil.h"
#include "aclsim/fault.h"

/* CANN's header marks aclGetDataBufferSize deprecated; it is still served. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void test_data_type_size_per_type(void **state)
{
    (void)state;
    static const struct {
        aclDataType t;
        size_t size;
    } want[] = {
        {ACL_FLOAT, 4},        {ACL_FLOAT16, 2},        {ACL_INT8, 1},       {ACL_INT32, 4},
        {ACL_UINT8, 1},        {ACL_INT16, 2},          {ACL_UINT16, 2},     {ACL_UINT32, 4},
        {ACL_INT64, 8},        {ACL_UINT64, 8},         {ACL_DOUBLE, 8},     {ACL_BOOL, 1},
        {ACL_STRING, 0},       {ACL_COMPLEX64, 8},      {ACL_COMPLEX128, 16}, {ACL_BF16, 2},
        {ACL_INT4, 1},         {ACL_UINT1, 1},          {ACL_COMPLEX32, 4},  {ACL_HIFLOAT8, 1},
        {ACL_FLOAT8_E5M2, 1},  {ACL_FLOAT8_E4M3FN, 1},  {ACL_FLOAT8_E8M0, 1},
        {ACL_DT_UNDEFINED, 0},
        /* CANN's runtime answers 8 for every value it does not list, the
         * 4-bit floats and out-of-range values included. */
        {ACL_FLOAT4_E2M1, 8},  {(aclDataType)1000, 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (aclDataTypeSize(want[i].t) != want[i].size)
            fail_msg("aclDataTypeSize(%d) = %zu, want %zu", (int)want[i].t,
                     aclDataTypeSize(want[i].t), want[i].size);
    expect_no_msg();
}


/* ---- fp16 ---- */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The compiler's binary16 (round to nearest even, IEEE) as the oracle. */
__extension__ typedef _Float16 half;

static float ieee_half_to_float(uint16_t h)
{
    half x;
    memcpy(&x, &h, sizeof x);
    return (float)x;
}

static uint16_t ieee_float_to_half(float f)
{
    half x = (half)f;
    uint16_t h;
    memcpy(&h, &x, sizeof h);
    return h;
}

/* Every half that is not infinite or NaN widens exactly, zeros and
 * subnormals included. */
static void test_fp16_to_float_every_finite_half_is_exact(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xffffu; h++) {
        if ((h & 0x7c00u) == 0x7c00u)
            continue;
        uint32_t got = float_bits(aclFloat16ToFloat((aclFloat16)h));
        uint32_t want = float_bits(ieee_half_to_float((uint16_t)h));
        if (got != want)
            fail_msg("aclFloat16ToFloat(0x%04x) = 0x%08x, want 0x%08x", h, got, want);
    }
    assert_true(aclFloat16ToFloat(0x0001) == 0x1p-24f); /* smallest subnormal */
    assert_int_equal(float_bits(aclFloat16ToFloat(0x8000)), 0x80000000u); /* -0 */
}

/* CANN reads exponent 31 as an ordinary exponent: +-Inf are +-65536, a
 * NaN is a number (fp16.cpp's own comment: NaN 98304). */
static void test_fp16_to_float_exponent_31_is_a_number(void **state)
{
    (void)state;
    assert_true(aclFloat16ToFloat(0x7c00) == 65536.0f);
    assert_true(aclFloat16ToFloat(0xfc00) == -65536.0f);
    assert_true(aclFloat16ToFloat(0x7e00) == 98304.0f);
    assert_true(aclFloat16ToFloat(0x7fff) == 131008.0f);
    assert_false(isnan(aclFloat16ToFloat(0x7e01)));
}

/* Every float of the half range, and every tie between two halves,
 * rounds as IEEE does: to nearest, ties to even, into the subnormals. */
static void test_float_to_fp16_rounds_to_nearest_even(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x7bffu; h++) {
        float lo = ieee_half_to_float((uint16_t)h), hi = ieee_half_to_float((uint16_t)(h + 1));
        float mid = (float)(((double)lo + (double)hi) / 2); /* exact in float */
        /* the tie, and the floats just below and above it (mid > 0) */
        float probes[] = {lo, mid, bits_float(float_bits(mid) - 1), bits_float(float_bits(mid) + 1),
                          -mid};
        for (int i = 0; i < 5; i++) {
            uint16_t got = aclFloatToFloat16(probes[i]);
            uint16_t want = ieee_float_to_half(probes[i]);
            if (got != want)
                fail_msg("aclFloatToFloat16(%a) = 0x%04x, want 0x%04x", (double)probes[i], got,
                         want);
        }
    }
    /* a sweep of float bit patterns below the overflow threshold */
    for (uint32_t u = 0; u < 0x477ff000u; u += 0x1f3u) {
        float f = bits_float(u);
        if (aclFloatToFloat16(f) != ieee_float_to_half(f))
            fail_msg("aclFloatToFloat16(%a) = 0x%04x, want 0x%04x", (double)f,
                     aclFloatToFloat16(f), ieee_float_to_half(f));
    }
}

static void test_float_to_fp16_known_values(void **state)
{
    (void)state;
    assert_int_equal(aclFloatToFloat16(1.0f), 0x3c00);
    assert_int_equal(aclFloatToFloat16(-2.0f), 0xc000);
    assert_int_equal(aclFloatToFloat16(65504.0f), 0x7bff);
    assert_int_equal(aclFloatToFloat16(0x1p-14f), 0x0400);           /* smallest normal */
    assert_int_equal(aclFloatToFloat16(0x1p-24f), 0x0001);           /* smallest subnormal */
    assert_int_equal(aclFloatToFloat16(0x1p-25f), 0x0000);           /* tie: to even, 0 */
    assert_int_equal(aclFloatToFloat16(0x1.8p-25f), 0x0001);         /* past the tie */
    assert_int_equal(aclFloatToFloat16(0x1.ffcp-15f), 0x0400);       /* rounds up to normal */
    assert_int_equal(aclFloatToFloat16(1.0f + 0x1p-11f), 0x3c00);    /* tie: stays even */
    assert_int_equal(aclFloatToFloat16(1.0f + 0x3p-11f), 0x3c02);    /* tie: up to even */
    assert_int_equal(aclFloatToFloat16(2047.5f), 0x6800);            /* carry into exponent */
    assert_int_equal(aclFloatToFloat16(-0.0f), 0x8000);
    assert_int_equal(aclFloatToFloat16(FLT_MIN), 0x0000);            /* underflow keeps sign */
    assert_int_equal(aclFloatToFloat16(-FLT_TRUE_MIN), 0x8000);
}

/* CANN saturates where IEEE overflows to infinity: past 65504 (65520
 * rounds to infinity in IEEE), and infinities and NaNs become +-65504. */
static void test_float_to_fp16_saturates(void **state)
{
    (void)state;
    assert_int_equal(ieee_float_to_half(65520.0f), 0x7c00); /* the oracle overflows */
    assert_int_equal(aclFloatToFloat16(65519.0f), 0x7bff);
    assert_int_equal(aclFloatToFloat16(65520.0f), 0x7bff);
    assert_int_equal(aclFloatToFloat16(65536.0f), 0x7bff);
    assert_int_equal(aclFloatToFloat16(-1e6f), 0xfbff);
    assert_int_equal(aclFloatToFloat16(FLT_MAX), 0x7bff);
    assert_int_equal(aclFloatToFloat16(INFINITY), 0x7bff);
    assert_int_equal(aclFloatToFloat16(-INFINITY), 0xfbff);
    assert_int_equal(aclFloatToFloat16(NAN), 0x7bff);
    assert_int_equal(aclFloatToFloat16(-NAN), 0xfbff);
    expect_no_msg();
}

/* ---- Data buffers ---- */

static void test_data_buffer_null_handles(void **state)
{
    (void)state;
    assert_int_equal(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclDestroyDataBuffer", "dataBuffer");
    int x;
    assert_int_equal(aclUpdateDataBuffer(NULL, &x, 4), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclUpdateDataBuffer", "dataBuffer");
    /* the getters answer NULL or 0, silently */
    assert_null(aclGetDataBufferAddr(NULL));
    assert_int_equal(aclGetDataBufferSize(NULL), 0);
    assert_int_equal(aclGetDataBufferSizeV2(NULL), 0);
    expect_no_msg();
}

/* Creation checks nothing: NULL data and size 0 make a buffer too. */
static void test_data_buffer_create_update_destroy(void **state)
{
    (void)state;
    aclDataBuffer *b = aclCreateDataBuffer(NULL, 0);
    assert_non_null(b);
    assert_null(aclGetDataBufferAddr(b));
    assert_int_equal(aclGetDataBufferSizeV2(b), 0);
    char mem[64];
    assert_int_equal(aclUpdateDataBuffer(b, mem, sizeof mem), ACL_SUCCESS);
    assert_ptr_equal(aclGetDataBufferAddr(b), mem);
    assert_int_equal(aclGetDataBufferSize(b), 64);
    assert_int_equal(aclGetDataBufferSizeV2(b), 64);
    aclDataBuffer *c = aclCreateDataBuffer(mem + 8, 8);
    assert_ptr_not_equal(b, c);
    assert_ptr_equal(aclGetDataBufferAddr(c), mem + 8);
    assert_int_equal(aclDestroyDataBuffer(b), ACL_SUCCESS);
    assert_int_equal(aclDestroyDataBuffer(c), ACL_SUCCESS);
    expect_no_msg();
}

/* The deprecated getter returns the low 32 bits of a larger size. */
static void test_data_buffer_size_past_4_gib(void **state)
{
    (void)state;
    size_t big = (size_t)5 << 30;
    aclDataBuffer *b = aclCreateDataBuffer((void *)(uintptr_t)0x1000, big);
    assert_non_null(b);
    assert_int_equal(aclGetDataBufferSizeV2(b), big);
    assert_int_equal(aclGetDataBufferSize(b), (uint32_t)1 << 30);
    assert_int_equal(aclDestroyDataBuffer(b), ACL_SUCCESS);
}

/* Host memory running out is the only way creation fails. */
static void test_data_buffer_create_without_host_memory(void **state)
{
    (void)state;
    assert_int_equal(aclsim_fault_enable("lib/host/malloc"), 0);
    aclDataBuffer *b = aclCreateDataBuffer(NULL, 16);
    aclsim_fault_disable_all();
    assert_null(b);
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    assert_non_null(strstr(m, "Resource_Error_Insufficient_Host_Memory(EH0010)"));
    b = aclCreateDataBuffer(NULL, 16);
    assert_non_null(b);
    assert_int_equal(aclDestroyDataBuffer(b), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_type_size_per_type),
        cmocka_unit_test(test_fp16_to_float_every_finite_half_is_exact),
        cmocka_unit_test(test_fp16_to_float_exponent_31_is_a_number),
        cmocka_unit_test(test_float_to_fp16_rounds_to_nearest_even),
        cmocka_unit_test(test_float_to_fp16_known_values),
        cmocka_unit_test(test_float_to_fp16_saturates),
        cmocka_unit_test(test_data_buffer_null_handles),
        cmocka_unit_test(test_data_buffer_create_update_destroy),
        cmocka_unit_test(test_data_buffer_size_past_4_gib),
        cmocka_unit_test(test_data_buffer_create_without_host_memory),
    };
    return cmocka_run_group_tests_name("data", tests, NULL, NULL);
}

/*
 * test_data.c - data types and data buffers (DATA family): sizes as CANN's
 * runtime gives them, no aclInit needed.
 */
#include "testutil.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_type_size_per_type),
    };
    return cmocka_run_group_tests_name("data", tests, NULL, NULL);
}

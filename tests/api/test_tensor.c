/*
 * test_tensor.c - tensor descriptions, operator attributes and data
 * buffers (TENSOR, OP attribute and DATA buffer calls) pinned against
 * CANN's GE ACL layer (tensor_desc_internal_om2.cpp, op_attr.cpp) and the
 * runtime's data_buffer.cpp: codes, EH0001/EH0002/EH0008 texts, CANN's
 * quirks (aclSetTensorFormat/Shape set the storage ones), sizes.
 * None of these calls needs aclInit.
 */
#include <stdint.h>
#include "testutil.h"
#include "acl/acl_op.h"

/* The deprecated calls are exported and pinned too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void expect_arg_null(const char *param)
{
    char text[128];
    snprintf(text, sizeof text, "Argument %s must not be null.", param);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", text);
}

/* ---- Create / destroy ---- */

static void test_create_negative_num_dims_rejected(void **state)
{
    (void)state;
    assert_null(aclCreateTensorDesc(ACL_FLOAT, -1, NULL, ACL_FORMAT_ND));
    expect_msg("Invalid_Argument(EH0001)",
               "Value -1 for numDims is invalid. Reason: can't smaller than 0.");
}

static void test_create_null_dims_with_rank_rejected(void **state)
{
    (void)state;
    assert_null(aclCreateTensorDesc(ACL_FLOAT, 2, NULL, ACL_FORMAT_ND));
    expect_msg("Invalid_Argument(EH0001)",
               "Value 2 for numDims is invalid. Reason: dims is null while numDims > 0.");
}

static void test_create_scalar_has_one_element(void **state)
{
    (void)state;
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT16, 0, NULL, ACL_FORMAT_ND);
    assert_non_null(d);
    assert_int_equal(aclGetTensorDescNumDims(d), 0);
    assert_int_equal(aclGetTensorDescElementCount(d), 1);
    assert_int_equal(aclGetTensorDescSize(d), 2);
    aclDestroyTensorDesc(d);
    aclDestroyTensorDesc(NULL); /* no effect, no message */
    expect_no_msg();
}

static void test_getters_read_what_create_set(void **state)
{
    (void)state;
    int64_t dims[3] = {2, 3, 5};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_BF16, 3, dims, ACL_FORMAT_NCL);
    assert_int_equal(aclGetTensorDescType(d), ACL_BF16);
    assert_int_equal(aclGetTensorDescFormat(d), ACL_FORMAT_NCL);
    assert_int_equal(aclGetTensorDescNumDims(d), 3);
    assert_int_equal(aclGetTensorDescElementCount(d), 30);
    assert_int_equal(aclGetTensorDescSize(d), 60);
    int64_t v = 0;
    assert_int_equal(aclGetTensorDescDimV2(d, 2, &v), ACL_SUCCESS);
    assert_int_equal(v, 5);
    assert_string_equal(aclGetTensorDescName(d), "");
    assert_null(aclGetTensorDescAddress(d));
    assert_ptr_equal(aclGetTensorDescByIndex(d, 0), d);
    aclDestroyTensorDesc(d);
    expect_no_msg();
}

static void test_null_desc_getters_answer_neutral_values(void **state)
{
    (void)state;
    assert_int_equal(aclGetTensorDescType(NULL), ACL_DT_UNDEFINED);
    expect_arg_null("desc");
    assert_int_equal(aclGetTensorDescFormat(NULL), ACL_FORMAT_UNDEFINED);
    expect_arg_null("desc");
    assert_int_equal(aclGetTensorDescSize(NULL), 0);
    expect_arg_null("desc");
    assert_int_equal(aclGetTensorDescElementCount(NULL), 0);
    expect_arg_null("desc");
    assert_int_equal(aclGetTensorDescNumDims(NULL), 0);
    expect_arg_null("desc");
    assert_string_equal(aclGetTensorDescName(NULL), "");
    expect_no_msg();
    int64_t v;
    assert_int_equal(aclGetTensorDescDimV2(NULL, 0, &v), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("desc");
    assert_null(aclGetTensorDescByIndex(NULL, 0));
    expect_arg_null("desc");
}

static void test_dim_index_out_of_range(void **state)
{
    (void)state;
    int64_t dims[2] = {4, 4}, v = 7;
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    assert_int_equal(aclGetTensorDescDimV2(d, 2, &v), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)",
               "Value 2 for index is invalid. Reason: index out of range. numDims = 2.");
    assert_int_equal(v, 7);
    assert_int_equal(aclGetTensorDescDimV2(d, 0, NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("dimSize");
    aclDestroyTensorDesc(d);
}

static void test_negative_dim_counts_zero_elements(void **state)
{
    (void)state;
    int64_t dims[2] = {-1, 8};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    assert_int_equal(aclGetTensorDescElementCount(d), 0);
    expect_msg("Inner_Error(EH9999)", "[Check][Dim]invalid dim value -1");
    assert_int_equal(aclGetTensorDescSize(d), 0);
    (void)aclGetRecentErrMsg();
    aclDestroyTensorDesc(d);
}

static void test_unknown_rank_reads_as_acl_unknown_rank(void **state)
{
    (void)state;
    int64_t dims[1] = {-2};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    assert_true(aclGetTensorDescNumDims(d) == (size_t)ACL_UNKNOWN_RANK);
    aclDestroyTensorDesc(d);
}

/* ---- Setters ---- */

static void test_set_shape_sets_storage_origin_shape_sets_dims(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 2}, other[3] = {1, 2, 3};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    /* CANN's aclSetTensorShape sets the storage shape: dims stay. */
    assert_int_equal(aclSetTensorShape(d, 3, other), ACL_SUCCESS);
    assert_int_equal(aclGetTensorDescNumDims(d), 2);
    assert_int_equal(aclSetTensorOriginShape(d, 3, other), ACL_SUCCESS);
    assert_int_equal(aclGetTensorDescNumDims(d), 3);
    assert_int_equal(aclGetTensorDescElementCount(d), 6);
    /* and aclSetTensorFormat the storage format: the format stays. */
    assert_int_equal(aclSetTensorFormat(d, ACL_FORMAT_FRACTAL_NZ), ACL_SUCCESS);
    assert_int_equal(aclGetTensorDescFormat(d), ACL_FORMAT_ND);
    assert_int_equal(aclSetTensorOriginFormat(d, ACL_FORMAT_NCHW), ACL_SUCCESS);
    assert_int_equal(aclGetTensorDescFormat(d), ACL_FORMAT_NCHW);
    assert_int_equal(aclSetTensorShape(d, 1, NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("dims");
    assert_int_equal(aclSetTensorShape(NULL, 1, other), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("desc");
    /* Format setters ignore a NULL desc. */
    assert_int_equal(aclSetTensorFormat(NULL, ACL_FORMAT_ND), ACL_SUCCESS);
    assert_int_equal(aclSetTensorStorageFormat(NULL, ACL_FORMAT_ND), ACL_SUCCESS);
    assert_int_equal(aclSetTensorOriginFormat(NULL, ACL_FORMAT_ND), ACL_SUCCESS);
    expect_no_msg();
    aclDestroyTensorDesc(d);
}

static void test_shape_range_round_trip_and_checks(void **state)
{
    (void)state;
    int64_t dims[2] = {-1, 16};
    int64_t ranges[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 64}, {16, 16}};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
    assert_int_equal(aclSetTensorShapeRange(d, 2, ranges), ACL_SUCCESS);
    int64_t r[2];
    assert_int_equal(aclGetTensorDescDimRange(d, 0, 2, r), ACL_SUCCESS);
    assert_int_equal(r[0], 1);
    assert_int_equal(r[1], 64);
    assert_int_equal(aclGetTensorDescDimRange(d, 0, 1, r), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)",
               "Value 1 for dimRangeNum is invalid. Reason: cannot be less than 2.");
    assert_int_equal(aclGetTensorDescDimRange(d, 5, 2, r), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)",
               "Value 5 for index is invalid. Reason: index out of range. numDims = 2.");
    assert_int_equal(aclSetTensorShapeRange(NULL, 2, ranges), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("desc");
    assert_int_equal(aclSetTensorValueRange(d, 1, ranges), ACL_SUCCESS);
    aclDestroyTensorDesc(d);
}

static void test_name_const_placement_dynamic_input(void **state)
{
    (void)state;
    int64_t dims[1] = {2};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
    aclSetTensorDescName(d, "x1");
    assert_string_equal(aclGetTensorDescName(d), "x1");
    aclSetTensorDescName(d, NULL);
    assert_string_equal(aclGetTensorDescName(d), "");
    aclSetTensorDescName(NULL, "x");
    expect_arg_null("desc");
    float c[2] = {1, 2};
    assert_int_equal(aclSetTensorConst(d, c, sizeof c), ACL_SUCCESS);
    assert_int_equal(aclSetTensorConst(d, c, 0), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("desc"); /* CANN reports a zero length so */
    assert_int_equal(aclSetTensorConst(d, NULL, 4), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("dataBuffer");
    assert_int_equal(aclSetTensorPlaceMent(d, ACL_MEMTYPE_HOST), ACL_SUCCESS);
    assert_int_equal(aclSetTensorPlaceMent(NULL, ACL_MEMTYPE_HOST), ACL_ERROR_INVALID_PARAM);
    expect_no_msg(); /* CANN gives no message for it */
    assert_int_equal(aclSetTensorDynamicInput(d, "x"), ACL_SUCCESS);
    assert_int_equal(aclSetTensorDynamicInput(d, NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("dynamicInputName");
    aclDestroyTensorDesc(d);
}

static void test_trans_format_nz_and_unsupported(void **state)
{
    (void)state;
    int64_t dims[2] = {33, 17};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT16, 2, dims, ACL_FORMAT_ND), *nz = NULL;
    assert_int_equal(aclTransTensorDescFormat(d, ACL_FORMAT_FRACTAL_NZ, &nz), ACL_SUCCESS);
    assert_int_equal(aclGetTensorDescNumDims(nz), 4);
    int64_t want[4] = {2, 3, 16, 16};
    for (size_t i = 0; i < 4; i++) {
        int64_t v;
        assert_int_equal(aclGetTensorDescDimV2(nz, i, &v), ACL_SUCCESS);
        assert_int_equal(v, want[i]);
    }
    /* As CANN's: the new desc keeps the source format. */
    assert_int_equal(aclGetTensorDescFormat(nz), ACL_FORMAT_ND);
    aclDestroyTensorDesc(nz);
    assert_int_equal(aclTransTensorDescFormat(d, ACL_FORMAT_NC1HWC0, &nz),
                     (aclError)ACL_ERROR_GE_FORMAT_INVALID);
    expect_msg("Inner_Error(EH9999)", "[Call][TransShape]invoke TransShape failed. ge result = 145020");
    assert_int_equal(aclTransTensorDescFormat(d, ACL_FORMAT_ND, NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("dstDesc");
    aclDestroyTensorDesc(d);
}

/* ---- Attributes ---- */

static void test_attr_setters_check_attr_then_name(void **state)
{
    (void)state;
    aclopAttr *a = aclopCreateAttr();
    assert_non_null(a);
    assert_int_equal(aclopSetAttrBool(NULL, "x", 1), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("attr");
    assert_int_equal(aclopSetAttrInt(a, NULL, 1), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("attrName");
    assert_int_equal(aclopSetAttrString(a, "s", NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("attrValue");
    assert_int_equal(aclopSetAttrListInt(a, "l", 2, NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("values");
    const char *strs[2] = {"a", NULL};
    assert_int_equal(aclopSetAttrListString(a, "ls", 2, strs), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("arr[i]");
    assert_int_equal(aclopSetAttrListListInt(a, "ll", 1, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    expect_arg_null("numValues");
    aclopDestroyAttr(a);
    aclopDestroyAttr(NULL);
}

static void test_attr_every_kind_and_replace(void **state)
{
    (void)state;
    aclopAttr *a = aclopCreateAttr();
    int64_t ints[3] = {1, 2, 3};
    float fl[2] = {0.5f, 1.5f};
    uint8_t bools[2] = {1, 0};
    aclDataType dts[2] = {ACL_FLOAT, ACL_INT32};
    const char *strs[2] = {"p", "q"};
    int lens[2] = {2, 1};
    const int64_t *lists[2] = {ints, ints + 2};
    assert_int_equal(aclopSetAttrBool(a, "transpose_x1", 1), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrBool(a, "transpose_x1", 0), ACL_SUCCESS); /* replaces */
    assert_int_equal(aclopSetAttrInt(a, "i", -5), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrFloat(a, "f", 2.5f), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrString(a, "s", "txt"), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrDataType(a, "dt", ACL_FLOAT16), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListInt(a, "perm", 3, ints), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListFloat(a, "lf", 2, fl), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListBool(a, "lb", 2, bools), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListDataType(a, "ldt", 2, dts), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListString(a, "ls", 2, strs), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListListInt(a, "ll", 2, lens, lists), ACL_SUCCESS);
    assert_int_equal(aclopSetAttrListInt(a, "empty", -1, NULL), ACL_SUCCESS);
    expect_no_msg();
    aclopDestroyAttr(a);
}

/* ---- Data buffers ---- */

static void test_data_buffer_round_trip(void **state)
{
    (void)state;
    char bytes[16];
    aclDataBuffer *b = aclCreateDataBuffer(bytes, sizeof bytes);
    assert_non_null(b);
    assert_ptr_equal(aclGetDataBufferAddr(b), bytes);
    assert_int_equal(aclGetDataBufferSizeV2(b), 16);
    assert_int_equal(aclUpdateDataBuffer(b, bytes + 4, (size_t)1 << 33), ACL_SUCCESS);
    assert_ptr_equal(aclGetDataBufferAddr(b), bytes + 4);
    assert_true(aclGetDataBufferSizeV2(b) == (size_t)1 << 33);
    assert_int_equal(aclGetDataBufferSize(b), 0); /* truncated to 32 bits */
    assert_int_equal(aclDestroyDataBuffer(b), ACL_SUCCESS);
    assert_null(aclGetDataBufferAddr(NULL));
    assert_int_equal(aclGetDataBufferSizeV2(NULL), 0);
    assert_int_equal(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclDestroyDataBuffer", "dataBuffer");
    assert_int_equal(aclUpdateDataBuffer(NULL, bytes, 1), ACL_ERROR_INVALID_PARAM);
    expect_null_msg("aclUpdateDataBuffer", "dataBuffer");
    aclDataBuffer *empty = aclCreateDataBuffer(NULL, 0); /* optional inputs use these */
    assert_non_null(empty);
    aclDestroyDataBuffer(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_negative_num_dims_rejected),
        cmocka_unit_test(test_create_null_dims_with_rank_rejected),
        cmocka_unit_test(test_create_scalar_has_one_element),
        cmocka_unit_test(test_getters_read_what_create_set),
        cmocka_unit_test(test_null_desc_getters_answer_neutral_values),
        cmocka_unit_test(test_dim_index_out_of_range),
        cmocka_unit_test(test_negative_dim_counts_zero_elements),
        cmocka_unit_test(test_unknown_rank_reads_as_acl_unknown_rank),
        cmocka_unit_test(test_set_shape_sets_storage_origin_shape_sets_dims),
        cmocka_unit_test(test_shape_range_round_trip_and_checks),
        cmocka_unit_test(test_name_const_placement_dynamic_input),
        cmocka_unit_test(test_trans_format_nz_and_unsupported),
        cmocka_unit_test(test_attr_setters_check_attr_then_name),
        cmocka_unit_test(test_attr_every_kind_and_replace),
        cmocka_unit_test(test_data_buffer_round_trip),
    };
    return cmocka_run_group_tests_name("tensor", tests, NULL, NULL);
}

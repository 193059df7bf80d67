/*
 * test_op.c - single operators and the executor's memory behaviour:
 * CANN's argument checks and codes for aclopExecute(V2),
 * aclopCompileAndExecute(V2) and aclopCompile (hicann/ge op.cpp,
 * op_compiler.cpp, array_utils), results computed on the device bytes,
 * and how the executor uses the stream's allocator (allocator-consumers.md:
 * lookup per execute, fallback allocator kept for life, blocks freed right
 * after the launch, CANN's rounding, NULL block/address fails the call).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "testutil.h"
#include "acl/acl_op_compiler.h"
#include "acl/ops/acl_cblas.h"
#include "acl/acl_rt_allocator.h"
#include "aclsim/aclsim.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aclopExecute, aclGetTensorDescDim */

/* ---- A recording allocator: blocks are device addresses ---- */

struct rec {
    int allocs, frees, advises, null_alloc, null_addr;
    size_t sizes[16];
    int live;
    pthread_t thread;
    int other_thread;
};
static struct rec R;

static void *r_alloc(aclrtAllocator a, size_t n)
{
    struct rec *r = a;
    if (!pthread_equal(pthread_self(), r->thread))
        r->other_thread++;
    if (r->null_alloc)
        return NULL;
    void *p = NULL;
    if (aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    if (r->allocs < 16)
        r->sizes[r->allocs] = n;
    r->allocs++;
    r->live++;
    return p;
}
static void r_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    struct rec *r = a;
    r->frees++;
    r->live--;
    aclrtFree(b); /* in stream order: the executor's stream only uses it */
}
static void *r_advise(aclrtAllocator a, size_t n, aclrtAllocatorAddr h)
{
    ((struct rec *)a)->advises++;
    (void)n, (void)h;
    return NULL;
}
static void *r_addr(aclrtAllocatorBlock b)
{
    return R.null_addr ? NULL : b;
}

static aclrtAllocatorDesc rec_desc(void)
{
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    assert_int_equal(aclrtAllocatorSetObjToDesc(d, &R), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, r_alloc), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, r_free), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(d, r_advise), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, r_addr), ACL_SUCCESS);
    return d;
}

/* ---- Tensors on the device ---- */

struct tensor {
    aclTensorDesc *desc;
    aclDataBuffer *buf;
    void *dev;
    size_t bytes;
};

static struct tensor make(aclDataType t, int nd, const int64_t *dims, const void *host)
{
    struct tensor x = {aclCreateTensorDesc(t, nd, dims, ACL_FORMAT_ND), NULL, NULL, 0};
    assert_non_null(x.desc);
    x.bytes = aclGetTensorDescSize(x.desc);
    assert_int_equal(aclrtMalloc(&x.dev, x.bytes ? x.bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST),
                     ACL_SUCCESS);
    if (host)
        assert_int_equal(aclrtMemcpy(x.dev, x.bytes, host, x.bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                         ACL_SUCCESS);
    else
        assert_int_equal(aclrtMemset(x.dev, x.bytes, 0, x.bytes), ACL_SUCCESS);
    x.buf = aclCreateDataBuffer(x.dev, x.bytes);
    return x;
}

static void drop(struct tensor *x)
{
    aclDestroyTensorDesc(x->desc);
    aclDestroyDataBuffer(x->buf);
    assert_int_equal(aclrtFree(x->dev), ACL_SUCCESS);
}

static void read_back(const struct tensor *x, void *host)
{
    assert_int_equal(aclrtMemcpy(host, x->bytes, x->dev, x->bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
}

/* Run op with inputs a (and b) into out on stream s. */
static aclError run2(const char *type, struct tensor *a, struct tensor *b, struct tensor *out,
                     aclopAttr *attr, aclrtStream s)
{
    aclTensorDesc *in[2] = {a->desc, b ? b->desc : NULL};
    aclDataBuffer *ib[2] = {a->buf, b ? b->buf : NULL};
    return aclopExecuteV2(type, b ? 2 : 1, in, ib, 1, &out->desc, &out->buf, attr, s);
}

static aclrtStream S;

static int setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&S) != ACL_SUCCESS)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(S);
    aclrtResetDevice(0);
    aclFinalize();
    return aclsim_alloc_check_reports(NULL) == 0 ? 0 : -1; /* every test is clean */
}

static int fresh(void **state)
{
    (void)state;
    memset(&R, 0, sizeof R);
    R.thread = pthread_self();
    (void)aclGetRecentErrMsg();
    return 0;
}

/* ---- Argument checks (CANN's order and messages) ---- */

static void test_execute_v2_bad_arguments(void **state)
{
    (void)state;
    int64_t dims[1] = {4};
    struct tensor a = make(ACL_FLOAT, 1, dims, NULL), o = make(ACL_FLOAT, 1, dims, NULL);
    aclTensorDesc *in[2] = {a.desc, a.desc};
    aclDataBuffer *ib[2] = {a.buf, NULL};
    assert_int_equal(aclopExecuteV2(NULL, 2, in, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument opType must not be null.");
    assert_int_equal(aclopExecuteV2("Add", -1, in, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_no_msg(); /* CANN gives none for a negative count here */
    assert_int_equal(aclopExecuteV2("Add", 2, NULL, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument arr must not be null.");
    assert_int_equal(aclopExecuteV2("Add", 2, in, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument arr[idx] must not be null.");
    aclDataBuffer *bad = aclCreateDataBuffer(NULL, 16);
    ib[1] = bad;
    assert_int_equal(aclopExecuteV2("Add", 2, in, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)", "Value nullptr for data is invalid. Reason: data of "
               "element at index[1]while size is larger than 0.");
    aclDestroyDataBuffer(bad);
    drop(&a);
    drop(&o);
}

static void test_unknown_op_not_found_on_execute_type_mismatch_on_compile(void **state)
{
    (void)state;
    int64_t dims[1] = {4};
    struct tensor a = make(ACL_FLOAT, 1, dims, NULL), o = make(ACL_FLOAT, 1, dims, NULL);
    assert_int_equal(run2("Frobnicate", &a, &a, &o, NULL, S), ACL_ERROR_OP_NOT_FOUND);
    expect_msg("Inner_Error(EH9999)", "[Match][OpModel]MatchOpModel opName = Frobnicate fail "
               "from static map or dynamic map. Please make sure the op executed and the op "
               "compiled is matched, you can check the op type, op inputs number, outputs number, "
               "input format, origin format, datatype, memtype, attr, dim range, and so on.");
    aclTensorDesc *in[2] = {a.desc, a.desc};
    aclDataBuffer *ib[2] = {a.buf, a.buf};
    assert_int_equal(aclopCompileAndExecuteV2("Frobnicate", 2, in, ib, 1, &o.desc, &o.buf, NULL,
                                              ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, S),
                     ACL_ERROR_OP_TYPE_NOT_MATCH);
    (void)aclGetRecentErrMsg();
    assert_int_equal(aclopCompileAndExecuteV2("Add", 1, in, ib, 1, &o.desc, &o.buf, NULL,
                                              ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, S),
                     ACL_ERROR_OP_INPUT_NOT_MATCH);
    expect_msg("Inner_Error(EH9999)", "aclopCompileAndExecuteV2 failed: Add takes 2 inputs, got 1.");
    assert_int_equal(aclopCompileAndExecuteV2("Add", 2, in, ib, 1, &o.desc, &o.buf, NULL,
                                              ACL_ENGINE_SYS, (aclopCompileType)7, NULL, S),
                     ACL_ERROR_API_NOT_SUPPORT);
    expect_msg("Not_Supported(EH0006)", "compile type is not supported. Reason: must be equal to "
               "ACL_COMPILE_SYS or ACL_COMPILE_UNREGISTERED.");
    assert_int_equal(aclopCompileAndExecuteV2("Add", 2, in, ib, 1, &o.desc, &o.buf, NULL,
                                              ACL_ENGINE_SYS, ACL_COMPILE_UNREGISTERED, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument opPath must not be null.");
    assert_int_equal(R.allocs, 0); /* nothing reached the executor */
    drop(&a);
    drop(&o);
}

static void test_mismatches_named_by_their_codes_on_compile(void **state)
{
    (void)state;
    int64_t d4[1] = {4}, d3[1] = {3}, d22[2] = {2, 2};
    struct tensor f = make(ACL_FLOAT, 1, d4, NULL), i = make(ACL_INT8, 1, d4, NULL);
    struct tensor o = make(ACL_FLOAT, 1, d3, NULL), m = make(ACL_FLOAT, 2, d22, NULL);
    aclTensorDesc *in[2] = {f.desc, f.desc};
    aclDataBuffer *ib[2] = {f.buf, f.buf};
    /* Output shape wrong. */
    assert_int_equal(aclopCompileAndExecute("Add", 2, (const aclTensorDesc *const *)in,
                                            (const aclDataBuffer *const *)ib, 1,
                                            (const aclTensorDesc *const *)&o.desc, &o.buf, NULL,
                                            ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, S),
                     ACL_ERROR_OP_OUTPUT_NOT_MATCH);
    expect_msg("Inner_Error(EH9999)", "aclopCompileAndExecute failed: Add output[0] has shape [3], "
               "the operator gives [4].");
    /* A type Add does not take. */
    in[0] = in[1] = i.desc;
    assert_int_equal(aclopCompileAndExecuteV2("Add", 2, in, ib, 1, &f.desc, &f.buf, NULL,
                                              ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, S),
                     ACL_ERROR_UNSUPPORTED_DATA_TYPE);
    (void)aclGetRecentErrMsg();
    /* Cast without its required attribute. */
    assert_int_equal(aclopCompileAndExecuteV2("Cast", 1, in, ib, 1, &f.desc, &f.buf, NULL,
                                              ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, S),
                     ACL_ERROR_OP_ATTR_NOT_MATCH);
    expect_msg("Inner_Error(EH9999)", "aclopCompileAndExecuteV2 failed: Cast needs its required "
               "attribute dst_type.");
    /* A storage format the built-in operators do not take. */
    in[0] = in[1] = m.desc;
    ib[0] = ib[1] = m.buf;
    aclSetTensorFormat(m.desc, ACL_FORMAT_FRACTAL_NZ);
    assert_int_equal(aclopCompileAndExecuteV2("Add", 2, in, ib, 1, &m.desc, &m.buf, NULL,
                                              ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL, S),
                     ACL_ERROR_FORMAT_NOT_MATCH);
    (void)aclGetRecentErrMsg();
    /* The same on the execute path: no model matches. */
    assert_int_equal(run2("Add", &m, &m, &m, NULL, S), ACL_ERROR_OP_NOT_FOUND);
    (void)aclGetRecentErrMsg();
    drop(&f);
    drop(&i);
    drop(&o);
    drop(&m);
}

static void test_buffers_must_be_device_memory(void **state)
{
    (void)state;
    int64_t dims[1] = {8};
    struct tensor a = make(ACL_FLOAT, 1, dims, NULL), o = make(ACL_FLOAT, 1, dims, NULL);
    float host[8];
    aclDataBuffer *hb = aclCreateDataBuffer(host, sizeof host);
    aclTensorDesc *in[2] = {a.desc, a.desc};
    aclDataBuffer *ib[2] = {a.buf, hb};
    assert_int_equal(aclopExecuteV2("Add", 2, in, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_INVALID_PARAM);
    char want[256];
    snprintf(want, sizeof want, "Value %p for inputs[1] of Add is invalid. Reason: it is not "
             "device memory.", (void *)host);
    expect_msg("Invalid_Argument(EH0001)", want);
    aclUpdateDataBuffer(hb, a.dev, 16); /* too small is fine: the allocation is 32 bytes */
    aclTensorDesc *big = aclCreateTensorDesc(ACL_FLOAT, 1, (int64_t[]){16}, ACL_FORMAT_ND);
    in[1] = big;
    assert_int_equal(aclopExecuteV2("Add", 2, in, ib, 1, &o.desc, &o.buf, NULL, S),
                     ACL_ERROR_OP_NOT_FOUND); /* [8] + [16] do not broadcast */
    (void)aclGetRecentErrMsg();
    aclDestroyTensorDesc(big);
    aclDestroyDataBuffer(hb);
    drop(&a);
    drop(&o);
}

static void test_all_empty_outputs_succeed_at_once(void **state)
{
    (void)state;
    int64_t z[2] = {0, 4};
    aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, z, ACL_FORMAT_ND);
    aclDataBuffer *b = aclCreateDataBuffer(NULL, 0);
    assert_int_equal(aclopExecuteV2("Frobnicate", 1, &d, &b, 1, &d, &b, NULL, S), ACL_SUCCESS);
    expect_no_msg();
    aclDestroyTensorDesc(d);
    aclDestroyDataBuffer(b);
}

/* ---- Results ---- */

static void test_add_broadcasts_and_v2_refreshes_unknown_output_dims(void **state)
{
    (void)state;
    int64_t da[2] = {2, 3}, db[1] = {3}, dq[2] = {-1, -1};
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30}, o[6];
    struct tensor ta = make(ACL_FLOAT, 2, da, a), tb = make(ACL_FLOAT, 1, db, b);
    struct tensor to = make(ACL_FLOAT, 2, da, NULL);
    aclSetTensorOriginShape(to.desc, 2, dq); /* unknown: V2 fills them in */
    assert_int_equal(run2("Add", &ta, &tb, &to, NULL, S), ACL_SUCCESS);
    assert_int_equal(aclGetTensorDescDim(to.desc, 0), 2);
    assert_int_equal(aclGetTensorDescDim(to.desc, 1), 3);
    assert_int_equal(aclrtSynchronizeStream(S), ACL_SUCCESS);
    read_back(&to, o);
    for (int i = 0; i < 6; i++)
        assert_true(o[i] == a[i] + b[i % 3]);
    drop(&ta);
    drop(&tb);
    drop(&to);
}

static void test_cast_fp32_to_fp16_to_int32(void **state)
{
    (void)state;
    int64_t d[1] = {5};
    float a[5] = {1.5f, -2.25f, 65504.0f, 1e-3f, 7.9f};
    struct tensor ta = make(ACL_FLOAT, 1, d, a), th = make(ACL_FLOAT16, 1, d, NULL);
    struct tensor ti = make(ACL_INT32, 1, d, NULL), tf = make(ACL_FLOAT, 1, d, NULL);
    aclopAttr *to16 = aclopCreateAttr(), *to32 = aclopCreateAttr(), *tof = aclopCreateAttr();
    aclopSetAttrInt(to16, "dst_type", ACL_FLOAT16);
    aclopSetAttrInt(to32, "dst_type", ACL_INT32);
    aclopSetAttrInt(tof, "dst_type", ACL_FLOAT);
    assert_int_equal(run2("Cast", &ta, NULL, &th, to16, S), ACL_SUCCESS);
    assert_int_equal(run2("Cast", &th, NULL, &ti, to32, S), ACL_SUCCESS);
    assert_int_equal(run2("Cast", &th, NULL, &tf, tof, S), ACL_SUCCESS);
    int32_t oi[5];
    float of[5];
    read_back(&ti, oi);
    read_back(&tf, of);
    int32_t want_i[5] = {1, -2, 65504, 0, 7};
    float want_f[5] = {1.5f, -2.25f, 65504.0f, 0.0010004043579101562f, 7.8984375f};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(oi[i], want_i[i]);
        assert_true(of[i] == want_f[i]);
    }
    aclopDestroyAttr(to16);
    aclopDestroyAttr(to32);
    aclopDestroyAttr(tof);
    drop(&ta);
    drop(&th);
    drop(&ti);
    drop(&tf);
}

static void test_matmul_transpose_and_its_memory(void **state)
{
    (void)state;
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    aclrtAllocatorDesc d = rec_desc();
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    /* x1 is given transposed: [k=3, m=2]; x2 [3, 4]. */
    int64_t d1[2] = {3, 2}, d2[2] = {3, 4}, d3[2] = {2, 4};
    float x1[6] = {1, 4, 2, 5, 3, 6}, x2[12], y[8];
    for (int i = 0; i < 12; i++)
        x2[i] = (float)i;
    struct tensor a = make(ACL_FLOAT, 2, d1, x1), b = make(ACL_FLOAT, 2, d2, x2);
    struct tensor o = make(ACL_FLOAT, 2, d3, NULL);
    aclopAttr *at = aclopCreateAttr();
    aclopSetAttrBool(at, "transpose_x1", 1);
    assert_int_equal(run2("MatMul", &a, &b, &o, at, s), ACL_SUCCESS);
    /* The tiling record (32 + 32) and the fp32 accumulators (2*4*4 -> 512),
     * both back right after the launch, before any synchronisation. */
    assert_int_equal(R.allocs, 2);
    assert_int_equal(R.sizes[0], 64);
    assert_int_equal(R.sizes[1], 512);
    assert_int_equal(R.frees, 2);
    assert_int_equal(R.advises, 0);
    assert_int_equal(R.other_thread, 0);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    read_back(&o, y);
    float want[8] = {32, 38, 44, 50, 68, 83, 98, 113};
    for (int i = 0; i < 8; i++)
        assert_true(y[i] == want[i]);
    aclopDestroyAttr(at);
    drop(&a);
    drop(&b);
    drop(&o);
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void test_reduce_sum_axes_keep_dims_and_transpose(void **state)
{
    (void)state;
    int64_t dx[3] = {2, 2, 3}, dr[3] = {2, 1, 3}, dt[3] = {3, 2, 2}, da[1] = {1};
    float x[12], r[6], t[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    struct tensor tx = make(ACL_FLOAT, 3, dx, x), tr = make(ACL_FLOAT, 3, dr, NULL);
    struct tensor tt = make(ACL_FLOAT, 3, dt, NULL);
    /* ReduceSum's axes input is a const tensor, as CANN requires. */
    aclTensorDesc *axes = aclCreateTensorDesc(ACL_INT64, 1, da, ACL_FORMAT_ND);
    int64_t one = 1;
    assert_int_equal(aclSetTensorConst(axes, &one, sizeof one), ACL_SUCCESS);
    aclDataBuffer *ab = aclCreateDataBuffer(NULL, 0);
    aclopAttr *kd = aclopCreateAttr();
    aclopSetAttrBool(kd, "keep_dims", 1);
    aclTensorDesc *in[2] = {tx.desc, axes};
    aclDataBuffer *ib[2] = {tx.buf, ab};
    assert_int_equal(aclopExecuteV2("ReduceSum", 2, in, ib, 1, &tr.desc, &tr.buf, kd, S),
                     ACL_SUCCESS);
    aclopAttr *pa = aclopCreateAttr();
    int64_t perm[3] = {2, 0, 1};
    aclopSetAttrListInt(pa, "perm", 3, perm);
    assert_int_equal(run2("TransposeD", &tx, NULL, &tt, pa, S), ACL_SUCCESS);
    read_back(&tr, r);
    read_back(&tt, t);
    float want_r[6] = {3, 5, 7, 15, 17, 19};
    for (int i = 0; i < 6; i++)
        assert_true(r[i] == want_r[i]);
    /* t[c][a][b] = x[a][b][c] */
    for (int c = 0; c < 3; c++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                assert_true(t[c * 4 + a * 2 + b] == x[a * 6 + b * 3 + c]);
    aclopDestroyAttr(kd);
    aclopDestroyAttr(pa);
    aclDestroyTensorDesc(axes);
    aclDestroyDataBuffer(ab);
    drop(&tx);
    drop(&tr);
    drop(&tt);
}

static void test_activations(void **state)
{
    (void)state;
    int64_t d[1] = {4};
    float x[4] = {-2, -0.5f, 0.5f, 3}, y[4];
    struct tensor tx = make(ACL_FLOAT, 1, d, x), ty = make(ACL_FLOAT, 1, d, NULL);
    static const char *ops[] = {"Relu", "Sigmoid", "Tanh", "Gelu"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(run2(ops[k], &tx, NULL, &ty, NULL, S), ACL_SUCCESS);
        read_back(&ty, y);
        for (int i = 0; i < 4; i++) {
            double v = x[i], want = k == 0 ? (v > 0 ? v : 0) : k == 1 ? 1 / (1 + exp(-v))
                                   : k == 2 ? tanh(v)
                                   : 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
            assert_true(fabs(y[i] - want) < 1e-6);
        }
    }
    drop(&tx);
    drop(&ty);
}

/* ZerosLike and OnesLike: x's shape and type, every element 0 / 1 (the fill
 * kernel aclnnInplaceZero and aclnnInplaceFillScalar share). */
static void test_zeros_like_ones_like(void **state)
{
    (void)state;
    int64_t d[1] = {3};
    int32_t x[3] = {7, -8, 9}, y[3] = {5, 5, 5};
    struct tensor tx = make(ACL_INT32, 1, d, x), ty = make(ACL_INT32, 1, d, y);
    assert_int_equal(run2("OnesLike", &tx, NULL, &ty, NULL, S), ACL_SUCCESS);
    read_back(&ty, y);
    for (int i = 0; i < 3; i++)
        assert_int_equal(y[i], 1);
    assert_int_equal(run2("ZerosLike", &tx, NULL, &ty, NULL, S), ACL_SUCCESS);
    read_back(&ty, y);
    for (int i = 0; i < 3; i++)
        assert_int_equal(y[i], 0);
    drop(&tx);
    drop(&ty);
}

/* ---- The executor's allocator ---- */

static void test_alloc_null_fails_the_execute_no_fallback(void **state)
{
    (void)state;
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    aclrtAllocatorDesc d = rec_desc();
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    int64_t dims[1] = {4};
    struct tensor a = make(ACL_FLOAT, 1, dims, NULL), o = make(ACL_FLOAT, 1, dims, NULL);
    R.null_alloc = 1;
    assert_int_equal(run2("Add", &a, &a, &o, NULL, s), ACL_ERROR_GE_FAILURE);
    expect_msg("Inner_Error(EH9999)", "Failed to malloc memory by external allocator");
    R.null_alloc = 0;
    R.null_addr = 1;
    assert_int_equal(run2("Add", &a, &a, &o, NULL, s), ACL_ERROR_GE_FAILURE);
    expect_msg("Inner_Error(EH9999)", "Failed to get the address of a block from external "
               "allocator");
    assert_int_equal(R.allocs, 1);
    assert_int_equal(R.frees, 1); /* the block without an address went back */
    R.null_addr = 0;
    assert_int_equal(run2("Add", &a, &a, &o, NULL, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    drop(&a);
    drop(&o);
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    aclrtAllocatorDestroyDesc(d);
    aclrtDestroyStream(s);
}

static void test_fallback_allocator_kept_for_life_late_registration_ignored(void **state)
{
    (void)state;
    size_t f0, f, tot;
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &tot), ACL_SUCCESS);
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    int64_t dims[1] = {4};
    struct tensor a = make(ACL_FLOAT, 1, dims, NULL), o = make(ACL_FLOAT, 1, dims, NULL);
    assert_int_equal(run2("Add", &a, &a, &o, NULL, s), ACL_SUCCESS); /* built-in */
    aclrtAllocatorDesc d = rec_desc();
    assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    assert_int_equal(run2("Add", &a, &a, &o, NULL, s), ACL_SUCCESS);
    assert_int_equal(R.allocs, 0); /* ignored: CANN keeps the built-in one */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    aclrtAllocatorDestroyDesc(d);
    /* Register first, then run, unregister, run: the stream then also
     * keeps the fallback allocator, and registering again changes nothing. */
    aclrtStream t;
    assert_int_equal(aclrtCreateStream(&t), ACL_SUCCESS);
    d = rec_desc();
    assert_int_equal(aclrtAllocatorRegister(t, d), ACL_SUCCESS);
    assert_int_equal(run2("Add", &a, &a, &o, NULL, t), ACL_SUCCESS);
    assert_int_equal(R.allocs, 1);
    assert_int_equal(aclrtSynchronizeStream(t), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(t), ACL_SUCCESS);
    assert_int_equal(run2("Add", &a, &a, &o, NULL, t), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorRegister(t, d), ACL_SUCCESS);
    assert_int_equal(run2("Add", &a, &a, &o, NULL, t), ACL_SUCCESS);
    assert_int_equal(R.allocs, 1);
    assert_int_equal(aclrtSynchronizeStream(t), ACL_SUCCESS);
    assert_int_equal(aclrtAllocatorUnregister(t), ACL_SUCCESS);
    aclrtAllocatorDestroyDesc(d);
    drop(&a);
    drop(&o);
    aclrtDestroyStream(s);
    aclrtDestroyStream(t);
    /* The fallback allocators' memory went with the streams. */
    assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &tot), ACL_SUCCESS);
    assert_true(f == f0);
}

static void test_operator_takes_roofline_time_on_its_stream(void **state)
{
    (void)state;
    /* A GEMM large enough for its cube time to dwarf the host call cost is
     * computed for real: 100 s under memcheck, which the small operators
     * of this suite already cover. */
    SKIP_UNDER_VALGRIND();
    aclrtStream s;
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    int64_t dims[2] = {1024, 1024};
    struct tensor a = make(ACL_FLOAT16, 2, dims, NULL), o = make(ACL_FLOAT16, 2, dims, NULL);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    uint64_t t0, t1;
    assert_int_equal(aclsim_clock_stream(s, &t0), ACL_SUCCESS);
    uint64_t h0;
    aclsim_clock_host(&h0);
    assert_int_equal(run2("MatMul", &a, &a, &o, NULL, s), ACL_SUCCESS);
    assert_int_equal(aclsim_clock_stream(s, &t1), ACL_SUCCESS);
    /* 2 * 1024^3 flops on 24 cube cores x 8192 flop/cycle at 1850 MHz,
     * plus msmodeling's 5 us per matmul kernel. */
    double want_us = 5 + 2.0 * 1024 * 1024 * 1024 / (24 * 8192 * 1850e6) * 1e6;
    uint64_t start = t0 > h0 ? t0 : h0;
    double got_us = (double)(t1 - start) / 1e6;
    assert_true(fabs(got_us - want_us) < 1.5); /* within the host call cost */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    drop(&a);
    drop(&o);
    aclrtDestroyStream(s);
}

/* ---- cblas, handles, aclopCast ---- */

static void test_hgemm_and_s8gemm_through_gemm(void **state)
{
    (void)state;
    int64_t d22[2] = {2, 2}, d0[1] = {1}, d23[2] = {2, 3}, d32[2] = {3, 2};
    /* fp16: A = 2I, B = [[1, 0.5], [2, 3]], alpha 1, beta 0: C = 2B. */
    uint16_t a[4] = {0x4000, 0, 0, 0x4000}, b[4] = {0x3C00, 0x3800, 0x4000, 0x4200};
    uint16_t one = 0x3C00, zero = 0, c[4];
    struct tensor ta = make(ACL_FLOAT16, 2, d22, a), tb = make(ACL_FLOAT16, 2, d22, b);
    struct tensor tc = make(ACL_FLOAT16, 2, d22, NULL), al = make(ACL_FLOAT16, 1, d0, &one);
    struct tensor be = make(ACL_FLOAT16, 1, d0, &zero);
    assert_int_equal(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, 2, al.dev, ta.dev,
                                  -1, tb.dev, -1, be.dev, tc.dev, -1, ACL_COMPUTE_HIGH_PRECISION,
                                  S),
                     ACL_SUCCESS);
    read_back(&tc, c);
    uint16_t want[4] = {0x4000, 0x3C00, 0x4400, 0x4600};
    assert_memory_equal(c, want, sizeof want);
    /* int8, B transposed, alpha 2, beta 1 on C = 1. */
    int8_t ia[6] = {1, 2, 3, 4, 5, 6}, ibt[6] = {1, 0, 1, 0, 1, 0}; /* B^T [2x3] */
    int32_t two = 2, onei = 1, ci[4] = {1, 1, 1, 1}, co[4];
    struct tensor sa = make(ACL_INT8, 2, d23, ia), sb = make(ACL_INT8, 2, d23, ibt);
    struct tensor sc = make(ACL_INT32, 2, d22, ci), sal = make(ACL_INT32, 1, d0, &two);
    struct tensor sbe = make(ACL_INT32, 1, d0, &onei);
    (void)d32;
    assert_int_equal(aclblasS8gemm(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, 2, 2, 3, sal.dev, sa.dev,
                                   -1, sb.dev, -1, sbe.dev, sc.dev, -1,
                                   ACL_COMPUTE_HIGH_PRECISION, S),
                     ACL_SUCCESS);
    read_back(&sc, co);
    /* B = [[1, 0], [0, 1], [1, 0]]: A @ B = [[4, 2], [10, 5]]; times 2 plus 1. */
    int32_t wi[4] = {9, 5, 21, 11};
    assert_memory_equal(co, wi, sizeof wi);
    /* CANN's checks, in its order. */
    assert_int_equal(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, 2, al.dev, ta.dev,
                                   0, ACL_FLOAT16, tb.dev, -1, ACL_FLOAT16, be.dev, tc.dev, -1,
                                   ACL_FLOAT16, ACL_COMPUTE_HIGH_PRECISION, S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)", "Value lda = 0, ldb = -1, ldc = -1 for lda, ldb, ldc "
               "is invalid. Reason: only support -1.");
    assert_int_equal(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 0, 2, 2, al.dev, ta.dev,
                                  -1, tb.dev, -1, be.dev, tc.dev, -1, ACL_COMPUTE_HIGH_PRECISION,
                                  S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)", "Value m = 0, n = 2, k = 2 for m, n, k is invalid. "
               "Reason: mnk must > 0.");
    assert_int_equal(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, 2, NULL, ta.dev,
                                  -1, tb.dev, -1, be.dev, tc.dev, -1, ACL_COMPUTE_HIGH_PRECISION,
                                  S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument alpha must not be null.");
    assert_int_equal(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, 2, al.dev, ta.dev,
                                  -1, tb.dev, -1, be.dev, tc.dev, -1, ACL_COMPUTE_LOW_PRECISION,
                                  S),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument(EH0001)", "Value  for type is invalid. Reason: only support "
               "ACL_COMPUTE_HIGH_PRECISION.");
    struct tensor *all[] = {&ta, &tb, &tc, &al, &be, &sa, &sb, &sc, &sal, &sbe};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        drop(all[i]);
}

static void test_handles_for_s8gemv_and_cast(void **state)
{
    (void)state;
    int64_t d23[2] = {2, 3}, d3[2] = {3, 1}, d2[2] = {2, 1}, d0[1] = {1};
    int8_t a[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 1, 2};
    int32_t one = 1, zero = 0, y[2];
    struct tensor ta = make(ACL_INT8, 2, d23, a), tx = make(ACL_INT8, 2, d3, x);
    struct tensor ty = make(ACL_INT32, 2, d2, NULL), al = make(ACL_INT32, 1, d0, &one);
    struct tensor be = make(ACL_INT32, 1, d0, &zero);
    aclopHandle *h = NULL;
    assert_int_equal(aclblasCreateHandleForS8gemv(ACL_TRANS_N, 2, 3, ACL_COMPUTE_HIGH_PRECISION,
                                                  &h),
                     ACL_SUCCESS);
    const aclDataBuffer *in[5] = {ta.buf, tx.buf, ty.buf, al.buf, be.buf};
    aclDataBuffer *out[1] = {ty.buf};
    assert_int_equal(aclopExecWithHandle(h, 5, in, 1, out, S), ACL_SUCCESS);
    read_back(&ty, y);
    assert_int_equal(y[0], 9);
    assert_int_equal(y[1], 21);
    assert_int_equal(aclopExecWithHandle(h, 4, in, 1, out, S), ACL_ERROR_OP_INPUT_NOT_MATCH);
    expect_msg("Invalid_Argument(EH0001)", "Value 4 for input num is invalid. Reason: input num "
               "mismatch: expect 5.");
    assert_int_equal(aclopExecWithHandle(NULL, 5, in, 1, out, S), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument handle must not be null.");
    aclopDestroyHandle(h);
    /* Cast: by call and by handle. */
    float f[2];
    struct tensor tf = make(ACL_FLOAT, 2, d2, NULL);
    assert_int_equal(aclopCast(ty.desc, ty.buf, tf.desc, tf.buf, 0, S), ACL_SUCCESS);
    read_back(&tf, f);
    assert_true(f[0] == 9 && f[1] == 21);
    assert_int_equal(aclopCreateHandleForCast(tf.desc, ty.desc, 0, &h), ACL_SUCCESS);
    const aclDataBuffer *cin[1] = {tf.buf};
    aclDataBuffer *cout[1] = {ty.buf};
    assert_int_equal(aclopExecWithHandle(h, 1, cin, 1, cout, S), ACL_SUCCESS);
    aclopDestroyHandle(h);
    assert_int_equal(aclopCast(ty.desc, ty.buf, NULL, tf.buf, 0, S), ACL_ERROR_INVALID_PARAM);
    expect_msg("Invalid_Argument_Null_Pointer(EH0002)", "Argument dstDesc must not be null.");
    assert_int_equal(aclopCreateHandle("Frobnicate", 1, (const aclTensorDesc *const *)&tf.desc,
                                       1, (const aclTensorDesc *const *)&tf.desc, NULL, &h),
                     ACL_ERROR_OP_NOT_FOUND);
    (void)aclGetRecentErrMsg();
    struct tensor *all[] = {&ta, &tx, &ty, &al, &be, &tf};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        drop(all[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_execute_v2_bad_arguments, fresh),
        cmocka_unit_test_setup(test_unknown_op_not_found_on_execute_type_mismatch_on_compile, fresh),
        cmocka_unit_test_setup(test_mismatches_named_by_their_codes_on_compile, fresh),
        cmocka_unit_test_setup(test_buffers_must_be_device_memory, fresh),
        cmocka_unit_test_setup(test_all_empty_outputs_succeed_at_once, fresh),
        cmocka_unit_test_setup(test_add_broadcasts_and_v2_refreshes_unknown_output_dims, fresh),
        cmocka_unit_test_setup(test_cast_fp32_to_fp16_to_int32, fresh),
        cmocka_unit_test_setup(test_matmul_transpose_and_its_memory, fresh),
        cmocka_unit_test_setup(test_reduce_sum_axes_keep_dims_and_transpose, fresh),
        cmocka_unit_test_setup(test_activations, fresh),
        cmocka_unit_test_setup(test_zeros_like_ones_like, fresh),
        cmocka_unit_test_setup(test_alloc_null_fails_the_execute_no_fallback, fresh),
        cmocka_unit_test_setup(test_fallback_allocator_kept_for_life_late_registration_ignored, fresh),
        cmocka_unit_test_setup(test_operator_takes_roofline_time_on_its_stream, fresh),
        cmocka_unit_test_setup(test_hgemm_and_s8gemm_through_gemm, fresh),
        cmocka_unit_test_setup(test_handles_for_s8gemv_and_cast, fresh),
    };
    return cmocka_run_group_tests_name("op", tests, setup, teardown);
}

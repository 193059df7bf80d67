/*
 * nnop.c - the aclnn operators over the built-in operator library: each
 * aclnnXxxGetWorkspaceSize checks its arguments, plans the call through
 * library.c (the same checks, shapes and kernels as the aclop operator of
 * the same computation: nothing is computed twice) and hands out an
 * executor and the workspace size; each aclnnXxx launches an executor on
 * a stream with the caller's workspace through the single-op executor
 * (executor.c, api_op_execute_ws), which shows the workspace to the
 * allocator sanitizer and takes the kernel's roofline time on the stream.
 *
 * Workspace sizes (documented in the aclnn table of docs/operators.md): the plan's
 * workspace request of library.c, without the tiling record (aclnn's
 * kernels carry their tiling in the launch): RoundUp(batch * m * n * 4,
 * 512) bytes for Matmul and BatchMatMul, 0 for every elementwise operator.
 *
 * Codes (hicann/opbase include/nnopbase/opdev/op_errno.h L14-24): a NULL
 * tensor, scalar, workspaceSize or executor argument ACLNN_ERR_PARAM_NULLPTR;
 * shapes, types, formats or views the operator does not take
 * ACLNN_ERR_PARAM_INVALID (with library.c's sentence). At launch, as
 * CANN's CommonOpExecutorRun (src/nnopbase/composite_op/aclnn_engine/
 * op_executor.cpp L958-994): a NULL executor ACLNN_ERR_PARAM_NULLPTR
 * "executor is nullptr."; a non-zero workspaceSize with a NULL workspace
 * ACLNN_ERR_PARAM_NULLPTR "workspace is nullptr.". aclsim adds what CANN
 * leaves to the device to find out: a workspace smaller than planned or
 * outside live device memory, and an executor that is not live (a
 * single-use one already run, or destroyed), are ACLNN_ERR_PARAM_INVALID.
 * A single-use executor is consumed by its launch, failed or not.
 * On a backend with a real runtime every call forwards to the install's own
 * libopapi.so (API_FORWARD; backends/ascend.c loads it), as the tensor and
 * executor calls of nnmeta.c forward to its libnnopbase.so.
 */
#include <string.h>
#include "op.h"

/* ---- Planning ---- */

/* One operator call being planned. */
struct nn_call {
    const char *launch;  /* aclnnXxx */
    const char *type;    /* the library's operator type */
    int n_in;
    const aclTensor *in[BE_OP_MAX_IN];
    const char *in_names[BE_OP_MAX_IN];
    const aclTensor *out;
    const aclopAttr *attr;
};

static aclnnStatus null_arg(const char *launch, const char *what, const char *name)
{
    return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: expected a proper %s but "
                       "got null for argument %s.", launch, what, name);
}

/* The tensor's desc and buffer as library.c reads an aclop call's. */
static aclnnStatus as_desc(const struct nn_call *c, const aclTensor *t, const char *name,
                           aclTensorDesc *d, aclDataBuffer *b)
{
    if (!api_nn_contiguous(t))
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s is a non-contiguous "
                           "view (strides do not follow its shape): aclsim's built-in kernels "
                           "take contiguous tensors only", c->launch, name);
    if (t->offset < 0)
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s has a negative "
                           "offset %lld", c->launch, name, (long long)t->offset);
    size_t elem = api_impl_aclDataTypeSize(t->dtype), n = 1, bytes, at;
    bool huge = false;
    for (uint64_t i = 0; i < t->ndims; i++) /* negative dims: library.c's check */
        huge |= t->dims[i] >= 0 && __builtin_mul_overflow(n, (size_t)t->dims[i], &n);
    if (huge || __builtin_mul_overflow(n, elem, &bytes) ||
        __builtin_mul_overflow((size_t)t->offset, elem, &at))
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s spans more bytes "
                           "than an address holds (shape or offset too large)", c->launch, name);
    *d = (aclTensorDesc){.dtype = t->dtype, .format = t->format,
                         .storage_format = ACL_FORMAT_UNDEFINED, .ndims = t->ndims,
                         .dims = (int64_t *)t->dims, .memtype = ACL_MEMTYPE_DEVICE};
    bytes = api_shape_elements(t->dims, t->ndims) * elem;
    *b = (aclDataBuffer){(char *)t->data + at, bytes};
    return OK;
}

/* Check, plan and make the executor of call c; *ws the planned workspace.
 * alpha (may be NULL) is the kernel's scalar (Add/Sub's factor, a fill's
 * value); host[i] (host may be NULL), when not NULL, is input i's value in
 * host memory (a scalar the kernel reads from the host). */
static aclnnStatus plan_host(const struct nn_call *c, const aclScalar *alpha,
                             const void *const *host, uint64_t *ws, aclOpExecutor **executor)
{
    for (int i = 0; i < c->n_in; i++)
        if (!c->in[i])
            return null_arg(c->launch, "Tensor", c->in_names[i]);
    if (!c->out)
        return null_arg(c->launch, "Tensor", "out");
    if (!ws)
        return null_arg(c->launch, "pointer", "workspaceSize");
    if (!executor)
        return null_arg(c->launch, "pointer", "executor");
    API_FAULT(ACL_NN_WORKSPACE, c->launch);
    aclTensorDesc din[BE_OP_MAX_IN], dout;
    aclDataBuffer bin[BE_OP_MAX_IN], bout;
    const aclTensorDesc *pin[BE_OP_MAX_IN], *pout = &dout;
    const aclDataBuffer *qin[BE_OP_MAX_IN];
    aclDataBuffer *qout = &bout;
    for (int i = 0; i < c->n_in; i++) {
        aclnnStatus rc = as_desc(c, c->in[i], c->in_names[i], &din[i], &bin[i]);
        if (rc != OK)
            return rc;
        if (host && host[i]) {
            din[i].is_const = true;
            din[i].const_data = (void *)host[i];
            din[i].const_len = bin[i].length;
        }
        pin[i] = &din[i];
        qin[i] = &bin[i];
    }
    aclnnStatus rc = as_desc(c, c->out, "out", &dout, &bout);
    if (rc != OK)
        return rc;
    struct api_op_args a = {c->type, c->n_in, pin, qin, 1, &pout, &qout, c->attr};
    API_FAULT(ACL_NN_EXECUTOR, c->launch);
    /* Planned straight into the executor: no copy of the plan. */
    aclOpExecutor *e = api_nn_executor_new(c->launch);
    if (!e)
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    struct api_op_plan *p = &e->plan;
    char why[320];
    if (api_op_plan(&a, false, p, why, sizeof why) != API_OPM_OK) {
        api_nn_executor_free(e);
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s", c->launch, why);
    }
    for (int i = 0; i < p->op.n_in; i++)
        if (!p->op.in[i].dev) { /* a host scalar: the executor keeps its own copy */
            memcpy(&e->host_vals[i], p->op.in[i].data, api_impl_aclDataTypeSize(p->op.in[i].dtype));
            p->op.in[i].data = &e->host_vals[i];
        }
    if (alpha) {
        double v = api_nn_scalar_value(alpha);
        p->op.scaled = v != 1;
        p->op.alpha = v;
    }
    uint64_t bytes = 0;
    for (int i = 0; i < p->n_req; i++)
        if (p->req[i].workspace)
            bytes += p->req[i].bytes;
    p->n_req = 0; /* the launch's workspace replaces the allocator's blocks */
    e->ws_bytes = bytes;
    *ws = bytes;
    *executor = e;
    return OK;
}

static aclnnStatus plan(const struct nn_call *c, const aclScalar *alpha, uint64_t *ws,
                        aclOpExecutor **executor)
{
    return plan_host(c, alpha, NULL, ws, executor);
}

/* ---- Launching ---- */

/* The executor is consumed (single-use) or kept (repeatable); rc passes. */
static aclnnStatus done(aclOpExecutor *e, aclnnStatus rc)
{
    if (!e->repeatable)
        api_nn_executor_free(e);
    return rc;
}

static aclnnStatus launch(const char *fn, void *workspace, uint64_t workspaceSize,
                          aclOpExecutor *e, aclrtStream stream)
{
    if (e == NULL)
        return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "executor is nullptr.");
    if (!api_nn_executor_claim(e))
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: executor %p is not live: a single-use "
                           "executor is destroyed by its first launch (make it repeatable with "
                           "aclSetAclOpExecutorRepeatable to launch it again), or it was "
                           "destroyed", fn, (void *)e);
    if (e->launch != fn && strcmp(e->launch, fn) != 0)
        return done(e, api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: executor %p was planned by "
                                   "%sGetWorkspaceSize", fn, (void *)e, e->launch));
    if (workspaceSize > 0 && workspace == NULL)
        return done(e, api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "workspace is nullptr."));
    if (workspaceSize < e->ws_bytes)
        return done(e, api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: workspaceSize %llu is smaller "
                                   "than the %llu bytes %sGetWorkspaceSize planned", fn,
                                   (unsigned long long)workspaceSize,
                                   (unsigned long long)e->ws_bytes, fn));
    if (e->ws_bytes) {
        struct be_ptr_info in;
        be_get()->lookup(workspace, &in);
        size_t left = in.kind == BE_PTR_DEVICE
                          ? in.size - (size_t)((const char *)workspace - (const char *)in.start)
                          : 0;
        if (in.kind != BE_PTR_DEVICE || (in.size && left < e->ws_bytes))
            return done(e, api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%s: workspace %p is not %llu "
                                       "bytes of live device memory (%s)", fn, workspace,
                                       (unsigned long long)e->ws_bytes,
                                       in.kind == BE_PTR_DEVICE ? "its allocation ends sooner"
                                       : in.kind == BE_PTR_DEVICE_FREE ? "freed?"
                                                                       : "not device memory"));
    }
    if (FLT_HIT(ACL_NN_LAUNCH))
        return done(e, api_fault(FLT_ACL_NN_LAUNCH, fn));
    /* The launch sets the plan's workspace each time: a repeatable
     * executor's plan is otherwise as made. */
    aclError rc = api_op_execute_ws(fn, &e->plan, stream, e->ws_bytes ? workspace : NULL,
                                    (size_t)e->ws_bytes);
    if (rc == ACL_SUCCESS)
        return done(e, OK);
    if (rc == ACL_ERROR_INVALID_PARAM)
        return done(e, ACLNN_ERR_PARAM_INVALID); /* the buffer check said why */
    return done(e, api_nn_fail(ACLNN_ERR_RUNTIME_ERROR, "%s: launch failed, runtime result = "
                               "%d.", fn, rc));
}

/* The launch call `name` (aclnnAdd, ...). */
#define LAUNCH(name)                                                                        \
    aclnnStatus api_impl_##name(void *workspace, uint64_t workspaceSize,                    \
                                aclOpExecutor *executor, aclrtStream stream)                \
    {                                                                                       \
        API_FORWARD(name, (workspace, workspaceSize, executor, stream));                    \
        return launch(#name, workspace, workspaceSize, executor, stream);                   \
    }

/* ---- The operators ---- */

static aclnnStatus binary(const char *launch, const char *type, const aclTensor *self,
                          const aclTensor *other, const aclScalar *alpha, bool has_alpha,
                          const aclTensor *out, uint64_t *ws, aclOpExecutor **executor,
                          const char *self_name)
{
    if (has_alpha && !alpha) {
        if (!self)
            return null_arg(launch, "Tensor", self_name);
        if (!other)
            return null_arg(launch, "Tensor", "other");
        return null_arg(launch, "Scalar", "alpha");
    }
    struct nn_call c = {launch, type, 2, {self, other}, {self_name, "other"}, out, NULL};
    return plan(&c, alpha, ws, executor);
}

aclnnStatus api_impl_aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              const aclScalar *alpha, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnAddGetWorkspaceSize, (self, other, alpha, out, workspaceSize, executor));
    return binary("aclnnAdd", "Add", self, other, alpha, true, out, workspaceSize, executor,
                  "self");
}
LAUNCH(aclnnAdd)

aclnnStatus api_impl_aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef,
                                                     const aclTensor *other,
                                                     const aclScalar *alpha,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceAddGetWorkspaceSize, (selfRef, other, alpha, workspaceSize, executor));
    return binary("aclnnInplaceAdd", "Add", selfRef, other, alpha, true, selfRef, workspaceSize,
                  executor, "selfRef");
}
LAUNCH(aclnnInplaceAdd)

aclnnStatus api_impl_aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              const aclScalar *alpha, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnSubGetWorkspaceSize, (self, other, alpha, out, workspaceSize, executor));
    return binary("aclnnSub", "Sub", self, other, alpha, true, out, workspaceSize, executor,
                  "self");
}
LAUNCH(aclnnSub)

aclnnStatus api_impl_aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    API_FORWARD(aclnnMulGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    return binary("aclnnMul", "Mul", self, other, NULL, false, out, workspaceSize, executor,
                  "self");
}
LAUNCH(aclnnMul)

aclnnStatus api_impl_aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceMulGetWorkspaceSize, (selfRef, other, workspaceSize, executor));
    return binary("aclnnInplaceMul", "Mul", selfRef, other, NULL, false, selfRef, workspaceSize,
                  executor, "selfRef");
}
LAUNCH(aclnnInplaceMul)

/* True division, as CANN's aclnnDiv: the floating types only here. */
aclnnStatus api_impl_aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                              aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    API_FORWARD(aclnnDivGetWorkspaceSize, (self, other, out, workspaceSize, executor));
    return binary("aclnnDiv", "RealDiv", self, other, NULL, false, out, workspaceSize, executor,
                  "self");
}
LAUNCH(aclnnDiv)

/* The planning call `name` of launch call `launch`, of library type `type`. */
#define UNARY(name, launch, type)                                                           \
    aclnnStatus api_impl_##name(const aclTensor *self, aclTensor *out,                      \
                                uint64_t *workspaceSize, aclOpExecutor **executor)          \
    {                                                                                       \
        API_FORWARD(name, (self, out, workspaceSize, executor));                            \
        struct nn_call c = {launch, type, 1, {self}, {"self"}, out, NULL};                  \
        return plan(&c, NULL, workspaceSize, executor);                                     \
    }

UNARY(aclnnReluGetWorkspaceSize, "aclnnRelu", "Relu")
LAUNCH(aclnnRelu)
UNARY(aclnnSigmoidGetWorkspaceSize, "aclnnSigmoid", "Sigmoid")
LAUNCH(aclnnSigmoid)
UNARY(aclnnTanhGetWorkspaceSize, "aclnnTanh", "Tanh")
LAUNCH(aclnnTanh)
UNARY(aclnnGeluGetWorkspaceSize, "aclnnGelu", "Gelu")
LAUNCH(aclnnGelu)
UNARY(aclnnExpGetWorkspaceSize, "aclnnExp", "Exp")
LAUNCH(aclnnExp)
UNARY(aclnnAbsGetWorkspaceSize, "aclnnAbs", "Abs")
LAUNCH(aclnnAbs)
UNARY(aclnnNegGetWorkspaceSize, "aclnnNeg", "Neg")
LAUNCH(aclnnNeg)
UNARY(aclnnSqrtGetWorkspaceSize, "aclnnSqrt", "Sqrt")
LAUNCH(aclnnSqrt)

aclnnStatus api_impl_aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnCastGetWorkspaceSize, (self, dtype, out, workspaceSize, executor));
    if (self && out && out->dtype != dtype)
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "aclnnCastGetWorkspaceSize: dtype %d differs "
                           "from out's data type %d", (int)dtype, (int)out->dtype);
    int64_t v = dtype;
    struct api_attr dst = {.name = (char *)"dst_type", .kind = API_ATTR_DTYPE, .n = 1, .ints = &v};
    aclopAttr attr = {&dst, 1, 1};
    struct nn_call c = {"aclnnCast", "Cast", 1, {self}, {"self"}, out, &attr};
    return plan(&c, NULL, workspaceSize, executor);
}
LAUNCH(aclnnCast)

static aclnnStatus matmul(const char *launch, const aclTensor *self, const aclTensor *mat2,
                          const aclTensor *out, bool batch_only, uint64_t *ws,
                          aclOpExecutor **executor)
{
    if (self && mat2 && out) {
        bool ok = batch_only ? self->ndims == 3 && mat2->ndims == 3
                             : self->ndims >= 2 && mat2->ndims >= 2;
        if (!ok)
            return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: self is %llu-D and "
                               "mat2 %llu-D; aclsim takes %s", launch,
                               (unsigned long long)self->ndims, (unsigned long long)mat2->ndims,
                               batch_only ? "3-D tensors (batch, m, k) and (batch, k, n)"
                                          : "2-D matrices or batches of them (1-D operands are "
                                            "not supported)");
    }
    bool two = self && mat2 && self->ndims == 2 && mat2->ndims == 2;
    struct nn_call c = {launch, two ? "MatMul" : "BatchMatMul", 2, {self, mat2}, {"self", "mat2"},
                        out, NULL};
    return plan(&c, NULL, ws, executor);
}

aclnnStatus api_impl_aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                 aclTensor *out, int8_t cubeMathType,
                                                 uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnMatmulGetWorkspaceSize, (self, mat2, out, cubeMathType, workspaceSize, executor));
    (void)cubeMathType; /* the kernel accumulates in fp32 whatever it says */
    return matmul("aclnnMatmul", self, mat2, out, false, workspaceSize, executor);
}
LAUNCH(aclnnMatmul)

aclnnStatus api_impl_aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self,
                                                      const aclTensor *mat2, aclTensor *out,
                                                      int8_t cubeMathType,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnBatchMatMulGetWorkspaceSize, (self, mat2, out, cubeMathType, workspaceSize, executor));
    (void)cubeMathType;
    return matmul("aclnnBatchMatMul", self, mat2, out, true, workspaceSize, executor);
}
LAUNCH(aclnnBatchMatMul)

/* The int64 values of an aclIntArray, at most BE_OP_MAX_DIMS (nnmeta.c's
 * layout). */
static aclnnStatus int_values(const char *launch, const char *name, const aclIntArray *a,
                              int64_t *v, uint64_t *n)
{
    if (api_impl_aclGetIntArraySize(a, n) != OK)
        return null_arg(launch, "IntArray", name);
    if (*n > BE_OP_MAX_DIMS)
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "%sGetWorkspaceSize: %s has %llu values, at "
                           "most %d", launch, name, (unsigned long long)*n, BE_OP_MAX_DIMS);
    api_nn_int_array(a, v);
    return OK;
}

aclnnStatus api_impl_aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim,
                                                    bool keepDim, aclDataType dtype,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor)
{
    API_FORWARD(aclnnReduceSumGetWorkspaceSize, (self, dim, keepDim, dtype, out, workspaceSize,
                                                 executor));
    if (!self)
        return null_arg("aclnnReduceSum", "Tensor", "self");
    int64_t axes[BE_OP_MAX_DIMS];
    uint64_t n = 0;
    aclnnStatus rc = int_values("aclnnReduceSum", "dim", dim, axes, &n);
    if (rc != OK)
        return rc;
    if (out && dtype != out->dtype)
        return api_nn_fail(ACLNN_ERR_PARAM_INVALID, "aclnnReduceSumGetWorkspaceSize: dtype %d "
                           "differs from out's data type %d", (int)dtype, (int)out->dtype);
    int64_t keep = keepDim;
    struct api_attr at[2] = {
        {.name = (char *)"axes", .kind = API_ATTR_LIST_INT, .n = n, .ints = axes},
        {.name = (char *)"keep_dims", .kind = API_ATTR_BOOL, .n = 1, .ints = &keep}};
    aclopAttr attr = {at, 2, 2};
    struct nn_call c = {"aclnnReduceSum", "ReduceSumD", 1, {self}, {"self"}, out, &attr};
    return plan(&c, NULL, workspaceSize, executor);
}
LAUNCH(aclnnReduceSum)

aclnnStatus api_impl_aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
                                                  aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    API_FORWARD(aclnnPermuteGetWorkspaceSize, (self, dims, out, workspaceSize, executor));
    if (!self)
        return null_arg("aclnnPermute", "Tensor", "self");
    int64_t perm[BE_OP_MAX_DIMS];
    uint64_t n = 0;
    aclnnStatus rc = int_values("aclnnPermute", "dims", dims, perm, &n);
    if (rc != OK)
        return rc;
    for (uint64_t i = 0; i < n; i++) /* negative dims count from the end, as torch's */
        if (perm[i] < 0)
            perm[i] += (int64_t)self->ndims;
    struct api_attr at = {.name = (char *)"perm", .kind = API_ATTR_LIST_INT, .n = n, .ints = perm};
    aclopAttr attr = {&at, 1, 1};
    struct nn_call c = {"aclnnPermute", "TransposeD", 1, {self}, {"self"}, out, &attr};
    return plan(&c, NULL, workspaceSize, executor);
}
LAUNCH(aclnnPermute)

aclnnStatus api_impl_aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceZeroGetWorkspaceSize, (selfRef, workspaceSize, executor));
    struct nn_call c = {"aclnnInplaceZero", "ZerosLike", 1, {selfRef}, {"selfRef"}, selfRef, NULL};
    return plan(&c, NULL, workspaceSize, executor);
}
LAUNCH(aclnnInplaceZero)

aclnnStatus api_impl_aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef,
                                                            const aclScalar *value,
                                                            uint64_t *workspaceSize,
                                                            aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceFillScalarGetWorkspaceSize, (selfRef, value, workspaceSize, executor));
    if (selfRef && !value)
        return null_arg("aclnnInplaceFillScalar", "Scalar", "value");
    struct nn_call c = {"aclnnInplaceFillScalar", "ZerosLike", 1, {selfRef}, {"selfRef"}, selfRef,
                        NULL};
    return plan(&c, value, workspaceSize, executor); /* the fill kernel writes alpha */
}
LAUNCH(aclnnInplaceFillScalar)

/* selfRef = src in selfRef's type: the Cast kernel (a copy when the types
 * agree); shapes must be equal. */
aclnnStatus api_impl_aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceCopyGetWorkspaceSize, (selfRef, src, workspaceSize, executor));
    int64_t v = selfRef ? selfRef->dtype : 0;
    struct api_attr dst = {.name = (char *)"dst_type", .kind = API_ATTR_DTYPE, .n = 1, .ints = &v};
    aclopAttr attr = {&dst, 1, 1};
    struct nn_call c = {"aclnnInplaceCopy", "Cast", 1, {src}, {"src"}, selfRef, &attr};
    return plan(&c, NULL, workspaceSize, executor);
}
LAUNCH(aclnnInplaceCopy)

/* out = alpha * op(A) @ op(B) + beta * C through the GEMM kernel of the
 * aclblas calls: fp16 (or int8) A and B, C of fp16/fp32 (int32); out must
 * have C's shape and type. alpha and beta reach the kernel as host scalars
 * of C's type. */
aclnnStatus api_impl_aclnnGemmGetWorkspaceSize(const aclTensor *A, const aclTensor *B,
                                               const aclTensor *C, float alpha, float beta,
                                               int64_t transA, int64_t transB, aclTensor *out,
                                               int8_t cubeMathType, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnGemmGetWorkspaceSize, (A, B, C, alpha, beta, transA, transB, out,
                                            cubeMathType, workspaceSize, executor));
    (void)cubeMathType;
    if (!A || !B || !C || !out)
        return null_arg("aclnnGemm", "Tensor", !A ? "A" : !B ? "B" : !C ? "C" : "out");
    /* GEMM's alpha and beta: 0-d host tensors of C's type */
    union { float f; uint16_t h; int32_t i; } va, vb;
    aclDataType ct = C->dtype;
    if (ct == ACL_FLOAT16) {
        aclFloat16 a16 = api_impl_aclFloatToFloat16(alpha), b16 = api_impl_aclFloatToFloat16(beta);
        memcpy(&va.h, &a16, 2);
        memcpy(&vb.h, &b16, 2);
    } else if (ct == ACL_INT32) {
        va.i = (int32_t)alpha;
        vb.i = (int32_t)beta;
    } else {
        va.f = alpha;
        vb.f = beta;
    }
    aclTensor sa = {.dtype = ct, .format = ACL_FORMAT_ND}, sb = sa;
    struct nn_call c = {"aclnnGemm", "GEMM", 5, {A, B, C, &sa, &sb}, {"A", "B", "C", "alpha", "beta"},
                        out, NULL};
    struct api_attr at[2] = {
        {.name = (char *)"transpose_a", .kind = API_ATTR_BOOL, .n = 1, .ints = &transA},
        {.name = (char *)"transpose_b", .kind = API_ATTR_BOOL, .n = 1, .ints = &transB}};
    aclopAttr attr = {at, 2, 2};
    c.attr = &attr;
    const void *host[5] = {NULL, NULL, NULL, &va, &vb};
    return plan_host(&c, NULL, host, workspaceSize, executor);
}
LAUNCH(aclnnGemm)

/*
 * plan.c - the steps every aclnn operator takes (nn.h): checking its
 * tensors and scalars with CANN's codes and texts, making them the
 * operator's views, handing out the executor, and launching it.
 *
 * Codes (hicann/opbase include/nnopbase/opdev/op_errno.h L14-24); texts
 * of the checks: hicann/ops-math common/inc/external/aclnn_kernels/common/
 * op_error_check.h (each helper in nn.h names its macro). Messages are
 * reported as "<launch>GetWorkspaceSize: <CANN's text>" with the EZ code
 * of the status's first digit (nnmeta.c, api_nn_fail).
 *
 * At launch, as CANN's CommonOpExecutorRun (src/nnopbase/composite_op/
 * aclnn_engine/op_executor.cpp L958-994): a NULL executor
 * ACLNN_ERR_PARAM_NULLPTR "executor is nullptr."; a non-zero workspaceSize
 * with a NULL workspace ACLNN_ERR_PARAM_NULLPTR "workspace is nullptr.".
 * aclsim adds what CANN leaves to the device to find out: a workspace
 * smaller than planned or outside live device memory, and an executor
 * that is not live (a single-use one already run, or destroyed), are
 * ACLNN_ERR_PARAM_INVALID. A single-use executor is consumed by its launch,
 * failed or not. On a backend with a real runtime every call forwards to
 * the install's own libopapi.so (API_FORWARD; backends/ascend.c loads it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "api/abi/opview.h"
#include "nn.h"

aclnnStatus nn_null(const char *launch, const char *type, const char *name)
{
    return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: Expected a value of type "
                       "[%s] for argument [%s] but instead found nullptr.", launch, type, name);
}

aclnnStatus nn_begin(struct nn_call *c, const char *launch, const char *type,
                     enum be_op_kind kind, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    c->launch = launch;
    c->e = NULL;
    c->op = NULL;
    if (!workspaceSize || !executor)
        return api_nn_fail(ACLNN_ERR_PARAM_NULLPTR, "%sGetWorkspaceSize: The workspaceSize or "
                           "executor is nullptr.", launch);
    API_FAULT(ACL_NN_WORKSPACE, launch);
    API_FAULT(ACL_NN_EXECUTOR, launch);
    aclOpExecutor *e = api_nn_executor_new(launch);
    if (!e)
        return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    memset(&e->plan, 0, sizeof e->plan);
    e->plan.op.kind = kind;
    e->plan.op.type = type;
    e->plan.op.api = launch; /* static: the operator's launch call */
    e->plan.op.alpha = 1;
    c->e = e;
    c->op = &e->plan.op;
    return OK;
}

aclnnStatus nn_fail(struct nn_call *c, aclnnStatus rc, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->e)
        api_nn_executor_free(c->e);
    c->e = NULL;
    return api_nn_fail(rc, "%sGetWorkspaceSize: %s", c->launch, text);
}

aclnnStatus nn_end(struct nn_call *c, uint64_t ws_bytes, uint64_t *workspaceSize,
                   aclOpExecutor **executor)
{
    c->e->ws_bytes = ws_bytes;
    c->e->plan.n_req = 0; /* the launch's workspace replaces the allocator's blocks */
    *workspaceSize = ws_bytes;
    *executor = c->e;
    return OK;
}

/* ---- Checks ---- */

aclnnStatus nn_check_dims(struct nn_call *c, const aclTensor *t, const char *name)
{
    if (t->ndims > BE_OP_MAX_DIMS)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "The %s tensor cannot be larger than %d "
                       "dimensions.", name, BE_OP_MAX_DIMS);
    return OK;
}

static aclnnStatus check_type(struct nn_call *c, aclDataType t, const char *name,
                              api_types supported)
{
    if (api_type_in(t, supported))
        return OK;
    char list[600];
    api_types_text(supported, list, sizeof list);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Tensor %s not implemented for %s, should be in "
                   "dtype support list %s.", name, api_dtype_name(t), list);
}

aclnnStatus nn_check_type(struct nn_call *c, const aclTensor *t, const char *name,
                          api_types supported)
{
    return check_type(c, t->dtype, name, supported);
}

aclnnStatus nn_check_scalar_type(struct nn_call *c, const aclScalar *s, const char *name,
                                 api_types supported)
{
    return check_type(c, s->dtype, name, supported);
}

aclnnStatus nn_check_cast(struct nn_call *c, aclDataType from, aclDataType to)
{
    if (api_can_cast(from, to))
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Result type %s can't be cast to the desired "
                   "output type %s.", api_dtype_name(from), api_dtype_name(to));
}

aclnnStatus nn_check_broadcast(struct nn_call *c, const aclTensor *a, const char *na,
                               const aclTensor *b, const char *nb, int64_t *dims, int *n)
{
    *n = api_broadcast(a->dims, (int)a->ndims, b->dims, (int)b->ndims, dims);
    if (*n >= 0)
        return OK;
    char sa[200], sb[200];
    api_dims_text(a->dims, (int)a->ndims, sa, sizeof sa);
    api_dims_text(b->dims, (int)b->ndims, sb, sizeof sb);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "The size of tensor %s %s must match the size of "
                   "tensor %s %s.", na, sa, nb, sb);
}

aclnnStatus nn_check_shape(struct nn_call *c, const aclTensor *t, const char *name,
                           const int64_t *dims, int n)
{
    bool same = (int)t->ndims == n;
    for (int i = 0; same && i < n; i++)
        same = t->dims[i] == dims[i];
    if (same)
        return OK;
    char want[200], got[200];
    api_dims_text(dims, n, want, sizeof want);
    api_dims_text(t->dims, (int)t->ndims, got, sizeof got);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected tensor for %s to have same size as %s, "
                   "but got %s.", name, want, got);
}

aclnnStatus nn_check_same_shape(struct nn_call *c, const aclTensor *a, const char *na,
                                const aclTensor *b, const char *nb)
{
    bool same = a->ndims == b->ndims;
    for (uint64_t i = 0; same && i < a->ndims; i++)
        same = a->dims[i] == b->dims[i];
    if (same)
        return OK;
    char sa[200], sb[200];
    api_dims_text(a->dims, (int)a->ndims, sa, sizeof sa);
    api_dims_text(b->dims, (int)b->ndims, sb, sizeof sb);
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected tensor for %s to have same size as "
                   "tensor for %s, but %s does not equal %s.", na, nb, sa, sb);
}

/* ---- Views ---- */

/* Whether v is a batch of transposed matrices, as hicann/ops-nn's
 * IsTransposeLastTwoDims says (matmul/common/op_host/op_api/
 * matmul_util.cpp L2040-2063: 2 to 6 dims, the last two swapped, the batch
 * dims contiguous over them, not a 1 x 1 matrix). */
static bool transposed_matrices(const struct be_view *v)
{
    int n = v->ndims;
    if (n < 2 || n > 6 || v->strides[n - 2] != 1 || v->strides[n - 1] != v->dims[n - 2])
        return false;
    int64_t s = v->dims[n - 2] * v->dims[n - 1];
    for (int i = n - 3; i >= 0; i--) {
        if (v->strides[i] != s)
            return false;
        s *= v->dims[i];
    }
    return !(v->dims[n - 1] == 1 && v->dims[n - 2] == 1);
}

/* t as a view, checked for what CANN refuses of any tensor (nn.h); a matrix
 * operand (`matrix`) that is a batch of transposed matrices is taken as a
 * view by CANN's matrix products (CreateTransposedView, no Contiguous), so
 * Validate's storage check does not apply to it. */
static aclnnStatus take(struct nn_call *c, const aclTensor *t, const char *name,
                        struct be_view *v, bool matrix)
{
    aclnnStatus rc = nn_check_dims(c, t, name);
    if (rc != OK)
        return rc;
    v->data = t->data;
    v->dev = true;
    v->dtype = t->dtype;
    v->ndims = (int)t->ndims;
    v->offset = t->offset;
    for (int i = 0; i < v->ndims; i++) {
        v->dims[i] = t->dims[i];
        v->strides[i] = t->strides[i];
    }
    /* a shape whose elements or bytes an int64 cannot count is refused
     * before any arithmetic wraps (CANN makes such a tensor unchecked,
     * acl_op_api.cpp L34-44; aclsim never runs over wrapped sizes) */
    int64_t n = 1, reach = 0, elem = (int64_t)api_impl_aclDataTypeSize(t->dtype), bytes;
    bool huge = false;
    for (int i = 0; i < v->ndims; i++) {
        int64_t d = v->dims[i] > 0 ? v->dims[i] - 1 : 0, step, mag;
        huge |= v->dims[i] > 0 && __builtin_mul_overflow(n, v->dims[i], &n);
        huge |= __builtin_mul_overflow(v->strides[i], d, &step);
        mag = step < 0 ? (step == INT64_MIN ? INT64_MAX : -step) : step;
        huge |= step == INT64_MIN || __builtin_add_overflow(reach, mag, &reach);
    }
    huge |= __builtin_add_overflow(reach, v->offset < 0 ? -v->offset : v->offset, &reach) ||
            __builtin_add_overflow(reach, 1, &reach) || __builtin_mul_overflow(reach, elem, &bytes) ||
            __builtin_mul_overflow(n, elem, &bytes);
    if (huge)
        return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "%s spans more bytes than an address holds "
                       "(shape, strides or offset too large).", name);
    /* a FRACTAL_NZ operand of a matrix product: the stored matrix is the
     * view's last two dims, or their transpose (the weight ggml passes as
     * the transposed view of its rows); a private format is contiguous to
     * opbase (IsContiguous, tensor_view_utils.cpp L38-40), so no Validate */
    v->nz_c0 = 0;
    v->nz_t = false;
    if (t->format == ACL_FORMAT_FRACTAL_NZ) {
        size_t es = api_impl_aclDataTypeSize(t->dtype);
        if (!matrix || v->ndims < 2 || (es != 1 && es != 2))
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim computes FRACTAL_NZ tensors as "
                           "the float16, bfloat16 or 8-bit matrices of matrix products only, "
                           "not %s (%s, %d dims).", name, api_dtype_name(t->dtype), v->ndims);
        v->nz_c0 = (int)(32 / es);
        v->nz_t = transposed_matrices(v);
        return OK;
    }
    /* opbase's Validate, for what Contiguous takes apart (a strided view):
     * the view's reach inside its storage; aclsim refuses a view that
     * starts before its storage for every tensor. */
    int64_t lo, hi;
    bool empty = !opview_extent(v->ndims, v->dims, v->strides, v->offset, &lo, &hi);
    int64_t storage = api_dims_elements(t->storage, (int)t->n_storage);
    bool validated = !api_view_contiguous(v) && !(matrix && transposed_matrices(v));
    if (!empty && (lo < 0 || (t->n_storage && validated && hi + 1 > storage)))
        return nn_fail(c, ACLNN_ERR_INNER_NULLPTR, "ViewShape overlap. The %s tensor reaches "
                       "elements %lld to %lld of a storage of %lld elements.", name,
                       (long long)lo, (long long)hi, (long long)storage);
    return OK;
}

static aclnnStatus add_in(struct nn_call *c, const aclTensor *t, const char *name, bool matrix)
{
    struct be_op *op = c->op;
    if (op->n_in >= BE_OP_MAX_IN)
        return nn_fail(c, ACLNN_ERR_INNER, "%s is one input too many", name);
    aclnnStatus rc = take(c, t, name, &op->in[op->n_in], matrix);
    if (rc != OK)
        return rc;
    c->e->plan.in_index[op->n_in] = op->n_in;
    op->n_in++;
    return OK;
}

aclnnStatus nn_in(struct nn_call *c, const aclTensor *t, const char *name)
{
    return add_in(c, t, name, false);
}

aclnnStatus nn_in_matrix(struct nn_call *c, const aclTensor *t, const char *name)
{
    return add_in(c, t, name, true);
}

aclnnStatus nn_out(struct nn_call *c, const aclTensor *t, const char *name)
{
    struct be_op *op = c->op;
    if (op->n_out >= BE_OP_MAX_OUT)
        return nn_fail(c, ACLNN_ERR_INNER, "%s is one output too many", name);
    struct be_view *v = &op->out[op->n_out];
    aclnnStatus rc = take(c, t, name, v, false);
    if (rc != OK)
        return rc;
    /* an empty output writes nothing, so it cannot overlap itself (ggml's
     * SET_ROWS casts a zero-row view into one whose outer strides are 0) */
    bool empty = false;
    for (int i = 0; i < v->ndims; i++)
        empty |= v->dims[i] == 0;
    for (int i = 0; i < v->ndims && !empty; i++)
        if (v->strides[i] == 0 && v->dims[i] > 1)
            return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "%s writes each of its elements along dim "
                           "%d (%lld of them, stride 0) to one place: the output of an operator "
                           "must not overlap itself (CANN requires that data should not "
                           "overlap).", name, i, (long long)v->dims[i]);
    op->n_out++;
    return OK;
}

aclnnStatus nn_in_scalar(struct nn_call *c, const aclScalar *s)
{
    struct be_op *op = c->op;
    if (op->n_in >= BE_OP_MAX_IN)
        return nn_fail(c, ACLNN_ERR_INNER, "a scalar is one input too many");
    int i = op->n_in++;
    size_t size = api_impl_aclDataTypeSize(s->dtype);
    c->e->host_vals[i] = 0;
    memcpy(&c->e->host_vals[i], &s->v, size < sizeof s->v ? size : sizeof s->v);
    api_view_init(&op->in[i], &c->e->host_vals[i], false, s->dtype, 0, NULL);
    c->e->plan.in_index[i] = -1; /* no tensor to rebind */
    return OK;
}

/* ---- Launching ---- */

/* The executor is consumed (single-use) or kept (repeatable); rc passes. */
static aclnnStatus done(aclOpExecutor *e, aclnnStatus rc)
{
    if (!e->repeatable)
        api_nn_executor_free(e);
    return rc;
}

aclnnStatus api_nn_launch(const char *fn, void *workspace, uint64_t workspaceSize,
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
    /* An operator whose tensors are all empty computes nothing (CANN's
     * operators hand out an empty executor for them). */
    const struct be_op *op = &e->plan.op;
    bool empty = true;
    for (int i = 0; i < op->n_out && empty; i++) {
        const void *lo;
        size_t bytes;
        api_view_span(&op->out[i], &lo, &bytes);
        empty = bytes == 0;
    }
    if (empty)
        return done(e, OK);
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

/*
 * shape.c - the aclnn family whose outputs are shapes made of their input
 * (the NN_SHAPE calls of api/abi/calls.def): Slice, Repeat,
 * RepeatInterleaveIntWithDim, Cat, ConstantPadNd, ReflectionPad1d, Tril,
 * Triu (and their in-place forms) and Arange. A slice, a repeat and an
 * interleave are the movement family's CAST of a reshaped view (a slice
 * is self's view started further with a longer stride; a repeat is out
 * viewed as (repeat, size) pairs with self read again along the repeats);
 * the others are the movement kernels CAT, PAD, REFLECT_PAD, TRI and
 * ARANGE (sim/ops/movement.c), which place their input in sub-views of the
 * output. Checks, codes and texts are cited per operator.
 */
#include <math.h>
#include "checks.h"

/* aclnn_slice.cpp L34-36 */
#define T_SLICE (T(FLOAT) | T(FLOAT16) | T(INT64) | T(INT8) | T(INT32) | T(UINT8) | T(BOOL) | T(BF16))

/* out = self[..., start:end:step, ...] along dim: a copy of a view of self
 * (hicann/ops-math conversion/slice/op_api/aclnn_slice.cpp: CheckShape
 * L94-137, the bounds clamped as L59-84 clamp them; the dim out of range
 * is ACLNN_ERR_PARAM_NULLPTR there, L106-111). */
aclnnStatus api_impl_aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start,
                                                int64_t end, int64_t step, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnSliceGetWorkspaceSize, (self, dim, start, end, step, out, workspaceSize,
                                             executor));
    struct nn_call c;
    if (!workspaceSize || !executor) /* OP_CHECK_COMM_INPUT first, L157 */
        return nn_begin(&c, "aclnnSlice", "StridedSliceV3", BE_OP_CAST, workspaceSize, executor);
    NN_CHECK_NULL("aclnnSlice", self);
    NN_CHECK_NULL("aclnnSlice", out);
    aclnnStatus rc = nn_begin(&c, "aclnnSlice", "StridedSliceV3", BE_OP_CAST, workspaceSize,
                              executor);
    if (rc == OK)
        rc = nn_match_type(&c, out, "out", self->dtype);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_SLICE);
    if (rc != OK)
        return rc;
    int64_t n = (int64_t)self->ndims;
    if (n > BE_OP_MAX_DIMS)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnSlice self len %lld to not be "
                       "greater than %d but check failed.", (long long)n, BE_OP_MAX_DIMS);
    if (n <= 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnSlice self len %lld to not be "
                       "less than one but check failed.", (long long)n);
    if (dim < -n || dim > n - 1)
        return nn_fail(&c, ACLNN_ERR_PARAM_NULLPTR, "Expected aclnnSlice dim value %lld to be in "
                       "range [%lld, %lld] but check failed.", (long long)dim, -(long long)n,
                       (long long)n - 1);
    if (step <= 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclnnSlice step must be positive.");
    int d = (int)(dim < 0 ? dim + n : dim);
    int64_t size = self->dims[d];
    start = start < 0 ? start + size : start;
    end = end < 0 ? end + size : end;
    start = start < 0 ? 0 : start > size ? size : start;
    end = end < start ? start : end > size ? size : end;
    int64_t want[BE_OP_MAX_DIMS];
    for (int i = 0; i < n; i++)
        want[i] = self->dims[i];
    want[d] = (end - start + step - 1) / step;
    if (!nn_same_dims(out, want, (int)n)) {
        char sw[200], so[200];
        api_dims_text(want, (int)n, sw, sizeof sw);
        api_dims_text(out->dims, (int)out->ndims, so, sizeof so);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Shape of out should be %s, but current is "
                       "%s.", sw, so);
    }
    if ((rc = nn_out(&c, out, "out")) != OK || (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    struct be_view *v = &c.op->in[0];
    v->offset += start * v->strides[d];
    v->strides[d] *= step;
    v->dims[d] = want[d];
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnSlice)

/* aclnn_repeat.cpp DTYPE_SUPPORT_910B310P_LIST L46-50 */
#define T_REPEAT                                                                          \
    (T(FLOAT) | T(FLOAT16) | T(DOUBLE) | T(COMPLEX64) | T(COMPLEX128) | T(UINT8) | T(INT8) |  \
     T(INT16) | T(INT32) | T(INT64) | T(BOOL) | T(BF16) | T(UINT32) | T(UINT64) | T(UINT16))

/* out = self tiled repeats[i] times along each dim i (self's dims aligned
 * to the end of repeats): a copy of self broadcast over out viewed as
 * (repeat, size) pairs (hicann/ops-math math/tile/op_api/aclnn_repeat.cpp:
 * CheckParams L176-189, the Tile's shape against out L230, OP_CHECK_SHAPE_
 * NOT_EQUAL; a repeat of 0 or an empty tensor does nothing, L202-206). */
aclnnStatus api_impl_aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats,
                                                 aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnRepeatGetWorkspaceSize, (self, repeats, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnRepeat", self);
    NN_CHECK_NULL("aclnnRepeat", repeats);
    NN_CHECK_NULL("aclnnRepeat", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnRepeat", "Tile", BE_OP_CAST, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_REPEAT);
    if (rc == OK)
        rc = nn_same_type(&c, self, "self", out, "out");
    if (rc != OK)
        return rc;
    uint64_t n = 0;
    api_impl_aclGetIntArraySize(repeats, &n);
    if (self->ndims > n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Number of dimensions of repeat dims can not "
                       "be smaller than number of dimensions of input tensor, self %llu, repeats "
                       "%llu.", (unsigned long long)self->ndims, (unsigned long long)n);
    if (n > API_NN_MAX_DIMS) /* more than aclsim reads: the size check below, first */
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "repeats size should not be larger than 8. "
                       "self %llu, repeats %llu", (unsigned long long)self->ndims,
                       (unsigned long long)n);
    int64_t r[API_NN_MAX_DIMS];
    api_nn_int_array(repeats, r);
    bool zero = false;
    for (uint64_t i = 0; i < n; i++) {
        if (r[i] < 0)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "repeats expected %lluth value > 0, but "
                           "got %lld", (unsigned long long)i + 1, (long long)r[i]);
        zero |= r[i] == 0;
    }
    if ((rc = nn_check_dims(&c, self, "self")) != OK)
        return rc;
    if (n > BE_OP_MAX_DIMS)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "repeats size should not be larger than 8. "
                       "self %llu, repeats %llu", (unsigned long long)self->ndims,
                       (unsigned long long)n);
    if (zero || api_dims_elements(self->dims, (int)self->ndims) == 0 ||
        api_dims_elements(out->dims, (int)out->ndims) == 0)
        return nn_end(&c, 0, workspaceSize, executor); /* nothing to do, L202-206 */
    int64_t want[BE_OP_MAX_DIMS];
    int lead = (int)(n - self->ndims);
    for (int i = 0; i < (int)n; i++)
        want[i] = r[i] * (i < lead ? 1 : self->dims[i - lead]);
    if ((rc = nn_check_shape(&c, out, "out", want, (int)n)) != OK ||
        (rc = nn_moved(&c, self, "self")) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    struct be_view *o = &c.op->out[0], *v = &c.op->in[0];
    while (v->ndims < (int)n)
        nn_view_unsqueeze(v, 0);
    for (int i = (int)n - 1; i >= 0; i--) {
        if (r[i] == 1 || v->dims[i] == 1) { /* out's dim as it is, self's broadcast or kept */
            v->strides[i] = v->dims[i] == 1 ? 0 : v->strides[i];
            continue;
        }
        if (o->ndims == BE_OP_MAX_DIMS)
            return nn_too_many_dims(&c, "repeat");
        nn_view_split(o, i, r[i]);
        nn_view_unsqueeze(v, i);
    }
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnRepeat)

/* aclnn_repeat_interleave.cpp (hicann/ops-nn index/repeat_interleave/
 * op_api/) ASCEND910B_DTYPE_SUPPORT_LIST L40-43 */
#define T_INTERLEAVE                                                                      \
    (T(UINT8) | T(INT8) | T(INT16) | T(INT32) | T(INT64) | T(BOOL) | T(FLOAT16) | T(FLOAT) |  \
     T(BF16))

/* out = self with each element repeated `repeats` times along dim, in
 * place: out's dim viewed as (size, repeats), self read again along the
 * repeats (aclnn_repeat_interleave.cpp CheckParamsDimInt L380-400,
 * CheckDimRange L166-183, the result's shape against out L687; outputSize
 * 0 or an empty self does nothing, L650-654). */
aclnnStatus api_impl_aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(
    const aclTensor *self, int64_t repeats, int64_t dim, int64_t outputSize, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    API_FORWARD(aclnnRepeatInterleaveIntWithDimGetWorkspaceSize, (self, repeats, dim, outputSize,
                                                                  out, workspaceSize, executor));
    struct nn_call c;
    const char *name = "aclnnRepeatInterleaveIntWithDim";
    if (!workspaceSize || !executor) /* OP_CHECK_COMM_INPUT first, L640 */
        return nn_begin(&c, name, "RepeatInterleave", BE_OP_CAST, workspaceSize, executor);
    NN_CHECK_NULL(name, self);
    NN_CHECK_NULL(name, out);
    aclnnStatus rc = nn_begin(&c, name, "RepeatInterleave", BE_OP_CAST, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_INTERLEAVE);
    if (rc == OK)
        rc = nn_match_type(&c, out, "out", self->dtype);
    if (rc != OK)
        return rc;
    if (repeats < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "repeats %lld can not be negative.",
                       (long long)repeats);
    int64_t n = (int64_t)self->ndims;
    if (n == 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dimension specified as %lld but tensor has "
                       "no dimensions.", (long long)dim);
    if (dim > n - 1 || dim < -n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Dimension out of range (expected to be in "
                       "range of [%lld, %lld], but got %lld).", -(long long)n, (long long)n - 1,
                       (long long)dim);
    if ((rc = nn_check_dims(&c, self, "self")) != OK)
        return rc;
    if (api_dims_elements(self->dims, (int)n) == 0 || outputSize == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    int d = (int)(dim < 0 ? dim + n : dim);
    int64_t want[BE_OP_MAX_DIMS];
    for (int i = 0; i < n; i++)
        want[i] = self->dims[i];
    want[d] *= repeats;
    if ((rc = nn_check_shape(&c, out, "out", want, (int)n)) != OK ||
        (rc = nn_moved(&c, self, "self")) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    if (repeats > 1 && self->dims[d] > 1) {
        if (n == BE_OP_MAX_DIMS)
            return nn_too_many_dims(&c, "repeat");
        nn_view_split(&c.op->out[0], d, self->dims[d]);
        nn_view_unsqueeze(&c.op->in[0], d + 1);
    } else if (repeats > 1) {
        c.op->in[0].strides[d] = 0;
    }
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnRepeatInterleaveIntWithDim)

/* aclnn_cat.cpp ASCEND910B_DTYPE_SUPPORT_LIST L52-55 */
#define T_CAT                                                                             \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) | T(DOUBLE) |  \
     T(COMPLEX64) | T(BF16) | T(BOOL))

/* out = the tensors one after another along dim, each converted to out's
 * type (hicann/ops-math conversion/concat_d/op_api/aclnn_cat.cpp:
 * CheckParams L183-190: the types L79-93, their promotion and its cast to
 * out L106-125, the shapes L149-181; 1-D empty tensors are left out first,
 * EraseDim1EmptyTensor, L443). aclsim takes up to 8 tensors. */
aclnnStatus api_impl_aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim,
                                              aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor)
{
    API_FORWARD(aclnnCatGetWorkspaceSize, (tensors, dim, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnCat", tensors);
    uint64_t all = 0;
    api_impl_aclGetTensorListSize(tensors, &all);
    for (uint64_t i = 0; i < all; i++)
        if (!api_nn_tensor_list_at(tensors, i))
            return nn_null("aclnnCat", "aclTensor", "(*tensors)[i]");
    NN_CHECK_NULL("aclnnCat", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnCat", "ConcatD", BE_OP_CAT, workspaceSize, executor);
    if (rc != OK)
        return rc;
    const aclTensor *t[BE_OP_MAX_IN];
    uint64_t n = 0;
    for (uint64_t i = 0; i < all; i++) {
        const aclTensor *x = api_nn_tensor_list_at(tensors, i);
        if (x->ndims == 1 && x->dims[0] == 0)
            continue; /* EraseDim1EmptyTensor */
        if (n == BE_OP_MAX_IN)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim concatenates at most %d tensors "
                           "(CANN's operator takes more).", BE_OP_MAX_IN);
        t[n++] = x;
    }
    if (n == 0)
        return nn_end(&c, 0, workspaceSize, executor);
    char list[600];
    api_types_text(T_CAT, list, sizeof list);
    for (uint64_t i = 0; i < n; i++)
        if (!api_type_in(t[i]->dtype, T_CAT))
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "tensor %llu not implemented for %s, "
                           "should be in dtype support list %s.", (unsigned long long)i,
                           api_dtype_name(t[i]->dtype), list);
    if ((rc = nn_check_type(&c, out, "y", T_CAT)) != OK)
        return rc;
    aclDataType promoted = t[0]->dtype;
    for (uint64_t i = 1; i < n; i++) {
        aclDataType p = api_promote(t[i]->dtype, promoted);
        if (p == ACL_DT_UNDEFINED)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "tensor %llu dtype %s and dtype %s can "
                           "not promote dtype.", (unsigned long long)i,
                           api_dtype_name(t[i]->dtype), api_dtype_name(promoted));
        promoted = p;
    }
    if ((rc = nn_check_cast(&c, promoted, out->dtype)) != OK ||
        (rc = nn_check_dims(&c, t[0], "tensors[0]")) != OK)
        return rc;
    int64_t rank = (int64_t)t[0]->ndims, d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= rank)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dimnum %lld exceed the dim range of the "
                       "tensor %lld.", (long long)dim, (long long)rank);
    int64_t want[BE_OP_MAX_DIMS];
    for (int j = 0; j < rank; j++)
        want[j] = t[0]->dims[j];
    for (uint64_t i = 1; i < n; i++) {
        if ((int64_t)t[i]->ndims != rank)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dimnum of tensor %llu is [%llu], should "
                           "be equal to tensor 0 [%lld].", (unsigned long long)i,
                           (unsigned long long)t[i]->ndims, (long long)rank);
        for (int j = 0; j < rank; j++)
            if (j != d && t[i]->dims[j] != t[0]->dims[j])
                return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "dim %d of tensor %llu is [%lld], "
                               "should be equal to tensor 0 [%lld].", j, (unsigned long long)i,
                               (long long)t[i]->dims[j], (long long)t[0]->dims[j]);
        want[d] += t[i]->dims[d];
    }
    /* the concatenation's shape against out (CheckShapeAndScalarSame, L304) */
    if ((rc = nn_check_shape(&c, out, "out", want, (int)rank)) != OK ||
        (rc = nn_moved(&c, out, "out")) != OK || (rc = nn_out(&c, out, "out")) != OK)
        return rc;
    for (uint64_t i = 0; i < n; i++)
        if ((rc = nn_moved(&c, t[i], "tensors")) != OK || (rc = nn_in(&c, t[i], "tensors")) != OK)
            return rc;
    c.op->axes[0] = d;
    c.op->n_axes = 1;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnCat)

/* aclnn_constant_pad_nd.cpp DTYPE_SUPPORT_910B_LIST L35-38 */
#define T_PAD                                                                             \
    (T(FLOAT) | T(INT32) | T(FLOAT16) | T(INT8) | T(DOUBLE) | T(INT16) | T(INT64) | T(UINT64) | \
     T(UINT32) | T(UINT16) | T(UINT8) | T(BOOL) | T(COMPLEX64) | T(COMPLEX128) | T(BF16))

/* out = self with pad[2i] elements of `value` before and pad[2i+1] after
 * its dim n-1-i (negative pads cut): out filled, then self's kept part
 * copied in (hicann/ops-math conversion/pad_v3/op_api/
 * aclnn_constant_pad_nd.cpp: CheckDtypeValid L67-80, CheckShape L82-151). */
aclnnStatus api_impl_aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self,
                                                        const aclIntArray *pad,
                                                        const aclScalar *value, aclTensor *out,
                                                        uint64_t *workspaceSize,
                                                        aclOpExecutor **executor)
{
    API_FORWARD(aclnnConstantPadNdGetWorkspaceSize, (self, pad, value, out, workspaceSize,
                                                     executor));
    const char *name = "aclnnConstantPadNd";
    NN_CHECK_NULL(name, self);
    NN_CHECK_NULL(name, pad);
    NN_CHECK_NULL(name, value);
    NN_CHECK_NULL(name, out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, "PadV3", BE_OP_PAD, workspaceSize, executor);
    if (rc == OK)
        rc = nn_same_type(&c, self, "self", out, "out");
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_PAD);
    if (rc == OK)
        rc = nn_check_dims(&c, self, "self");
    if (rc == OK)
        rc = nn_check_dims(&c, out, "out");
    if (rc != OK)
        return rc;
    uint64_t len = 0;
    api_impl_aclGetIntArraySize(pad, &len);
    int n = (int)self->ndims;
    if ((int)out->ndims != n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Dim of self[%d] and out[%llu] can't be "
                       "different.", n, (unsigned long long)out->ndims);
    if (len % 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Pad len must be divisible by 2");
    if (len / 2 > (uint64_t)n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "Expected aclnnConstantPadNd pad len [%llu] "
                       "to not be greater than twice of [%d] but check failed.",
                       (unsigned long long)len, n);
    int64_t p[API_NN_MAX_DIMS];
    api_nn_int_array(pad, p);
    bool positive = false, zero = false;
    int64_t before[BE_OP_MAX_DIMS] = {0}, after[BE_OP_MAX_DIMS] = {0};
    for (int i = 0; i < n; i++) {
        int d = n - 1 - i;
        int64_t b = 2 * i < (int)len ? p[2 * i] : 0, e = 2 * i + 1 < (int)len ? p[2 * i + 1] : 0;
        int64_t size = self->dims[d], grown = size + b + e;
        int64_t low = b < e ? b : e;
        low = low < b + e ? low : b + e;
        if (size + low < 0)
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The input size %lld plus padding %lld "
                           "and %lld resulted in a negative output size, which is invalid. Check "
                           "dimension %d of your input.", (long long)size, (long long)b,
                           (long long)e, d);
        positive |= b > 0 || e > 0;
        if (grown != out->dims[d])
            return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "output shape at dim %d check failed,The "
                           "output shape you provided is %lld at dim %d, and the expected one is "
                           "%lld at dim %d based on the infershape.", d, (long long)out->dims[d],
                           d, (long long)grown, d);
        zero |= 2 * i < (int)len && grown == 0;
        before[d] = b;
        after[d] = e;
    }
    if (zero && positive) {
        char so[200];
        api_dims_text(out->dims, n, so, sizeof so);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The output size %s with zero element is "
                       "invalid, please check your input.", so);
    }
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    struct be_view *v = &c.op->in[0];
    for (int d = 0; d < n; d++) { /* a negative pad cuts self; a positive one moves it in out */
        int64_t cut_b = before[d] < 0 ? -before[d] : 0, cut_e = after[d] < 0 ? -after[d] : 0;
        v->offset += cut_b * v->strides[d];
        v->dims[d] -= cut_b + cut_e;
        if (v->dims[d] < 0)
            v->dims[d] = 0;
        c.op->axes[d] = before[d] > 0 ? before[d] : 0;
    }
    c.op->n_axes = n;
    c.op->alpha = nn_scalar_value(value);
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnConstantPadNd)

/* aclnn_reflection_pad1d.cpp ASCEND910B list L28-31 */
#define T_REFLECT                                                                         \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(DOUBLE) | T(INT8) | T(UINT8) |  \
     T(BOOL) | T(BF16) | T(COMPLEX64) | T(COMPLEX128))

/* out = self's last dim with padding[0] mirrored elements before it and
 * padding[1] after (hicann/ops-math conversion/mirror_pad/op_api/
 * aclnn_reflection_pad1d.cpp: CheckParams L116-128, CheckShape L86-112). */
aclnnStatus api_impl_aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self,
                                                          const aclIntArray *padding,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor)
{
    API_FORWARD(aclnnReflectionPad1dGetWorkspaceSize, (self, padding, out, workspaceSize,
                                                       executor));
    const char *name = "aclnnReflectionPad1d";
    NN_CHECK_NULL(name, self);
    NN_CHECK_NULL(name, padding);
    NN_CHECK_NULL(name, out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, "MirrorPad", BE_OP_REFLECT_PAD, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_REFLECT);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_REFLECT);
    if (rc == OK)
        rc = nn_match_type(&c, out, "out", self->dtype);
    if (rc != OK)
        return rc;
    int n = (int)self->ndims;
    if (n < 2 || n > 3) /* OP_CHECK_MIN_DIM / OP_CHECK_MAX_DIM, L90-91 */
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, n < 2 ? "The self tensor must have at least "
                       "2 dimensions." : "The self tensor cannot be larger than 3 dimensions.");
    if ((int)out->ndims != n)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "self, out dim should be same.");
    uint64_t len = 0;
    api_impl_aclGetIntArraySize(padding, &len);
    if (len != 2)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "padding length should be 2, but got %llu.",
                       (unsigned long long)len);
    int64_t p[2];
    api_nn_int_array(padding, p);
    int64_t w = self->dims[n - 1];
    if (!(p[0] < w && p[1] < w))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "padding size should be less than the "
                       "corresponding self dimention.");
    if (out->dims[n - 1] != w + p[0] + p[1])
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "wrong out shape.");
    int64_t want[3] = {self->dims[0], self->dims[1], n == 3 ? self->dims[2] : 0};
    want[n - 1] = out->dims[n - 1];
    if ((rc = nn_check_shape(&c, out, "out", want, n)) != OK)
        return rc;
    if (p[0] < 0 || p[1] < 0)
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute a negative "
                       "reflection padding (CANN's operator takes it).");
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->iparam[0] = p[0];
    c.op->iparam[1] = p[1];
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnReflectionPad1d)

/* aclnn_tril.cpp ASCEND910B list L39-43; aclnn_triu.cpp L40-43 (the same) */
#define T_TRI (T_REAL | T(UINT16) | T(UINT32) | T(UINT64))

/* out = self with what lies above diagonal `diagonal` of the last two dims
 * set to 0 (Tril), or below it (Triu): hicann/ops-math
 * conversion/tril/op_api/aclnn_tril.cpp (CheckParams L110-123: self and
 * out in the list, out of self's type L78, at least 2 dims "Dim of self
 * should be last 2 dims." L83-86, one shape L93) and conversion/triu/
 * op_api/aclnn_triu.cpp (L79-101: an empty self may have fewer dims,
 * OP_CHECK_MIN_DIM's text). The in-place forms are the same with out =
 * selfRef. */
static aclnnStatus tri(const char *name, const aclTensor *self, int64_t diagonal,
                       const aclTensor *out, bool upper, uint64_t *ws, aclOpExecutor **executor)
{
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, name, upper ? "Triu" : "Tril", BE_OP_TRI, ws, executor);
    if (rc == OK)
        rc = nn_check_type(&c, self, "self", T_TRI);
    if (rc == OK && !upper)
        rc = nn_check_type(&c, out, "out", T_TRI);
    if (rc == OK)
        rc = nn_match_type(&c, out, "out", self->dtype);
    if (rc != OK)
        return rc;
    bool empty = api_dims_elements(self->dims, (int)self->ndims) == 0;
    if (self->ndims <= 1 && (!upper || !empty))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, upper ? "The self tensor must have at least "
                       "2 dimensions." : "Dim of self should be last 2 dims.");
    if ((rc = nn_check_dims(&c, self, "self")) != OK || (rc = nn_check_dims(&c, out, "out")) != OK ||
        (rc = nn_check_same_shape(&c, self, "self", out, "out")) != OK)
        return rc;
    if (empty)
        return nn_end(&c, 0, ws, executor);
    if ((rc = nn_moved(&c, self, "self")) != OK || (rc = nn_out(&c, out, "out")) != OK ||
        (rc = nn_in(&c, self, "self")) != OK)
        return rc;
    c.op->iparam[0] = diagonal;
    c.op->iparam[1] = upper;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, ws, executor);
}

aclnnStatus api_impl_aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnTrilGetWorkspaceSize, (self, diagonal, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnTril", self);
    NN_CHECK_NULL("aclnnTril", out);
    return tri("aclnnTril", self, diagonal, out, false, workspaceSize, executor);
}
NN_LAUNCH(aclnnTril)

aclnnStatus api_impl_aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceTrilGetWorkspaceSize, (selfRef, diagonal, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceTril", selfRef);
    return tri("aclnnInplaceTril", selfRef, diagonal, selfRef, false, workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceTril)

aclnnStatus api_impl_aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor)
{
    API_FORWARD(aclnnTriuGetWorkspaceSize, (self, diagonal, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnTriu", self);
    NN_CHECK_NULL("aclnnTriu", out);
    return tri("aclnnTriu", self, diagonal, out, true, workspaceSize, executor);
}
NN_LAUNCH(aclnnTriu)

aclnnStatus api_impl_aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor)
{
    API_FORWARD(aclnnInplaceTriuGetWorkspaceSize, (selfRef, diagonal, workspaceSize, executor));
    NN_CHECK_NULL("aclnnInplaceTriu", selfRef);
    return tri("aclnnInplaceTriu", selfRef, diagonal, selfRef, true, workspaceSize, executor);
}
NN_LAUNCH(aclnnInplaceTriu)

/* aclnn_arange.cpp ASCEND910B lists L56-62 */
#define T_ARANGE_IN                                                                       \
    (T(FLOAT) | T(INT32) | T(INT64) | T(FLOAT16) | T(INT16) | T(INT8) | T(UINT8) | T(DOUBLE) |  \
     T(BOOL) | T(BF16))
#define T_ARANGE_OUT (T(FLOAT16) | T(FLOAT) | T(DOUBLE) | T(INT64) | T(INT32) | T(BF16))

/* out[i] = start + i * step, the range [start, end): hicann/ops-math
 * math/range/op_api/aclnn_arange.cpp (CheckParams L163-173: the types
 * L70-88, the step's sign against the bounds in out's type L90-141, "step
 * must be nonzero." L30-35). out holds the range's length of elements. */
aclnnStatus api_impl_aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end,
                                                 const aclScalar *step, aclTensor *out,
                                                 uint64_t *workspaceSize,
                                                 aclOpExecutor **executor)
{
    API_FORWARD(aclnnArangeGetWorkspaceSize, (start, end, step, out, workspaceSize, executor));
    NN_CHECK_NULL("aclnnArange", start);
    NN_CHECK_NULL("aclnnArange", end);
    NN_CHECK_NULL("aclnnArange", step);
    NN_CHECK_NULL("aclnnArange", out);
    struct nn_call c;
    aclnnStatus rc = nn_begin(&c, "aclnnArange", "Range", BE_OP_ARANGE, workspaceSize, executor);
    if (rc == OK)
        rc = nn_check_scalar_type(&c, start, "start", T_ARANGE_IN);
    if (rc == OK)
        rc = nn_check_scalar_type(&c, end, "end", T_ARANGE_IN);
    if (rc == OK)
        rc = nn_check_scalar_type(&c, step, "step", T_ARANGE_IN);
    if (rc == OK)
        rc = nn_check_type(&c, out, "out", T_ARANGE_OUT);
    if (rc != OK)
        return rc;
    double a = nn_scalar_value(start), b = nn_scalar_value(end), s = nn_scalar_value(step);
    if (api_is_floating(out->dtype) && out->dtype != ACL_DOUBLE) /* compared as float, L97-110 */
        a = (float)a, b = (float)b, s = (float)s;
    else if (!api_is_floating(out->dtype))
        a = (double)(int64_t)a, b = (double)(int64_t)b, s = (double)(int64_t)s;
    if (!(s > 0 || s < 0))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "step must be nonzero.");
    if ((s > 0 && a > b) || (s < 0 && a < b))
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "upper bound and lower bound inconsistent "
                       "with step sign. start:%f, end:%f, step:%f.", a, b, s);
    /* out holds the range's elements in row-major order, whatever its
     * shape (ggml's CANN backend passes a 4-D out) */
    int64_t len = (int64_t)ceil((b - a) / s), got = api_dims_elements(out->dims, (int)out->ndims);
    if (got != len) {
        char so[200];
        api_dims_text(out->dims, (int)out->ndims, so, sizeof so);
        return nn_fail(&c, ACLNN_ERR_PARAM_INVALID, "The range holds %lld elements, out %s holds "
                       "%lld.", (long long)len, so, (long long)got);
    }
    if ((rc = nn_out(&c, out, "out")) != OK)
        return rc;
    c.op->alpha = a;
    c.op->beta = s;
    c.op->calc = out->dtype;
    return nn_end(&c, 0, workspaceSize, executor);
}
NN_LAUNCH(aclnnArange)

/*
 * checks.c - the checks and view steps of checks.h.
 */
#include "checks.h"

aclnnStatus nn_moved(struct nn_call *c, const aclTensor *t, const char *name)
{
    if (api_type_in(t->dtype, T_MOVED))
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute %s (tensor %s; CANN's "
                   "operator takes it; aclsim's kernels take real types only).",
                   api_dtype_name(t->dtype), name);
}

aclnnStatus nn_computed(struct nn_call *c, aclDataType calc)
{
    if (api_type_in(calc, T_REAL))
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute %s (CANN's operator "
                   "takes it; aclsim's kernels take real types only).", api_dtype_name(calc));
}

aclnnStatus nn_same_type(struct nn_call *c, const aclTensor *a, const char *na,
                         const aclTensor *b, const char *nb)
{
    if (a->dtype == b->dtype)
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, but "
                   "found %s %s and %s %s.", na, api_dtype_name(a->dtype), nb,
                   api_dtype_name(b->dtype));
}

aclnnStatus nn_match_type(struct nn_call *c, const aclTensor *t, const char *name,
                          aclDataType want)
{
    if (t->dtype == want)
        return OK;
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "Tensor %s expected dtype is %s but found %s.",
                   name, api_dtype_name(want), api_dtype_name(t->dtype));
}

aclnnStatus nn_too_many_dims(struct nn_call *c, const char *what)
{
    return nn_fail(c, ACLNN_ERR_PARAM_INVALID, "aclsim does not compute this %s: it walks it as "
                   "a view of more than %d dims (CANN's operator takes it).", what,
                   BE_OP_MAX_DIMS);
}

bool nn_same_dims(const aclTensor *t, const int64_t *dims, int n)
{
    bool same = (int)t->ndims == n;
    for (int i = 0; same && i < n; i++)
        same = t->dims[i] == dims[i];
    return same;
}

void nn_view_split(struct be_view *v, int d, int64_t n)
{
    for (int i = v->ndims; i > d + 1; i--) {
        v->dims[i] = v->dims[i - 1];
        v->strides[i] = v->strides[i - 1];
    }
    int64_t m = n ? v->dims[d] / n : 0;
    v->dims[d + 1] = m;
    v->strides[d + 1] = v->strides[d];
    v->dims[d] = n;
    v->strides[d] = v->strides[d] * m;
    v->ndims++;
}

void nn_view_unsqueeze(struct be_view *v, int d)
{
    for (int i = v->ndims; i > d; i--) {
        v->dims[i] = v->dims[i - 1];
        v->strides[i] = v->strides[i - 1];
    }
    v->dims[d] = 1;
    v->strides[d] = 0;
    v->ndims++;
}

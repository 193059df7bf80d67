/*
 * checks.h - checks and view steps several aclnn families share beyond
 * nn.h's (checks.c): CANN's dtype checks between two tensors, the types
 * aclsim's kernels move, and the view arithmetic of the operators that
 * are copies of a reshaped view (a repeat is out viewed as (repeat, size)
 * pairs, a dim of size 1 read again is a stride 0).
 */
#ifndef ACLSIM_API_OP_NN_CHECKS_H_
#define ACLSIM_API_OP_NN_CHECKS_H_

#include "nn.h"

#define T(x) API_T(ACL_##x)
/* the real types, and what the simulator's kernels move and convert */
#define T_REAL                                                                            \
    (T(FLOAT16) | T(FLOAT) | T(DOUBLE) | T(INT8) | T(UINT8) | T(INT16) | T(INT32) |        \
     T(INT64) | T(BOOL) | T(BF16))
#define T_MOVED (T_REAL | T(UINT16) | T(UINT32) | T(UINT64))

/* t's type is one the kernels take (T_MOVED), else ACLNN_ERR_PARAM_INVALID
 * saying aclsim does not compute it. */
aclnnStatus nn_moved(struct nn_call *c, const aclTensor *t, const char *name);
/* calc, the type an operator computes in, is one the kernels compute
 * (T_REAL), else the same refusal. */
aclnnStatus nn_computed(struct nn_call *c, aclDataType calc);
/* OP_CHECK_DTYPE_NOT_SAME (hicann/ops-math common/inc/external/
 * aclnn_kernels/common/op_error_check.h L128-136): "Expected both tensors
 * to have same dtype, but found self DT_FLOAT and out DT_INT32." */
aclnnStatus nn_same_type(struct nn_call *c, const aclTensor *a, const char *na,
                         const aclTensor *b, const char *nb);
/* OP_CHECK_DTYPE_NOT_MATCH (L118-126): "Tensor out expected dtype is
 * DT_FLOAT but found DT_INT32." */
aclnnStatus nn_match_type(struct nn_call *c, const aclTensor *t, const char *name,
                          aclDataType want);
/* ACLNN_ERR_PARAM_INVALID: aclsim would walk the operator's `what` as a
 * view of more than 8 dims. */
aclnnStatus nn_too_many_dims(struct nn_call *c, const char *what);
/* t has shape dims[0..n). */
bool nn_same_dims(const aclTensor *t, const int64_t *dims, int n);
/* Split dim d of v into (n, size / n): element j * size/n + k is (j, k).
 * pre: v->ndims < BE_OP_MAX_DIMS. */
void nn_view_split(struct be_view *v, int d, int64_t n);
/* Insert a dim of size 1 at d (stride 0). pre: v->ndims < BE_OP_MAX_DIMS. */
void nn_view_unsqueeze(struct be_view *v, int d);

#endif /* ACLSIM_API_OP_NN_CHECKS_H_ */

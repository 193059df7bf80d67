/*
 * nn.h - what the aclnn operator files share (api/src/op/nn/: one file per
 * operator family, plan.c the steps every operator takes). An operator's
 * GetWorkspaceSize is one small function: it checks its arguments in
 * CANN's order with CANN's codes and messages (the helpers below print
 * opbase's texts), describes the computation as one struct be_op (a kind
 * of api/abi/opkinds.def, the tensors as views, typed parameters) and
 * hands out the executor; its launch is NN_LAUNCH(name). Nothing is
 * translated into aclop descs or attributes: the views go to the backend
 * as they are, and the simulator's one engine walks them.
 *
 * CONTRIBUTING.md ("An aclnn operator") has the recipe.
 */
#ifndef ACLSIM_API_OP_NN_NN_H_
#define ACLSIM_API_OP_NN_NN_H_

#include "op/op.h"

/* One GetWorkspaceSize call being planned: the operator's launch call
 * (which names it in messages) and, once nn_begin made it, its executor
 * and the operator it describes. */
struct nn_call {
    const char *launch; /* "aclnnAdd" */
    aclOpExecutor *e;
    struct be_op *op;   /* &e->plan.op */
};

/* CANN's OP_CHECK_NULL (hicann/ops-math common/inc/external/aclnn_kernels/
 * common/op_error_check.h L27-44, L109-112): ACLNN_ERR_PARAM_NULLPTR,
 * "Expected a value of type [aclTensor] for argument [self] but instead
 * found nullptr." */
aclnnStatus nn_null(const char *launch, const char *type, const char *name);
#define NN_TYPE_NAME(x)                                                                  \
    _Generic((x), const aclTensor *: "aclTensor", aclTensor *: "aclTensor",              \
             const aclScalar *: "aclScalar", aclScalar *: "aclScalar",                   \
             const aclIntArray *: "aclIntArray", aclIntArray *: "aclIntArray",           \
             const aclTensorList *: "aclTensorList", aclTensorList *: "aclTensorList",   \
             default: "pointer")
#define NN_CHECK_NULL(launch, x)                                                         \
    do {                                                                                 \
        if (!(x))                                                                        \
            return nn_null(launch, NN_TYPE_NAME(x), #x);                                 \
    } while (0)

/* Start planning `launch` as an operator of `kind` (`type` names it in
 * the trace): the workspaceSize and executor arguments (CANN's
 * OP_CHECK_COMM_INPUT: ACLNN_ERR_PARAM_NULLPTR, "The workspaceSize or
 * executor is nullptr."), the fault points, a new executor. */
aclnnStatus nn_begin(struct nn_call *c, const char *launch, const char *type,
                     enum be_op_kind kind, uint64_t *workspaceSize, aclOpExecutor **executor);
/* Refuse the call: the executor goes, the error is reported as
 * "<launch>GetWorkspaceSize: <text>" and rc returned. */
aclnnStatus nn_fail(struct nn_call *c, aclnnStatus rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hand out the executor and the workspace it needs: ACLNN_SUCCESS. */
aclnnStatus nn_end(struct nn_call *c, uint64_t ws_bytes, uint64_t *workspaceSize,
                   aclOpExecutor **executor);

/* The operator's next input / output: tensor t (argument `name`) as its
 * view, checked as CANN checks a tensor it reads or writes: at most 8 dims
 * (OP_CHECK_MAX_DIM, op_error_check.h L229-237: ACLNN_ERR_PARAM_INVALID,
 * "The self tensor cannot be larger than 8 dimensions."), a strided view
 * inside its storage (opbase's Validate, src/nnopbase/composite_op/utils/
 * tensor_view_utils.cpp L50-70: "ViewShape overlap.", which Contiguous
 * turns into ACLNN_ERR_INNER_NULLPTR), and for an output, no element
 * written twice (a stride 0 over a dim of more than one element: CANN's
 * kernels require that data should not overlap, hicann/ops-math
 * conversion/contiguous/op_host/op_api/contiguous.cpp L122-124;
 * ACLNN_ERR_PARAM_INVALID). */
aclnnStatus nn_in(struct nn_call *c, const aclTensor *t, const char *name);
aclnnStatus nn_out(struct nn_call *c, const aclTensor *t, const char *name);
/* A matrix product's operand: as nn_in, but a batch of transposed
 * matrices is taken as the view it is (CANN's matrix products pass it on
 * through CreateTransposedView rather than Contiguous, so opbase's Validate
 * does not see it: its reach past the storage shape is not refused). */
aclnnStatus nn_in_matrix(struct nn_call *c, const aclTensor *t, const char *name);
/* The operator's next input: a host scalar (a 0-d tensor in host memory,
 * of the scalar's own type; the executor keeps its value). */
aclnnStatus nn_in_scalar(struct nn_call *c, const aclScalar *s);

/* CANN's OP_CHECK_MAX_DIM on its own (before the views are made, where
 * CANN's operator checks it first). */
aclnnStatus nn_check_dims(struct nn_call *c, const aclTensor *t, const char *name);
/* OP_CHECK_DTYPE_NOT_SUPPORT (op_error_check.h L114-123): "Tensor self not
 * implemented for DT_UINT16, should be in dtype support list [...]." */
aclnnStatus nn_check_type(struct nn_call *c, const aclTensor *t, const char *name,
                          api_types supported);
/* The same check of a scalar operand (CANN's macro names it a tensor). */
aclnnStatus nn_check_scalar_type(struct nn_call *c, const aclScalar *s, const char *name,
                                 api_types supported);
/* OP_CHECK_RESULT_DTYPE_CAST_FAILED (L145-154): "Result type DT_FLOAT can't be
 * cast to the desired output type DT_INT32." */
aclnnStatus nn_check_cast(struct nn_call *c, aclDataType from, aclDataType to);
/* OP_CHECK_BROADCAST_AND_INFER_SHAPE (L178-188) of a and b, and *n, dims:
 * the broadcast shape. */
aclnnStatus nn_check_broadcast(struct nn_call *c, const aclTensor *a, const char *na,
                               const aclTensor *b, const char *nb, int64_t *dims, int *n);
/* OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE (L214-222): t has shape dims. */
aclnnStatus nn_check_shape(struct nn_call *c, const aclTensor *t, const char *name,
                           const int64_t *dims, int n);
/* OP_CHECK_SHAPE_NOT_EQUAL (L190-201): a and b have one shape. */
aclnnStatus nn_check_same_shape(struct nn_call *c, const aclTensor *a, const char *na,
                                const aclTensor *b, const char *nb);

/* The value of an aclScalar as a double (nnmeta.c). */
#define nn_scalar_value api_nn_scalar_value

/* ---- plan.c: launching ---- */

/* Run executor e (planned by `fn`GetWorkspaceSize) on stream with the
 * caller's workspace: the launch checks of CANN's CommonOpExecutorRun and
 * aclsim's, then the single-op executor (api_op_execute_ws). */
aclnnStatus api_nn_launch(const char *fn, void *workspace, uint64_t workspaceSize,
                          aclOpExecutor *e, aclrtStream stream);

/* The launch call `name` (aclnnAdd, ...). */
#define NN_LAUNCH(name)                                                                     \
    aclnnStatus api_impl_##name(void *workspace, uint64_t workspaceSize,                    \
                                aclOpExecutor *executor, aclrtStream stream)                \
    {                                                                                       \
        API_FORWARD(name, (workspace, workspaceSize, executor, stream));                    \
        return api_nn_launch(#name, workspace, workspaceSize, executor, stream);            \
    }

#endif /* ACLSIM_API_OP_NN_NN_H_ */

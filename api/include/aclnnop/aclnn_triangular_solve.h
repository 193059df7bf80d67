/*
 * aclnnop/aclnn_triangular_solve.h - the aclnn TriangularSolve operator.
 * Declarations as CANN's (hicann/ops-math
 * math/triangular_solve/op_host/op_api/aclnn_triangular_solve.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_TRIANGULAR_SOLVE_H_
#define OP_API_INC_TRIANGULAR_SOLVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self,
        const aclTensor *A, bool upper, bool transpose, bool unitriangular, aclTensor *xOut,
        aclTensor *mOut, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnTriangularSolve(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_TRIANGULAR_SOLVE_H_ */

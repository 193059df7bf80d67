/*
 * aclnnop/aclnn_swi_glu.h - the aclnn SwiGlu operator. Declarations as CANN's
 * (hicann/ops-nn activation/swi_glu/docs/aclnnSwiGlu.md (the header is
 * generated from the op definition)): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_SWI_GLU_H_
#define OP_API_INC_SWI_GLU_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim,
        const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSwiGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SWI_GLU_H_ */

/*
 * aclnnop/aclnn_div.h - the aclnn Div, Divs, DivMod, DivMods, InplaceDiv,
 * InplaceDivs, InplaceDivMod and InplaceDivMods operators. Declarations as
 * CANN's (hicann/ops-math math/div/op_api/aclnn_div.h): each operator is two
 * calls, GetWorkspaceSize plans it and says how much device workspace it
 * needs, the launch runs it on a stream. api/abi/calls.def says which ones
 * aclsim computes.
 */
#ifndef OP_API_INC_DIV_H_
#define OP_API_INC_DIV_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
        int mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnDivModsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
        int mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceDivsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceDivModGetWorkspaceSize(aclTensor *selfRef,
        const aclTensor *other, int mode, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceDivModsGetWorkspaceSize(aclTensor *selfRef,
        const aclScalar *other, int mode, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnDivs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnDivMod(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
        aclrtStream stream);
ACLNN_API aclnnStatus aclnnDivMods(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceDiv(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceDivs(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceDivMod(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceDivMods(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_DIV_H_ */

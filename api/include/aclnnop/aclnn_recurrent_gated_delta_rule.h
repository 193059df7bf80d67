/*
 * aclnnop/aclnn_recurrent_gated_delta_rule.h - the aclnn
 * RecurrentGatedDeltaRule operator. Declarations as CANN's (hicann/ops-
 * transformer's docs/aclnnRecurrentGatedDeltaRule.md (the operator is newer
 * than the ops-transformer snapshot at c29bc10)): each operator is two calls,
 * GetWorkspaceSize plans it and says how much device workspace it needs, the
 * launch runs it on a stream. api/abi/calls.def says which ones aclsim
 * computes.
 */
#ifndef OP_API_INC_RECURRENT_GATED_DELTA_RULE_H_
#define OP_API_INC_RECURRENT_GATED_DELTA_RULE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRecurrentGatedDeltaRuleGetWorkspaceSize(const aclTensor *query,
        const aclTensor *key, const aclTensor *value, const aclTensor *beta, aclTensor *stateRef,
        const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g,
        const aclTensor *gk, const aclTensor *numAcceptedTokens, float scaleValue, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRecurrentGatedDeltaRule(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_RECURRENT_GATED_DELTA_RULE_H_ */

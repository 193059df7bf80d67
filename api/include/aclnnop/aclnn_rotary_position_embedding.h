/*
 * aclnnop/aclnn_rotary_position_embedding.h - the aclnn
 * RotaryPositionEmbedding operator. Declarations as CANN's (hicann/ops-
 * transformer posembedding/interleave_rope/op_host/op_api/aclnn_rotary_positio
 * n_embedding.h): each operator is two calls, GetWorkspaceSize plans it and
 * says how much device workspace it needs, the launch runs it on a stream.
 * api/abi/calls.def says which ones aclsim computes.
 */
#ifndef OP_API_INC_ROTARY_POSITION_EMBEDDING_H_
#define OP_API_INC_ROTARY_POSITION_EMBEDDING_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x,
        const aclTensor *cos, const aclTensor *sin, int64_t mode, aclTensor *out,
        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ROTARY_POSITION_EMBEDDING_H_ */

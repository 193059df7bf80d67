/*
 * aclnnop/aclnn_embedding.h - the aclnn Embedding operator. Declarations as
 * CANN's (hicann/ops-nn index/embedding/op_api/aclnn_embedding.h): each
 * operator is two calls, GetWorkspaceSize plans it and says how much device
 * workspace it needs, the launch runs it on a stream. api/abi/calls.def says
 * which ones aclsim computes.
 */
#ifndef OP_API_INC_EMBEDDING_H_
#define OP_API_INC_EMBEDDING_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight,
        const aclTensor *indices, const aclTensor *out, uint64_t *workspaceSize,
        aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnEmbedding(void *workspace, uint64_t workspaceSize,
        aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_EMBEDDING_H_ */

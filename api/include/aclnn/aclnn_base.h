/*
 * aclnn/aclnn_base.h - the aclnn API's process setup: aclnnInit and
 * aclnnFinalize, with the objects of acl_meta.h. As hicann/opbase declares
 * them (include/nnopbase/aclnn/aclnn_base.h).
 */
#ifndef OP_API_OP_API_COMMON_INC_EXTERNAL_ACLNN_BASE_H
#define OP_API_OP_API_COMMON_INC_EXTERNAL_ACLNN_BASE_H

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_OP_API_COMMON_INC_EXTERNAL_ACLNN_BASE_H */

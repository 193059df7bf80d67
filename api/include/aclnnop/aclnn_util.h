/*
 * aclnnop/aclnn_util.h - the export macro of the aclnn operator headers
 * (hicann/opbase include/aclnnop/aclnn_util.h).
 */
#ifndef OPBASE_COMMON_ACLNN_UTIL_H
#define OPBASE_COMMON_ACLNN_UTIL_H

#define ACLNN_API __attribute__((visibility("default")))

#endif /* OPBASE_COMMON_ACLNN_UTIL_H */

/*
 * aclsim/aclsim.h - what aclsim adds to the AscendCL API.
 *
 * Everything here carries the aclsim_ prefix and is not part of CANN; a
 * program that must also build against a real CANN install guards its use
 * of this header with __has_include or its own macro.
 */
#ifndef ACLSIM_ACLSIM_H_
#define ACLSIM_ACLSIM_H_

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the live backend: "sim" (the NPU memory simulator) or "ascend"
 * (the real libascendcl.so). Never NULL. */
ACL_FUNC_VISIBILITY const char *aclsim_backend_name(void);

/* Number of streams that have an allocator registered (the registry of
 * aclrtAllocatorRegister), whatever the state of those streams. */
ACL_FUNC_VISIBILITY size_t aclsim_registered_count(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLSIM_ACLSIM_H_ */

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

/* The CANN version aclsim is: that of the CANN whose headers it carries
 * (hicann/runtime's version.cmake: package "runtime" 9.1.0, whose acl_rt.h
 * says ACL 1.17.0). aclsysGetVersionStr/Num and aclsysGetCANNVersion report
 * it for the "runtime" package; the CANN-layout tree's version files are
 * generated from these three numbers. */
#define ACLSIM_CANN_VERSION_MAJOR 9
#define ACLSIM_CANN_VERSION_MINOR 1
#define ACLSIM_CANN_VERSION_PATCH 0
#define ACLSIM_CANN_VERSION_STR_(x) #x
#define ACLSIM_CANN_VERSION_XSTR_(x) ACLSIM_CANN_VERSION_STR_(x)
#define ACLSIM_CANN_VERSION                                                              \
    ACLSIM_CANN_VERSION_XSTR_(ACLSIM_CANN_VERSION_MAJOR)                                 \
    "." ACLSIM_CANN_VERSION_XSTR_(ACLSIM_CANN_VERSION_MINOR) "." ACLSIM_CANN_VERSION_XSTR_( \
        ACLSIM_CANN_VERSION_PATCH)

/* Name of the live backend: "sim" (the NPU memory simulator) or "ascend"
 * (the real libascendcl.so). Never NULL. */
ACL_FUNC_VISIBILITY const char *aclsim_backend_name(void);

/* Number of streams that have an allocator registered (the registry of
 * aclrtAllocatorRegister), whatever the state of those streams. */
ACL_FUNC_VISIBILITY size_t aclsim_registered_count(void);

/* Simulated time, in picoseconds, as the simulator sees it (sim backend
 * only; elsewhere ACL_ERROR_API_NOT_SUPPORT). The host clock advances with
 * every call's host-side cost and whenever the host waits (synchronous
 * copies, synchronisations); a device's clock is the end of its last
 * queued operation; a stream's is the end of its queued work (NULL: the
 * current context's default stream). */
ACL_FUNC_VISIBILITY aclError aclsim_clock_host(uint64_t *ps);
ACL_FUNC_VISIBILITY aclError aclsim_clock_device(int32_t deviceId, uint64_t *ps);
ACL_FUNC_VISIBILITY aclError aclsim_clock_stream(aclrtStream stream, uint64_t *ps);
/* Every clock back to zero (between measurements); streams keep working. */
ACL_FUNC_VISIBILITY aclError aclsim_clock_reset(void);

/* Reports of the allocator sanitizer (ACLSIM_ALLOC_CHECK) since the
 * library loaded: of one kind ("host-memory", "freed-memory",
 * "out-of-bounds", "cross-stream-reuse", "host-reuse", "free-while-pending",
 * "shared-allocator", "unregister-while-pending",
 * "destroy-desc-while-pending"), or of all kinds when kind is NULL. */
ACL_FUNC_VISIBILITY unsigned long aclsim_alloc_check_reports(const char *kind);

#ifdef __cplusplus
}
#endif

#endif /* ACLSIM_ACLSIM_H_ */

/*
 * dvpp.c - DVPP memory (the DVPPMEM family): acldvppMalloc and acldvppFree,
 * the device memory DVPP's media engines read and write. The engines are
 * not simulated (the DVPP family answers 207000); their memory is, as
 * device memory every copy, fill, sanitizer check, leak report and memcheck
 * sees: acl/ops/acl_dvpp.h's two memory calls, as CANN installs them in
 * lib64/libacl_dvpp.so (api/SConscript).
 *
 * DVPP's own ACL layer (libacl_dvpp) is not public: its NULL and size
 * checks here are the aclrt memory family's (memory.cpp), and an
 * aclsim choice. Below it the runtime's: acldvppMalloc needs a current
 * context and rounds the size to 32 bytes (hicann/runtime
 * src/runtime/api/impl/api_impl.cc:2386-2394, DevDvppMalloc); acldvppFree
 * needs none and refuses a host address (2396-2423, DevDvppFree). The
 * rules of the memory itself (size ALIGN_UP(size, 32) + 32, 128-byte
 * starts, a DVPP range of 16 GiB per device) are the simulator's
 * (sim/policy.c, sim/blocks.c).
 */
#include "memory.h"
#include "backends/be.h"

aclError api_impl_acldvppMalloc(void **devPtr, size_t size)
{
    return api_malloc_dvpp(devPtr, size);
}

aclError api_impl_acldvppFree(void *devPtr)
{
    return api_free_device("acldvppFree", devPtr, API_FREE_DVPP);
}

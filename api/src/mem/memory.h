/*
 * memory.h - the contract of api/src/mem/, device and host memory: allocation
 * and plain copies and fills (memory.c), 2-D, batch and 32-bit copies and
 * fills (memcopy.c), registered, managed and configured memory
 * (hostmem.c), virtual memory (vmm.c), stream-ordered pools (pool.c),
 * cache maintenance (cache.c), device tasks (devtask.c) and device memory
 * shared between processes (ipcmem.c).
 *
 * mem/ includes diag/, rt/ (streams, contexts, peers) and alloc/ (the
 * sanitizer it reports host accesses and frees to); never op/.
 */
#ifndef ACLSIM_API_MEM_MEMORY_H_
#define ACLSIM_API_MEM_MEMORY_H_

#include "alloc/alloc.h"
#include "rt/rt.h"

struct be_ptr_info;

/* ---- memory.c: what copies and fills share (memcopy.c, hostmem.c) ---- */

/* Whether [p, p+n) is a legal side of a copy or fill described by `what`
 * (the runtime's words) and `param`: device memory inside one live block,
 * acl host memory inside its block, other host memory on trust unless
 * need_acl. Queues why not (EE1003, and memcheck's report). */
bool api_side_ok(const char *what, const char *param, const void *p, size_t n, bool device,
                 bool need_acl, const struct be_ptr_info *in);
/* Which sides of a copy of kind are device memory; DEFAULT infers them. */
void api_copy_sides(int kind, const struct be_ptr_info *d, const struct be_ptr_info *s,
                    bool *dst_dev, bool *src_dev);
/* CANN's name of an aclrtMemcpyKind: "MEMCPY_HOST_TO_DEVICE(1)". */
const char *api_kind_name(int kind, char *buf, size_t len);
/* Report a copy or fill the device could not do (rc from the backend);
 * returns rc. */
aclError api_engine_failed(const char *func, aclError rc);
/* Whether an address is in the device address space (live or freed). */
bool api_in_device_memory(const struct be_ptr_info *in);
/* Whether a side of a copy is host memory the runtime stages: pageable,
 * or running past a registration. */
bool api_pageable(bool dev_side, const struct be_ptr_info *in, const void *p, size_t n);
/* An asynchronous copy `what` through pageable host memory, on a stream
 * of context c (captured: a capturing one): refused on a capturing stream
 * (107000), and turned synchronous, under the capture modes, elsewhere
 * (107041); ACL_SUCCESS otherwise. With CANN's messages (api_error.cc). */
aclError api_capture_pageable(const char *what, bool captured, const struct api_ctx *c);
/* The messages of a failed allocation of `what` ("device", "host") memory
 * (rc != ACL_SUCCESS: EL0004 for 207001); returns rc. */
aclError api_no_memory(aclError rc, const char *what, size_t size);
/* The message and code of a free of p that func refused (`want`: the kind
 * of block func frees, BE_PTR_DEVICE or BE_PTR_HOST_PINNED). */
aclError api_bad_free(const char *func, const void *p, const struct be_ptr_info *in, int want);
/* aclrtFree and aclrtFreeHost, and their WithDevSync forms (dev_sync: the
 * device's work completes first, in simulated time): the fault point, the
 * checks and messages, the free. api_free_device's `how`: 0, or
 * API_FREE_SYNC (aclrtFreeWithDevSync), or API_FREE_DVPP (acldvppFree:
 * its fault point, the runtime's location check, the backend's dvpp_free). */
enum { API_FREE_SYNC = 1, API_FREE_DVPP = 2 };
aclError api_free_device(const char *func, void *devPtr, unsigned how);
/* acldvppMalloc: aclrtMalloc's checks (named acldvppMalloc) and path, with
 * DVPP's fault point and the backend's DVPP memory (BE_ALLOC_DVPP). */
aclError api_malloc_dvpp(void **devPtr, size_t size);
aclError api_free_host(const char *func, void *hostPtr, bool dev_sync);

/* ---- vmm.c, for pool.c ---- */

/* The message of a backend failure rc of func (why: the backend's reason,
 * or NULL); returns rc, ACL_SUCCESS without a message. */
aclError api_vmm_failed(const char *func, aclError rc, const char *why);

/* ---- ipcmem.c, for memory.c ---- */

/* IPC exports and imports this process has open (read without a lock:
 * aclrtFree looks further only when it is not 0). */
extern _Atomic unsigned api_ipc_open;
/* Before func frees the block at ptr: an export of its bytes still open
 * is reported (ipc-order) and closed. */
void api_ipc_freeing(const char *func, void *ptr);

#endif /* ACLSIM_API_MEM_MEMORY_H_ */

/*
 * api.h - private interface of the ACL layer (api/src), shared by its files.
 *
 * Declarations are grouped under the file that defines them. Nothing here
 * is exported from libascendcl.so: only acl* and aclsim_* symbols are.
 */
#ifndef ACLSIM_API_API_H_
#define ACLSIM_API_API_H_

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "acl/acl.h"
#include "fault/fault.h"

#define API_EXPORT __attribute__((visibility("default")))

/* ---- errmsg.c: CANN's per-thread error messages ---- */

enum api_msg {
#define MSG(id, code, title, cause, solution) API_MSG_##id,
#include "messages.def"
#undef MSG
    API_MSG_COUNT
};

/* Queue one message of kind `kind` for the calling thread; the text is
 * printf-formatted. Returns nothing: reporting never fails the caller. */
void api_report(enum api_msg kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "<func> failed because <param> cannot be a NULL pointer." (EH0008), and
 * ACL_ERROR_INVALID_PARAM, ready to be returned. */
aclError api_err_null(const char *func, const char *param);

/* "<func> failed because value <value> for parameter <param> is invalid.
 * Expected value: <expected>." (EH0007); returns ACL_ERROR_INVALID_PARAM. */
aclError api_err_value(const char *func, const char *value, const char *param,
                       const char *expected);


/* "<func> failed" for a runtime failure without a message of its own:
 * host memory (rc ACL_ERROR_BAD_ALLOC) gets the lib/host/malloc text
 * (EH0010), anything else "runtime result = <rc>" (EH9999). Returns rc;
 * ACL_SUCCESS passes through without a message. */
aclError api_err_runtime(const char *func, aclError rc);

/* ---- fault_api.c: fired fault points ---- */

/* Queue the message of fault point p (its text may name `func`) and return
 * the code the point simulates. */
aclError api_fault(enum flt_point p, const char *func);

/* If a fault point fired in this thread since the last note, queue a line
 * naming it (called by api_report's first message of a failure). */
void api_note_fault(void);

/* Entry-point check: fail the calling API as the point simulates. */
#define API_FAULT(id, func)                                                  \
    do {                                                                     \
        if (FLT_HIT(id))                                                     \
            return api_fault(FLT_##id, func);                                \
    } while (0)

/* ---- registry.c: stream -> allocator snapshot, lock-free lookups ---- */

struct api_alloc_snapshot {
    aclrtAllocatorDesc desc; /* the user's handle, returned by GetByStream */
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

/* Insert or replace the entry of `stream`. Returns 0, or -1 when the host
 * memory to grow the table cannot be had (the registry is unchanged). */
int api_registry_put(const void *stream, const struct api_alloc_snapshot *s);

/* Copy the entry of `stream` into *out: 0 when found, -1 otherwise. Never
 * blocks on writers for longer than one table mutation. */
int api_registry_get(const void *stream, struct api_alloc_snapshot *out);

/* Remove the entry of `stream`, if any. */
void api_registry_remove(const void *stream);

/* Number of entries (tests and leak reports). */
size_t api_registry_count(void);

/* Call fn for every entry, under the writers' lock (fn must not register or
 * unregister). */
void api_registry_each(void (*fn)(const void *stream, const struct api_alloc_snapshot *s,
                                  void *user),
                       void *user);

/* ---- allocator.c ---- */

/* Whether desc is a live handle from aclrtAllocatorCreateDesc (created and
 * not destroyed). Compares the value only: desc is never read. */
bool api_desc_live(const void *desc);

/* ---- allocator.c, memory.c: the implementations behind the exported
 * names, which diff.c defines (differential mode wraps them) ---- */

aclrtAllocatorDesc api_impl_aclrtAllocatorCreateDesc(void);
aclError api_impl_aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
aclError api_impl_aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                             aclrtAllocator allocator);
aclError api_impl_aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                   aclrtAllocatorAllocFunc func);
aclError api_impl_aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                  aclrtAllocatorFreeFunc func);
aclError api_impl_aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                         aclrtAllocatorAllocAdviseFunc func);
aclError api_impl_aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    aclrtAllocatorDesc allocatorDesc, aclrtAllocatorGetAddrFromBlockFunc func);
aclError api_impl_aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
aclError api_impl_aclrtAllocatorGetByStream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
aclError api_impl_aclrtAllocatorUnregister(aclrtStream stream);
aclError api_impl_aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError api_impl_aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError api_impl_aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError api_impl_aclrtFree(void *devPtr);
aclError api_impl_aclrtMallocHost(void **hostPtr, size_t size);
aclError api_impl_aclrtFreeHost(void *hostPtr);
aclError api_impl_aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                              aclrtMemcpyKind kind);
aclError api_impl_aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                   aclrtMemcpyKind kind, aclrtStream stream);
aclError api_impl_aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
aclError api_impl_aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                   aclrtStream stream);
aclError api_impl_aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);
aclError api_impl_aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);

/* ---- diff.c: differential mode (ACLSIM_DIFF=1 on a backend with a real
 * runtime) ---- */

/* Non-zero while every allocator and memory call is also put to the real
 * runtime and the answers compared. */
extern int api_diff_on;

/* ---- errmsg.c, for diff.c ---- */

/* Copy the calling thread's first pending message ("Title(CODE): text")
 * into buf without consuming it; "" when none. */
void api_msg_peek(char *buf, size_t len);

/* ---- leaks.c: aclsim's own leak report (ACLSIM_LEAK_CHECK) ---- */

/* Report what device `dev` still holds as it is about to close (blocks,
 * streams and contexts the program never released); `where` names the
 * call. pre: caller holds api_lock(), before anything is released. */
void api_leaks_device(int32_t dev, const char *where);

/* Report registrations left at aclFinalize: allocators still registered on
 * streams that no longer exist, and descs destroyed while registered.
 * pre: caller holds api_lock(). */
void api_leaks_registry(const char *where);

/* ---- objects.c: live handles the ACL layer gave out ---- */

enum api_obj_kind { API_OBJ_CONTEXT = 1, API_OBJ_STREAM = 2, API_OBJ_EVENT = 3 };

struct api_ctx;

/* Remember a handle with its kind, device and owning context (NULL for a
 * context). Returns 0, or -1 on host OOM. pre: caller holds api_lock(). */
int api_obj_add(void *handle, enum api_obj_kind kind, int32_t device,
                struct api_ctx *owner);
/* Forget a handle. pre: caller holds api_lock(). */
void api_obj_remove(void *handle);
/* Kind of a live handle, 0 if unknown; *device and *owner filled if
 * non-NULL. pre: caller holds api_lock(). */
enum api_obj_kind api_obj_find(const void *handle, int32_t *device,
                               struct api_ctx **owner);
/* Call fn for every live handle of `kind` on `device` (any when < 0) owned
 * by `owner` (any when NULL), with the handle's owner. fn must not add or
 * remove handles. pre: caller holds api_lock(). */
void api_obj_each(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                  void (*fn)(void *handle, struct api_ctx *owner, void *user), void *user);
/* Call release for each such handle until none is left; release must
 * remove the handle it is given. pre: caller holds api_lock(). */
void api_obj_drain(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                   void (*release)(void *handle));

/* ---- device.c: init state, devices, contexts ---- */

void api_lock(void);
void api_unlock(void);

struct api_ctx {
    int32_t device;
    bool primary;      /* the device's default context */
    void *be_ctx;      /* backend context handle */
    aclrtStream deflt; /* the context's default stream (backend handle) */
};

/* The calling thread's current context, validated (NULL and 107002 with a
 * message when there is none). `func` names the API for the message. */
aclError api_current_ctx(const char *func, struct api_ctx **out);

/* Resolve a user stream argument: NULL means the current context's default
 * stream. An unknown handle gives ACL_ERROR_RT_INTERNAL_ERROR (CANN's code
 * for an invalid stream) with a message. On success *ctx is the stream's
 * context. pre: caller does not hold api_lock(). */
aclError api_resolve_stream(const char *func, aclrtStream stream,
                            aclrtStream *out, struct api_ctx **ctx);

/* ACL_SUCCESS when deviceId names an open device; otherwise
 * ACL_ERROR_RT_INVALID_DEVICEID with a message naming `func`. Takes the lock. */
aclError api_device_usable(const char *func, int32_t deviceId);

/* Destroy every stream owned by ctx, its default stream too. pre: lock. */
void api_ctx_drop_streams(struct api_ctx *ctx);

#endif /* ACLSIM_API_API_H_ */

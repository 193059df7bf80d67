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
#include "acl/acl_rt_allocator.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_dump.h"
#include "acl/ops/acl_cblas.h"
#include "aclsim/aclsim.h"
#include "aclsim/fault.h"
#include "api/abi/calls.h"
#include "fault/fault.h"

#define API_EXPORT __attribute__((visibility("default")))

/* A member of the backend's optional parts (backends/be.h: tools, bridge),
 * or NULL when the backend lacks the part or the member. */
#define API_TOOL(m) (be_get()->tools ? be_get()->tools->m : NULL)
#define API_BRIDGE(m) (be_get()->bridge ? be_get()->bridge->m : NULL)

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

/* "<func> failed, the current context was destroyed by another thread."
 * (EE1001); returns ACL_ERROR_RT_CONTEXT_NULL. */
aclError api_err_ctx_gone(const char *func);

/* The message of a failed create call (stream, event, notify): the
 * backend's out-of-resource code `no_resource` says the device has no
 * `what` resource left, a context destroyed meanwhile says so, anything
 * else goes to api_err_runtime. Returns rc (ACL_SUCCESS: no message). */
aclError api_err_create(const char *func, aclError rc, aclError no_resource, const char *what);

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

/* ---- tensor.c: tensor descriptions (struct aclTensorDesc of acl_base_mdl.h) ---- */

/* A tensor description, as CANN's GE ACL layer keeps one. Fixed size: CANN
 * hands descs out as arrays (aclGetTensorDescByIndex indexes them). */
struct aclTensorDesc {
    aclDataType dtype;
    aclFormat format;         /* origin format (aclSetTensorOriginFormat) */
    aclFormat storage_format; /* aclSetTensorFormat/StorageFormat; UNDEFINED: unset */
    size_t ndims, n_storage, n_range, n_vrange;
    int64_t *dims;            /* origin shape; -1 unknown dim, {-2} unknown rank */
    int64_t *storage_dims;    /* aclSetTensorShape/StorageShape (a copy of dims at create) */
    int64_t (*range)[2];      /* aclSetTensorShapeRange */
    int64_t (*vrange)[2];     /* aclSetTensorValueRange */
    char *name, *dyn_name;    /* NULL reads as "" */
    void *const_data;         /* aclSetTensorConst: a copy */
    size_t const_len;
    bool is_const;
    aclMemType memtype;
    void *address;
};

/* CANN's GE ACL layer messages: EH0002 "Argument <param> must not be null."
 * and EH0001 "Value <value> for <param> is invalid. Reason: <reason>.";
 * both return ACL_ERROR_INVALID_PARAM. */
aclError api_err_arg_null(const char *param);
aclError api_err_arg_value(const char *param, const char *value, const char *reason);

/* A deep copy of a desc (operator handles keep one), or NULL. */
aclTensorDesc *api_desc_clone(const aclTensorDesc *d);

/* Element count of a shape as aclGetTensorDescElementCount counts it: 1 for
 * a scalar, 0 for a negative dim or on overflow. */
size_t api_shape_elements(const int64_t *dims, size_t ndims);

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

/* The snapshot of `stream`, or NULL when it has none. Never blocks on
 * writers for longer than one table mutation. A snapshot never changes and
 * stays readable while the library is loaded. */
const struct api_alloc_snapshot *api_registry_get(const void *stream);

/* GetByStream's common case: the snapshot of stream (not NULL) when it is
 * found at once, NULL when api_registry_get must answer instead. */
const struct api_alloc_snapshot *api_registry_try(const void *stream);

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

/* ---- data.c: data buffers ---- */

/* What aclCreateDataBuffer hands out: a plain host object naming memory it
 * does not own (the operator calls read it). */
struct aclDataBuffer {
    void *data;
    uint64_t length;
};

/* ---- The implementations behind the exports (api/abi/calls.def) ----
 *
 * Every simulated call is implemented as api_impl_<name> in the file of
 * its family; exports.c defines the exported name around it. A HOOK call
 * also has api_diff_<name> in diff.c, which the export calls instead in
 * differential mode. */
#define FAMILY(id, title, why)
#define CALL(fam, st, ret, name, params, args, fail) API_DECLARE_##st(ret, name, params)
#define API_DECLARE_SIM(ret, name, params) ret api_impl_##name params;
#define API_DECLARE_SIMV API_DECLARE_SIM
#define API_DECLARE_DIFF API_DECLARE_SIM
#define API_DECLARE_HOOK(ret, name, params) ret api_impl_##name params; ret api_diff_##name params;
#define API_DECLARE_NOSIM(ret, name, params)
#define API_DECLARE_NOSIMV API_DECLARE_NOSIM
#define API_DECLARE_OWN API_DECLARE_NOSIM
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL

/* ---- exports.c: the call catalogue's exports ---- */

/* The real runtime's entry point for a call (backends/be.h, bridge), or
 * NULL when there is no real runtime or it lacks the call. */
typedef void (*api_any_fn)(void);
api_any_fn api_real(enum api_call id);

/* Queue "<call> is not simulated by aclsim: <why>." for a call of a family
 * aclsim does not simulate. */
void api_not_simulated(enum api_call id);

/* ---- Operator families (data buffers, tensor descs, aclop*, aclblas*) ----
 * On a backend with a real runtime these calls are the real runtime's
 * (their handles must be its own, for its own operators to read them):
 * each implementation starts by forwarding, and only the simulator runs
 * aclsim's. A family whose every call forwards this way needs no backend
 * op beyond the one operators run through. */
#define API_FORWARD_FN_(name)                                                            \
    _Pragma("GCC diagnostic push")                                                       \
    _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")                      \
    __typeof__(&name) real_ = (__typeof__(&name))api_real(API_CALL_##name);             \
    _Pragma("GCC diagnostic pop")
#define API_FORWARD(name, args)                                                          \
    do {                                                                                 \
        API_FORWARD_FN_(name)                                                            \
        if (real_)                                                                       \
            return real_ args;                                                           \
    } while (0)
#define API_FORWARD_VOID(name, args)                                                     \
    do {                                                                                 \
        API_FORWARD_FN_(name)                                                            \
        if (real_) {                                                                     \
            real_ args;                                                                  \
            return;                                                                      \
        }                                                                                \
    } while (0)

/* ---- diff.c: differential mode (ACLSIM_DIFF=1 on a backend with a real
 * runtime) ---- */

/* Non-zero while every checked call is also put to the real runtime and
 * the answers compared. */
extern int api_diff_on;

/* Compare a call aclsim rejected with rc against the real runtime's answer
 * `theirs` to the same arguments (DIFF calls). */
void api_diff_verdict(const char *call, aclError rc, aclError theirs);

/* ---- errmsg.c, for diff.c ---- */

/* Copy the calling thread's first pending message ("Title(CODE): text")
 * into buf without consuming it; "" when none. */
void api_msg_peek(char *buf, size_t len);

/* ---- leaks.c: aclsim's own leak report (ACLSIM_LEAK_CHECK) ---- */

/* Report what device `dev` still holds as it is about to close (blocks,
 * streams and contexts the program never released); `where` names the
 * call. pre: the device is BUSY (device.c), nothing of it released yet. */
void api_leaks_device(int32_t dev, const char *where);

/* Report registrations left at aclFinalize: allocators still registered on
 * streams that no longer exist, and descs destroyed while registered.
 * pre: api_lock() not held. */
void api_leaks_registry(const char *where);

/* ---- opexec.c, alloccheck.c: the single-op executor and the allocator
 * sanitizer, as other files reach them ---- */

/* A stream's backend object is released (stream.c, device.c): its
 * executor state and built-in allocator go with it. */
void api_op_stream_released(void *stream);
/* Device dev is closing: release the built-in allocators of its streams
 * (before the leak report, which must not count them). */
void api_op_device_closing(int32_t dev);

/* Host-side accesses the sanitizer checks against pending operator work:
 * api_check_mark before a copy or fill (stream: backend handle, NULL for a
 * synchronous one), api_check_access after it with the mark, per side. */
uint64_t api_check_mark(const void *stream);
void api_check_access(const char *call, const void *p, size_t n, const void *stream,
                      uint64_t mark);
/* Before aclrtFree(p) frees a device block. */
void api_check_free(const void *p);
/* The clocks go back to zero: forget the times the sanitizer keeps. */
void api_check_clock_reset(void);
/* Before aclrtAllocatorUnregister(stream) / aclrtAllocatorDestroyDesc(desc). */
void api_check_unregister(const void *stream);
void api_check_destroy_desc(const void *desc);

/* ---- objects.c: live handles the ACL layer gave out, and their users ---- */

enum api_obj_kind {
    API_OBJ_CONTEXT = 1,
    API_OBJ_STREAM = 2,
    API_OBJ_EVENT = 3,
    API_OBJ_DSTREAM = 4, /* a context's default stream: usable, released by its context */
    API_OBJ_NOTIFY = 5
};
enum { API_OBJ_NOMEM = -1, API_OBJ_GONE = -2 };

struct api_ctx;
struct api_obj;

/* Publish a handle the backend just created, with its kind, device and
 * owning context (NULL for a context): lookups find it from now on.
 * Returns 0; API_OBJ_NOMEM when host memory runs out, API_OBJ_GONE when
 * the owner is no longer published (being destroyed): the caller then
 * destroys the handle again. */
int api_obj_add(void *handle, enum api_obj_kind kind, int32_t device, struct api_ctx *owner);

/* The end of every create call: when rc is ACL_SUCCESS, publish handle,
 * just made by the backend on the held context ctx, as `kind`; if that
 * fails, destroy(handle) undoes the creation and the result says why
 * (ACL_ERROR_RT_CONTEXT_NULL: ctx is being destroyed; ACL_ERROR_BAD_ALLOC).
 * Returns rc otherwise. */
aclError api_obj_publish(aclError rc, void *handle, enum api_obj_kind kind, struct api_ctx *ctx,
                         aclError (*destroy)(void *handle));

/* The published handle of `kind` with a reference taken (the backend
 * object stays alive until api_obj_put), or NULL when there is none. */
struct api_obj *api_obj_get(const void *handle, enum api_obj_kind kind);
void api_obj_put(struct api_obj *o);
void *api_obj_handle(const struct api_obj *o);
struct api_ctx *api_obj_owner(const struct api_obj *o);
int32_t api_obj_device(const struct api_obj *o);

/* Withdraw a published handle (a context's streams with it); its backend
 * object is released once the last reference is put, at once if there is
 * none. Returns 0, or -1 when handle is not a published one of kind. */
int api_obj_retire(const void *handle, enum api_obj_kind kind);
/* Retire every published handle of `kind` on `device` (any when < 0)
 * owned by `owner` (any when NULL). */
void api_obj_retire_all(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner);
/* Wait until every object of device has been released. */
void api_obj_wait_device(int32_t device);

/* Kind of a published handle, 0 when unknown. */
enum api_obj_kind api_obj_kind_of(const void *handle);
/* Call fn for every published handle of `kind` on `device` (any when < 0)
 * owned by `owner` (any when NULL). fn runs under the table's lock: it must
 * not call api_obj_* or the backend. */
void api_obj_each(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                  void (*fn)(void *handle, enum api_obj_kind kind, struct api_ctx *owner,
                             void *user),
                  void *user);

/* Release the backend object behind a handle whose last reference went
 * (stream.c, event.c, device.c). Called with no lock held. */
void api_release_stream(void *stream);
void api_release_event(void *event);
void api_release_ctx(struct api_ctx *ctx);
void api_release_notify(void *notify);

/* ---- device.c: init state, devices, contexts ---- */

void api_lock(void);
void api_unlock(void);

/* A context. Not freed before the library unloads (device.c), so a
 * pointer to one stays readable after the context is destroyed. */
struct api_ctx {
    int32_t device;
    bool primary;      /* the device's default context */
    void *be_ctx;      /* backend context handle */
    aclrtStream deflt; /* the context's default stream (backend handle) */
    struct api_ctx *next_dead;
};

/* The calling thread's current context, validated (NULL and 107002 with a
 * message when there is none). `func` names the API for the message. No
 * reference is taken: enough for reading its device. */
aclError api_current_ctx(const char *func, struct api_ctx **out);

/* The published context behind a user handle, or NULL (objects.c). */
struct api_ctx *api_ctx_lookup(const void *handle);

/* ACL_SUCCESS when deviceId names an open device; otherwise
 * ACL_ERROR_RT_INVALID_DEVICEID with a message naming `func`. */
aclError api_device_usable(const char *func, int32_t deviceId);

/* Whether device dev is open now (no message; it may close right after). */
bool api_device_is_open(int32_t dev);

/* ---- stream.c ---- */

/* A stream in use by a call: the backend handle, its context, and the
 * reference that keeps both alive (api_stream_put). */
struct api_stream_ref {
    void *stream;
    struct api_ctx *ctx;
    struct api_obj *obj;
};

/* Resolve a user stream argument (NULL: the current context's default
 * stream) and take a reference. An unknown or destroyed handle gives
 * ACL_ERROR_RT_INTERNAL_ERROR (CANN's code for an invalid stream) with a
 * message naming `func`. */
aclError api_stream_get(const char *func, aclrtStream stream, struct api_stream_ref *out);
void api_stream_put(struct api_stream_ref *ref);

/* Where a copy or fill works: an asynchronous one (async) holds its stream
 * (as api_stream_get) and runs in the stream's context, a synchronous one
 * in the current context with ref->stream NULL. api_work_put ends both. */
aclError api_work_get(const char *func, bool async, aclrtStream stream,
                      struct api_stream_ref *ref, struct api_ctx **ctx);
void api_work_put(struct api_stream_ref *ref);

/* ---- memory.c: what copies and fills share (memcopy.c, hostmem.c) ---- */

struct be_ptr_info;

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
/* The messages of a failed allocation of `what` ("device", "host") memory
 * (rc != ACL_SUCCESS: EL0004 for 207001); returns rc. */
aclError api_no_memory(aclError rc, const char *what, size_t size);
/* The message and code of a free of p that func refused (`want`: the kind
 * of block func frees, BE_PTR_DEVICE or BE_PTR_HOST_PINNED). */
aclError api_bad_free(const char *func, const void *p, const struct be_ptr_info *in, int want);
/* aclrtFree and aclrtFreeHost, and their WithDevSync forms (dev_sync: the
 * device's work completes first, in simulated time): the fault point, the
 * checks and messages, the free. */
aclError api_free_device(const char *func, void *devPtr, bool dev_sync);
aclError api_free_host(const char *func, void *hostPtr, bool dev_sync);

/* ---- peer.c ---- */

/* A copy between device memory of src_dev and dst_dev issued on device dev
 * (the current one): ACL_SUCCESS when they are one device or dev has peer
 * access to the other; otherwise CANN's error, with a message naming func. */
aclError api_peer_copy_check(const char *func, int32_t dev, int32_t src_dev, int32_t dst_dev);

/* Forget the peer access a device that closes had enabled (its peers'
 * access to it stays, as the driver keeps it). */
void api_peer_forget(int32_t dev);

/* The op wait timeout of device dev in seconds (0: none). */
uint32_t api_op_wait_timeout(int32_t dev);

/* ---- error.c: the last error, device exceptions, state callbacks ---- */

/* Keep rc as the calling thread's last error (aclrtGetLastError) when it is
 * a runtime error (ACL_ERROR_RT_*: 107xxx, 207xxx, 507xxx), as CANN's
 * runtime keeps every failure of its own calls; errors of the ACL layer's
 * own checks (100xxx, 200xxx, 500xxx) are not kept, as in CANN. Every
 * export returning aclError passes its result here (exports.c). */
void api_last_error_set(aclError rc);
static inline void api_last_error_note(aclError rc)
{
    if (__builtin_expect(rc != ACL_SUCCESS, 0))
        api_last_error_set(rc);
}

/* Tell the registered device and stream state callbacks (aclrtReg*State-
 * Callback) that device dev or a stream (backend handle) changed state.
 * Called with no lock held; a no-op while api_state_mute is on. */
void api_state_device(int32_t dev, aclrtDeviceState state);
void api_state_stream(void *stream, aclrtStreamState state);
/* aclFinalize closes what the program left open without telling the state
 * callbacks (CANN leaves devices open until the process exits). */
void api_state_mute(bool on);

/* The ACL layer refused a task on stream (backend handle) because it
 * touches device memory no live block holds: raise the device exception
 * the device would have raised for it. */
void api_exception_task(void *stream);

/* A call forwarded to the real runtime (hw=ascend) returned rc: on failure
 * queue "<func> failed, runtime result = <rc>." with the real runtime's
 * own message after it (when it gave one), unless `quiet` (calls for which
 * CANN reports no message). Returns rc. */
aclError api_forwarded(const char *func, aclError rc, bool quiet);

/* ---- init.c: init and finalize callbacks ---- */

/* Run the init callbacks aclInit runs, in CANN's order, with the contents
 * of configPath (NULL or "": none). Returns the first failure (then the
 * runtime stays uninitialised), else ACL_SUCCESS. pre: no lock held. */
aclError api_init_callbacks(const char *configPath);
/* Run the finalize callbacks before the runtime ends (`where` names the
 * call); on failure the runtime stays initialised. pre: no lock held. */
aclError api_fini_callbacks(const char *where);

/* ---- callback.c: callbacks and host functions ---- */

/* A stream (backend handle) is about to be destroyed: its subscription and
 * the callbacks still queued for it go (never run), once none is running. */
void api_cb_stream_gone(void *stream);
/* A context is about to be destroyed: its host-function thread ends. */
void api_cb_ctx_gone(const struct api_ctx *ctx);

/* ---- vmm.c, pool.c: virtual memory and stream-ordered pools (mem-vmm) ---- */

/* The message of a backend failure rc of func (why: the backend's reason,
 * or NULL); returns rc, ACL_SUCCESS without a message. */
aclError api_vmm_failed(const char *func, aclError rc, const char *why);

/* ---- ipc.c: IPC events (examples) ---- */

/* Remember that live event handle h is an IPC event: 0, or -1 when host
 * memory runs out. */
int api_ipc_event_add(const void *h);
/* Whether h is a live IPC event (CANN refuses several calls for them). */
bool api_ipc_event_is(const void *h);
/* h is being released. */
void api_ipc_event_forget(const void *h);
/* Undo an event creation (plain or IPC): forget it, destroy it in the
 * backend. For api_obj_publish. */
aclError api_ipc_event_drop(void *h);

#endif /* ACLSIM_API_API_H_ */

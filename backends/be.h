/*
 * be.h - the contract between the ACL layer and a backend.
 *
 * A backend is one file exposing one const table of operations (SQLite's
 * mem methods): backends/sim.c drives the NPU memory simulator in sim/;
 * backends/ascend.c the real libascendcl.so. The table has three parts:
 *   struct be_ops     what every backend provides. The ACL layer checks
 *                     once, when the library loads (be_missing), that no
 *                     member is NULL, and never tests them again;
 *   struct be_tools   the simulator's tools (clocks, trace, leak walks,
 *                     misuse reports), NULL for a backend without them;
 *   struct be_bridge  the bridge to a real runtime (its symbols, its
 *                     messages, mirrored registrations), NULL for none.
 * Each optional member says what the ACL layer does when it is absent.
 *
 * The ACL layer checks every argument and writes every user-visible
 * message before it calls a backend, so backends assume their
 * preconditions (`pre:` below) and report failure through their aclError
 * return; a backend over a real runtime hands that runtime's own message
 * up through bridge->take_message, for the ACL layer to append.
 * Handles (contexts, streams, events) are the backend's own pointers and
 * reach the user untouched.
 *
 * The lock contract:
 *  - The ACL layer calls the backend with none of its own locks held, so a
 *    slow backend call (a stream destroy waiting for real device work)
 *    stalls only its own caller.
 *  - A handle a backend creates is published to other threads only after
 *    the backend call returned it; when publishing fails (host memory, or
 *    its context is being destroyed meanwhile), the layer destroys it again.
 *  - A handle is withdrawn from lookups before the backend destroys it, and
 *    the backend's destroy runs only once no call is using the handle any
 *    more (api/src/rt/objects.c counts users): a backend never sees a handle
 *    destroyed under a call it is serving.
 *  - Opening and closing a device, and process init/fini, are serialised
 *    by the layer (other callers wait); a device is closed only after every
 *    context, stream and event on it was destroyed.
 *  - Everything else may be called from many threads at once: a backend is
 *    thread-safe on its own. A backend must still fail cleanly, not crash,
 *    when a memory call names a device another thread is closing.
 *  - The one layer lock held around foreign code: the single-op executor
 *    (api/src/op/executor.c) runs a stream's registered allocator callbacks under
 *    that stream's callback mutex, as CANN serialises them per allocator. A
 *    callback may call back into the library (aclrtMalloc, aclrtFree), which
 *    does not take that mutex; an operator executed on the same stream from
 *    inside a callback would, and is not supported.
 */
#ifndef ACLSIM_BACKENDS_BE_H_
#define ACLSIM_BACKENDS_BE_H_

#include <stdint.h>
#include <stddef.h>
#include "acl/acl.h"
#include "acl/acl_rt_memory_soma.h"
#include "api/abi/calls.h"
#include "api/abi/limits.h"

/* The most devices any backend offers (device ids are below it); the ACL
 * layer sizes its per-device tables by it. */
#define BE_MAX_DEVICES ACLSIM_MAX_DEVICES

/* What be_ops.lookup learns about an address. */
struct be_ptr_info {
    int kind;        /* one of the BE_PTR_* below */
    int32_t device;  /* device of a device block */
    void *start;     /* start of the live block containing the address */
    size_t size;     /* usable size of that block (as requested, rounded); 0:
                        the backend does not know the extent */
    uint32_t page_size;
};
enum {
    BE_PTR_UNKNOWN = 0,     /* not known to the backend: pageable host memory */
    BE_PTR_DEVICE = 1,      /* inside a live device block */
    BE_PTR_HOST_PINNED = 2, /* inside a live aclrtMallocHost block */
    BE_PTR_DEVICE_FREE = 3, /* device address space, but no live block there */
    /* ---- host and managed memory ---- */
    BE_PTR_HOST_REGISTERED = 4, /* inside host memory registered with aclrtHostRegister(V2) */
    BE_PTR_MANAGED = 5,         /* inside managed memory (aclrtMemAllocManaged) */
    /* ---- virtual memory ---- */
    BE_PTR_VA_UNMAPPED = 6 /* a reserved virtual range with nothing (accessible) mapped
                              there (aclrtReserveMemAddress without aclrtMapMem) */
};

enum { BE_ALLOC_NO_PAD = 1, BE_ALLOC_DVPP = 2 };
/* How be_ops.memcpy copies (its host_waits argument). */
enum { BE_COPY_WAIT = 1, BE_COPY_PAGEABLE = 2 };
/* Kinds of descriptor (be_ops.desc_*): a copy's (aclrtSetMemcpyDesc), a
 * cache operation's (aclrtCmoSetDesc). */
enum { BE_DESC_MEMCPY = 0, BE_DESC_CMO = 1 };
/* How be_ops.device_id_map translates a device id. */
enum { BE_ID_LOGIC_TO_PHY, BE_ID_PHY_TO_LOGIC, BE_ID_USER_TO_LOGIC, BE_ID_LOGIC_TO_USER };
enum { BE_CLOCK_HOST = 0, BE_CLOCK_DEVICE = 1, BE_CLOCK_STREAM = 2 };
/* A simulated time (ps) not known yet: a task queued behind a wait that
 * holds its stream runs when the wait is released (op_run, host_task). */
#define BE_PS_PENDING UINT64_MAX

/* ---- streams, events, notifies, peers ---- */
enum {
    BE_SP_ID, BE_SP_PRIORITY, BE_SP_FLAGS, BE_SP_FAILURE_MODE, BE_SP_OVERFLOW, BE_SP_TAG,
    BE_SP_CACHE_OP
};
enum { BE_AVAIL_STREAM, BE_AVAIL_EVENT };
enum { BE_EV_ID, BE_EV_TIMESTAMP, BE_EV_WAITED };
enum { BE_DP_SAT_MODE, BE_DP_OP_WAIT_TIMEOUT };

/* ---- resource limits, device tasks, IPC events ---- */
enum {
    BE_RL_DEV_GET, BE_RL_DEV_SET, BE_RL_DEV_RESET, BE_RL_STREAM_GET, BE_RL_STREAM_SET,
    BE_RL_STREAM_RESET, BE_RL_THREAD_USE, BE_RL_THREAD_UNUSE, BE_RL_THREAD_GET
};
enum { BE_TASK_REDUCE, BE_TASK_RANDOM, BE_TASK_OVERFLOW_GET, BE_TASK_OVERFLOW_RESET };
/* A device task, as the user gave it (be_ops.device_task). */
struct be_task {
    int kind;
    /* REDUCE: dst = dst <kind> src over count bytes of elements of type. */
    void *dst;
    const void *src;
    uint64_t count;
    aclrtReduceKind reduce;
    aclDataType type;
    /* RANDOM: the user's task info (its dataType an aclDataType). */
    const aclrtRandomNumTaskInfo *random;
    /* OVERFLOW_GET: the status (size bytes) goes to dst. */
    size_t size;
};

/* An IPC key's range in this process (be_ops.ipc_mem_close, be_tools). */
#define BE_IPC_KEY_MAX 65
enum { BE_IPC_EXPORTED = 1, BE_IPC_IMPORTED = 2 };
struct be_ipc_info {
    char key[BE_IPC_KEY_MAX];
    int role;           /* BE_IPC_EXPORTED or BE_IPC_IMPORTED, 0: not known */
    void *ptr;
    size_t size;
    int32_t device;     /* this process's device of the range */
    unsigned importers; /* an export's: 1 while another process has it open */
};

/* One line of aclrtGetMemUsageInfo. */
struct be_usage {
    const char *name;
    uint64_t cur, peak;
};

/* A device exception, as the device reports failed work (be_tools). */
struct be_fault {
    int32_t device;
    uint32_t stream_id;
    uint32_t task_id;
    uint32_t thread;  /* the thread that enqueued the failed task */
    aclError code;    /* what the device reports for it */
};

/* ---- operators ---- */

/* A built-in operator, validated by the ACL layer (api/src/op/: library.c
 * for aclop, nn/ for aclnn), as a backend runs it (sim/kernels.c and the
 * families of sim/ops/ compute it). Its kinds and limits are the shared
 * vocabulary of api/abi/opkinds.def and the family lists it includes. */
enum be_op_kind {
#define OPKIND(id, family, what) BE_OP_##id,
#define OPLIMIT(id, value)
#include "api/abi/opkinds.def"
#undef OPKIND
#undef OPLIMIT
    BE_OP_KINDS
};
enum {
#define OPKIND(id, family, what)
#define OPLIMIT(id, value) BE_OP_##id = value,
#include "api/abi/opkinds.def"
#undef OPKIND
#undef OPLIMIT
};
/* The one internal view type of a tensor, which aclop's tensor descs
 * (contiguous) and aclnn's tensors (any strides) both become: shape,
 * strides and offset in elements over storage at `data`. */
struct be_view {
    const void *data; /* the storage: device address, or host memory (const inputs) when !dev */
    bool dev;
    aclDataType dtype;
    int ndims;
    int64_t dims[BE_OP_MAX_DIMS];
    int64_t strides[BE_OP_MAX_DIMS];
    int64_t offset; /* element 0 is data + offset elements */
    /* CANN's FRACTAL_NZ layout (what aclnnTransMatmulWeight writes;
     * api/abi/opview.h): 0 for ND, else the fractal's width (16 for 2-byte
     * types, 32 for 1-byte ones). The last two dims are then an ND matrix
     * [R, C] (nz_t: its transpose) stored as NZ from data + offset
     * elements, the leading dims whole matrices one after another; the
     * strides are not read. */
    int nz_c0;
    bool nz_t;
};
/* An operator with typed parameters (what each kind reads of them: its
 * line in its family's list, api/abi/ops/<family>.def). */
struct be_op {
    enum be_op_kind kind;
    const char *type; /* CANN's operator type name */
    const char *api;  /* the call that launched it, naming its trace slice
                         ("aclnnAdd", "aclblasGemmEx"); NULL: aclop's, by type */
    int n_in, n_out;
    struct be_view in[BE_OP_MAX_IN];
    struct be_view out[BE_OP_MAX_OUT];
    aclDataType calc;  /* the type it computes in (CANN's promoted type) */
    bool trans_a, trans_b, keep_dims;
    double alpha, beta; /* the kind's scalars (ADD, SUB: in[1]'s factor; FILL: the value) */
    int n_axes;         /* reductions: axes (distinct, in range) */
    int64_t axes[BE_OP_MAX_DIMS];
    int64_t iparam[BE_OP_MAX_PARAMS]; /* further parameters of the kind */
    double fparam[BE_OP_MAX_PARAMS];
    void *ws, *tiling; /* allocator blocks the kernel writes (NULL: none) */
    size_t ws_bytes, tiling_bytes;
    /* For the sanitizer: the ACL layer's number for the operator, and the
     * allocator its blocks came from (obj; the stream it is registered on
     * and its desc), NULL when none. */
    uint64_t tag;
    const void *alloc_obj, *alloc_stream, *alloc_desc;
};

/* A change of a recorded task (be_ops.graph_task_edit): disabled, or
 * turned into an 8-byte value write or wait (value_wait's flag). */
enum { BE_EDIT_DISABLE, BE_EDIT_VALUE_WRITE, BE_EDIT_VALUE_WAIT };
struct be_task_edit {
    int how;
    void *addr;
    uint64_t value;
    uint32_t flag;
};

/* One use of bytes as the happens-before checker saw it (be_tools.hb_*):
 * [p, p+n) of a space (BE_SPACE_*), by a task of `stream` (NULL: the host),
 * in a role (BE_USE_*). The values equal sim.h's enum sim_use_space and
 * enum sim_use_role (backends/sim.c checks). */
enum { BE_SPACE_DEVICE, BE_SPACE_ALLOCATOR, BE_SPACE_REGISTRATION, BE_SPACE_DESC };
enum {
    BE_USE_INPUT, BE_USE_OUTPUT, BE_USE_WORKSPACE, BE_USE_TILING,
    BE_USE_COPY_DST, BE_USE_COPY_SRC, BE_USE_FILL, BE_USE_DEVTASK, BE_USE_VALUE,
    BE_USE_HOST_READ, BE_USE_HOST_WRITE, BE_USE_FREE,
    BE_USE_ALLOCATOR, BE_USE_REGISTRATION, BE_USE_DESC,
    BE_USE_UNREGISTER, BE_USE_DESTROY_DESC
};
struct be_use {
    void *stream;
    uint32_t space, role;
    bool write;
    uint64_t tag;      /* be_op.tag of an operator's use; 0 */
    const char *call;  /* a host use: the call (static string), or NULL */
    const void *graph; /* a replay of this backend graph, or NULL */
    const void *p;
    size_t n;
    uint64_t at;       /* simulated ps, for illustration only */
};

struct be_tools;
struct be_bridge;

struct be_ops {
    const char *name; /* "sim" or "ascend" */

    /* Process-wide start (first aclInit reference) and end (last one). On
     * failure *why says what is wrong (a static string). */
    aclError (*init)(const char **why);
    void (*fini)(void);
    /* One line describing the backend, for ACLSIM_BANNER. */
    void (*describe)(char *buf, size_t len);

    aclError (*device_count)(uint32_t *count);
    /* First aclrtSetDevice/aclrtCreateContext of a device.
     * pre: 0 <= dev < count, not open. */
    aclError (*device_open)(int32_t dev);
    /* Release everything of an open device (its memory too).
     * pre: every context, stream and event of dev already destroyed. */
    void (*device_close)(int32_t dev);
    /* The SoC of the process as CANN names it (a static string), or NULL
     * when it cannot be told; callable before init and with no device open,
     * as aclrtGetSocName. pre: dev < device_count (every device of a process
     * has the same SoC). */
    const char *(*soc_name)(int32_t dev);

    /* pre: dev open. */
    aclError (*ctx_create)(int32_t dev, void **ctx);
    void (*ctx_destroy)(void *ctx);
    /* Optional. The calling thread's current context changed to ctx (NULL:
     * none). NULL when the backend keeps no per-thread state: the layer
     * then just remembers the context itself. */
    void (*ctx_set_current)(void *ctx);
    /* pre: ctx live. ACL_ERROR_RT_NO_STREAM_RESOURCE at the device's limit. */
    aclError (*stream_create)(void *ctx, uint32_t priority, uint32_t flags, void **stream);
    /* Waits for the stream's work, then frees it. pre: stream live. */
    aclError (*stream_destroy)(void *stream);
    /* The host waits for the stream, at most timeout_ms (< 0: no limit);
     * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT when the limit runs out first. */
    aclError (*stream_sync)(void *stream, int32_t timeout_ms);
    /* *done: whether the stream's work is complete now. */
    aclError (*stream_query)(void *stream, int *done);
    /* A device synchronisation: the host waits for all work of a
     * context's streams (CANN waits for the current context's only:
     * hicann/runtime context.cc Context::Synchronize), at most timeout_ms
     * (< 0: no limit); ACL_ERROR_RT_STREAM_SYNC_TIMEOUT when the limit
     * runs out first. pre: ctx current; streams[0..n) its streams, held. */
    aclError (*ctx_sync)(void *ctx, void *const *streams, size_t n, int32_t timeout_ms);

    /* Events of an open device; ACL_ERROR_RT_NO_EVENT_RESOURCE at its limit.
     * flags are ACL_EVENT_* (ACL_EVENT_TIME_LINE: the event can time). */
    aclError (*event_create)(int32_t dev, uint32_t flags, void **event);
    aclError (*event_destroy)(void *event);
    aclError (*event_record)(void *event, void *stream);
    aclError (*event_reset)(void *event, void *stream);
    aclError (*event_wait)(void *stream, void *event);
    /* ACL_ERROR_RT_EVENT_SYNC_TIMEOUT when timeout_ms (>= 0) runs out. */
    aclError (*event_sync)(void *event, int32_t timeout_ms);
    aclError (*event_query)(void *event, int *done);
    /* ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID (not recorded, cannot time),
     * ACL_ERROR_RT_EVENT_NOT_COMPLETE, ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL. */
    aclError (*event_elapsed)(void *start, void *end, float *ms);

    /* Device memory. size is the user's size; rounding, padding and page
     * policy are the backend's business; BE_ALLOC_NO_PAD asks for no padding
     * (aclrtMallocAlign32); BE_ALLOC_DVPP for DVPP memory (acldvppMalloc:
     * policy ignored, DVPP's rounding and range). pre: size > 0, dev was open when the caller
     * looked (it may be closing: then fail with ACL_ERROR_RT_MEMORY_ALLOCATION). */
    aclError (*mem_alloc)(int32_t dev, size_t size, aclrtMemMallocPolicy policy, unsigned flags,
                          void **ptr);
    /* Free the live device block starting at ptr, on whichever device it
     * is; ACL_ERROR_RT_MEMORY_FREE (nothing changed) for an address that is
     * not the start of a live block. */
    aclError (*mem_free)(void *ptr);
    /* As mem_free, for acldvppFree (DVPP memory, or any device block). */
    aclError (*dvpp_free)(void *ptr);
    /* Page-locked host memory, 64-byte aligned. pre: size > 0. */
    aclError (*host_alloc)(size_t size, void **ptr);
    aclError (*host_free)(void *ptr);
    /* Classify an address (never fails: unknown is an answer). */
    void (*lookup)(const void *ptr, struct be_ptr_info *info);
    /* Copy / fill on a stream of device dev, or synchronously (stream NULL).
     * A copy's host_waits holds BE_COPY_* flags: with BE_COPY_WAIT the call
     * returns only once the work is done (a synchronous call, or an async
     * one from pageable host memory); BE_COPY_PAGEABLE says its host side
     * is pageable memory (the runtime stages it). A fill's is 0 or 1.
     * pre: the ACL layer checked bounds and direction with lookup(); kind is
     * HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST or DEVICE_TO_DEVICE; a
     * fill's dst_dev says whether dst is device memory (else acl host). */
    aclError (*memcpy)(int32_t dev, void *stream, void *dst, const void *src, size_t count,
                       aclrtMemcpyKind kind, int host_waits);
    aclError (*memset)(int32_t dev, void *stream, void *dst, int dst_dev, int value,
                       size_t count, int host_waits);
    /* Free/total bytes of an open device for a memory attribute. */
    aclError (*mem_info)(int32_t dev, aclrtMemAttr attr, size_t *free, size_t *total);
    /* Usage lines of an open device: fills up to max, returns how many
     * there are (0: the backend keeps no such figures). */
    size_t (*mem_usage)(int32_t dev, struct be_usage *out, size_t max);

    /* ---- streams, events, notifies, peers ---- */
    /* Read (set 0) or change (set 1) a stream's property BE_SP_* in *val. */
    aclError (*stream_prop)(void *stream, int prop, int set, uint64_t *val);
    /* Drop the stream's work that has not started (abort, stop, forced
     * destroy); what a wait still holds goes too. */
    aclError (*stream_abort)(void *stream);
    /* Stream (BE_AVAIL_STREAM) or event (BE_AVAIL_EVENT) slots left on an
     * open device. */
    aclError (*avail)(int32_t dev, int what, uint32_t *n);
    /* An event's id (BE_EV_ID), completion time in us (BE_EV_TIMESTAMP:
     * ACL_ERROR_RT_EVENT_NOT_COMPLETE, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
     * for one never recorded), or whether a wait on it is satisfied
     * (BE_EV_WAITED: 1 or 0). */
    aclError (*event_info)(void *event, int what, uint64_t *val);
    /* Read or change a device-wide setting BE_DP_* of an open device (the
     * current one). */
    aclError (*dev_prop)(int32_t dev, int prop, int set, uint64_t *val);
    /* Notifies of an open device; ACL_ERROR_RT_NO_NOTIFY_RESOURCE at its
     * limit. A wait holds its stream until a record (timeout_s 0: no limit). */
    aclError (*notify_create)(int32_t dev, void **notify);
    aclError (*notify_destroy)(void *notify);
    aclError (*notify_record)(void *notify, void *stream);
    aclError (*notify_wait)(void *notify, void *stream, uint32_t timeout_s);
    aclError (*notify_reset)(void *notify);
    aclError (*notify_id)(void *notify, uint32_t *id);
    /* Notifies shared between processes (keys of BE_IPC_KEY_MAX bytes with
     * their NUL): export (flags: ACL_RT_NOTIFY_EXPORT_FLAG_*; refused for
     * one exported already), list the pids allowed to import it, import on
     * open device dev a new notify sharing the exported one's state
     * (ACL_ERROR_RT_NO_PERMISSION off the whitelist; refused for a key of
     * no live export or of a dead exporter), each refusal explained in
     * *why. A record through any sets the state, a wait through any
     * consumes it. pre: pointers not NULL, flags and n checked. */
    aclError (*notify_export)(void *notify, uint64_t flags, char *key, const char **why);
    aclError (*notify_set_pids)(void *notify, int32_t *pids, size_t n, const char **why);
    aclError (*notify_import)(int32_t dev, const char *key, uint64_t flags, void **notify,
                              const char **why);
    /* 8 bytes of device memory written / waited for on a stream.
     * pre: addr inside a live device block, 8-byte aligned. */
    aclError (*value_write)(void *stream, void *addr, uint64_t value);
    aclError (*value_wait)(void *stream, void *addr, uint64_t value, uint32_t flag);
    /* Whether device dev can reach peer's memory; enable (1) or disable (0)
     * the current device's access to peer; the topology between two
     * devices (ACL_RT_DEVS_TOPOLOGY_*). pre: both ids valid, distinct. */
    aclError (*peer_can_access)(int32_t dev, int32_t peer, int32_t *can);
    aclError (*peer_enable)(int32_t dev, int32_t peer, int enable);
    aclError (*devices_topo)(int32_t dev, int32_t other, uint64_t *topo);

    /* ---- versions, SoC and device queries ----
     * As CANN's driver answers them: without aclInit and whether or not the
     * device is open. pre: 0 <= dev < device_count. */
    /* Figure attr of device dev (aclrtGetDeviceInfo);
     * ACL_ERROR_RT_FEATURE_NOT_SUPPORT when the device does not report it.
     * pre: attr is one of aclrtDevAttr's values. */
    aclError (*device_info)(int32_t dev, aclrtDevAttr attr, int64_t *value);
    /* ACL_DEV_FEATURE_SUPPORT or _NOT_SUPPORT for a feature of
     * aclrtGetDeviceCapability; ACL_ERROR_RT_FEATURE_NOT_SUPPORT when the
     * backend cannot tell. pre: feature is one the runtime accepts. */
    aclError (*device_feature)(int32_t dev, int32_t feature, int32_t *value);
    aclError (*device_uuid)(int32_t dev, aclrtUuid *uuid);
    /* The PCI address "dddd:bb:dd.f" of device dev into buf. pre: len >= 13. */
    aclError (*device_bus_id)(int32_t dev, char *buf, int32_t len);
    /* Translate device id `id` (BE_ID_*); ACL_ERROR_RT_INVALID_DEVICEID when
     * it names no device. pre: id >= 0. */
    aclError (*device_id_map)(int how, int32_t id, int32_t *out);
    /* Utilization of device dev in percent, -1 for a figure the device does
     * not report; dev may name no device (then every figure is -1). Never
     * fails, as aclrtGetDeviceUtilizationRate. */
    void (*device_utilization)(int32_t dev, aclrtUtilizationInfo *info);
    aclError (*device_status)(int32_t dev, aclrtDeviceStatus *status);
    /* The CANN attributes that the installation and the SoC support
     * (aclGetCannAttributeList): a static array. */
    aclError (*cann_attrs)(const aclCannAttr **list, size_t *n);
    /* *ok = 1 when binaries built for SoC `soc` run on the process's SoC
     * (same NPU arch), else 0; ACL_ERROR_RT_PARAM_INVALID when `soc` is no
     * SoC the backend knows. pre: soc is a non-empty string. */
    aclError (*arch_compatible)(const char *soc, int32_t *ok);
    /* ---- operators ---- */
    /* Run a built-in operator on a stream of an open device, in its turn:
     * the results on the device bytes when the stream reaches it, the time
     * on the stream; *start and *end receive its simulated interval in ps
     * (0 without a timing model). When a wait holds the stream
     * (notify_wait, value_wait) the operator is queued, with its own copy of
     * op and of its host-memory inputs, and runs when the wait is released:
     * *start and *end are BE_PS_PENDING then, and its workspace and tiling
     * uses are held (be_tools.hb_*) until it has run. pre: op
     * validated. A backend over a real runtime answers
     * ACL_ERROR_RT_FEATURE_NOT_SUPPORT: there the operator families forward
     * to the real runtime's own aclop* calls instead (API_FORWARD). */
    aclError (*op_run)(void *stream, const struct be_op *op, uint64_t *start, uint64_t *end);

    /* ---- 2-D copies, 32-bit fills, host and managed memory ---- */
    /* A 2-D copy: height rows of width bytes, rows dpitch / spitch apart, on
     * a stream of device dev or synchronously (stream NULL); flags as
     * memcpy's (BE_COPY_*). One operation of width * height bytes.
     * pre: the ACL layer checked every row with lookup(); kind is
     * HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE or HOST_TO_HOST (both
     * sides memory the host reaches); width, height > 0. */
    aclError (*memcpy2d)(int32_t dev, void *stream, void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                         int flags);
    /* Fill count 32-bit words at dst with value, on a stream or
     * synchronously; dst_dev as memset's (else acl host memory, which the
     * host fills at once). pre: dst 4-byte aligned, checked with lookup(). */
    aclError (*memset_d32)(int32_t dev, void *stream, void *dst, int dst_dev, uint32_t value,
                           size_t count, int host_waits);
    /* Register [ptr, ptr+size) of host memory for the devices of the
     * process: v2 0, aclrtHostRegister with type `how` (*dev_ptr: the
     * address devices use); v2 1, aclrtHostRegisterV2 with flag `how`.
     * ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED when it overlaps registered
     * or page-locked memory. pre: ptr, size, how checked; dev open. */
    aclError (*host_register)(int32_t dev, void *ptr, uint64_t size, int v2, uint32_t how,
                              void **dev_ptr);
    /* ACL_ERROR_HOST_MEMORY_NOT_REGISTERED unless ptr starts a registered range. */
    aclError (*host_unregister)(int32_t dev, void *ptr);
    /* The device address of registered memory at its start host;
     * ACL_ERROR_RT_PARAM_INVALID when host starts no mapped registration. */
    aclError (*host_dev_ptr)(int32_t dev, void *host, void **dev_ptr);
    /* Whether a hardware accelerator of device dev reaches registered host
     * memory (ACL_RT_HOST_MEM_MAP_*). pre: hac < 10, dev valid. */
    aclError (*host_map_caps)(int32_t dev, aclrtHacType hac, aclrtHostMemMapCapability *caps);
    /* Managed (UVM) memory of size bytes (rounded to 2 MiB), freed by
     * mem_free; ACL_ERROR_RT_FEATURE_NOT_SUPPORT where the SoC has none. */
    aclError (*managed_alloc)(int32_t dev, uint64_t size, void **ptr);
    /* Advice on [ptr, ptr+size) of managed memory, its attributes
     * (aclrtMemManagedGetAttrs' arguments) and a prefetch on a stream:
     * ACL_ERROR_RT_FEATURE_NOT_SUPPORT where the SoC has no managed memory,
     * ACL_ERROR_RT_PARAM_INVALID when the range is not in one managed
     * block or a result does not fit its data size.
     * pre: arguments checked as the runtime does. */
    aclError (*managed_advise)(int32_t dev, const void *ptr, uint64_t size, int advise,
                               aclrtMemManagedLocation loc);
    aclError (*managed_attrs)(int32_t dev, const aclrtMemManagedRangeAttribute *attrs, size_t n,
                              const void *ptr, size_t size, void **data, const size_t *sizes);
    aclError (*managed_prefetch)(int32_t dev, const void *ptr, size_t size,
                                 aclrtMemManagedLocation loc, void *stream);
    /* Write back (invalidate 0) or drop (1) the caches over [ptr, ptr+size). */
    aclError (*cache_op)(int32_t dev, void *ptr, size_t size, int invalidate);
    /* *result 1 when every address of list is memory of a type in mask
     * (ACL_RT_MEM_TYPE_*), else 0. pre: list, n > 0 and mask checked. */
    aclError (*mem_type_check)(int32_t dev, void **list, uint32_t n, uint32_t mask,
                               uint32_t *result);
    /* Uncorrectable memory errors recorded on device dev: up to max into
     * out, *n how many there are; ACL_ERROR_RT_FEATURE_NOT_SUPPORT where
     * the SoC does not record them. */
    aclError (*uce_info)(int32_t dev, aclrtMemUceInfo *out, size_t max, size_t *n);

    /* ---- virtual memory and stream-ordered pools ----
     * pre: the ACL layer's own checks passed (pointers not NULL, sizes not
     * 0, reserved arguments as CANN requires). Calls with `why` set it to a
     * static sentence saying what the device refused, or leave it NULL
     * (a real runtime's own message comes through bridge->take_message). */
    /* Granularity of physical memory of prop's kind on device dev. */
    aclError (*vmm_granularity)(int32_t dev, const aclrtPhysicalMemProp *prop,
                                aclrtMemGranularityOptions option, size_t *granularity);
    /* aclrtReserveMemAddress on the current device dev; no_uc: the
     * ...NoUCMemory variant. ACL_ERROR_RT_MEMORY_ALLOCATION when no range. */
    aclError (*vmm_reserve)(int32_t dev, size_t size, size_t alignment, void *expect,
                            uint64_t flags, int no_uc, void **va, const char **why);
    aclError (*vmm_release)(void *va, const char **why);
    /* Physical memory on prop->location.id. */
    aclError (*vmm_phys_alloc)(size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags,
                               void **handle, const char **why);
    aclError (*vmm_phys_free)(void *handle, const char **why);
    /* Map handle at va; no_access: aclrtMemMapNoAccess. */
    aclError (*vmm_map)(void *va, size_t size, size_t offset, void *handle, uint64_t flags,
                        int no_access, const char **why);
    aclError (*vmm_unmap)(void *va, const char **why);
    aclError (*vmm_retain)(void *va, void **handle, const char **why);
    aclError (*vmm_props)(void *handle, aclrtPhysicalMemProp *prop, const char **why);
    aclError (*vmm_set_access)(void *va, size_t size, aclrtMemAccessDesc *desc, size_t count,
                               const char **why);
    aclError (*vmm_get_access)(void *va, aclrtMemLocation *location, uint64_t *flag,
                               const char **why);
    /* The allocation holding ptr (device block, host block, or mapping). */
    aclError (*mem_range)(void *ptr, void **base, size_t *size);
    /* Pools: handles are the backend's. pre: props checked, stream live. */
    aclError (*pool_create)(int32_t dev, const aclrtMemPoolProps *props, void **pool);
    aclError (*pool_destroy)(void *pool, const char **why);
    /* ACL_ERROR_RT_PARAM_INVALID with no *why: pool names no live pool. */
    aclError (*pool_attr)(void *pool, aclrtMemPoolAttr attr, int set, void *value,
                          const char **why);
    aclError (*pool_malloc)(void *pool, size_t size, void *stream, void **ptr,
                            const char **why);
    /* A block a pool handed out goes back to it in stream order; memory of
     * no pool (an aclrtMalloc block) is freed in the stream's order. */
    aclError (*pool_free)(void *ptr, void *stream, const char **why);
    aclError (*pool_trim)(void *pool, size_t keep, const char **why);

    /* ---- resource limits, device tasks, IPC events ---- */
    /* Core limits (type: ACL_RT_DEV_RES_CUBE_CORE or _VECTOR_CORE) of an
     * open device (BE_RL_DEV_*), of a stream (BE_RL_STREAM_*; a stream
     * without a limit of its own answers its device's), and of the calling
     * thread (BE_RL_THREAD_*: USE makes `stream` the thread's, UNUSE drops
     * it if it is the thread's, GET answers the limit of `stream` (the
     * thread's live one, or NULL) if it has one, else device dev's, and
     * ACL_ERROR_RT_CONTEXT_NULL when that is needed and dev is -1).
     * pre: type valid; a SET's value at most the device's core count;
     * dev open; stream live (or NULL where said). */
    aclError (*res_limit)(int op, int32_t dev, void *stream, int type, uint32_t *val);
    /* A device task (BE_TASK_*) on a stream: results on the
     * device bytes, time on the stream. ACL_ERROR_RT_FEATURE_NOT_SUPPORT
     * when the SoC lacks it. pre: checked by the ACL layer (struct be_task). */
    aclError (*device_task)(void *stream, const struct be_task *t);
    /* IPC events: export (*event in, *handle out) or import (*handle in,
     * an event of open device dev out) an event created with ACL_EVENT_IPC.
     * An import of a handle that names no live IPC event fails with
     * ACL_ERROR_RT_PARAM_INVALID. */
    aclError (*event_ipc)(int import, int32_t dev, void **event, aclrtIpcEventHandle *handle);
    /* IPC memory (keys of BE_IPC_KEY_MAX bytes with their NUL): export
     * [ptr, ptr+size) (refused, with *why, unless it lies in one live
     * block on its pages' boundaries), list pids allowed to import,
     * import on open device dev (ACL_ERROR_RT_NO_PERMISSION for a process
     * not on the whitelist), close (role 0: an import of this process
     * first, else its export, as aclrtIpcMemClose; BE_IPC_EXPORTED: the
     * export only: *info says which and, for an export, whether another
     * process still had it open; a backend that cannot tell says 0).
     * pre: pointers not NULL, flags valid, n > 0. */
    aclError (*ipc_mem_export)(void *ptr, size_t size, uint64_t flags, char *key,
                               const char **why);
    aclError (*ipc_mem_set_pids)(const char *key, int32_t *pids, size_t n, const char **why);
    aclError (*ipc_mem_import)(int32_t dev, const char *key, uint64_t flags, void **ptr,
                               const char **why);
    aclError (*ipc_mem_close)(const char *key, int role, struct be_ipc_info *info,
                              const char **why);
    /* Shareable handles of physical memory (a uint64_t each): export one
     * per physical handle, list pids allowed to import it, import it as a
     * physical handle of open device dev (refused in the exporting
     * process, ACL_ERROR_RT_NO_PERMISSION off the whitelist). pre: pointers
     * not NULL, n > 0. */
    aclError (*vmm_share_export)(void *handle, uint64_t flags, uint64_t *shareable,
                                 const char **why);
    aclError (*vmm_share_set_pids)(uint64_t shareable, int32_t *pids, size_t n,
                                   const char **why);
    aclError (*vmm_share_import)(uint64_t shareable, int32_t dev, void **handle,
                                 const char **why);

    /* ---- captured work (graphs) ----
     * From graph_begin (mode: an aclmdlRICaptureMode) until graph_end, the
     * work put on stream, and on the streams graph_join adds to its
     * capture, is recorded, not run; graph_end hands back the graph (the
     * backend's handle), and each graph_launch runs its work on a stream
     * after that stream's work so far. pre: the ACL layer checked every
     * rule of capture (which calls a capturing stream takes, who ends it);
     * the streams are live and not capturing at begin and join. A launch
     * whose graph needs streams the device no longer has fails with
     * ACL_ERROR_RT_NO_STREAM_RESOURCE. */
    aclError (*graph_begin)(void *stream, int mode);
    aclError (*graph_join)(void *origin, void *stream);
    aclError (*graph_end)(void *origin, void **graph);
    aclError (*graph_launch)(void *graph, void *stream);
    void (*graph_destroy)(void *graph);
    /* ---- task groups, conditional tasks, edits of a graph ----
     * group_begin: the capturing stream's operators go into a new task
     * group (one task of the graph, which each replay runs with the
     * operators the group holds when its stream reaches it) until
     * group_end hands the group back (the backend's handle). group_update:
     * each operator put on stream from now on replaces the group's next
     * one when stream reaches it, in order, and runs nowhere itself (group
     * NULL: no more). pre: the ACL layer lets only operators into a group
     * or onto an updating stream, no more than the group holds. */
    aclError (*group_begin)(void *stream);
    aclError (*group_end)(void *stream, void **group);
    aclError (*group_update)(void *stream, void *group);
    /* A conditional task on capturing stream over the 8-byte device word
     * at `word` (type: an aclmdlRICondTaskType), with n new empty
     * sub-graphs in subs[] (destroyed with the graph): when a replay
     * reaches it, IF runs subs[0] when the word is not 0, else subs[1]
     * (if n is 2); SWITCH runs the sub-graph the word indexes (none past
     * the end); WHILE runs subs[0] while the word is not 0. pre: checked
     * (n and type). */
    aclError (*graph_cond)(void *stream, uint64_t *word, int type, unsigned n, void **subs);
    /* stream (not capturing) starts capturing into `graph`, an empty
     * sub-graph of graph_cond; graph_end ends it as any capture. */
    aclError (*graph_begin_into)(void *stream, int mode, void *graph);
    /* The backend's handle of the task stream recorded last (into its
     * graph or a group of it), NULL when it cannot tell. */
    void *(*graph_last_task)(void *stream);
    /* Change task (graph_last_task's handle) of graph for later launches
     * (struct be_task_edit). ACL_ERROR_RT_PARAM_INVALID: not a task of
     * graph's own record or groups. */
    aclError (*graph_task_edit)(void *graph, void *task, const struct be_task_edit *e);
    /* Drop the work of graph's launches that has not run yet (what waits
     * in a stream's queue; a stream held by a wait of the graph goes on
     * with its other work). */
    aclError (*graph_abort)(void *graph);
    /* Labels and label lists (the backend's handles), set and switched to
     * on a stream that captures (pre: it does, and the list's labels are
     * live): a launch that reaches the switch goes on from the label at the
     * uint32 index at `index` (device memory; past the end: the last). */
    aclError (*label_create)(void **label);
    void (*label_destroy)(void *label);
    aclError (*label_list_create)(void *const *labels, size_t n, void **list);
    void (*label_list_destroy)(void *list);
    aclError (*label_set)(void *label, void *stream);
    aclError (*label_switch)(void *index, uint32_t max, void *list, void *stream);

    /* ---- cache maintenance on streams, descriptors, counting notifies ----
     * (the ACL layer's api/src/mem/cache.c, memcopy.c, rt/notify.c, stream.c) */
    /* A cache operation (type: aclrtCmoType) over [ptr, ptr+size) on stream:
     * a task that takes its time and touches no byte; barrier != 0 names the
     * barrier it signals when done (aclrtCmoAsyncWithBarrier).
     * pre: the range inside one live device block; type < 4. */
    aclError (*cmo)(void *stream, void *ptr, size_t size, int type, uint32_t barrier);
    /* stream waits until the cache operations of the barriers info names are
     * done. pre: info checked (1..6 entries, invalidations, ids > 0). */
    aclError (*cmo_barrier_wait)(void *stream, const aclrtBarrierTaskInfo *info, uint32_t flag);
    /* The bytes of a descriptor of kind what (BE_DESC_*) on the current device. */
    aclError (*desc_size)(int what, size_t *size);
    /* Write a descriptor of kind what into device memory desc: a copy of n
     * bytes from src to dst, or (BE_DESC_CMO, dst NULL) the range [src,
     * src+n). pre: arguments checked as the runtime checks them. */
    aclError (*desc_set)(int what, void *desc, void *src, void *dst, size_t n);
    /* Put the work the descriptor at desc names on stream: its copy, or its
     * cache operation of type, the descriptor read as the task is enqueued
     * (the simulator runs work when it is enqueued). ACL_ERROR_RT_PARAM_INVALID:
     * the descriptor names no live device memory (nothing enqueued). pre:
     * desc in device memory. */
    aclError (*desc_launch)(int what, void *stream, void *desc, int type);
    /* Copy n bytes from *src + soff to *dst + doff, the two pointers read
     * from device memory (8 bytes at src and at dst) as the copy is
     * enqueued. ACL_ERROR_RT_PARAM_INVALID: they name no live device memory
     * with room for it within dmax. pre: dst, src 8 bytes of live device
     * memory. */
    aclError (*memcpy_at)(void *stream, void **dst, size_t dmax, size_t doff, const void **src,
                          size_t n, size_t soff);
    /* Counting notifies of an open device (ACL_ERROR_RT_NO_NOTIFY_RESOURCE at
     * its limit): a record sets, adds, ORs or clears bits of the count when
     * its stream reaches it; a reset zeroes it so; a wait holds its stream
     * until the count meets the condition of its mode (then clears it when
     * asked), at most timeout seconds (0: the device's op wait timeout, given
     * by the caller). pre: modes checked. */
    aclError (*cnt_create)(int32_t dev, void **cnt);
    aclError (*cnt_destroy)(void *cnt);
    aclError (*cnt_record)(void *cnt, void *stream, const aclrtCntNotifyRecordInfo *info);
    aclError (*cnt_wait)(void *cnt, void *stream, const aclrtCntNotifyWaitInfo *info);
    aclError (*cnt_reset)(void *cnt, void *stream);
    aclError (*cnt_id)(void *cnt, uint32_t *id);
    /* Floating-point overflow: write the status of mode into the 64 bytes at
     * out on stream (the simulator never overflows: zeros); clear it; the
     * context's overflow buffer (device memory of the runtime's own). */
    aclError (*overflow_status)(void *stream, void *out, uint64_t size, uint32_t mode);
    aclError (*overflow_clear)(void *stream, uint32_t mode);
    aclError (*overflow_addr)(void *ctx, void **addr);
    /* Clear the tasks stream (lane `lane` of the loaded graph `graph`, the
     * backend's) recorded into it: later launches run none of them
     * (aclrtPersistentTaskClean). pre: stream is that lane. */
    aclError (*task_clean)(void *graph, unsigned lane, void *stream);
    /* The id of the last task the calling thread put on a stream. */
    aclError (*last_task_id)(uint32_t *id);
    /* Write back and drop the current device's L2 cache (dev open). */
    aclError (*l2_flush)(int32_t dev);

    /* Optional parts: NULL when the backend has none. */
    const struct be_tools *tools;
    const struct be_bridge *bridge;
};

/* The simulator's tools. Every member may be NULL; the layer's answer is
 * given with it. */
struct be_tools {
    /* Simulated clocks in picoseconds: BE_CLOCK_HOST, _DEVICE (dev), _STREAM
     * (stream). Absent: aclsim_clock_* fail with ACL_ERROR_API_NOT_SUPPORT. */
    aclError (*clock)(int which, int32_t dev, void *stream, uint64_t *ps);
    aclError (*clock_reset)(void);
    /* Mark an API event on the timeline (allocator registration...).
     * Absent: nothing is marked. */
    void (*note)(const char *what, const void *a, const void *b);
    /* Name a graph (graph_end's handle) for the trace, as reports name it:
     * its replays' slices carry the label. Absent: replays are unnamed. */
    void (*graph_label)(void *graph, const char *label);
    /* A report about stream: a marker `name` ("allocator check (<kind>)")
     * on the stream's track of the trace at `at` ps (UINT64_MAX: now), with
     * the report's headline. The stream may be destroyed already: it is
     * only compared, never used. Absent: reports leave no mark. */
    void (*mark)(const void *stream, const char *name, const char *text, uint64_t at);
    /* Call fn for each live device block of an open device (for leak
     * reports), with its allocation stack when tracked; returns how many
     * there are. Absent: the leak report names no blocks. */
    size_t (*live_blocks)(int32_t dev,
                          void (*fn)(void *start, size_t size, void *const *frames, int n,
                                     void *user),
                          void *user);
    /* The ACL layer rejected an access to [ptr, ptr+n) as outside live
     * device memory: let the backend's tools (memcheck) report it too.
     * Absent: only the layer's own message reports it. */
    void (*audit)(const void *ptr, size_t n);
    /* A free the program asked for failed (an injected fault): release the
     * block when its device closes (device memory) or at aclFinalize (host
     * memory; managed memory, which aclrtFree frees, too) instead, so the
     * program is not blamed for a leak it could not avoid. Absent: the
     * block stays allocated. */
    void (*abandon)(void *ptr);
    void (*abandon_host)(void *ptr);

    /* ---- errors, callbacks and host functions ---- */
    /* A host task on a stream (a callback of aclrtLaunchCallback or
     * aclrtLaunchHostFunc, which the ACL layer runs itself): ready, in
     * simulated time, once the stream reaches it, its work before the task
     * done. On a stream no wait holds that is now: *ready (ps), *task 0. On
     * a held one the task waits its turn in the stream's queue: *ready is
     * BE_PS_PENDING, *task names it, and ready_fn(arg, ready) is called once
     * the wait is released and the stream reaches it, from the thread that
     * released it and inside the backend (ready_fn must not call the
     * backend). A blocking one blocks the stream from when the stream reaches
     * it until host_task_done: its later tasks and its synchronisation wait
     * (in real time) until the host has run it, except in thread `runner` (a
     * pthread_t value), which runs it. host_task_done is called once per
     * task, when it ran or was dropped; one still queued is taken out of the
     * queue then (its ready_fn is never called). Absent: the ACL layer
     * cannot run callbacks (they are forwarded to a real runtime, or not
     * supported). */
    aclError (*host_task)(void *stream, int blocking, uint64_t runner,
                          void (*ready_fn)(void *arg, uint64_t ready), void *arg,
                          uint64_t *ready, uint64_t *task);
    void (*host_task_done)(void *stream, uint64_t task, int blocking);
    /* The host waits (simulated time) until t, but at most limit ps
     * (UINT64_MAX: no limit); *late says whether the limit ran out first. */
    void (*host_wait)(uint64_t t, uint64_t limit, int *late);
    /* A stream's device and its per-device stream id (for messages and
     * exception info). Absent: both read as 0. */
    void (*stream_id)(void *stream, int32_t *dev, uint32_t *id);
    /* Device exceptions: fn is called (no lock held, before the failing call
     * returns) when device work fails; task_fault reports the next task of a
     * stream, which the ACL layer refused because it touches device memory
     * no live block holds, as the device's memory error. Absent: device
     * work never raises exceptions. */
    void (*fault_handler)(void (*fn)(const struct be_fault *f));
    void (*task_fault)(void *stream);
    /* ---- allocator sanitizer: happens-before (sim/hb.c) ----
     * Every task the backend runs tells its uses of bytes to a checker that
     * orders them by the program's edges (events, synchronisations,
     * callbacks, notifies, value waits, replays). hb_reporter sets the
     * function told of each race of two tasks (now[i], before[i], i < n:
     * the pairs of uses of shared bytes, one writing, neither ordered
     * before the other, of one later and one earlier task; the first is
     * the one to name, the others more ranges of the same race); it is
     * called from the
     * thread whose call made the later use, maybe inside the backend's
     * queue lock: it must not call the backend. hb_use is a use of the
     * host's own (u->stream NULL: aclrtFree, an unregistration), checked and
     * recorded the same way. hb_callback: a host task of stream runs on
     * the calling thread (enter 1 before, 0 after): it is ordered after the
     * stream's work before it and, when blocking, before its later work.
     * Absent: the sanitizer checks addresses only. */
    void (*hb_reporter)(void (*fn)(const struct be_use *now, const struct be_use *before, int n));
    void (*hb_use)(const struct be_use *u);
    void (*hb_callback)(void *stream, int enter, int blocking);
    /* hb_quiet: nothing a use of the host's own could race with is kept
     * (the caller may skip the use and the lookups it needs). */
    int (*hb_quiet)(void);
    /* ---- virtual memory and stream-ordered pools ----
     * Call fn for each live reservation (aux: bytes mapped in it), physical
     * handle the program holds (aux: its mappings) and memory pool (size:
     * reserved bytes, aux: used bytes) of an open device, for leak
     * reports; returns how many. Absent: the leak report names none. */
    size_t (*vmm_live)(int32_t dev, void (*fn)(int kind, void *addr, uint64_t size, uint64_t aux,
                                               void *user),
                       void *user);
    /* How many frees and unmaps of device memory there have been: memory
     * found live at one count is live while the count stays (the
     * sanitizer's check of a graph's ranges at each replay). Absent: the
     * check looks every time. */
    uint64_t (*mem_frees)(void);
    /* IPC memory of this process: the export or import (role: which,
     * 0 either) overlapping [p, p+n) (1 and *out, else 0), and each one
     * still open (for the leak report). Absent: frees and the leak report
     * do not look. */
    int (*ipc_mem_find)(const void *p, size_t n, int role, struct be_ipc_info *out);
    size_t (*ipc_mem_each)(void (*fn)(const struct be_ipc_info *i, void *user), void *user);
};
enum { BE_LIVE_RESERVATION, BE_LIVE_PHYSICAL, BE_LIVE_POOL };

/* The bridge to a real runtime. Every member may be NULL. */
struct be_bridge {
    /* The real runtime's entry point for catalogued call id (api/abi/calls.def),
     * or NULL when it has none; cast it to the call's type before calling.
     * Used to forward calls aclsim does not simulate and by differential
     * mode. Absent: such calls answer "not simulated". */
    void (*(*real)(enum api_call id))(void);
    /* The real runtime's message for the calling thread's last failed
     * forwarded call, once (NULL: none). The ACL layer appends it.
     * Absent: only aclsim's message is given. */
    const char *(*take_message)(void);
    /* Forward an allocator registration to the real runtime, so that its
     * own consumers on that stream see it. Absent: registrations stay
     * aclsim's. */
    void (*alloc_register)(void *stream, const void *obj, void *alloc, void *free,
                           void *advise, void *get_addr);
    void (*alloc_unregister)(void *stream);
};

/* The backend this library was built with. */
const struct be_ops *be_get(void);

/* Every operation a backend provides (the members of struct be_ops above
 * that it must fill), but the name and the copies and fills (BE_COPIES:
 * their functions cannot take libc's names): a backend fills its table
 * with BE_OPS(BE_FIELD), each member from the static function of its
 * name; be_missing checks a table against the same list. */
#define BE_OPS(X)                                                                               \
    X(init) X(fini) X(describe) X(device_count) X(device_open) X(device_close) X(soc_name)      \
    X(ctx_create) X(ctx_destroy) X(stream_create) X(stream_destroy) X(stream_sync)              \
    X(stream_query) X(ctx_sync) X(event_create) X(event_destroy) X(event_record)                \
    X(event_reset) X(event_wait) X(event_sync) X(event_query) X(event_elapsed) X(mem_alloc)     \
    X(mem_free) X(dvpp_free) X(host_alloc) X(host_free) X(lookup) X(mem_info) X(mem_usage)      \
    /* ---- streams, events, notifies, peers ---- */                                            \
    X(stream_prop) X(stream_abort) X(avail) X(event_info) X(dev_prop) X(notify_create)          \
    X(notify_destroy) X(notify_record) X(notify_wait) X(notify_reset) X(notify_id)              \
    X(notify_export) X(notify_set_pids) X(notify_import) X(value_write) X(value_wait)           \
    X(peer_can_access) X(peer_enable) X(devices_topo) X(device_info) X(device_feature)          \
    X(device_uuid) X(device_bus_id) X(device_id_map) X(device_utilization) X(device_status)     \
    X(cann_attrs) X(arch_compatible) X(op_run)                                                  \
    /* ---- host and managed memory ---- */                                                     \
    X(host_register) X(host_unregister) X(host_dev_ptr) X(host_map_caps) X(managed_alloc)       \
    X(managed_advise) X(managed_attrs) X(managed_prefetch) X(cache_op) X(mem_type_check)        \
    X(uce_info)                                                                                 \
    /* ---- virtual memory and stream-ordered pools ---- */                                     \
    X(vmm_granularity) X(vmm_reserve) X(vmm_release) X(vmm_phys_alloc) X(vmm_phys_free)         \
    X(vmm_map) X(vmm_unmap) X(vmm_retain) X(vmm_props) X(vmm_set_access) X(vmm_get_access)      \
    X(mem_range) X(pool_create) X(pool_destroy) X(pool_attr) X(pool_malloc) X(pool_free)        \
    X(pool_trim)                                                                                \
    /* ---- resource limits, device tasks, IPC events ---- */                                   \
    X(res_limit) X(device_task) X(event_ipc) X(ipc_mem_export) X(ipc_mem_set_pids)              \
    X(ipc_mem_import) X(ipc_mem_close) X(vmm_share_export) X(vmm_share_set_pids)                \
    X(vmm_share_import)                                                                         \
    /* ---- captured work ---- */                                                               \
    X(graph_begin) X(graph_join) X(graph_end) X(graph_launch) X(graph_destroy)                  \
    X(label_create) X(label_destroy) X(label_list_create) X(label_list_destroy) X(label_set)    \
    X(label_switch) X(group_begin) X(group_end) X(group_update) X(graph_cond)                   \
    X(graph_begin_into) X(graph_last_task) X(graph_task_edit) X(graph_abort)                    \
    /* ---- cache maintenance on streams, descriptors, counting notifies ---- */                \
    X(cmo) X(cmo_barrier_wait) X(desc_size) X(desc_set) X(desc_launch) X(memcpy_at)             \
    X(cnt_create) X(cnt_destroy) X(cnt_record) X(cnt_wait) X(cnt_reset) X(cnt_id)               \
    X(overflow_status) X(overflow_clear) X(overflow_addr) X(task_clean) X(last_task_id)         \
    X(l2_flush)
#define BE_COPIES(X) X(memcpy) X(memset) X(memcpy2d) X(memset_d32)
#define BE_FIELD(m) .m = m,

/* The first required member of ops that is NULL (its name), or NULL when
 * the table is complete. The ACL layer asks once, at load. */
static inline const char *be_missing(const struct be_ops *ops)
{
#define BE_REQUIRE(m)                                                                    \
    if (!ops->m)                                                                         \
        return #m;
    BE_REQUIRE(name) BE_OPS(BE_REQUIRE) BE_COPIES(BE_REQUIRE)
#undef BE_REQUIRE
    return NULL;
}

#endif /* ACLSIM_BACKENDS_BE_H_ */

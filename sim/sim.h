/*
 * sim.h - the NPU memory simulator: the interface backends/sim.c drives.
 *
 * The simulator models what an Ascend device's runtime does with memory and
 * time: SoC profiles (profile.c); the configuration and the device table
 * (config.c); devices, opened and closed by device.c, each with a
 * protected address space and a constant-time heap (vaspace.c, heap.c)
 * whose blocks (blocks.c, with allocation stacks from stacks.c) follow
 * CANN's rounding and page policies (policy.c); virtual memory (vmm.c) and
 * stream-ordered pools (pool.c); page-locked, registered and managed host
 * memory (host.c); streams, copies, fills (copy.c), events, device tasks
 * (devtask.c), operators timed by a roofline (kernels.c, roofline.c) and host
 * tasks on a simulated clock (stream.c, queue.c and task.c over clock.c,
 * traced by trace.c): every task waits its turn in its stream's one queue;
 * core limits and device settings (limits.c). Files share internals
 * through the folder-private internal.h and, for streams, queue.h. It
 * knows nothing of the ACL layer: calls return enum sim_rc and the backend
 * maps codes to aclError.
 * All calls are thread-safe.
 */
#ifndef ACLSIM_SIM_SIM_H_
#define ACLSIM_SIM_SIM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "api/abi/limits.h"

#define SIM_MAX_DEVICES ACLSIM_MAX_DEVICES

enum sim_rc {
    SIM_OK = 0,
    SIM_ENOMEM = -1,      /* device memory exhausted */
    SIM_EINVAL = -2,      /* not a live block, bad device, bad argument */
    SIM_EHOSTMEM = -3,    /* host memory for the simulator itself ran out */
    SIM_EUNSUPPORTED = -4, /* the profile does not support the request */
    SIM_EIO = -5,          /* a copy engine failed */
    SIM_ETIMEOUT = -6,     /* work that did not complete in time */
    SIM_ENOTREADY = -7,    /* work not complete yet */
    SIM_EORDER = -8,       /* two events in the wrong order */
    SIM_EWAIT = -9,        /* a stream held by a wait that nothing satisfied */
    SIM_EPERM = -10        /* a process not allowed (an IPC whitelist) */
};

/* A simulated time (ps) not known yet: work queued behind a wait that holds
 * its stream runs when the wait is released. sim_op_run gives it as an
 * operator's interval, sim_host_task as a host task's ready time, and a
 * queued operator has no interval yet. */
#define SIM_PS_PENDING UINT64_MAX

/* ---- profile.c: SoC profiles ---- */

struct sim_profile {
    const char *name;          /* CANN's SoC name, as aclrtGetSocName gives */
    uint64_t hbm_bytes;        /* HBM capacity */
    uint64_t reserved_bytes;   /* kept by the driver and runtime at the full capacity:
                                  never handed out, not in aclrtGetMemInfo's total */
    double hbm_gbps;           /* HBM bandwidth, GB/s (1e9 bytes) */
    double host_gbps;          /* host link bandwidth per direction, pinned memory, GB/s */
    double host_latency_us;    /* host link latency per transfer */
    unsigned copy_engines;     /* SDMA queues */
    unsigned cube_mhz;         /* cube core clock: [AICoreSpec] cube_freq */
    unsigned vector_mhz;       /* vector core clock: [VectorCoreSpec] vec_freq (profile.c) */
    unsigned malloc_padding;   /* bytes added by aclrtMalloc (32, or 0 on 950) */
    bool huge1g;               /* 1 GB pages (HUGE1G_ONLY) supported */
    unsigned max_streams;      /* per device, default stream included */
    unsigned max_events;       /* per device */
    /* ---- pageable copies and managed memory ---- */
    uint64_t stage_bytes;      /* the runtime's bounce-buffer chunk for pageable copies */
    double stage_gbps;         /* host memcpy into or out of the bounce buffer, GB/s */
    bool uvm;                  /* managed memory (aclrtMemAllocManaged) supported */
};

/* The profile named `name`, or NULL. */
const struct sim_profile *sim_profile_find(const char *name);
/* The i-th built-in profile (i = 0, 1, ...), NULL past the last. */
const struct sim_profile *sim_profile_at(size_t i);

/* A server the simulated devices sit in (ACLSIM_SERVER): how many devices
 * it holds, of which SoCs, and the fabric between them. */
struct sim_server {
    const char *name;        /* ACLSIM_SERVER's word */
    const char *soc_prefix;  /* the SoC names it holds start with this */
    uint32_t devices;        /* devices in the server */
    double device_gbps;      /* each device's fabric bandwidth per direction, all links */
    double link_gbps;        /* one link between two devices, per direction */
    double link_latency_us;  /* fixed cost of a copy over a link */
};

/* The server named `name` ("none" and unknown names: NULL). */
const struct sim_server *sim_server_find(const char *name);

/* Platform facts of a SoC, as CANN's platform file for it gives them. */
struct sim_soc {
    const char *name;      /* SoC_version */
    int32_t npu_arch;      /* NpuArch: SoCs of one arch run the same binaries */
    uint32_t ai_cores;     /* ai_core_cnt */
    uint32_t cube_cores;   /* cube_core_cnt */
    uint32_t vector_cores; /* vector_core_cnt */
    uint32_t aicpu_cores;  /* ai_cpu_cnt */
    uint64_t l2_bytes;     /* l2_size */
    bool bf16;             /* support_bf16 */
    bool inf_nan;          /* support_inf_nan */
};

/* The SoC named `name` among all SoCs CANN has a platform file for (not
 * only the simulated ones), or NULL. */
const struct sim_soc *sim_soc_find(const char *name);

/* ---- config.c, device.c, policy.c, blocks.c, copy.c: devices and device
 * memory ---- */

/* Settings read from the environment (ACLSIM_SOC, ACLSIM_HBM_BYTES,
 * ACLSIM_DEVICE_COUNT) when no device is open. Returns SIM_OK or SIM_EINVAL
 * for an unknown SoC or a malformed number (then *why says which). */
enum sim_rc sim_configure(const char **why);
uint32_t sim_device_count(void);
const struct sim_profile *sim_device_profile(int32_t dev);
/* The platform facts of device dev's SoC (sim_soc_find), or NULL when
 * CANN ships no platform file for it. */
const struct sim_soc *sim_device_soc(int32_t dev);
/* The server the devices sit in (ACLSIM_SERVER), or NULL for none. */
const struct sim_server *sim_device_server(void);
/* HBM capacity of a device (the profile's, or ACLSIM_HBM_BYTES). */
uint64_t sim_device_capacity(int32_t dev);
/* The part of a device of `capacity` bytes its driver and runtime keep and
 * never hand out: the profile's reserve when the device has the profile's
 * full HBM; for a smaller ACLSIM_HBM_BYTES the reserve of CANN's cmodel
 * driver (8 MiB), at most half of it; in heap granules. */
uint64_t sim_reserve_bytes(const struct sim_profile *p, uint64_t capacity);

/* Open device dev: its address space, heap, timeline and virtual memory;
 * its core limits start unset (sim_core_limit_reset). SIM_EHOSTMEM when
 * host memory runs out, SIM_ENOMEM on an injected failure to map its HBM.
 * pre: dev < sim_device_count(), not open. */
enum sim_rc sim_device_open(int32_t dev);
/* Forget every block and give the device's memory back; calls still naming
 * it fail cleanly. Its address range stays reserved until it opens again. */
void sim_device_close(int32_t dev);

/* Page kinds of the device heap. */
enum sim_page { SIM_PAGE_NORMAL = 0, SIM_PAGE_HUGE = 1, SIM_PAGE_HUGE1G = 2 };

/* Page policies, as aclrtMemMallocPolicy names them (P2P variants map to
 * the plain ones); SIM_POLICY_DEFAULT is what an out-of-range value means. */
enum sim_policy {
    SIM_POLICY_HUGE_FIRST,
    SIM_POLICY_HUGE_ONLY,
    SIM_POLICY_NORMAL_ONLY,
    SIM_POLICY_HUGE1G_ONLY,
    SIM_POLICY_DEFAULT
};

/* Allocate device memory for a request of `size` bytes with CANN's rules
 * (policy.c cites them): size rounded up to 32, plus the profile's padding
 * unless `no_pad` (aclrtMallocAlign32) or 1 GB pages; 2 MB pages round to 2 MB,
 * HUGE_FIRST uses normal pages up to 1 MB and falls back to them when no
 * huge page is left; 1 GB pages round to 1 GB and exist only where the
 * profile has them (else SIM_EUNSUPPORTED). Starts are on the device's
 * granule (4 KiB, ACLSIM_MALLOC_ALIGN) or page (2 MB / 1 GB for huge pages).
 * SIM_ENOMEM when the device lacks the pages.
 * pre: dev open, 0 < size <= SIZE_MAX - 64. */
enum sim_rc sim_mem_alloc(int32_t dev, uint64_t size, enum sim_policy policy, bool no_pad,
                          void **ptr);
/* DVPP memory (acldvppMalloc) of size bytes on open device dev: ALIGN_UP(size,
 * 32) + 32 bytes, from the device's DVPP range of 16 GiB of addresses, on
 * the device's pages; freed by sim_mem_free like any block. SIM_ENOMEM when
 * the device lacks the pages or the DVPP range lacks a free run that long.
 * pre: dev open, 0 < size <= SIZE_MAX - 64. */
enum sim_rc sim_dvpp_alloc(int32_t dev, uint64_t size, void **ptr);
/* Free the live block starting at ptr, on whichever device holds it;
 * SIM_EINVAL (and no change) unless ptr is the start of a live block. */
enum sim_rc sim_mem_free(void *ptr);

struct sim_block {
    int32_t dev;
    void *start;
    uint64_t usable;    /* bytes the program may touch */
    uint32_t page_size; /* 4096, 2 MiB or 1 GiB */
};
/* The live device block containing ptr: true and *b, or false. */
bool sim_mem_lookup(const void *ptr, struct sim_block *b);

/* Call fn for every live block of an open device, with its allocation
 * stack when ACLSIM_TRACK=1 was set as the device opened (else NULL, 0).
 * fn runs under the device's lock: it must not call back into sim_mem_*.
 * Returns the number of live blocks. */
typedef void (*sim_live_fn)(const struct sim_block *b, void *const *frames, int nframes,
                            void *user);
size_t sim_mem_live(int32_t dev, sim_live_fn fn, void *user);

/* The program's free of the live block at ptr failed: free it when its
 * device closes. Unknown addresses are ignored. */
void sim_mem_abandon(void *ptr);

/* Let memcheck report an access the ACL layer rejected (Valgrind only). */
void sim_mem_audit(const void *ptr, size_t n);

/* Whether ptr lies in some device's address space (live or not), open or
 * closed since (a closed device's range stays reserved until it reopens). */
bool sim_mem_in_range(const void *ptr);

/* Bytes in use on a device, the most ever in use since it opened, and the
 * bytes its heap hands out: the capacity less the driver's reserve (see
 * sim_reserve_bytes; peak and total may be NULL). */
void sim_mem_usage(int32_t dev, uint64_t *used, uint64_t *peak, uint64_t *total);

/* Copy/fill through the host alias of device memory. Either side of a copy
 * may be host memory (`*_dev` false). pre: ranges inside live blocks. */
enum sim_rc sim_mem_copy(void *dst, bool dst_dev, const void *src, bool src_dev, size_t n);
enum sim_rc sim_mem_fill(void *dst, bool dst_dev, int value, size_t n);

/* ---- host.c: page-locked host memory ---- */

/* 64-byte aligned host memory; SIM_EHOSTMEM when none. */
enum sim_rc sim_host_alloc(size_t size, void **ptr);
/* SIM_EINVAL unless ptr is the start of a live host block. */
enum sim_rc sim_host_free(void *ptr);
/* The live host block containing ptr: true with its start and size. */
bool sim_host_lookup(const void *ptr, void **start, size_t *size);
/* The runtime ends (aclFinalize): stop tracking registered and managed
 * host blocks, without freeing any; pinned blocks stay, tied to no device,
 * for aclrtFreeHost to take back later. A block the program lost shows up
 * in Valgrind as definitely lost, at its aclrtMallocHost (the table hides
 * its starts from the leak check). */
void sim_host_forget_all(void);
/* The program's free of the pinned (aclrtFreeHost) or, with managed,
 * managed (aclrtFree) block at ptr failed: free it at sim_host_forget_all
 * instead. Other addresses are ignored. */
void sim_host_abandon(void *ptr, bool managed);

/* Bytes of live host blocks, and the most ever live. */
void sim_host_usage(uint64_t *cur, uint64_t *peak);
/* Frees of pinned, registered and managed host ranges so far. */
uint64_t sim_host_frees(void);

/* ---- host.c: registered and managed memory ---- */

/* The kinds of host ranges the simulator knows. */
enum { SIM_HOST_PINNED = 0, SIM_HOST_REGISTERED = 1, SIM_HOST_MANAGED = 2 };
struct sim_host_block {
    void *start;
    size_t size;
    int kind;    /* SIM_HOST_* */
    bool mapped; /* registered for device access (a device address exists) */
    uint64_t gen; /* which block: a block made later at the same place has another */
};
/* The known host range containing ptr (any kind): true and *out. */
bool sim_host_find(const void *ptr, struct sim_host_block *out);
/* Register [ptr, ptr+size) of the program's host memory: SIM_EINVAL when it
 * overlaps a known range (already registered, or pinned memory),
 * SIM_EHOSTMEM. The memory stays the program's. */
enum sim_rc sim_host_register(void *ptr, size_t size, bool mapped);
/* SIM_EINVAL unless ptr starts a registered range. */
enum sim_rc sim_host_unregister(void *ptr);

/* Managed memory: host memory of size rounded up to 2 MiB, both the host
 * and the devices reach it; freed by sim_managed_free (SIM_EINVAL unless ptr
 * starts a managed block). */
enum sim_rc sim_managed_alloc(uint64_t size, void **ptr);
enum sim_rc sim_managed_free(void *ptr);
/* Advice per 2 MiB page of [ptr, ptr+size), which must lie in one managed
 * block (else SIM_EINVAL); locations are ACL's managed location types. */
enum { SIM_UVM_SET_READ_MOSTLY, SIM_UVM_UNSET_READ_MOSTLY, SIM_UVM_SET_PREFERRED,
       SIM_UVM_UNSET_PREFERRED, SIM_UVM_SET_ACCESSED_BY, SIM_UVM_UNSET_ACCESSED_BY };
enum { SIM_UVM_DEVICE = 1, SIM_UVM_MIXED = -1 };
enum sim_rc sim_managed_advise(const void *ptr, uint64_t size, int advise, int loc_type,
                               int32_t loc_id);
/* A prefetch of the range to a location was done. */
enum sim_rc sim_managed_prefetched(const void *ptr, uint64_t size, int loc_type, int32_t loc_id);
/* What the pages of a range agree on: read mostly when all are; a location
 * type SIM_UVM_MIXED when they differ; accessed_by the devices (bit 63 the
 * host) every page names. */
struct sim_uvm_advice {
    bool read_mostly;
    int pref_type, last_type;
    int32_t pref_id, last_id;
    uint64_t accessed_by;
};
enum sim_rc sim_managed_query(const void *ptr, uint64_t size, struct sim_uvm_advice *out);

/* ---- stream.c: streams, copies and fills on them, events ---- */

struct sim_stream;
/* SIM_ENOMEM when the device already has the profile's maximum of streams
 * (the default stream counts). pre: dev open. */
enum sim_rc sim_stream_create(int32_t dev, struct sim_stream **out);
/* Waits for the stream's work, then frees it. */
void sim_stream_destroy(struct sim_stream *s);
/* The host waits for the stream's work, at most timeout_ms (< 0: no limit):
 * SIM_ETIMEOUT when the limit ran out first. */
enum sim_rc sim_stream_sync(struct sim_stream *s, int32_t timeout_ms);
/* The simulated time (ps) at which the stream's queued work ends. */
uint64_t sim_stream_now(struct sim_stream *s);
/* Whether the stream's work is done, as the host sees it now. */
bool sim_stream_done(struct sim_stream *s);
/* The host waits for all work of streams ss[0..n) (a context's: CANN's
 * device synchronisation waits for the current context's streams only), at
 * most timeout_ms in all (< 0: no limit; SIM_ETIMEOUT when the limit runs
 * out first). */
enum sim_rc sim_streams_sync(struct sim_stream *const *ss, size_t n, int32_t timeout_ms);

/* How a copy is made: SIM_COPY_WAIT, the host waits for its end (a
 * synchronous copy, an async one from pageable memory); SIM_COPY_PAGEABLE,
 * its host side is pageable memory, which the runtime stages through a
 * pinned bounce buffer (clock.h, sim_clock_copy_staged). */
enum { SIM_COPY_WAIT = 1, SIM_COPY_PAGEABLE = 2 };

/* Copy or fill n bytes (either side may be host memory: *_dev false) on
 * stream s, or synchronously on device dev when s is NULL. The bytes move
 * when the task runs: now, or, on a held stream, when the wait is released
 * (a host source is copied at once, as the runtime stages pageable memory);
 * the time is taken on the device's timeline (a copy between two devices'
 * memory on the fabric link between them); with SIM_COPY_WAIT (or no
 * stream) the host waits for the end of a copy that runs now. SIM_EHOSTMEM
 * when a held stream cannot queue it. pre: ranges checked by the caller. */
enum sim_rc sim_copy(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                     const void *src, bool src_dev, size_t n, unsigned flags);
enum sim_rc sim_fill(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                     size_t n, bool host_waits);

/* ---- 2-D copies, 32-bit fills, managed memory ---- */

/* A 2-D copy: height rows of width bytes, rows dpitch / spitch apart,
 * moved row by row, in the time of one copy of width * height bytes (one
 * task, on a held stream too). Otherwise as sim_copy. pre: every row
 * checked by the caller. */
enum sim_rc sim_copy2d(int32_t dev, struct sim_stream *s, void *dst, size_t dpitch, bool dst_dev,
                       const void *src, size_t spitch, bool src_dev, size_t width,
                       size_t height, unsigned flags);
/* Fill `words` 32-bit words at dst with value: device memory through HBM
 * on the stream's timeline, acl host memory by the host at once. Otherwise
 * as sim_fill. pre: dst 4-byte aligned, the range checked by the caller. */
enum sim_rc sim_fill32(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                       uint32_t value, size_t words, bool host_waits);
/* Managed pages of `bytes` migrate to a device (or to the host) on stream
 * s: timed as a copy over the host link in that direction, when s reaches
 * it. */
void sim_stream_migrate(struct sim_stream *s, uint64_t bytes, bool to_device);
/* Write the pattern through the host view (copy.c). */
enum sim_rc sim_mem_fill32(void *dst, bool dst_dev, uint32_t value, size_t words);

/* Events: SIM_EVENT_TIMELINE marks one that can time (ACL_EVENT_TIME_LINE),
 * SIM_EVENT_IPC one other processes can open (ACL_EVENT_IPC, ipc.c),
 * SIM_EVENT_EXTERNAL one whose waits always wait for a record
 * (ACL_EVENT_EXTERNAL: a reset makes the next wait wait again). */
#define SIM_EVENT_TIMELINE 0x8u
#define SIM_EVENT_EXTERNAL 0x20u
#define SIM_EVENT_IPC 0x40u
struct sim_event;
/* SIM_ENOMEM when the device has the profile's maximum of events. */
enum sim_rc sim_event_create(int32_t dev, uint32_t flags, struct sim_event **out);
void sim_event_destroy(struct sim_event *e);
/* The event completes when the stream's work so far is done. */
void sim_event_record(struct sim_event *e, struct sim_stream *s);
/* Back to never recorded when s reaches it (s NULL: now). */
void sim_event_reset(struct sim_event *e, struct sim_stream *s);
/* The stream's later work waits for the event (nothing if never recorded,
 * unless it is SIM_EVENT_EXTERNAL: then until it is). */
void sim_event_wait(struct sim_stream *s, const struct sim_event *e);
/* The host waits for the event, at most timeout_ms (< 0: no limit). */
enum sim_rc sim_event_sync(struct sim_event *e, int32_t timeout_ms);
/* Whether it completed, as the host sees it now (never recorded: true). */
bool sim_event_done(const struct sim_event *e);
/* Milliseconds from a to b: SIM_EINVAL if either was never recorded or
 * cannot time, SIM_ENOTREADY if either is not complete yet, SIM_EORDER if
 * b completed before a. */
enum sim_rc sim_event_elapsed(const struct sim_event *a, const struct sim_event *b, float *ms);

/* ---- stream.c and queue.c: stream properties, waits that hold a stream ----
 *
 * A stream can be held by a wait the device cannot satisfy yet: a notify
 * not recorded yet, a value not written yet, an event whose record is
 * itself queued behind such a wait. Every task enqueued on a held stream
 * (copies, fills, records and waits, device tasks, operators, host
 * tasks) waits in its queue (host-memory sources and inputs are copied at
 * once, as the runtime stages pageable memory) and runs, in order, when the
 * wait is satisfied, at the simulated time that satisfies it, on the bytes
 * device memory holds then. A host synchronisation on a held stream first
 * waits (real time, at most the grace set by sim_hold_configure) for
 * another host thread to satisfy it; then a wait with a timeout fails the
 * stream at its deadline (SIM_EWAIT, queued work dropped), a bounded
 * synchronisation times out (SIM_ETIMEOUT) and an unbounded one on an
 * unbounded wait fails with SIM_EWAIT instead of hanging, the stream still
 * held. */

/* Per-stream settings, kept for the program (the simulator schedules every
 * stream alike). */
enum sim_stream_prop {
    SIM_SP_PRIORITY,
    SIM_SP_FLAGS,
    SIM_SP_FAILURE_MODE,
    SIM_SP_OVERFLOW,
    SIM_SP_TAG,
    SIM_SP_CACHE_OP,
    SIM_SP_CUBE_LIMIT,
    SIM_SP_VECTOR_LIMIT,
    SIM_SP_COUNT
};
uint64_t sim_stream_prop(struct sim_stream *s, enum sim_stream_prop p);
void sim_stream_set_prop(struct sim_stream *s, enum sim_stream_prop p, uint64_t v);
/* The stream's number on its device (0 is the first stream created). */
uint32_t sim_stream_id(struct sim_stream *s);
/* Drop the stream's work not started by now, and anything held. */
void sim_stream_abort(struct sim_stream *s);
/* Stream and event slots a device has left. */
uint32_t sim_stream_avail(int32_t dev);
uint32_t sim_event_avail(int32_t dev);
/* An event's number on its device. */
uint32_t sim_event_id(const struct sim_event *e);
/* When the event's captured work completed (ps): SIM_EINVAL if never
 * recorded, SIM_ENOTREADY if not complete yet. */
enum sim_rc sim_event_timestamp(const struct sim_event *e, uint64_t *ps);
/* Whether a wait on the event would be satisfied now (recorded and done). */
bool sim_event_waited(const struct sim_event *e);

/* How long a synchronisation on a held stream waits for another host
 * thread, in real milliseconds. */
void sim_hold_configure(uint32_t grace_ms);

/* Notifies: a record sets the notify when the stream reaches it; a wait
 * holds its stream until the notify is set, then resets it (one waiter per
 * record). timeout_s 0: no limit. */
/* Frees and unmaps of device memory so far, on every device (blocks.c),
 * and frees of known host memory (host.c): memory live at one count is
 * live while the count stays. */
uint64_t sim_mem_frees(void);

/* ---- Captured work (graph.c) ----
 *
 * A graph is the work a stream captured: from sim_graph_begin until
 * sim_graph_end the tasks enqueued on the stream, and on the streams that
 * joined its capture (sim_graph_join), are recorded instead of run; each
 * sim_graph_launch submits them again, in their order, the first stream's
 * on the launch stream and each joined stream's on a stream the graph
 * keeps for it, with the timing rules of any work. */
struct sim_graph;
/* s starts capturing into a new graph. SIM_EHOSTMEM: nothing changed. */
enum sim_rc sim_graph_begin(struct sim_stream *s, struct sim_graph **out);
/* s (not capturing) joins g's capture. SIM_ENOMEM: g has its most streams. */
enum sim_rc sim_graph_join(struct sim_graph *g, struct sim_stream *s);
/* The graph s captures into, or NULL. */
struct sim_graph *sim_stream_graph(struct sim_stream *s);
/* Every stream of g stops capturing. */
void sim_graph_end(struct sim_graph *g);
/* Run g's work on s (after s's work so far). SIM_ENOMEM: a stream for a
 * joined lane could not be had (nothing submitted). With a trace open each
 * launch is a slice "graph replay" on s's track around the work it runs
 * there, with g's label (sim_graph_label) as args.graph. */
enum sim_rc sim_graph_launch(struct sim_graph *g, struct sim_stream *s);
/* Name g for the trace ("graph 1 (aclmdlRI 0x...)", as reports name it);
 * longer labels are cut. */
void sim_graph_label(struct sim_graph *g, const char *label);
/* Labels (aclrtCreateLabel) and label lists: handles of their own, set
 * and switched to only on a capturing stream (SIM_EUNSUPPORTED elsewhere).
 * A launch that reaches a switch reads the uint32 index at `index` (device
 * memory) and goes on from the label at that index of the list (the last
 * one for an index past its end). */
struct sim_label;
struct sim_label_list;
enum sim_rc sim_label_create(struct sim_label **out);
void sim_label_destroy(struct sim_label *l);
enum sim_rc sim_label_list_create(struct sim_label *const *labels, size_t n,
                                  struct sim_label_list **out);
void sim_label_list_destroy(struct sim_label_list *l);
enum sim_rc sim_label_set(struct sim_label *l, struct sim_stream *s);
enum sim_rc sim_label_switch(const void *index, struct sim_label_list *list,
                             struct sim_stream *s);
/* The tasks the stream of lane `lane` (0: the one that began the capture,
 * then the joined and bound ones in their order) recorded into g are
 * cleared: later launches run none of them (aclrtPersistentTaskClean). */
void sim_graph_clean_lane(struct sim_graph *g, unsigned lane);
/* How many tasks g recorded. */
unsigned sim_graph_tasks(struct sim_graph *g);
/* s starts capturing into g, an empty graph (a sub-graph of a condition). */
enum sim_rc sim_graph_begin_into(struct sim_stream *s, struct sim_graph *g);

/* Task groups (aclmdlRICaptureTaskGrpBegin ... End): from sim_group_begin
 * to sim_group_end the capturing stream s records its operators into a
 * group, one task of the graph that each replay expands into the
 * operators the group holds when its stream reaches it. While
 * sim_group_update names a group for stream s (NULL: none), each operator
 * put on s replaces the group's next one when s reaches it (it runs
 * nowhere itself). pre (the ACL layer's checks): s captures and records
 * only operators into a group; only operators go on an updating stream,
 * no more than the group holds. */
struct sim_group;
enum sim_rc sim_group_begin(struct sim_stream *s, struct sim_group **out);
struct sim_group *sim_stream_group(struct sim_stream *s);
void sim_group_end(struct sim_stream *s);
unsigned sim_group_tasks(struct sim_group *grp);
void sim_group_update(struct sim_stream *s, struct sim_group *grp);

/* The task s recorded last (into its graph or a group of it), or NULL;
 * sim_graph_edit changes it in g for later launches: SIM_EDIT_DISABLE (a
 * no-op), or an 8-byte value write or wait (SIM_WAIT_* flag) at addr.
 * SIM_EINVAL: not a task of g's record or groups. */
enum { SIM_EDIT_DISABLE, SIM_EDIT_VALUE_WRITE, SIM_EDIT_VALUE_WAIT };
void *sim_stream_last_recorded(struct sim_stream *s);
enum sim_rc sim_graph_edit(struct sim_graph *g, void *task, int how, void *addr, uint64_t value,
                           uint32_t flag);
/* The work g's launches left queued (on any stream) is dropped; a stream
 * one of its waits holds goes on with its other work. */
void sim_graph_abort(struct sim_graph *g);

/* A conditional task (aclmdlRIAddCondTask) on capturing stream s, over
 * the 8-byte device word at `word`: SIM_COND_* of queue.h (IF 0, WHILE 1,
 * SWITCH 2), with n new empty sub-graphs in subs[] that s's graph owns
 * (they capture through sim_graph_begin_into, are destroyed with it). */
enum sim_rc sim_graph_cond(struct sim_stream *s, const void *word, int type, unsigned n,
                           struct sim_graph **subs);
/* Free g (its streams wait for their work first). pre: g ended. */
void sim_graph_destroy(struct sim_graph *g);

struct sim_notify;
enum sim_rc sim_notify_create(int32_t dev, struct sim_notify **out);
void sim_notify_destroy(struct sim_notify *n);
void sim_notify_record(struct sim_notify *n, struct sim_stream *s);
void sim_notify_wait(struct sim_notify *n, struct sim_stream *s, uint32_t timeout_s);
/* Back to not set (host side, at once). */
void sim_notify_reset(struct sim_notify *n);
uint32_t sim_notify_id(const struct sim_notify *n);
/* IPC notifies (ipcnotify.c): export n (its key into key; SIM_EINVAL when
 * it was exported already), list pids allowed to import it, import the
 * notify a key names as a new notify of device dev (refused, with *why,
 * for a key of no live export, of a dead exporter, SIM_EPERM off the
 * whitelist unless the export had SIM_NOTIFY_NO_PID_CHECK). A record
 * through any of them sets the one state, which a wait through any
 * consumes: a stream a wait holds is released by another process's
 * record when a synchronisation or query of this process looks. */
#define SIM_NOTIFY_NO_PID_CHECK 0x2u
#define SIM_IPC_KEY_MAX 65 /* an IPC key with its NUL (notifies and memory) */
enum sim_rc sim_notify_export(struct sim_notify *n, uint64_t flags, char key[SIM_IPC_KEY_MAX]);
enum sim_rc sim_notify_set_pids(struct sim_notify *n, const int32_t *pids, size_t num,
                                const char **why);
enum sim_rc sim_notify_import(int32_t dev, const char *key, struct sim_notify **out,
                              const char **why);

/* Value writes and waits on 8 bytes of device memory: a write stores value
 * when the stream reaches it; a wait holds its stream until the bytes meet
 * the condition (SIM_WAIT_*). pre: addr inside a live device block. */
enum { SIM_WAIT_GEQ = 0, SIM_WAIT_EQ = 1, SIM_WAIT_AND = 2, SIM_WAIT_NOR = 3 };
void sim_value_write(struct sim_stream *s, void *addr, uint64_t value);
void sim_value_wait(struct sim_stream *s, const void *addr, uint64_t value, uint32_t flag);

/* Counting notifies (queue.c): a 32-bit count. A record changes it when
 * its stream reaches it (SIM_CNT_SET stores value, _ADD adds it, _OR sets
 * its bits, _CLEAR clears them); a reset stores 0 so; a wait holds its
 * stream until the count meets the condition (SIM_CNT_LESS: count < value,
 * _EQ, _GREATER, _GEQ, _MASK: every bit of value set), then zeroes it when
 * `clear`, and fails its stream timeout_s after it began waiting (0: no
 * limit), as a notify wait does. */
enum { SIM_CNT_SET = 0, SIM_CNT_ADD = 1, SIM_CNT_OR = 2, SIM_CNT_CLEAR = 4 };
enum { SIM_CNT_LESS = 0, SIM_CNT_EQ = 1, SIM_CNT_GREATER = 2, SIM_CNT_GEQ = 3, SIM_CNT_MASK = 4 };
struct sim_cnt;
/* SIM_ENOMEM: the device has no notify left (the profile's event count). */
enum sim_rc sim_cnt_create(int32_t dev, struct sim_cnt **out);
void sim_cnt_destroy(struct sim_cnt *c);
void sim_cnt_record(struct sim_cnt *c, struct sim_stream *s, uint32_t mode, uint32_t value);
void sim_cnt_wait(struct sim_cnt *c, struct sim_stream *s, uint32_t mode, uint32_t value,
                  bool clear, uint32_t timeout_s);
void sim_cnt_reset(struct sim_cnt *c, struct sim_stream *s);
uint32_t sim_cnt_id(const struct sim_cnt *c);

/* Cache maintenance on a stream (stream.c, task.c): a task over [ptr,
 * ptr+size) of device memory that takes the time of one pass of the range
 * through HBM and changes no byte (the simulator has no caches); barrier !=
 * 0 notes when it is done under that id, per device. A barrier wait makes s
 * wait until the last operations done under the n ids so far are. pre: the
 * range inside a live block of s's device. */
void sim_cmo(struct sim_stream *s, void *ptr, size_t size, uint32_t barrier);
void sim_cmo_barrier_wait(struct sim_stream *s, const uint32_t *ids, unsigned n);
/* The id of the last task the calling thread counted on a stream
 * (sim_task_begin), 0 before any. */
uint32_t sim_thread_last_task(void);

/* ---- stream.c: host tasks (callbacks) and device faults ---- */

/* Told the ready time (ps) of a host task that was queued behind a wait. */
typedef void (*sim_ready_fn)(void *arg, uint64_t ready);

/* Put a host task (a callback of aclrtLaunchCallback or aclrtLaunchHostFunc)
 * on stream s: the host pays one enqueue, and the task is ready when s
 * reaches it, its work before the task done: that time becomes s's tail.
 * When s is not held that is now: *ready receives it and *ticket 0. When a
 * wait holds s the task waits its turn in s's queue: *ready receives
 * SIM_PS_PENDING, *ticket names the task, and fn(arg, ready) is called once
 * the wait is released and s reaches it (from the thread that released it,
 * inside the simulator: fn must not call it). A blocking task blocks s
 * from when s reaches it until sim_host_task_done: s's later tasks and its
 * synchronisation wait (in real time) until the task has run, as the device
 * waits for the host's answer. Thread `runner` (a pthread_t value) runs the
 * task and never waits for it: its tasks go on (behind the blocking one
 * when s's queue reached it), and synchronising s there fails with
 * SIM_ETIMEOUT instead of waiting for itself. SIM_EHOSTMEM when a held
 * stream cannot queue it. */
enum sim_rc sim_host_task(struct sim_stream *s, bool blocking, uint64_t runner, sim_ready_fn fn,
                          void *arg, uint64_t *ready, uint64_t *ticket);
/* The host task `ticket` (sim_host_task's) of s ran, or was dropped before
 * it ran: a blocking one s had reached releases s; one still queued is
 * taken out of s's queue (its fn is never called). Exactly once per task. */
void sim_host_task_done(struct sim_stream *s, uint64_t ticket, bool blocking);
/* s's device and its per-device stream number. */
void sim_stream_ids(struct sim_stream *s, int32_t *dev, uint32_t *id);

/* Device work that failed, as the device reports it (an exception). */
enum sim_fault_kind {
    SIM_FAULT_COPY = 1,  /* a copy engine failed a copy or fill (sim/copy/engine) */
    SIM_FAULT_HANG = 2,  /* a stream's or event's work never completes (sim/stream/hang,
                            sim/event/hang) */
    SIM_FAULT_MEMORY = 3 /* a task touched device memory no live block holds */
};
struct sim_fault {
    enum sim_fault_kind kind;
    int32_t dev;
    uint32_t stream_id; /* sim_stream_ids */
    uint32_t task_id;   /* the failed task: tasks of a stream count from 0 */
    uint32_t thread;    /* the thread that enqueued it (pthread_t, low 32 bits) */
};
typedef void (*sim_fault_fn)(const struct sim_fault *f);
/* Who is told of device faults (NULL: nobody). fn runs in the thread that
 * observed the fault, with no simulator lock held, before the failing call
 * returns: a copy or fill on a stream whose engine failed, a stream
 * synchronisation or an event synchronisation that hangs. */
void sim_fault_handler(sim_fault_fn fn);
/* Report a fault of `kind` for the next task of s (one the caller refused
 * to enqueue because the device would have failed it). */
void sim_stream_fault(struct sim_stream *s, enum sim_fault_kind kind);

/* ---- stream.c, kernels.c, roofline.c, pending.c: built-in operators and the
 * facts of pending work (the allocator sanitizer's) ---- */

/* Element types of the built-in operators, numbered as CANN numbers them
 * (aclDataType, hicann/runtime include/external/acl/acl_base.h; ge's
 * DataType): the ACL layer's type reaches the simulator as it is.
 * dtype.c says how each is read, written and converted. */
enum sim_dtype {
    SIM_DT_F32 = 0, SIM_DT_F16 = 1, SIM_DT_I8 = 2, SIM_DT_I32 = 3, SIM_DT_U8 = 4,
    SIM_DT_I16 = 6, SIM_DT_U16 = 7, SIM_DT_U32 = 8, SIM_DT_I64 = 9, SIM_DT_U64 = 10,
    SIM_DT_F64 = 11, SIM_DT_BOOL = 12, SIM_DT_BF16 = 27
};

/* What a built-in operator computes, and the bounds of its description:
 * the vocabulary the ACL layer and the backends share (api/abi/opkinds.def
 * and the family lists it includes say what each kind computes). */
enum sim_opkind {
#define OPKIND(id, family, what) SIM_OP_##id,
#define OPLIMIT(id, value)
#include "api/abi/opkinds.def"
#undef OPKIND
#undef OPLIMIT
    SIM_OP_KINDS
};
enum {
#define OPKIND(id, family, what)
#define OPLIMIT(id, value) SIM_OP_##id = value,
#include "api/abi/opkinds.def"
#undef OPKIND
#undef OPLIMIT
};

/* A tensor as an operator sees it: a view (shape, strides and offset, in
 * elements) of storage at `data`. Strides may be 0 (a broadcast input) or
 * in any order (a transposed or permuted one). */
struct sim_view {
    const void *data; /* the storage: a device address, or host memory when !dev */
    bool dev;
    enum sim_dtype dt;
    int ndims;
    int64_t dims[SIM_OP_MAX_DIMS];
    int64_t strides[SIM_OP_MAX_DIMS];
    int64_t offset; /* element 0 is data + offset elements */
    int nz_c0; /* FRACTAL_NZ: as be_view's (backends/be.h); 0 for ND */
    bool nz_t;
};

/* An operator: its kind, its tensors and its typed parameters (what each
 * kind reads of them is written beside the kind in its family's list). */
struct sim_op {
    enum sim_opkind kind;
    const char *name;          /* the operator's type, for the trace */
    int n_in, n_out;
    struct sim_view in[SIM_OP_MAX_IN];
    struct sim_view out[SIM_OP_MAX_OUT];
    enum sim_dtype calc;       /* the type the operator computes in */
    bool trans_a, trans_b;     /* MATMUL, GEMM */
    bool keep_dims;            /* reductions */
    double alpha, beta;        /* scalar parameters of the kind */
    int n_axes;                /* reductions: axes (distinct, in range) */
    int64_t axes[SIM_OP_MAX_DIMS];
    int64_t iparam[SIM_OP_MAX_PARAMS]; /* further integer and float parameters */
    double fparam[SIM_OP_MAX_PARAMS];
    void *ws;                  /* device workspace the kernel writes (NULL: none) */
    size_t ws_bytes;
    void *tiling;              /* device block for the tiling record (NULL: none) */
    size_t tiling_bytes;
    /* For the sanitizer (hb.c): the caller's name for it, and the
     * allocator its blocks came from (obj), with the stream it is
     * registered on and its desc (NULL: none). */
    uint64_t tag;
    const void *alloc_obj, *alloc_stream, *alloc_desc;
};

/* The bytes a view touches: from *lo, *bytes of them (0 for an empty view).
 * pre: offset and strides keep every element at or after data. */
void sim_view_span(const struct sim_view *v, const void **lo, size_t *bytes);

/* Run op on stream s of device dev, in its turn: the results are computed
 * on the device bytes when s reaches it (like every simulated task, so a
 * correctly ordered program reads right data) and the operator takes its
 * roofline time on the stream. When s is not held that is now: *start and
 * *end receive its simulated interval; SIM_EHOSTMEM when host scratch
 * memory runs out, SIM_EIO on an injected copy-engine fault (nothing
 * written then). When a wait holds s the operator is queued (with a copy of
 * op and of its host-memory inputs, so the caller may reuse them) and runs
 * when the wait is released: *start and *end receive SIM_PS_PENDING, its
 * workspace and tiling block stay pending until it has run (the pending
 * record takes its real end then), and a failure then is a device fault
 * (sim_fault_handler); SIM_EHOSTMEM when it cannot be queued.
 * pre: op validated: shapes consistent, data inside live blocks. */
enum sim_rc sim_op_run(int32_t dev, struct sim_stream *s, const struct sim_op *op,
                       uint64_t *start, uint64_t *end);

/* Roofline figures (roofline.c, sources there), from profile p's own
 * clocks and HBM and the core counts of its SoC, s (sim_soc_find(p->name):
 * for a device, sim_device_soc, looked up once per configuration).
 * sim_roofline_flops_per_s: flop/s of the cube (matrix) or vector unit for a
 * data type; 0 when the SoC has no platform facts (s NULL), no cores of that unit or
 * no clock for it: such a profile times no kernel, and sim_configure
 * refuses it (sim_roofline_known says which profiles can).
 * sim_roofline_ps: the duration in ps of a kernel on that unit doing
 * `flops` and moving `bytes` through HBM, launch cost included.
 * pre: sim_roofline_known(p) (UINT64_MAX, a kernel that never ends, else). */
#define SIM_ROOF_PS_PER_US UINT64_C(1000000)
bool sim_roofline_known(const struct sim_profile *p);
double sim_roofline_flops_per_s(const struct sim_profile *p, const struct sim_soc *s, bool cube,
                                enum sim_dtype dt);
uint64_t sim_roofline_ps(const struct sim_profile *p, const struct sim_soc *s, bool cube,
                         enum sim_dtype dt, double flops, double bytes);

/* ---- hb.c: happens-before, and every use of device bytes ----
 *
 * The allocator sanitizer's facts: which bytes each task reads and writes,
 * and whether two uses are ordered by what the program guarantees (events,
 * synchronisations, callbacks, notifies, value waits, replays), never by
 * simulated times. The simulator calls sim_uses for every task it runs
 * (copies, fills, device tasks, operators, value writes) and the host's
 * own uses come through the same call with stream NULL; two uses of
 * overlapping bytes of one space, at least one a write, neither ordered
 * before the other, are told to the reporter. A new kind of task calls
 * sim_hb_task when it runs (hb.h) and sim_uses with the bytes it touches;
 * a new kind of ordering calls the edge of hb.h that fits it. Nothing is
 * recorded while no reporter is set or ACLSIM_ALLOC_CHECK is off. */
enum sim_use_space {
    SIM_SPACE_DEVICE,       /* device bytes */
    SIM_SPACE_ALLOCATOR,    /* an allocator object (one byte at its address) */
    SIM_SPACE_REGISTRATION, /* a stream's allocator registration (the stream) */
    SIM_SPACE_DESC,         /* an allocator desc */
    SIM_SPACES
};
enum sim_use_role {
    SIM_USE_INPUT, SIM_USE_OUTPUT, SIM_USE_WORKSPACE, SIM_USE_TILING,
    SIM_USE_COPY_DST, SIM_USE_COPY_SRC, SIM_USE_FILL, SIM_USE_DEVTASK, SIM_USE_VALUE,
    SIM_USE_HOST_READ, SIM_USE_HOST_WRITE, SIM_USE_FREE,
    SIM_USE_ALLOCATOR, SIM_USE_REGISTRATION, SIM_USE_DESC,
    SIM_USE_UNREGISTER, SIM_USE_DESTROY_DESC
};
/* One use of [p, p+n) of a space, by the task of `stream` running now or
 * (stream NULL) by the host. */
struct sim_use {
    struct sim_stream *stream;
    uint32_t space, role;   /* enum sim_use_space, enum sim_use_role */
    bool write;
    uint64_t tag;           /* the caller's name for the work (an operator's number); 0 */
    const char *call;       /* a host use: the call that made it (a static string) */
    const void *graph;      /* a task of this graph's replay (struct sim_graph), or NULL */
    const void *p;
    size_t n;
    uint64_t at;            /* simulated time it ran (ps): for reports only */
};
/* A race of two tasks: now[i] and before[i] touch shared bytes, one
 * writes, and neither is ordered before the other. The n pairs are every
 * such pair of one task with one earlier task in one space (an operator's
 * output, workspace and tiling record racing with another's are one race
 * of two tasks, as ThreadSanitizer tells one race per pair of accesses),
 * in the order the later task lists its uses (sim_op_uses: inputs, then
 * output, then blocks): the first is the one a report names. Called with
 * no simulator lock but maybe the queue's: it must not call the
 * simulator. */
typedef void (*sim_race_fn)(const struct sim_use *now, const struct sim_use *before, int n);
void sim_hb_reporter(sim_race_fn fn);
/* Whether uses are recorded (a reporter is set and the check is on). */
bool sim_hb_on(void);
/* Whether a use of the host's own could race with nothing now or later
 * (no use kept, no operator held, no host task running, no stream queue):
 * a host use may then be skipped without looking its bytes up. */
bool sim_hb_quiet(void);
/* The n uses of one task (or host call), all of u[0].stream: checked,
 * then recorded. */
void sim_uses(const struct sim_use *u, int n);
void sim_use(const struct sim_use *u);
/* The uses an operator queued behind a wait will make (key: its queued
 * copy): until sim_hb_unhold, every use of those bytes by the host or
 * another stream races with it. */
#define SIM_OP_USES (SIM_OP_MAX_IN + SIM_OP_MAX_OUT + 5)
void sim_hb_hold(const void *key, struct sim_stream *s, const struct sim_use *u, int n);
void sim_hb_unhold(const void *key);
/* The uses an operator makes (its inputs, output, blocks, allocator),
 * into u[SIM_OP_USES]; returns how many. */
int sim_op_uses(struct sim_stream *s, const struct sim_op *op, struct sim_use *u);
/* A host task (callback) of s runs on this thread from enter to exit:
 * it is ordered after s's work before it and, when blocking, before s's
 * later work; the host's own clock is not touched (another thread's). */
void sim_hb_callback_enter(struct sim_stream *s);
void sim_hb_callback_exit(struct sim_stream *s, bool blocking);
/* Records kept (tests). */
size_t sim_use_count(void);

/* ---- vmm.c: virtual memory (reservations, physical handles, mappings) ----
 *
 * A reserved range is device address space with nothing behind it: copies
 * into it are refused (sim_vmm_lookup says SIM_VMM_UNMAPPED) and a host
 * dereference faults. Physical memory is taken from the device's HBM (it
 * counts in sim_mem_usage); mapping it into a reserved range makes that
 * range device memory to copies and fills; one handle mapped at two
 * addresses shows the same bytes at both. *why, where given, is set to a
 * static sentence saying what is wrong (NULL: host memory ran out). */

/* Access of a mapping (aclrtMemAccessFlags' values). */
enum { SIM_ACCESS_NONE = 0, SIM_ACCESS_READ = 1, SIM_ACCESS_READWRITE = 3 };

/* The granularity of physical memory of a page kind (2 MB; 1 GB pages:
 * 1 GB, SIM_EUNSUPPORTED where the profile has none). pre: dev valid. */
enum sim_rc sim_vmm_granularity(int32_t dev, enum sim_page page, uint64_t *g);
/* Reserve size bytes (rounded up to 2 MB) of device address space on the
 * open device dev, at expect when not NULL (aligned to 2 MB, 1 GB for a
 * size of 1 GB or more; SIM_EUNSUPPORTED on Ascend 950). SIM_ENOMEM when
 * no such range is free. */
enum sim_rc sim_vmm_reserve(int32_t dev, uint64_t size, void *expect, void **va,
                            const char **why);
/* Release the reservation starting at va (SIM_EINVAL while something is
 * mapped in it). */
enum sim_rc sim_vmm_release(void *va, const char **why);
/* Physical memory of size bytes (rounded up to its page) on the open
 * device dev: SIM_ENOMEM when HBM is exhausted. */
enum sim_rc sim_vmm_phys_alloc(int32_t dev, uint64_t size, enum sim_page page, void **handle);
/* Drop one reference to a handle; its memory goes once no reference and
 * no mapping is left. SIM_EINVAL for no live handle. */
enum sim_rc sim_vmm_phys_free(void *handle);
struct sim_phys_info {
    int32_t dev;
    uint64_t size; /* as requested */
    enum sim_page page;
};
enum sim_rc sim_vmm_phys_info(void *handle, struct sim_phys_info *out);
/* Map the whole of handle at va (size must be its size, offset 0, va
 * aligned to its page, inside one reservation, nothing mapped there). */
enum sim_rc sim_vmm_map(void *va, uint64_t size, uint64_t offset, void *handle, uint32_t access,
                        const char **why);
/* Unmap the mapping starting at va. */
enum sim_rc sim_vmm_unmap(void *va, const char **why);
/* A new reference to the handle mapped at va (the start of a mapping). */
enum sim_rc sim_vmm_retain(void *va, void **handle, const char **why);
/* Read (set false) or change the access of the mapping starting at va
 * (size must be its size). */
enum sim_rc sim_vmm_access(void *va, uint64_t size, bool set, uint32_t *access, const char **why);
enum sim_vmm_kind { SIM_VMM_NONE, SIM_VMM_UNMAPPED, SIM_VMM_MAPPED };
/* What ptr is: not a reserved address, reserved with nothing (accessible)
 * mapped there, or mapped: then *b is the run of contiguous accessible
 * mappings around it (copies may span mappings). */
enum sim_vmm_kind sim_vmm_lookup(const void *ptr, struct sim_block *b);
/* The mapping holding ptr: its start and size. */
enum sim_rc sim_vmm_range(const void *ptr, void **base, uint64_t *size);
struct sim_vmm_usage {
    uint64_t reserved, mapped, physical; /* bytes */
    uint64_t reservations, handles;
};
void sim_vmm_usage(int32_t dev, struct sim_vmm_usage *u);
/* Each live reservation (aux: bytes mapped in it) and each physical handle
 * the program still holds (aux: its mappings), for leak reports. fn runs
 * under the device's lock. Returns how many. */
enum { SIM_VMM_LIVE_RESERVATION, SIM_VMM_LIVE_PHYSICAL };
typedef void (*sim_vmm_live_fn)(int kind, void *addr, uint64_t size, uint64_t aux, void *user);
enum { SIM_VMM_LIVE_POOL = 2 }; /* sim_pool_live: addr the pool, size reserved, aux used */
size_t sim_vmm_live(int32_t dev, sim_vmm_live_fn fn, void *user);

/* ---- pool.c: stream-ordered memory pools (see pool.c for the reuse
 * rules in simulated time) ---- */
struct sim_pool;
enum sim_pool_attr {
    SIM_POOL_REUSE_FOLLOW_EVENTS = 1, /* aclrtMemPoolAttr's values */
    SIM_POOL_REUSE_OPPORTUNISTIC = 2,
    SIM_POOL_REUSE_INTERNAL = 3,
    SIM_POOL_RELEASE_THRESHOLD = 4,
    SIM_POOL_RESERVED = 5,
    SIM_POOL_RESERVED_HIGH = 6,
    SIM_POOL_USED = 7,
    SIM_POOL_USED_HIGH = 8
};
/* A pool of device dev holding at most max bytes (0: the device's HBM). */
enum sim_rc sim_pool_create(int32_t dev, uint64_t max, struct sim_pool **out);
/* Destroy the pool, with whatever it holds: blocks still handed out go
 * too (*in_use says how many bytes). SIM_EINVAL for no live pool. */
enum sim_rc sim_pool_destroy(struct sim_pool *p, uint64_t *in_use);
bool sim_pool_valid(const struct sim_pool *p);
/* Read or set an attribute (SIM_EINVAL: no live pool, a read-only or an
 * unknown attribute; SIM_EPERM: a value the pool refuses, a release
 * threshold above its maximum or a high-water mark other than 0). A
 * reuse switch stores 1 for any value but 0; a set of a high-water mark
 * resets it to the current figure. */
enum sim_rc sim_pool_attr(struct sim_pool *p, enum sim_pool_attr a, bool set, uint64_t *v);
/* SIM_EPERM past the pool's maximum, SIM_ENOMEM past the device's pages. */
enum sim_rc sim_pool_malloc(struct sim_pool *p, uint64_t size, struct sim_stream *s, void **ptr);
/* SIM_EINVAL unless ptr is a block a pool handed out. */
enum sim_rc sim_pool_free(void *ptr, struct sim_stream *s);
bool sim_pool_owns(const void *ptr);
/* Whether ptr lies in memory some pool holds, handed out or idle (CANN's
 * SomaApi::InMemPoolRegion). */
bool sim_pool_region(const void *ptr);
/* Give idle memory back down to keep bytes (never below what is handed
 * out). SIM_EPERM for keep above the pool's maximum, SIM_EINVAL for no
 * live pool. */
enum sim_rc sim_pool_trim(struct sim_pool *p, uint64_t keep);
/* A synchronisation with device dev's work: pools release what is idle
 * above their threshold. */
void sim_pool_on_sync(int32_t dev);
/* Event records, waits and destroys, for reuse that follows events. */
void sim_pool_note_record(const void *event, struct sim_stream *s);
void sim_pool_note_wait(struct sim_stream *s, const void *event);
void sim_pool_note_forget(const void *event);
size_t sim_pool_live(int32_t dev, sim_vmm_live_fn fn, void *user);
/* Forget every pool of a closing device. */
void sim_pool_close(int32_t dev);
/* The device of a stream; make s wait until simulated time t (in its turn,
 * as every task of s). */
int32_t sim_stream_device(struct sim_stream *s);
void sim_stream_wait_until(struct sim_stream *s, uint64_t t);

/* ---- devtask.c: device tasks ----
 *
 * Tasks the device runs without a kernel: SDMA reductions (dst = dst op
 * src, element by element), the DSA's random numbers (Philox4x32-10), and
 * the float-overflow status words (nothing overflows on the simulator, so
 * the status reads clean). Like copies, a task moves its bytes when it
 * runs (at once, or when a wait holding its stream is satisfied) and takes
 * simulated time on its stream. */

enum sim_devtask_kind {
    SIM_DEVTASK_REDUCE, SIM_DEVTASK_RANDOM, SIM_DEVTASK_STATUS, SIM_DEVTASK_STATUS_RESET
};
enum sim_reduce_op { SIM_RED_SUM, SIM_RED_MAX, SIM_RED_MIN };
enum sim_elem { SIM_EL_F32, SIM_EL_F16, SIM_EL_BF16, SIM_EL_I8, SIM_EL_I16, SIM_EL_I32,
                SIM_EL_U32, SIM_EL_I64, SIM_EL_U64 };
enum sim_rand_dist { SIM_RAND_DROPOUT, SIM_RAND_UNIFORM, SIM_RAND_NORMAL, SIM_RAND_TRUNC_NORMAL };

/* A parameter of a random task: its bytes (little-endian, `size` of them)
 * or, with `addr`, the device address the device reads them from. */
struct sim_rand_param {
    bool addr;
    uint8_t size;
    uint64_t raw;
};

struct sim_devtask {
    enum sim_devtask_kind kind;
    /* REDUCE: n bytes of elements at dst and src; STATUS: n bytes at dst;
     * RANDOM: the results at dst. */
    void *dst;
    const void *src;
    uint64_t n;
    enum sim_reduce_op op;
    enum sim_elem type; /* REDUCE and RANDOM */
    /* RANDOM: p1, p2 are min and max (UNIFORM), mean and stddev (NORMAL,
     * TRUNC_NORMAL) or the dropout ratio (p1) in `type`; seed and num are
     * 64-bit; counter is the 16-byte Philox counter on the device. */
    enum sim_rand_dist dist;
    struct sim_rand_param p1, p2, seed, num;
    void *counter;
};

/* Run b on stream s of device dev (pre: device ranges checked by the
 * caller). SIM_EHOSTMEM when scratch memory runs out, SIM_EIO on an
 * injected copy-engine fault (reductions and status copies are SDMA work). */
enum sim_rc sim_devtask(int32_t dev, struct sim_stream *s, const struct sim_devtask *b);

/* Philox4x32-10 (Salmon et al., SC'11): the four words for counter ctr
 * under key (exposed for its known-answer test). */
void sim_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* ---- limits.c: core limits, device settings, what the SoC can do ----
 *
 * Kept for the program, not enforced: a kernel uses every core of its unit
 * whatever the limits say, and nothing the simulator runs overflows or
 * times out. pre (every call): dev < SIM_MAX_DEVICES; s a live stream. */

/* The kinds of core a limit counts (aclrtDevResLimitType). */
enum sim_core { SIM_CORE_CUBE, SIM_CORE_VECTOR };
/* How many cores of the kind device dev has, as CANN's runtime counts them
 * for its limits: the SoC's ai_core_cnt for cube cores, vector_core_cnt for
 * vector cores; 0 when the SoC has no platform facts. */
uint32_t sim_core_count(int32_t dev, enum sim_core c);
/* Device dev's limit of the kind: the last one set, else its core count.
 * sim_core_limit_reset forgets both kinds' (sim_device_open does, as CANN
 * does each time a device opens). */
uint32_t sim_core_limit(int32_t dev, enum sim_core c);
void sim_core_limit_set(int32_t dev, enum sim_core c, uint32_t n);
void sim_core_limit_reset(int32_t dev);
/* Stream s's own limit of the kind: true and *n, or false when none is set
 * (its work then runs under its device's). Reset forgets both kinds'. */
bool sim_stream_core_limit(struct sim_stream *s, enum sim_core c, uint32_t *n);
void sim_stream_core_limit_set(struct sim_stream *s, enum sim_core c, uint32_t n);
void sim_stream_core_limit_reset(struct sim_stream *s);

/* Device-wide settings a program sets and reads back, kept per device
 * across opens: the saturation mode (aclrtSetDeviceSatMode) and the
 * operator wait timeout (aclrtSetOpWaitTimeout); 0 until set. */
enum sim_dev_setting {
    SIM_DS_SAT_MODE,
    SIM_DS_OP_WAIT_TIMEOUT,
    SIM_DS_COUNT
};
uint64_t sim_device_setting(int32_t dev, enum sim_dev_setting s);
void sim_device_set_setting(int32_t dev, enum sim_dev_setting s, uint64_t v);

/* Whether device dev's NPU arch runs SIMT code (3510: Ascend 950, 350). */
bool sim_device_simt(int32_t dev);
/* A SIMT limit of device dev (aclrtGetDeviceInfo's); 0 unless it runs
 * SIMT code. GRID_DIM and BLOCK_DIM hold for each of x, y and z. */
enum sim_simt {
    SIM_SIMT_WARP_SIZE,
    SIM_SIMT_THREADS_PER_VECTOR_CORE,
    SIM_SIMT_UB_PER_VECTOR_CORE, /* bytes */
    SIM_SIMT_GRID_DIM,
    SIM_SIMT_BLOCKS_PER_GRID,
    SIM_SIMT_THREADS_PER_BLOCK,
    SIM_SIMT_BLOCK_DIM
};
int64_t sim_simt_limit(int32_t dev, enum sim_simt what);
/* Whether the SDMA of device dev's SoC reduces elements of type e (an
 * SIM_DEVTASK_REDUCE task); false when the SoC has no platform facts. */
bool sim_reduce_supported(int32_t dev, enum sim_elem e);
/* Whether device dev's runtime updates tasks' tiling keys on the device
 * (ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV), and whether it records
 * uncorrectable memory errors (aclrtGetMemUceInfo; the simulator's memory
 * never has one). */
bool sim_device_task_update(int32_t dev);
bool sim_device_records_uce(int32_t dev);

/* ---- ipc.c and stream.c: events shared between processes ----
 *
 * An event created with SIM_EVENT_IPC keeps its state in a POSIX shared
 * memory object named after the creating process and a counter; its name
 * is what a handle carries. Opening the name, in this process or another
 * (forked or not), gives an event of the opening device that shares that
 * state: a record through either is seen by both. Times are per process:
 * a record made by another process counts as complete from time 0 here.
 * The name goes when the creating event is destroyed (later opens fail);
 * the state lives on while any process still has an event on it. */
#define SIM_IPC_NAME_MAX 48

/* The name of an IPC event's shared state: SIM_EINVAL for another event
 * (ipc.c). */
enum sim_rc sim_event_export(const struct sim_event *e, char name[SIM_IPC_NAME_MAX]);
/* An event of device dev on the state named `name`: SIM_EINVAL when no
 * IPC event of that name lives, SIM_ENOMEM at the device's event limit,
 * SIM_EHOSTMEM when host memory or the mapping cannot be had (stream.c). */
enum sim_rc sim_event_import(int32_t dev, const char *name, struct sim_event **out);

/* ---- ipcmem.c: device memory shared between processes ----
 *
 * An export backs the exported bytes of a live device block with a POSIX
 * shared memory object, "/aclsim-mem-<pid>-<n>" (a header page, then the
 * bytes), mapped over the block's host view: the key is the name without
 * its slash. An import in any process maps the same object at a fresh
 * range of its device's address space (not an allocation: it does not
 * count in sim_mem_usage), so both see the same bytes. The header keeps
 * the exporter, its device and flags and the pid whitelist; each open
 * import holds a shared flock on the object (a dead one holds none). The
 * exporter's close unlinks the name (later imports fail) and gives the
 * block its private bytes back; the object goes with its last mapping.
 * Names whose creating process died (events' and memory's) are unlinked
 * by the next export or IPC event of any process (sim_ipc_sweep). Keys are
 * SIM_IPC_KEY_MAX bytes. */
enum sim_ipc_role { SIM_IPC_EXPORTED = 1, SIM_IPC_IMPORTED = 2 };
struct sim_ipc_info {
    char key[SIM_IPC_KEY_MAX];
    int role;            /* enum sim_ipc_role */
    void *ptr;           /* the range in this process */
    uint64_t size;
    int32_t dev;         /* this process's device of the range */
    unsigned importers;  /* an export's: 1 while another process has it imported */
};
/* Export [ptr, ptr+size) of a live device block: SIM_EINVAL with *why when
 * the range is not inside one block or does not start and end on a page
 * of the block's kind, or overlaps a range exported already. */
enum sim_rc sim_ipc_mem_export(void *ptr, uint64_t size, uint64_t flags,
                               char key[SIM_IPC_KEY_MAX], const char **why);
/* Let the processes pids (n of them) import key; SIM_EINVAL when key is
 * not exported by this process. */
enum sim_rc sim_ipc_mem_set_pids(const char *key, const int32_t *pids, size_t n, const char **why);
/* Import key on open device dev: SIM_EINVAL when no live export has that
 * key, SIM_EPERM (with *why) when this process is not on its whitelist,
 * SIM_ENOMEM when no address range is left. peer: the import may be on
 * another device than the export (else SIM_EUNSUPPORTED for one). */
enum sim_rc sim_ipc_mem_import(int32_t dev, const char *key, bool peer, void **ptr,
                               const char **why);
/* Close key in this process: role 0, its import if it has one (the
 * first), else its export; role SIM_IPC_EXPORTED, its export only; *out says which, and for an export whether another process
 * still had it imported. SIM_EINVAL when neither. */
enum sim_rc sim_ipc_mem_close(const char *key, int role, struct sim_ipc_info *out,
                              const char **why);
/* The export or import (role: which, 0 either) of this process
 * overlapping [p, p+n): true and *out. */
bool sim_ipc_mem_find(const void *p, uint64_t n, int role, struct sim_ipc_info *out);
/* Call fn for each export and import this process has open; how many. */
size_t sim_ipc_mem_each(void (*fn)(const struct sim_ipc_info *i, void *user), void *user);
/* Shareable handles of physical memory (aclrtMemExportToShareableHandle):
 * export one per handle (SIM_EINVAL with *why for a handle exported
 * already, imported, or not live); let pids import it; import it on open
 * device dev as a handle of its own (SIM_EUNSUPPORTED in the exporting
 * process, SIM_EPERM off the whitelist, SIM_EINVAL when nothing lives
 * there). The bytes stay while any process holds a handle on them. */
enum sim_rc sim_ipc_handle_export(void *handle, uint64_t flags, uint64_t *shareable,
                                  const char **why);
enum sim_rc sim_ipc_handle_set_pids(uint64_t shareable, const int32_t *pids, size_t n,
                                    const char **why);
enum sim_rc sim_ipc_handle_import(uint64_t shareable, int32_t dev, void **handle,
                                  const char **why);
/* The exporter freed physical handle `handle`: its shareable handle, if
 * any, names no live export from now on (imports made keep their bytes).
 * pre: no device lock held (the IPC lock comes first). */
void sim_ipc_handle_forget(void *handle);
/* Unlink the shared objects (events', memory's) of processes that died. */
void sim_ipc_sweep(void);

#endif /* ACLSIM_SIM_SIM_H_ */

/*
 * sim.c - the simulator backend: struct be_ops over the NPU memory
 * simulator in sim/.
 *
 * Everything here is static except be_get(). The backend translates and
 * keeps no state of the device's: ACL enums and types to the simulator's
 * (page policies, data types, operator kinds, device attributes, core
 * kinds), and simulator results to the runtime codes CANN returns for the
 * same failure (rc_to_acl: out of device memory =
 * ACL_ERROR_RT_MEMORY_ALLOCATION, a bad free = ACL_ERROR_RT_MEMORY_FREE,
 * too many streams = ACL_ERROR_RT_NO_STREAM_RESOURCE). What a device has,
 * keeps and can do (settings, core limits, SoC facts) is the simulator's
 * (sim/limits.c, sim/config.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include "base/options.h"
#include "be.h"
#include "sim/clock.h"
#include "sim/sim.h"
#include "sim/snapshot.h"
#include "sim/trace.h"

struct ctx {
    int32_t dev;
};

/* Each open device's overflow buffer (aclrtCtxGetFloatOverflowAddr), once
 * asked for: 64 bytes of the runtime's own device memory that stay zero,
 * shared by the device's contexts, freed when the device closes and never
 * reported as the program's (live_blocks). */
static void *_Atomic overflow_buf[SIM_MAX_DEVICES];

/* The aclError CANN returns for a simulator result: if_nomem for device
 * memory or slots running out (each call passes the code of its kind of
 * resource), the runtime's own code for every other failure. */
static aclError rc_to_acl(enum sim_rc rc, aclError if_nomem)
{
    switch (rc) {
    case SIM_OK:
        return ACL_SUCCESS;
    case SIM_ENOMEM:
        return if_nomem;
    case SIM_EUNSUPPORTED:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case SIM_EHOSTMEM:
        return ACL_ERROR_BAD_ALLOC;
    case SIM_EIO:
        return ACL_ERROR_RT_COPY_DATA;
    case SIM_ETIMEOUT:
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    case SIM_EWAIT:
        return ACL_ERROR_RT_WAIT_TIMEOUT;
    case SIM_EPERM:
        return ACL_ERROR_RT_NO_PERMISSION;
    case SIM_EINVAL:
    default:
        return ACL_ERROR_RT_PARAM_INVALID;
    }
}

/* Simulator enums whose values are ACL's own, which the calls below pass
 * through unchanged: the compiler holds them to it. */
#define SAME(sim, acl) _Static_assert((int)(sim) == (int)(acl), #sim " is " #acl)
SAME(SIM_POOL_REUSE_FOLLOW_EVENTS, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES);
SAME(SIM_POOL_REUSE_OPPORTUNISTIC, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC);
SAME(SIM_POOL_REUSE_INTERNAL, ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES);
SAME(SIM_POOL_RELEASE_THRESHOLD, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD);
SAME(SIM_POOL_RESERVED, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT);
SAME(SIM_POOL_RESERVED_HIGH, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH);
SAME(SIM_POOL_USED, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT);
SAME(SIM_POOL_USED_HIGH, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH);
SAME(SIM_RAND_DROPOUT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK);
SAME(SIM_RAND_UNIFORM, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS);
SAME(SIM_RAND_NORMAL, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS);
SAME(SIM_RAND_TRUNC_NORMAL, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS);
SAME(SIM_UVM_SET_READ_MOSTLY, ACL_MEM_ADVISE_SET_READ_MOSTLY);
SAME(SIM_UVM_UNSET_READ_MOSTLY, ACL_MEM_ADVISE_UNSET_READ_MOSTLY);
SAME(SIM_UVM_SET_PREFERRED, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION);
SAME(SIM_UVM_UNSET_PREFERRED, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION);
SAME(SIM_UVM_SET_ACCESSED_BY, ACL_MEM_ADVISE_SET_ACCESSED_BY);
SAME(SIM_UVM_UNSET_ACCESSED_BY, ACL_MEM_ADVISE_UNSET_ACCESSED_BY);
SAME(SIM_UVM_DEVICE, ACL_MEM_LOCATIONTYPE_DEVICE);
SAME(SIM_WAIT_GEQ, ACL_STREAM_WAIT_VALUE_GEQ);
SAME(SIM_WAIT_EQ, ACL_STREAM_WAIT_VALUE_EQ);
SAME(SIM_WAIT_AND, ACL_STREAM_WAIT_VALUE_AND);
SAME(SIM_WAIT_NOR, ACL_STREAM_WAIT_VALUE_NOR);
SAME(SIM_ACCESS_NONE, ACL_RT_MEM_ACCESS_FLAGS_NONE);
SAME(SIM_ACCESS_READ, ACL_RT_MEM_ACCESS_FLAGS_READ);
SAME(SIM_ACCESS_READWRITE, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
#undef SAME

static aclError init(const char **why)
{
    if (sim_configure(why) != SIM_OK)
        return ACL_ERROR_INVALID_PARAM;
    sim_hold_configure((uint32_t)opt_uint(OPT_WAIT_GRACE_MS));
    const char *trace = opt_str(OPT_TRACE);
    if (trace && !sim_trace_enabled() && sim_trace_open(trace) != SIM_OK) {
        *why = opt_invalid(OPT_TRACE, "the file cannot be created");
        return ACL_ERROR_INVALID_PARAM;
    }
    const char *snap = opt_str(OPT_SNAPSHOT);
    if (snap && !sim_snapshot_enabled() && sim_snapshot_open(snap) != SIM_OK) {
        *why = opt_invalid(OPT_SNAPSHOT, "the file cannot be created");
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

static void fini(void)
{
    sim_host_forget_all();
    /* A trace that cannot be written (a full disk, /dev/full) is not lost
     * without a word. */
    if (sim_trace_enabled() && sim_trace_close() != SIM_OK)
        fprintf(stderr, "aclsim: ACLSIM_TRACE=%s: the trace could not be written in full (a "
                "full disk, or a file that takes no data)\n", opt_str(OPT_TRACE));
    if (sim_snapshot_enabled() && sim_snapshot_close() != SIM_OK)
        fprintf(stderr, "aclsim: ACLSIM_SNAPSHOT=%s: the snapshot could not be written in full\n",
                opt_str(OPT_SNAPSHOT));
}

static aclError device_count(uint32_t *count)
{
    *count = sim_device_count();
    return ACL_SUCCESS;
}

static aclError device_open(int32_t dev)
{
    return rc_to_acl(sim_device_open(dev), ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static void device_close(int32_t dev)
{
    void *o = atomic_exchange(&overflow_buf[dev], NULL);
    if (o)
        sim_mem_free(o);
    sim_device_close(dev);
}

static const char *soc_name(int32_t dev)
{
    return sim_device_profile(dev)->name;
}

static aclError ctx_create(int32_t dev, void **out)
{
    struct ctx *c = base_malloc(sizeof *c);
    if (!c)
        return ACL_ERROR_BAD_ALLOC;
    c->dev = dev;
    *out = c;
    return ACL_SUCCESS;
}

static void ctx_destroy(void *c)
{
    base_free(c);
}

static aclError stream_create(void *c, uint32_t priority, uint32_t flags, void **out)
{
    struct sim_stream *s;
    aclError rc = rc_to_acl(sim_stream_create(((struct ctx *)c)->dev, &s),
                            ACL_ERROR_RT_NO_STREAM_RESOURCE);
    if (rc == ACL_SUCCESS) {
        /* Kept for the program: the simulator schedules streams alike. */
        sim_stream_set_prop(s, SIM_SP_PRIORITY, priority);
        sim_stream_set_prop(s, SIM_SP_FLAGS, flags);
        *out = s;
    }
    return rc;
}

static aclError stream_destroy(void *s)
{
    sim_stream_destroy(s);
    return ACL_SUCCESS;
}

static aclError stream_sync(void *s, int32_t timeout_ms)
{
    aclError rc = rc_to_acl(sim_stream_sync(s, timeout_ms), ACL_ERROR_RT_INTERNAL_ERROR);
    if (rc == ACL_SUCCESS)
        sim_pool_on_sync(sim_stream_device(s)); /* pools release idle memory */
    return rc;
}

static aclError stream_query(void *s, int *done)
{
    *done = sim_stream_done(s);
    return ACL_SUCCESS;
}

static aclError ctx_sync(void *c, void *const *streams, size_t n, int32_t timeout_ms)
{
    aclError rc = rc_to_acl(sim_streams_sync((struct sim_stream *const *)streams, n, timeout_ms),
                            ACL_ERROR_RT_INTERNAL_ERROR);
    if (rc == ACL_SUCCESS)
        sim_pool_on_sync(((struct ctx *)c)->dev);
    return rc;
}

static aclError event_create(int32_t dev, uint32_t flags, void **out)
{
    struct sim_event *e;
    uint32_t f = (flags & ACL_EVENT_TIME_LINE ? SIM_EVENT_TIMELINE : 0) |
                 (flags & ACL_EVENT_IPC ? SIM_EVENT_IPC : 0) |
                 (flags & ACL_EVENT_EXTERNAL ? SIM_EVENT_EXTERNAL : 0);
    aclError rc = rc_to_acl(sim_event_create(dev, f, &e), ACL_ERROR_RT_NO_EVENT_RESOURCE);
    if (rc == ACL_SUCCESS)
        *out = e;
    return rc;
}

static aclError event_destroy(void *e)
{
    sim_pool_note_forget(e);
    sim_event_destroy(e);
    return ACL_SUCCESS;
}

static aclError event_record(void *e, void *s)
{
    sim_event_record(e, s);
    sim_pool_note_record(e, s); /* stream-ordered pools follow events */
    return ACL_SUCCESS;
}

static aclError event_reset(void *e, void *s)
{
    sim_event_reset(e, s);
    return ACL_SUCCESS;
}

static aclError event_wait(void *s, void *e)
{
    sim_event_wait(s, e);
    sim_pool_note_wait(s, e);
    return ACL_SUCCESS;
}

/* ---- Captured work: sim/graph.c ---- */

static aclError graph_begin(void *s, int mode)
{
    (void)mode; /* which calls a capture takes is the ACL layer's rule */
    struct sim_graph *g;
    return rc_to_acl(sim_graph_begin(s, &g), ACL_ERROR_BAD_ALLOC);
}

static aclError graph_join(void *origin, void *s)
{
    return rc_to_acl(sim_graph_join(sim_stream_graph(origin), s),
                     ACL_ERROR_RT_NO_STREAM_RESOURCE);
}

static aclError graph_end(void *origin, void **graph)
{
    struct sim_graph *g = sim_stream_graph(origin);
    sim_graph_end(g);
    *graph = g;
    return ACL_SUCCESS;
}

static aclError graph_launch(void *g, void *s)
{
    return rc_to_acl(sim_graph_launch(g, s), ACL_ERROR_RT_NO_STREAM_RESOURCE);
}

static void graph_destroy(void *g)
{
    sim_graph_destroy(g);
}

static aclError group_begin(void *s)
{
    struct sim_group *g;
    return rc_to_acl(sim_group_begin(s, &g), ACL_ERROR_BAD_ALLOC);
}

static aclError group_end(void *s, void **group)
{
    struct sim_stream *st = s;
    *group = sim_stream_group(st);
    sim_group_end(st);
    return ACL_SUCCESS;
}

static aclError group_update(void *s, void *group)
{
    sim_group_update(s, group);
    return ACL_SUCCESS;
}

static aclError graph_cond(void *s, uint64_t *word, int type, unsigned n, void **subs)
{
    return rc_to_acl(sim_graph_cond(s, word, type, n, (struct sim_graph **)subs),
                     ACL_ERROR_BAD_ALLOC);
}

static aclError graph_begin_into(void *s, int mode, void *graph)
{
    (void)mode; /* the ACL layer keeps the modes */
    return rc_to_acl(sim_graph_begin_into(s, graph), ACL_ERROR_BAD_ALLOC);
}

static void *graph_last_task(void *s)
{
    return sim_stream_last_recorded(s);
}

static aclError graph_task_edit(void *graph, void *task, const struct be_task_edit *e)
{
    int how = e->how == BE_EDIT_DISABLE ? SIM_EDIT_DISABLE
              : e->how == BE_EDIT_VALUE_WRITE ? SIM_EDIT_VALUE_WRITE : SIM_EDIT_VALUE_WAIT;
    return rc_to_acl(sim_graph_edit(graph, task, how, e->addr, e->value, e->flag),
                     ACL_ERROR_RT_PARAM_INVALID);
}

static aclError graph_abort(void *graph)
{
    sim_graph_abort(graph);
    return ACL_SUCCESS;
}

static aclError label_create(void **label)
{
    return rc_to_acl(sim_label_create((struct sim_label **)label), ACL_ERROR_BAD_ALLOC);
}

static void label_destroy(void *label)
{
    sim_label_destroy(label);
}

static aclError label_list_create(void *const *labels, size_t n, void **list)
{
    return rc_to_acl(sim_label_list_create((struct sim_label *const *)labels, n,
                                           (struct sim_label_list **)list),
                     ACL_ERROR_BAD_ALLOC);
}

static void label_list_destroy(void *list)
{
    sim_label_list_destroy(list);
}

static aclError label_set(void *label, void *s)
{
    return rc_to_acl(sim_label_set(label, s), ACL_ERROR_BAD_ALLOC);
}

static aclError label_switch(void *index, uint32_t max, void *list, void *s)
{
    (void)max; /* the list's own count is its length (the ACL layer checked them equal) */
    return rc_to_acl(sim_label_switch(index, list, s), ACL_ERROR_BAD_ALLOC);
}

static aclError event_sync(void *e, int32_t timeout_ms)
{
    enum sim_rc rc = sim_event_sync(e, timeout_ms);
    return rc == SIM_ETIMEOUT ? ACL_ERROR_RT_EVENT_SYNC_TIMEOUT : rc_to_acl(rc, 0);
}

static aclError event_query(void *e, int *done)
{
    *done = sim_event_done(e);
    return ACL_SUCCESS;
}

static aclError event_elapsed(void *a, void *b, float *ms)
{
    switch (sim_event_elapsed(a, b, ms)) {
    case SIM_OK:
        return ACL_SUCCESS;
    case SIM_ENOTREADY:
        return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    case SIM_EORDER:
        return ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL;
    default:
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
}

static enum sim_policy policy_of(aclrtMemMallocPolicy p)
{
    switch ((int)p) {
    case ACL_MEM_MALLOC_HUGE_FIRST:
    case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
        return SIM_POLICY_HUGE_FIRST;
    case ACL_MEM_MALLOC_HUGE_ONLY:
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
        return SIM_POLICY_HUGE_ONLY;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
        return SIM_POLICY_NORMAL_ONLY;
    case ACL_MEM_MALLOC_HUGE1G_ONLY:
    case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
        return SIM_POLICY_HUGE1G_ONLY;
    default:
        return SIM_POLICY_DEFAULT;
    }
}

static aclError mem_alloc(int32_t dev, size_t size, aclrtMemMallocPolicy policy, unsigned flags,
                          void **ptr)
{
    enum sim_rc rc = flags & BE_ALLOC_DVPP
                         ? sim_dvpp_alloc(dev, size, ptr)
                         : sim_mem_alloc(dev, size, policy_of(policy), flags & BE_ALLOC_NO_PAD, ptr);
    return rc == SIM_OK ? ACL_SUCCESS : rc_to_acl(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError mem_free(void *ptr)
{
    if (sim_mem_free(ptr) == SIM_OK || sim_managed_free(ptr) == SIM_OK) /* aclrtFree takes both */
        return ACL_SUCCESS;
    return ACL_ERROR_RT_MEMORY_FREE;
}

/* The driver frees any device block by its address, DVPP's too
 * (hicann/runtime src/runtime/api/impl/api_impl.cc:2396-2423, DevDvppFree:
 * a device location, then DevMemFree). */
static aclError dvpp_free(void *ptr)
{
    return sim_mem_free(ptr) == SIM_OK ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_FREE;
}

static aclError host_alloc(size_t size, void **ptr)
{
    return rc_to_acl(sim_host_alloc(size, ptr), ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError host_free(void *ptr)
{
    return sim_host_free(ptr) == SIM_OK ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_FREE;
}

static void lookup(const void *ptr, struct be_ptr_info *info)
{
    struct sim_block b;
    struct sim_host_block hb;
    void *start;
    size_t size;
    *info = (struct be_ptr_info){.kind = BE_PTR_UNKNOWN, .device = -1};
    if (sim_mem_lookup(ptr, &b)) {
        *info = (struct be_ptr_info){BE_PTR_DEVICE, b.dev, b.start, (size_t)b.usable,
                                     b.page_size};
    } else if (sim_host_lookup(ptr, &start, &size)) {
        *info = (struct be_ptr_info){BE_PTR_HOST_PINNED, -1, start, size, 4096};
    } else if (sim_host_find(ptr, &hb)) {
        bool managed = hb.kind == SIM_HOST_MANAGED;
        *info = (struct be_ptr_info){managed ? BE_PTR_MANAGED : BE_PTR_HOST_REGISTERED, -1,
                                     hb.start, hb.size, managed ? 2u << 20 : 4096};
    } else if (sim_mem_in_range(ptr)) {
        /* a reserved virtual range (mapped or not), or freed memory */
        enum sim_vmm_kind k = sim_vmm_lookup(ptr, &b);
        if (k == SIM_VMM_MAPPED)
            *info = (struct be_ptr_info){BE_PTR_DEVICE, b.dev, b.start, (size_t)b.usable,
                                         b.page_size};
        else
            info->kind = k == SIM_VMM_UNMAPPED ? BE_PTR_VA_UNMAPPED : BE_PTR_DEVICE_FREE;
    }
}

static aclError mem_copy(int32_t dev, void *stream, void *dst, const void *src, size_t count,
                         aclrtMemcpyKind kind, int host_waits)
{
    bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    unsigned flags = (host_waits & BE_COPY_WAIT ? SIM_COPY_WAIT : 0) |
                     (host_waits & BE_COPY_PAGEABLE ? SIM_COPY_PAGEABLE : 0);
    return rc_to_acl(sim_copy(dev, stream, dst, dst_dev, src, src_dev, count, flags),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_set(int32_t dev, void *stream, void *dst, int dst_dev, int value,
                        size_t count, int host_waits)
{
    return rc_to_acl(sim_fill(dev, stream, dst, dst_dev, value, count, host_waits),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_info(int32_t dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    uint64_t used, heap;
    switch ((int)attr) {
    case ACL_DDR_MEM:
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_HUGE:
    case ACL_DDR_MEM_P2P_NORMAL:
        /* The simulated devices have HBM only. */
        *free_bytes = *total = 0;
        return ACL_SUCCESS;
    default:
        break;
    }
    /* Total: what the heap hands out (the driver's reserve is not in it);
     * free: what of that no live block holds. */
    sim_mem_usage(dev, &used, NULL, &heap);
    *total = (size_t)heap;
    *free_bytes = (size_t)(heap - used);
    return ACL_SUCCESS;
}

static size_t mem_usage(int32_t dev, struct be_usage *out, size_t max)
{
    struct be_usage lines[2] = {{"aclrtMalloc", 0, 0}, {"aclrtMallocHost", 0, 0}};
    sim_mem_usage(dev, &lines[0].cur, &lines[0].peak, NULL);
    sim_host_usage(&lines[1].cur, &lines[1].peak);
    for (size_t i = 0; i < 2 && i < max; i++)
        out[i] = lines[i];
    return 2;
}

struct live_ctx {
    void (*fn)(void *start, size_t size, void *const *frames, int n, void *user);
    void *user;
    size_t ours; /* blocks of the runtime's own (overflow buffers) */
};

static void each_live(const struct sim_block *b, void *const *frames, int n, void *user)
{
    struct live_ctx *c = user;
    if (b->start == atomic_load(&overflow_buf[b->dev])) {
        c->ours++;
        return;
    }
    c->fn(b->start, (size_t)b->usable, frames, n, c->user);
}

static size_t live_blocks(int32_t dev,
                          void (*fn)(void *start, size_t size, void *const *frames, int n,
                                     void *user),
                          void *user)
{
    struct live_ctx c = {fn, user, 0};
    size_t n = sim_mem_live(dev, each_live, &c);
    return n - c.ours;
}

static aclError clock_read(int which, int32_t dev, void *stream, uint64_t *ps)
{
    switch (which) {
    case BE_CLOCK_HOST:
        *ps = sim_clock_host();
        return ACL_SUCCESS;
    case BE_CLOCK_DEVICE:
        *ps = sim_clock_device_now(dev);
        return ACL_SUCCESS;
    default:
        *ps = sim_stream_now(stream);
        return ACL_SUCCESS;
    }
}

static aclError clock_reset(void)
{
    sim_clock_reset(); /* happens-before keeps no times: nothing else to reset */
    return ACL_SUCCESS;
}

static void note(const char *what, const void *a, const void *b)
{
    if (!sim_trace_enabled())
        return;
    char arg[96];
    if (b)
        snprintf(arg, sizeof arg, "stream=%p desc=%p", a, b);
    else
        snprintf(arg, sizeof arg, "stream=%p (no allocator registered)", a);
    sim_trace_instant(-1, what, sim_clock_host(), arg);
}

static void graph_label(void *g, const char *label)
{
    sim_graph_label(g, label);
}

static void mark(const void *stream, const char *name, const char *text, uint64_t at)
{
    sim_trace_mark(stream, name, at == UINT64_MAX ? SIM_PS_FOREVER : at, text);
}

static void describe(char *buf, size_t len)
{
    const struct sim_profile *p = sim_device_profile(0);
    snprintf(buf, len, "sim (NPU memory simulator: %s, %u device(s), %llu MiB HBM each)",
             p->name, sim_device_count(), (unsigned long long)(sim_device_capacity(0) >> 20));
}

/* ---- streams, events, notifies, peers ---- */

static aclError stream_prop(void *stream, int prop, int set, uint64_t *val)
{
    static const enum sim_stream_prop of[] = {
        [BE_SP_PRIORITY] = SIM_SP_PRIORITY, [BE_SP_FLAGS] = SIM_SP_FLAGS,
        [BE_SP_FAILURE_MODE] = SIM_SP_FAILURE_MODE, [BE_SP_OVERFLOW] = SIM_SP_OVERFLOW,
        [BE_SP_TAG] = SIM_SP_TAG, [BE_SP_CACHE_OP] = SIM_SP_CACHE_OP};
    if (prop == BE_SP_ID) {
        *val = sim_stream_id(stream);
        return set ? ACL_ERROR_RT_PARAM_INVALID : ACL_SUCCESS;
    }
    if (set)
        sim_stream_set_prop(stream, of[prop], *val);
    else
        *val = sim_stream_prop(stream, of[prop]);
    return ACL_SUCCESS;
}

static aclError stream_abort(void *stream)
{
    sim_stream_abort(stream);
    return ACL_SUCCESS;
}

static aclError avail(int32_t dev, int what, uint32_t *n)
{
    *n = what == BE_AVAIL_STREAM ? sim_stream_avail(dev) : sim_event_avail(dev);
    return ACL_SUCCESS;
}

static aclError event_info(void *e, int what, uint64_t *val)
{
    switch (what) {
    case BE_EV_ID:
        *val = sim_event_id(e);
        return ACL_SUCCESS;
    case BE_EV_WAITED:
        *val = sim_event_waited(e);
        return ACL_SUCCESS;
    default:
        switch (sim_event_timestamp(e, val)) {
        case SIM_OK:
            *val /= 1000000u; /* ps to us */
            return ACL_SUCCESS;
        case SIM_ENOTREADY:
            return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
        default:
            return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
        }
    }
}

/* The simulator's device-wide setting for the ACL layer's BE_DP_*. */
static enum sim_dev_setting setting_of(int prop)
{
    return prop == BE_DP_SAT_MODE ? SIM_DS_SAT_MODE : SIM_DS_OP_WAIT_TIMEOUT;
}

static aclError dev_prop(int32_t dev, int prop, int set, uint64_t *val)
{
    if (set)
        sim_device_set_setting(dev, setting_of(prop), *val);
    else
        *val = sim_device_setting(dev, setting_of(prop));
    return ACL_SUCCESS;
}

static aclError notify_create(int32_t dev, void **out)
{
    struct sim_notify *n;
    aclError rc = rc_to_acl(sim_notify_create(dev, &n), ACL_ERROR_RT_NO_NOTIFY_RESOURCE);
    if (rc == ACL_SUCCESS)
        *out = n;
    return rc;
}

static aclError notify_destroy(void *n)
{
    sim_notify_destroy(n);
    return ACL_SUCCESS;
}

static aclError notify_record(void *n, void *s)
{
    sim_notify_record(n, s);
    return ACL_SUCCESS;
}

static aclError notify_wait(void *n, void *s, uint32_t timeout_s)
{
    sim_notify_wait(n, s, timeout_s);
    return ACL_SUCCESS;
}

static aclError notify_reset(void *n)
{
    sim_notify_reset(n);
    return ACL_SUCCESS;
}

static aclError notify_export(void *n, uint64_t flags, char *key, const char **why)
{
    enum sim_rc rc = sim_notify_export(n, flags & ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION
                                              ? SIM_NOTIFY_NO_PID_CHECK : 0, key);
    if (rc == SIM_EINVAL) {
        *why = "the notify was exported already (one key per notify)";
        return ACL_ERROR_RT_INTERNAL_ERROR; /* notify.cc CreateIpcNotify: RT_ERROR_NOTIFY_TYPE */
    }
    return rc_to_acl(rc, ACL_ERROR_BAD_ALLOC);
}

static aclError notify_set_pids(void *n, int32_t *pids, size_t num, const char **why)
{
    return rc_to_acl(sim_notify_set_pids(n, pids, num, why), ACL_ERROR_RT_PARAM_INVALID);
}

static aclError notify_import(int32_t dev, const char *key, uint64_t flags, void **out,
                              const char **why)
{
    (void)flags; /* one simulated server: every device reaches every other */
    struct sim_notify *n = NULL;
    enum sim_rc rc = sim_notify_import(dev, key, &n, why);
    if (rc == SIM_OK)
        *out = n;
    return rc_to_acl(rc, ACL_ERROR_RT_NO_NOTIFY_RESOURCE);
}

static aclError notify_id(void *n, uint32_t *id)
{
    *id = sim_notify_id(n);
    return ACL_SUCCESS;
}

static aclError value_write(void *s, void *addr, uint64_t value)
{
    sim_value_write(s, addr, value);
    return ACL_SUCCESS;
}

static aclError value_wait(void *s, void *addr, uint64_t value, uint32_t flag)
{
    sim_value_wait(s, addr, value, flag);
    return ACL_SUCCESS;
}

/* The simulated devices are one server's NPUs on one HCCS fabric: every
 * pair can reach each other (an assumption until the fabric is modelled). */
static aclError peer_can_access(int32_t dev, int32_t peer, int32_t *can)
{
    (void)dev, (void)peer;
    *can = 1;
    return ACL_SUCCESS;
}

static aclError peer_enable(int32_t dev, int32_t peer, int enable)
{
    (void)dev, (void)peer, (void)enable; /* the ACL layer keeps the state */
    return ACL_SUCCESS;
}

static aclError devices_topo(int32_t dev, int32_t other, uint64_t *topo)
{
    (void)dev, (void)other;
    *topo = ACL_RT_DEVS_TOPOLOGY_HCCS;
    return ACL_SUCCESS;
}

/* ---- versions, SoC and device queries ---- */

/* The simulator's SIMT limit answering attr: false for an attribute that
 * is none. */
static bool simt_of(aclrtDevAttr attr, enum sim_simt *what)
{
    switch ((int)attr) {
    case ACL_DEV_ATTR_WARP_SIZE:
        *what = SIM_SIMT_WARP_SIZE;
        return true;
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
        *what = SIM_SIMT_THREADS_PER_VECTOR_CORE;
        return true;
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
        *what = SIM_SIMT_UB_PER_VECTOR_CORE;
        return true;
    case ACL_DEV_ATTR_MAX_GRID_DIM_X:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
        *what = SIM_SIMT_GRID_DIM;
        return true;
    case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
        *what = SIM_SIMT_BLOCKS_PER_GRID;
        return true;
    case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
        *what = SIM_SIMT_THREADS_PER_BLOCK;
        return true;
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
        *what = SIM_SIMT_BLOCK_DIM;
        return true;
    default:
        return false;
    }
}

static aclError device_info(int32_t dev, aclrtDevAttr attr, int64_t *value)
{
    const struct sim_soc *s = sim_device_soc(dev);
    const struct sim_profile *p = sim_device_profile(dev);
    enum sim_simt simt;
    if (!s)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    if (simt_of(attr, &simt)) {
        *value = sim_simt_limit(dev, simt);
        return ACL_SUCCESS;
    }
    switch ((int)attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM:
        *value = s->aicpu_cores;
        break;
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
        *value = s->ai_cores;
        break;
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
        *value = s->cube_cores;
        break;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM:
        *value = s->vector_cores;
        break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: {
        /* what aclrtGetMemInfo reports as the total */
        uint64_t cap = sim_device_capacity(dev);
        *value = (int64_t)(cap - sim_reserve_bytes(p, cap));
        break;
    }
    case ACL_DEV_ATTR_L2_CACHE_SIZE:
        *value = (int64_t)s->l2_bytes;
        break;
    case ACL_DEV_ATTR_PHY_CHIP_ID:
        *value = dev; /* one chip per simulated device, numbered as the devices */
        break;
    case ACL_DEV_ATTR_HD_CONNECT_TYPE:
        /* Atlas A3 reaches the host over the HCCS plane, the others over
         * PCIe (sim/profile.c, from CANN's documentation). */
        *value = strncmp(p->name, "Ascend910_93", 12) == 0 ? ACL_HOST_DEVICE_CONNECT_TYPE_HCCS
                                                            : ACL_HOST_DEVICE_CONNECT_TYPE_PCIE;
        break;
    case ACL_DEV_ATTR_IS_VIRTUAL:
        *value = 0; /* a whole device, never a split of one */
        break;
    case ACL_DEV_ATTR_NPU_ARCH:
        *value = s->npu_arch;
        break;
    default:
        /* SMP id, super-pod ids, custom-op privilege, mainboard id, form
         * factor: facts of a machine the simulator does not model. */
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    return ACL_SUCCESS;
}

static aclError device_feature(int32_t dev, int32_t feature, int32_t *value)
{
    switch (feature) {
    case ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV:
        *value = sim_device_task_update(dev) ? ACL_DEV_FEATURE_SUPPORT
                                             : ACL_DEV_FEATURE_NOT_SUPPORT;
        return ACL_SUCCESS;
    case ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV:
        *value = ACL_DEV_FEATURE_NOT_SUPPORT; /* aclsim has no memory queues */
        return ACL_SUCCESS;
    default:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
}

/* FNV-1a over the SoC's name and the device number, from a seed. */
static uint64_t identity_hash(uint64_t h, int32_t dev)
{
    for (const char *c = sim_device_profile(dev)->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    for (int i = 0; i < 4; i++)
        h = (h ^ ((uint32_t)dev >> (8 * i) & 0xffu)) * 0x100000001b3ull;
    return h;
}

/* A stable UUID per SoC and device number, of RFC 9562's version 8 (made
 * up by the vendor): the simulated device has no factory identity. */
static aclError device_uuid(int32_t dev, aclrtUuid *uuid)
{
    uint64_t half[2] = {identity_hash(0xcbf29ce484222325ull, dev),
                        identity_hash(0x84222325cbf29ce4ull, dev)};
    for (int i = 0; i < 16; i++)
        uuid->bytes[i] = (char)(half[i / 8] >> (8 * (i % 8)) & 0xffu);
    uuid->bytes[6] = (char)((uuid->bytes[6] & 0x0f) | 0x80);
    uuid->bytes[8] = (char)((uuid->bytes[8] & 0x3f) | 0x80);
    return ACL_SUCCESS;
}

/* Simulated devices sit on buses 1, 2, ... of PCI domain 0, as the first
 * function of device 0 (an invented but well-formed address). */
static aclError device_bus_id(int32_t dev, char *buf, int32_t len)
{
    snprintf(buf, (size_t)len, "%04x:%02x:%02x.%x", 0u, (unsigned)dev + 1u, 0u, 0u);
    return ACL_SUCCESS;
}

/* No device is hidden (ASCEND_RT_VISIBLE_DEVICES) and each is its own
 * chip: user, logical and physical ids are the same. */
static aclError device_id_map(int how, int32_t id, int32_t *out)
{
    (void)how;
    if (id < 0 || (uint32_t)id >= sim_device_count())
        return ACL_ERROR_RT_INVALID_DEVICEID;
    *out = id;
    return ACL_SUCCESS;
}

/* The simulator runs no kernels: cube, vector and AI CPU stay idle. */
static void device_utilization(int32_t dev, aclrtUtilizationInfo *info)
{
    int32_t v = dev >= 0 && (uint32_t)dev < sim_device_count() ? 0 : -1;
    info->cubeUtilization = info->vectorUtilization = info->aicpuUtilization = v;
    info->memoryUtilization = -1;
}

static aclError device_status(int32_t dev, aclrtDeviceStatus *status)
{
    (void)dev;
    *status = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

/* CANN's attributes in its order; each needs runtime 7.1 (JIT_COMPILE 6.4),
 * which aclsim's 9.1 has, and INF_NAN and BF16 the SoC's support. */
static aclError cann_attrs(const aclCannAttr **list, size_t *n)
{
    static const aclCannAttr all[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16,
                                      ACL_CANN_ATTR_JIT_COMPILE};
    static const aclCannAttr no_inf_nan[] = {ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};
    static const aclCannAttr no_bf16[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_JIT_COMPILE};
    static const aclCannAttr jit[] = {ACL_CANN_ATTR_JIT_COMPILE};
    const struct sim_soc *s = sim_device_soc(0);
    bool inf_nan = s && s->inf_nan, bf16 = s && s->bf16;
    *list = inf_nan ? (bf16 ? all : no_bf16) : (bf16 ? no_inf_nan : jit);
    *n = (size_t)(inf_nan + bf16 + 1);
    return ACL_SUCCESS;
}

static aclError arch_compatible(const char *soc, int32_t *ok)
{
    const struct sim_soc *theirs = sim_soc_find(soc), *ours = sim_device_soc(0);
    if (!theirs || theirs->npu_arch == 0 || !ours)
        return ACL_ERROR_RT_PARAM_INVALID;
    *ok = theirs->npu_arch == ours->npu_arch;
    return ACL_SUCCESS;
}

/* ---- errors, callbacks and host functions ---- */

_Static_assert(BE_PS_PENDING == SIM_PS_PENDING, "one value for a time not known yet");

static aclError host_task(void *s, int blocking, uint64_t runner,
                          void (*ready_fn)(void *arg, uint64_t ready), void *arg, uint64_t *ready,
                          uint64_t *task)
{
    return rc_to_acl(sim_host_task(s, blocking != 0, runner, ready_fn, arg, ready, task),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static void host_task_done(void *s, uint64_t task, int blocking)
{
    sim_host_task_done(s, task, blocking != 0);
}

static void host_wait(uint64_t t, uint64_t limit, int *late)
{
    bool l = false;
    sim_clock_host_wait(t, limit, &l);
    *late = l;
}

static void stream_id(void *s, int32_t *dev, uint32_t *id)
{
    sim_stream_ids(s, dev, id);
}

/* What the device reports for each kind of failed work: an SDMA copy error
 * is ACL_ERROR_RT_SYS_DMA, a task that never ends ACL_ERROR_RT_TASK_TIMEOUT,
 * an access outside live device memory ACL_ERROR_RT_DEVICE_MEM_ERROR (the
 * runtime's own mapping of its TS codes). */
static void (*_Atomic fault_to)(const struct be_fault *f);

static void on_sim_fault(const struct sim_fault *f)
{
    void (*fn)(const struct be_fault *) = atomic_load(&fault_to);
    if (!fn)
        return;
    aclError c = f->kind == SIM_FAULT_COPY   ? ACL_ERROR_RT_SYS_DMA
                 : f->kind == SIM_FAULT_HANG ? ACL_ERROR_RT_TASK_TIMEOUT
                                             : ACL_ERROR_RT_DEVICE_MEM_ERROR;
    struct be_fault bf = {f->dev, f->stream_id, f->task_id, f->thread, c};
    fn(&bf);
}

static void fault_handler(void (*fn)(const struct be_fault *f))
{
    atomic_store(&fault_to, fn);
    sim_fault_handler(fn ? on_sim_fault : NULL);
}

static void task_fault(void *s)
{
    sim_stream_fault(s, SIM_FAULT_MEMORY);
}

/* ---- operators ---- */

/* aclDataType and enum sim_dtype share CANN's numbering (sim/sim.h). */
#define SAME(sim, acl) _Static_assert((int)(sim) == (int)(acl), #sim " is " #acl)
SAME(SIM_DT_F32, ACL_FLOAT);
SAME(SIM_DT_F16, ACL_FLOAT16);
SAME(SIM_DT_I8, ACL_INT8);
SAME(SIM_DT_I32, ACL_INT32);
SAME(SIM_DT_U8, ACL_UINT8);
SAME(SIM_DT_I16, ACL_INT16);
SAME(SIM_DT_U16, ACL_UINT16);
SAME(SIM_DT_U32, ACL_UINT32);
SAME(SIM_DT_I64, ACL_INT64);
SAME(SIM_DT_U64, ACL_UINT64);
SAME(SIM_DT_F64, ACL_DOUBLE);
SAME(SIM_DT_BOOL, ACL_BOOL);
SAME(SIM_DT_BF16, ACL_BF16);
#undef SAME
static struct sim_view sim_view_of(const struct be_view *t)
{
    struct sim_view r = {t->data, t->dev, (enum sim_dtype)t->dtype, t->ndims, {0}, {0}, t->offset,
                         t->nz_c0, t->nz_t};
    for (int i = 0; i < t->ndims && i < SIM_OP_MAX_DIMS; i++) {
        r.dims[i] = t->dims[i];
        r.strides[i] = t->strides[i];
    }
    return r;
}

/* The simulator's kind for each of the ACL layer's: one list makes both. */
static const enum sim_opkind op_kind_of[] = {
#define OPKIND(id, family, what) [BE_OP_##id] = SIM_OP_##id,
#define OPLIMIT(id, value)
#include "api/abi/opkinds.def"
#undef OPKIND
#undef OPLIMIT
};

static aclError op_run(void *stream, const struct be_op *op, uint64_t *start, uint64_t *end)
{
    struct sim_op o = {.kind = op_kind_of[op->kind], .name = op->api ? op->api : op->type, .n_in = op->n_in,
                       .n_out = op->n_out, .calc = (enum sim_dtype)op->calc,
                       .trans_a = op->trans_a, .trans_b = op->trans_b,
                       .keep_dims = op->keep_dims, .alpha = op->alpha, .beta = op->beta,
                       .n_axes = op->n_axes, .ws = op->ws, .ws_bytes = op->ws_bytes,
                       .tiling = op->tiling, .tiling_bytes = op->tiling_bytes,
                       .tag = op->tag, .alloc_obj = op->alloc_obj,
                       .alloc_stream = op->alloc_stream, .alloc_desc = op->alloc_desc};
    for (int i = 0; i < op->n_in && i < SIM_OP_MAX_IN; i++)
        o.in[i] = sim_view_of(&op->in[i]);
    for (int i = 0; i < op->n_out && i < SIM_OP_MAX_OUT; i++)
        o.out[i] = sim_view_of(&op->out[i]);
    for (int i = 0; i < op->n_axes && i < SIM_OP_MAX_DIMS; i++)
        o.axes[i] = op->axes[i];
    for (int i = 0; i < SIM_OP_MAX_PARAMS; i++) {
        o.iparam[i] = op->iparam[i];
        o.fparam[i] = op->fparam[i];
    }
    struct sim_block b;
    int32_t dev = sim_mem_lookup(op->out[0].data, &b) ? b.dev : 0;
    return rc_to_acl(sim_op_run(dev, stream, &o, start, end), ACL_ERROR_RT_INTERNAL_ERROR);
}

/* ---- Happens-before (sim/hb.c) ---- */

_Static_assert((int)BE_SPACE_DESC == (int)SIM_SPACE_DESC &&
                   (int)BE_USE_DESTROY_DESC == (int)SIM_USE_DESTROY_DESC &&
                   (int)BE_USE_FREE == (int)SIM_USE_FREE && (int)BE_USE_VALUE == (int)SIM_USE_VALUE,
               "be.h's use kinds are sim.h's");

static void (*_Atomic race_fn)(const struct be_use *now, const struct be_use *before, int n);

static struct be_use be_use_of(const struct sim_use *u)
{
    return (struct be_use){u->stream, u->space, u->role, u->write, u->tag, u->call, u->graph,
                           u->p, u->n, u->at};
}

static void on_race(const struct sim_use *now, const struct sim_use *before, int n)
{
    void (*fn)(const struct be_use *, const struct be_use *, int) = atomic_load(&race_fn);
    if (!fn || n <= 0)
        return;
    struct be_use a[16], b[16];
    if (n > 16)
        n = 16;
    for (int i = 0; i < n; i++) {
        a[i] = be_use_of(&now[i]);
        b[i] = be_use_of(&before[i]);
    }
    fn(a, b, n);
}

static void hb_reporter(void (*fn)(const struct be_use *now, const struct be_use *before, int n))
{
    atomic_store(&race_fn, fn);
    sim_hb_reporter(fn ? on_race : NULL);
}

static void hb_use(const struct be_use *u)
{
    struct sim_use v = {u->stream, u->space, u->role, u->write, u->tag, u->call, u->graph,
                        u->p, u->n, sim_clock_host()};
    sim_use(&v);
}

static int hb_quiet(void)
{
    return sim_hb_quiet();
}

static void hb_callback(void *stream, int enter, int blocking)
{
    if (enter)
        sim_hb_callback_enter(stream);
    else
        sim_hb_callback_exit(stream, blocking != 0);
}

/* ---- 2-D copies, 32-bit fills, host and managed memory ---- */

static unsigned copy_flags(int how)
{
    return (how & BE_COPY_WAIT ? SIM_COPY_WAIT : 0) |
           (how & BE_COPY_PAGEABLE ? SIM_COPY_PAGEABLE : 0);
}

static aclError mem_copy2d(int32_t dev, void *stream, void *dst, size_t dpitch, const void *src,
                           size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind,
                           int how)
{
    bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    return rc_to_acl(sim_copy2d(dev, stream, dst, dpitch, dst_dev, src, spitch, src_dev, width,
                                height, copy_flags(how)),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_set_d32(int32_t dev, void *stream, void *dst, int dst_dev, uint32_t value,
                            size_t count, int host_waits)
{
    return rc_to_acl(sim_fill32(dev, stream, dst, dst_dev, value, count, host_waits),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError host_register(int32_t dev, void *ptr, uint64_t size, int v2, uint32_t how,
                              void **dev_ptr)
{
    (void)dev;
    bool mapped = !v2 || (how & ACL_HOST_REG_MAPPED);
    switch (sim_host_register(ptr, (size_t)size, mapped)) {
    case SIM_OK:
        /* One address space: devices reach registered memory at its host
         * address. */
        if (dev_ptr)
            *dev_ptr = ptr;
        return ACL_SUCCESS;
    case SIM_EHOSTMEM:
        return ACL_ERROR_BAD_ALLOC;
    default:
        return ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    }
}

static aclError host_unregister(int32_t dev, void *ptr)
{
    (void)dev;
    return sim_host_unregister(ptr) == SIM_OK ? ACL_SUCCESS : ACL_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

static aclError host_dev_ptr(int32_t dev, void *host, void **dev_ptr)
{
    (void)dev;
    struct sim_host_block b;
    if (!sim_host_find(host, &b) || b.start != host || b.kind != SIM_HOST_REGISTERED || !b.mapped)
        return ACL_ERROR_RT_PARAM_INVALID;
    *dev_ptr = host;
    return ACL_SUCCESS;
}

/* Which accelerators reach registered host memory: the AI cores (kernels
 * take its device address as an argument, CANN's docs say) and the copy
 * engines (PCIe DMA, SDMA). The others are assumed not to. */
static aclError host_map_caps(int32_t dev, aclrtHacType hac, aclrtHostMemMapCapability *caps)
{
    (void)dev;
    bool yes = hac == ACL_RT_HAC_TYPE_AIC || hac == ACL_RT_HAC_TYPE_AIV ||
               hac == ACL_RT_HAC_TYPE_PCIEDMA || hac == ACL_RT_HAC_TYPE_SDMA;
    *caps = yes ? ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
    return ACL_SUCCESS;
}

static aclError managed_alloc(int32_t dev, uint64_t size, void **ptr)
{
    if (!sim_device_profile(dev)->uvm)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return rc_to_acl(sim_managed_alloc(size, ptr), ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError managed_advise(int32_t dev, const void *ptr, uint64_t size, int advise,
                               aclrtMemManagedLocation loc)
{
    if (!sim_device_profile(dev)->uvm)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    return rc_to_acl(sim_managed_advise(ptr, size, advise, (int)loc.type, loc.id), 0);
}

/* Put a location into data (what 0: 8 bytes), or its type (1) or id (2)
 * (4 bytes); a type < 0 (pages that disagree) is the invalid location. */
static void put_loc(void *data, int what, int type, int32_t id)
{
    aclrtMemManagedLocation l = {(aclrtMemManagedLocationType)(type < 0 ? 0 : type),
                                 type <= 0 ? 0 : id};
    int32_t v = what == 1 ? (int32_t)l.type : l.id;
    if (what == 0)
        memcpy(data, &l, sizeof l);
    else
        memcpy(data, &v, sizeof v);
}

static aclError managed_attrs(int32_t dev, const aclrtMemManagedRangeAttribute *attrs, size_t n,
                              const void *ptr, size_t size, void **data, const size_t *sizes)
{
    if (!sim_device_profile(dev)->uvm)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    struct sim_uvm_advice a;
    if (sim_managed_query(ptr, size, &a) != SIM_OK)
        return ACL_ERROR_RT_PARAM_INVALID;
    for (size_t i = 0; i < n; i++) {
        switch ((int)attrs[i]) {
        case ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: {
            int32_t v = a.read_mostly;
            memcpy(data[i], &v, sizeof v);
            break;
        }
        case ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: {
            /* every location all pages name, then invalid ones */
            size_t k = 0, room = sizes[i] / sizeof(aclrtMemManagedLocation);
            aclrtMemManagedLocation *out = data[i];
            for (int d = 0; d < 63 && k < room; d++)
                if (a.accessed_by >> d & 1)
                    out[k++] = (aclrtMemManagedLocation){ACL_MEM_LOCATIONTYPE_DEVICE, d};
            if (a.accessed_by >> 63 && k < room)
                out[k++] = (aclrtMemManagedLocation){ACL_MEM_LOCATIONTYPE_HOST, 0};
            while (k < room)
                out[k++] = (aclrtMemManagedLocation){ACL_MEM_LOCATIONTYPE_INVALID, 0};
            break;
        }
        case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
            put_loc(data[i], 0, a.pref_type, a.pref_id);
            break;
        case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
            put_loc(data[i], 1, a.pref_type, a.pref_id);
            break;
        case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
            put_loc(data[i], 2, a.pref_type, a.pref_id);
            break;
        default: /* the last prefetch's location, its type, its id */
            put_loc(data[i], (int)attrs[i] - ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
                    a.last_type, a.last_id);
            break;
        }
    }
    return ACL_SUCCESS;
}

static aclError managed_prefetch(int32_t dev, const void *ptr, size_t size,
                                 aclrtMemManagedLocation loc, void *stream)
{
    if (!sim_device_profile(dev)->uvm)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    if (sim_managed_prefetched(ptr, size, (int)loc.type, loc.id) != SIM_OK)
        return ACL_ERROR_RT_PARAM_INVALID;
    /* the pages migrate over the host link, in stream order */
    sim_stream_migrate(stream, size, loc.type == ACL_MEM_LOCATIONTYPE_DEVICE);
    return ACL_SUCCESS;
}

static aclError cache_op(int32_t dev, void *ptr, size_t size, int invalidate)
{
    (void)dev, (void)ptr, (void)size, (void)invalidate; /* the simulator has no caches */
    return ACL_SUCCESS;
}

/* ---- cache maintenance on streams, descriptors, counting notifies ---- */

static aclError cmo(void *stream, void *ptr, size_t size, int type, uint32_t barrier)
{
    (void)type; /* prefetch, write back, invalidate, flush: alike without caches */
    sim_cmo(stream, ptr, size, barrier);
    return ACL_SUCCESS;
}

static aclError cmo_barrier_wait(void *stream, const aclrtBarrierTaskInfo *info, uint32_t flag)
{
    (void)flag;
    uint32_t ids[ACL_RT_CMO_MAX_BARRIER_NUM];
    unsigned n = info->barrierNum;
    for (unsigned i = 0; i < n; i++)
        ids[i] = info->cmoInfo[i].barrierId;
    sim_cmo_barrier_wait(stream, ids, n);
    return ACL_SUCCESS;
}

/* The simulator's descriptors have the layout of CANN's (hicann/runtime
 * pkg_inc/runtime/runtime/mem.h rtMemcpyAddrInfo, rt_external_stars_define.h
 * rtCmoAddrInfo): 32 bytes, the length at byte 12, the source address at
 * 16, a copy's destination at 24. */
enum { DESC_BYTES = 32, DESC_LEN = 12, DESC_SRC = 16, DESC_DST = 24 };

static aclError desc_size(int what, size_t *size)
{
    (void)what;
    *size = DESC_BYTES;
    return ACL_SUCCESS;
}

static aclError desc_set(int what, void *desc, void *src, void *dst, size_t n)
{
    unsigned char d[DESC_BYTES] = {0};
    uint32_t len = (uint32_t)n;
    uint64_t from = (uint64_t)(uintptr_t)src, to = (uint64_t)(uintptr_t)dst;
    memcpy(d + DESC_LEN, &len, 4);
    memcpy(d + DESC_SRC, &from, 8);
    if (what == BE_DESC_MEMCPY)
        memcpy(d + DESC_DST, &to, 8);
    struct sim_block b;
    if (!sim_mem_lookup(desc, &b))
        return ACL_ERROR_RT_PARAM_INVALID;
    /* the runtime writes it with a synchronous copy */
    return rc_to_acl(sim_copy(b.dev, NULL, desc, true, d, false, DESC_BYTES, SIM_COPY_WAIT),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

/* Whether [p, p+n) lies in one live device block of device dev. */
static bool live_range(int32_t dev, const void *p, uint64_t n)
{
    struct sim_block b;
    if (n == 0 || !sim_mem_lookup(p, &b) || b.dev != dev)
        return false;
    uint64_t off = (uint64_t)((const char *)p - (const char *)b.start);
    return off < b.usable && n <= b.usable - off;
}

static aclError desc_launch(int what, void *stream, void *desc, int type)
{
    (void)type;
    int32_t dev = sim_stream_device(stream);
    unsigned char d[DESC_BYTES];
    if (!live_range(dev, desc, DESC_BYTES) ||
        sim_mem_copy(d, false, desc, true, DESC_BYTES) != SIM_OK)
        return ACL_ERROR_RT_PARAM_INVALID;
    uint32_t len;
    uint64_t from, to;
    memcpy(&len, d + DESC_LEN, 4);
    memcpy(&from, d + DESC_SRC, 8);
    memcpy(&to, d + DESC_DST, 8);
    void *src = (void *)(uintptr_t)from, *dst = (void *)(uintptr_t)to;
    if (!live_range(dev, src, len))
        return ACL_ERROR_RT_PARAM_INVALID;
    if (what == BE_DESC_CMO) {
        sim_cmo(stream, src, len, 0);
        return ACL_SUCCESS;
    }
    if (!live_range(dev, dst, len))
        return ACL_ERROR_RT_PARAM_INVALID;
    return rc_to_acl(sim_copy(dev, stream, dst, true, src, true, len, 0),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError memcpy_at(void *stream, void **dst, size_t dmax, size_t doff, const void **src,
                          size_t n, size_t soff)
{
    int32_t dev = sim_stream_device(stream);
    uint64_t d, s;
    if (sim_mem_copy(&d, false, dst, true, 8) != SIM_OK ||
        sim_mem_copy(&s, false, src, true, 8) != SIM_OK)
        return ACL_ERROR_RT_PARAM_INVALID;
    char *to = (char *)(uintptr_t)d + doff;
    const char *from = (const char *)(uintptr_t)s + soff;
    if (doff > dmax || n > dmax - doff || !live_range(dev, to, n) || !live_range(dev, from, n))
        return ACL_ERROR_RT_PARAM_INVALID;
    return rc_to_acl(sim_copy(dev, stream, to, true, from, true, n, 0),
                     ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError cnt_create(int32_t dev, void **out)
{
    struct sim_cnt *c;
    aclError rc = rc_to_acl(sim_cnt_create(dev, &c), ACL_ERROR_RT_NO_NOTIFY_RESOURCE);
    if (rc == ACL_SUCCESS)
        *out = c;
    return rc;
}

static aclError cnt_destroy(void *c)
{
    sim_cnt_destroy(c);
    return ACL_SUCCESS;
}

static aclError cnt_record(void *c, void *s, const aclrtCntNotifyRecordInfo *info)
{
    sim_cnt_record(c, s, (uint32_t)info->mode, info->value);
    return ACL_SUCCESS;
}

static aclError cnt_wait(void *c, void *s, const aclrtCntNotifyWaitInfo *info)
{
    sim_cnt_wait(c, s, (uint32_t)info->mode, info->value, info->isClear != 0, info->timeout);
    return ACL_SUCCESS;
}

static aclError cnt_reset(void *c, void *s)
{
    sim_cnt_reset(c, s);
    return ACL_SUCCESS;
}

static aclError cnt_id(void *c, uint32_t *id)
{
    *id = sim_cnt_id(c);
    return ACL_SUCCESS;
}

static aclError device_task(void *stream, const struct be_task *t);

/* The check-mode overflow calls are the device tasks of
 * aclrtGetFloatOverflowStatus and aclrtResetFloatOverflowStatus here: the
 * simulator never overflows (checkMode changes nothing). */
static aclError overflow_status(void *stream, void *out, uint64_t size, uint32_t mode)
{
    (void)mode;
    struct be_task t = {.kind = BE_TASK_OVERFLOW_GET, .dst = out, .size = (size_t)size};
    return device_task(stream, &t);
}

static aclError overflow_clear(void *stream, uint32_t mode)
{
    (void)mode;
    struct be_task t = {.kind = BE_TASK_OVERFLOW_RESET};
    return device_task(stream, &t);
}

static pthread_mutex_t overflow_lock = PTHREAD_MUTEX_INITIALIZER;

static aclError overflow_addr(void *ctx, void **addr)
{
    int32_t dev = ((struct ctx *)ctx)->dev;
    pthread_mutex_lock(&overflow_lock);
    void *o = atomic_load(&overflow_buf[dev]);
    enum sim_rc rc = SIM_OK;
    if (!o && (rc = sim_mem_alloc(dev, 64, SIM_POLICY_NORMAL_ONLY, true, &o)) == SIM_OK) {
        sim_mem_fill(o, true, 0, 64);
        atomic_store(&overflow_buf[dev], o);
    }
    pthread_mutex_unlock(&overflow_lock);
    if (rc != SIM_OK)
        return rc_to_acl(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
    *addr = o;
    return ACL_SUCCESS;
}

static aclError task_clean(void *graph, unsigned lane, void *stream)
{
    (void)stream;
    sim_graph_clean_lane(graph, lane);
    return ACL_SUCCESS;
}

static aclError last_task_id(uint32_t *id)
{
    *id = sim_thread_last_task();
    return ACL_SUCCESS;
}

static aclError l2_flush(int32_t dev)
{
    (void)dev; /* no caches: nothing to write back */
    return ACL_SUCCESS;
}

static aclError mem_type_check(int32_t dev, void **list, uint32_t n, uint32_t mask,
                               uint32_t *result)
{
    (void)dev;
    /* The simulator's device memory is all of the plain device type: no
     * DVPP memory and no reserved ranges here. */
    struct sim_block b;
    uint32_t ok = 1;
    for (uint32_t i = 0; i < n && ok; i++)
        ok = (mask & ACL_RT_MEM_TYPE_DEV) && sim_mem_lookup(list[i], &b);
    *result = ok;
    return ACL_SUCCESS;
}

/* The simulator's memory never has an uncorrectable error to record. */
static aclError uce_info(int32_t dev, aclrtMemUceInfo *out, size_t max, size_t *n)
{
    (void)out, (void)max;
    if (!sim_device_records_uce(dev))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    *n = 0;
    return ACL_SUCCESS;
}

/* ---- virtual memory and stream-ordered pools ---- */

/* The simulator's page kind for a physical memory attribute. */
static enum sim_page vmm_page(aclrtMemAttr a)
{
    return a == ACL_HBM_MEM_HUGE1G || a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_HUGE1G ||
                   a == ACL_HBM_MEM_P2P_HUGE1G
               ? SIM_PAGE_HUGE1G
               : SIM_PAGE_HUGE;
}

static aclError vmm_granularity(int32_t dev, const aclrtPhysicalMemProp *prop,
                                aclrtMemGranularityOptions option, size_t *g)
{
    (void)option; /* the minimum is also what the simulator recommends */
    uint64_t v;
    aclError rc = rc_to_acl(sim_vmm_granularity(dev, vmm_page(prop->memAttr), &v),
                            ACL_ERROR_RT_MEMORY_ALLOCATION);
    if (rc == ACL_SUCCESS)
        *g = (size_t)v;
    return rc;
}

static aclError vmm_reserve(int32_t dev, size_t size, size_t alignment, void *expect,
                            uint64_t flags, int no_uc, void **va, const char **why)
{
    (void)flags, (void)no_uc; /* the simulator has no UC memory to leave out */
    if (alignment != 0) {
        *why = "alignment is reserved and must be 0";
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return rc_to_acl(sim_vmm_reserve(dev, size, expect, va, why), ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError vmm_release(void *va, const char **why)
{
    return rc_to_acl(sim_vmm_release(va, why), ACL_ERROR_RT_MEMORY_FREE);
}

static aclError vmm_phys_alloc(size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags,
                               void **handle, const char **why)
{
    (void)flags;
    int32_t dev = (int32_t)prop->location.id;
    if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
        *why = "the simulator has physical memory on devices only (location.type must be "
               "MEM_LOCATION_TYPE_DEVICE(1))";
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    if (dev < 0 || (uint32_t)dev >= sim_device_count()) {
        *why = "location.id names no device";
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    enum sim_rc rc = sim_vmm_phys_alloc(dev, size, vmm_page(prop->memAttr), handle);
    if (rc == SIM_ENOMEM)
        *why = "the device's HBM is exhausted";
    else if (rc == SIM_EUNSUPPORTED)
        *why = "this SoC has no 1 GB pages";
    return rc_to_acl(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError vmm_phys_free(void *handle, const char **why)
{
    if (sim_vmm_phys_free(handle) == SIM_OK) {
        sim_ipc_handle_forget(handle);
        return ACL_SUCCESS;
    }
    *why = "handle is not a live physical memory handle (never allocated, or already freed)";
    return ACL_ERROR_RT_PARAM_INVALID;
}

static aclError vmm_map(void *va, size_t size, size_t offset, void *handle, uint64_t flags,
                        int no_access, const char **why)
{
    (void)flags;
    return rc_to_acl(sim_vmm_map(va, size, offset, handle,
                                 no_access ? SIM_ACCESS_NONE : SIM_ACCESS_READWRITE, why),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError vmm_unmap(void *va, const char **why)
{
    return rc_to_acl(sim_vmm_unmap(va, why), ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError vmm_retain(void *va, void **handle, const char **why)
{
    return rc_to_acl(sim_vmm_retain(va, handle, why), ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError vmm_props(void *handle, aclrtPhysicalMemProp *prop, const char **why)
{
    struct sim_phys_info in;
    if (sim_vmm_phys_info(handle, &in) != SIM_OK) {
        *why = "handle is not a live physical memory handle (never allocated, or already freed)";
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    memset(prop, 0, sizeof *prop);
    prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop->location.id = (uint32_t)in.dev;
    prop->memAttr = in.page == SIM_PAGE_HUGE1G ? ACL_HBM_MEM_HUGE1G : ACL_HBM_MEM_HUGE;
    return ACL_SUCCESS;
}

static aclError vmm_set_access(void *va, size_t size, aclrtMemAccessDesc *desc, size_t count,
                               const char **why)
{
    uint32_t access = SIM_ACCESS_READWRITE;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_NONE &&
            desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READ &&
            desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE) {
            *why = "desc.flags must be ACL_RT_MEM_ACCESS_FLAGS_NONE, _READ or _READWRITE";
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        if (desc[i].location.type != ACL_MEM_LOCATION_TYPE_DEVICE &&
            desc[i].location.type != ACL_MEM_LOCATION_TYPE_HOST) {
            *why = "desc.location.type must be MEM_LOCATION_TYPE_DEVICE(1) or "
                   "MEM_LOCATION_TYPE_HOST(0)";
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        if (desc[i].location.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
            desc[i].location.id >= sim_device_count()) {
            *why = "desc.location.id names no device";
            return ACL_ERROR_RT_INVALID_DEVICEID;
        }
        if (desc[i].location.type == ACL_MEM_LOCATION_TYPE_DEVICE)
            access = (uint32_t)desc[i].flags;
    }
    return rc_to_acl(sim_vmm_access(va, size, true, &access, why), ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError vmm_get_access(void *va, aclrtMemLocation *location, uint64_t *flag,
                               const char **why)
{
    if (location->type != ACL_MEM_LOCATION_TYPE_DEVICE &&
        location->type != ACL_MEM_LOCATION_TYPE_HOST) {
        *why = "location.type must be MEM_LOCATION_TYPE_DEVICE(1) or MEM_LOCATION_TYPE_HOST(0)";
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    uint32_t access = 0;
    aclError rc =
        rc_to_acl(sim_vmm_access(va, 0, false, &access, why), ACL_ERROR_RT_INTERNAL_ERROR);
    if (rc == ACL_SUCCESS) /* the host never reaches a device mapping */
        *flag = location->type == ACL_MEM_LOCATION_TYPE_HOST ? ACL_RT_MEM_ACCESS_FLAGS_NONE
                                                             : access;
    return rc;
}

static aclError mem_range(void *ptr, void **base, size_t *size)
{
    uint64_t n;
    struct sim_block b;
    void *start;
    size_t hs;
    if (sim_vmm_range(ptr, base, &n) == SIM_OK) {
        *size = (size_t)n;
    } else if (sim_mem_lookup(ptr, &b)) {
        *base = b.start;
        *size = (size_t)b.usable;
    } else if (sim_host_lookup(ptr, &start, &hs)) {
        *base = start;
        *size = hs;
    } else {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

static aclError pool_create(int32_t dev, const aclrtMemPoolProps *props, void **pool)
{
    struct sim_pool *p;
    aclError rc =
        rc_to_acl(sim_pool_create(dev, props->maxSize, &p), ACL_ERROR_RT_MEMORY_ALLOCATION);
    if (rc == ACL_SUCCESS)
        *pool = p;
    return rc;
}

/* The runtime's words for a pool handle that names no pool (hicann/runtime
 * src/runtime/feature/soma/soma.cc:129, api_impl_soma.cc:83): its
 * RT_ERROR_MEM_POOL_NULL, like the soma's other codes, has no external
 * code: 507000 (src/runtime/core/src/common/errcode_manage.cc:612-616). */
static const char no_pool[] = "Memory pool is not created or destroyed";

static aclError pool_destroy(void *pool, const char **why)
{
    uint64_t used;
    if (sim_pool_destroy(pool, &used) == SIM_OK)
        return ACL_SUCCESS;
    *why = no_pool;
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static aclError pool_attr(void *pool, aclrtMemPoolAttr attr, int set, void *value,
                          const char **why)
{
    bool wide = attr >= ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD;
    uint64_t v = 0;
    if (!sim_pool_valid(pool))
        return ACL_ERROR_RT_PARAM_INVALID; /* no why: the ACL layer's EE1017 */
    /* An attribute soma does not know: RT_ERROR_POOL_PROP_INVALID, 507000
     * (hicann/runtime src/runtime/feature/soma/stream_mem_pool.cc:466-468,
     * 522-524; the driver has no halMemPoolSetAttr to ask first). */
    if (attr < ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
        attr > ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) {
        *why = "attr is not an aclrtMemPoolAttr";
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (set)
        v = wide ? *(uint64_t *)value : *(uint32_t *)value;
    enum sim_rc rc = sim_pool_attr(pool, (enum sim_pool_attr)attr, set, &v);
    if (rc == SIM_EPERM) { /* RT_ERROR_POOL_PROP_INVALID: 507000 */
        *why = attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD
                   ? "the release threshold is more than the pool's maxSize"
                   : "a high-water mark can only be reset, with the value 0";
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (rc != SIM_OK) {
        *why = "the attribute is read-only";
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!set) {
        if (wide)
            *(uint64_t *)value = v;
        else
            *(uint32_t *)value = (uint32_t)v;
    }
    return ACL_SUCCESS;
}

static aclError pool_malloc(void *pool, size_t size, void *stream, void **ptr, const char **why)
{
    if (!sim_pool_valid(pool)) { /* api_impl_soma.cc:82-83 */
        *why = no_pool;
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    enum sim_rc rc = sim_pool_malloc(pool, size, stream, ptr);
    if (rc == SIM_EPERM) { /* RT_ERROR_MEM_POOL_ALLOC: soma.cc:247-251, 507000 */
        *why = "the pool's maxSize cannot hold the request";
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (rc == SIM_ENOMEM)
        *why = "the device lacks the pages";
    return rc_to_acl(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError pool_free(void *ptr, void *stream, const char **why)
{
    if (sim_pool_free(ptr, stream) == SIM_OK)
        return ACL_SUCCESS;
    /* Memory of no pool is the runtime's to free in the stream's order
     * (hicann/runtime src/runtime/api/impl/api_impl_soma.cc:147-165: a host
     * function on the stream frees it): a block of aclrtMalloc goes once the
     * stream's work so far is done (here the host waits for it). */
    struct sim_block b;
    if (!sim_pool_region(ptr) && sim_mem_lookup(ptr, &b) && b.start == ptr) {
        aclError rc = rc_to_acl(sim_stream_sync(stream, -1), ACL_ERROR_RT_INTERNAL_ERROR);
        if (rc == ACL_SUCCESS && sim_mem_free(ptr) != SIM_OK)
            rc = ACL_ERROR_RT_MEMORY_FREE;
        if (rc == ACL_SUCCESS)
            return ACL_SUCCESS;
    }
    *why = "ptr is not memory of a pool (not from aclrtMemPoolMallocAsync, or already freed)";
    return ACL_ERROR_RT_PARAM_INVALID;
}

static aclError pool_trim(void *pool, size_t keep, const char **why)
{
    enum sim_rc rc = sim_pool_trim(pool, keep);
    if (rc == SIM_OK)
        return ACL_SUCCESS;
    /* RT_ERROR_POOL_OP_INVALID (stream_mem_pool.cc:424-426) or
     * RT_ERROR_MEM_POOL_NULL (soma.cc:291-292): 507000 */
    *why = rc == SIM_EPERM ? "minBytesToKeep is more than the pool's maxSize"
                           : "Memory pool invalid or destroyed";
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

struct vmm_live_ctx {
    void (*fn)(int kind, void *addr, uint64_t size, uint64_t aux, void *user);
    void *user;
};

/* One of the simulator's live reservations, handles or pools, told to the
 * ACL layer in its kinds (BE_LIVE_*). */
static void each_vmm_live(int kind, void *addr, uint64_t size, uint64_t aux, void *user)
{
    const struct vmm_live_ctx *c = user;
    int be = kind == SIM_VMM_LIVE_RESERVATION ? BE_LIVE_RESERVATION
             : kind == SIM_VMM_LIVE_PHYSICAL  ? BE_LIVE_PHYSICAL
                                              : BE_LIVE_POOL;
    c->fn(be, addr, size, aux, c->user);
}

static size_t vmm_live(int32_t dev, void (*fn)(int, void *, uint64_t, uint64_t, void *), void *user)
{
    struct vmm_live_ctx c = {fn, user};
    return sim_vmm_live(dev, each_vmm_live, &c) + sim_pool_live(dev, each_vmm_live, &c);
}

/* ---- resource limits, device tasks, IPC events ---- */

/* The simulator's kind of core for an aclrtDevResLimitType. */
static enum sim_core core_of(int type)
{
    return type == ACL_RT_DEV_RES_CUBE_CORE ? SIM_CORE_CUBE : SIM_CORE_VECTOR;
}

/* The calling thread's or a stream's limit: the stream's own if it has one
 * (stream may be NULL for THREAD_GET), else the device's (a stream's own
 * device for STREAM_GET, the thread's current one, dev, for THREAD_GET). */
static aclError limit_get(int op, int32_t dev, void *stream, enum sim_core c, uint32_t *val)
{
    if (stream && sim_stream_core_limit(stream, c, val))
        return ACL_SUCCESS;
    if (op == BE_RL_STREAM_GET) {
        uint32_t id;
        sim_stream_ids(stream, &dev, &id);
    }
    if (dev < 0)
        return ACL_ERROR_RT_CONTEXT_NULL; /* the thread's device is needed */
    *val = sim_core_limit(dev, c);
    return ACL_SUCCESS;
}

static aclError res_limit(int op, int32_t dev, void *stream, int type, uint32_t *val)
{
    enum sim_core c = core_of(type);
    switch (op) {
    case BE_RL_DEV_GET:
        *val = sim_core_limit(dev, c);
        return ACL_SUCCESS;
    case BE_RL_DEV_SET:
        sim_core_limit_set(dev, c, *val);
        return ACL_SUCCESS;
    case BE_RL_DEV_RESET:
        sim_core_limit_reset(dev);
        return ACL_SUCCESS;
    case BE_RL_STREAM_SET:
        sim_stream_core_limit_set(stream, c, *val);
        return ACL_SUCCESS;
    case BE_RL_STREAM_RESET:
        sim_stream_core_limit_reset(stream);
        return ACL_SUCCESS;
    case BE_RL_THREAD_USE:
    case BE_RL_THREAD_UNUSE:
        return ACL_SUCCESS; /* the ACL layer keeps the thread's stream */
    case BE_RL_STREAM_GET:
    case BE_RL_THREAD_GET:
    default:
        return limit_get(op, dev, stream, c, val);
    }
}

/* The simulator's element type for an ACL data type; false for none. */
static bool elem_of(aclDataType t, enum sim_elem *e)
{
    switch ((int)t) {
    case ACL_FLOAT:
        *e = SIM_EL_F32;
        return true;
    case ACL_FLOAT16:
        *e = SIM_EL_F16;
        return true;
    case ACL_BF16:
        *e = SIM_EL_BF16;
        return true;
    case ACL_INT8:
        *e = SIM_EL_I8;
        return true;
    case ACL_INT16:
        *e = SIM_EL_I16;
        return true;
    case ACL_INT32:
        *e = SIM_EL_I32;
        return true;
    case ACL_UINT32:
        *e = SIM_EL_U32;
        return true;
    case ACL_INT64:
        *e = SIM_EL_I64;
        return true;
    case ACL_UINT64:
        *e = SIM_EL_U64;
        return true;
    default:
        return false;
    }
}

/* A random task's parameter as the DSA gets it: `size` bytes of its value
 * or address. */
static struct sim_rand_param rand_param(const aclrtRandomParaInfo *p)
{
    struct sim_rand_param r = {.addr = p->isAddr != 0, .size = p->size};
    memcpy(&r.raw, p->valueOrAddr, p->size < 8 ? p->size : 8);
    return r;
}

/* Whether device dev's SDMA does a reduction of kind over e elements
 * (sim_reduce_supported). EQUAL is not simulated: its result is not
 * documented. */
static bool reduce_supported(int32_t dev, aclrtReduceKind kind, enum sim_elem e)
{
    return kind != ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL && sim_reduce_supported(dev, e);
}

static aclError device_task(void *stream, const struct be_task *t)
{
    struct sim_devtask b = {.kind = SIM_DEVTASK_STATUS_RESET};
    int32_t dev;
    uint32_t id;
    sim_stream_ids(stream, &dev, &id);
    switch (t->kind) {
    case BE_TASK_REDUCE:
        if (!elem_of(t->type, &b.type) || !reduce_supported(dev, t->reduce, b.type))
            return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        b.kind = SIM_DEVTASK_REDUCE;
        b.dst = t->dst;
        b.src = t->src;
        b.n = t->count;
        b.op = t->reduce == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM   ? SIM_RED_SUM
               : t->reduce == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX ? SIM_RED_MAX
                                                               : SIM_RED_MIN;
        break;
    case BE_TASK_RANDOM: {
        const aclrtRandomNumTaskInfo *ti = t->random;
        const aclrtRandomNumFuncParaInfo *pi = &ti->randomNumFuncParaInfo;
        if (!elem_of(ti->dataType, &b.type))
            return ACL_ERROR_RT_PARAM_INVALID;
        b.kind = SIM_DEVTASK_RANDOM;
        b.dist = (enum sim_rand_dist)pi->funcType;
        b.dst = ti->randomResultAddr;
        b.counter = ti->randomCounterAddr;
        b.seed = rand_param(&ti->randomSeed);
        b.num = rand_param(&ti->randomNum);
        /* min/max and mean/stddev share their places in the union; the
         * dropout ratio is the first. */
        b.p1 = rand_param(&pi->paramInfo.normalDisInfo.mean);
        if (b.dist != SIM_RAND_DROPOUT)
            b.p2 = rand_param(&pi->paramInfo.normalDisInfo.stddev);
        if (ti->randomParaAddr) {
            /* The runtime copies the two parameters (values or addresses)
             * to the device when it launches the task. */
            uint64_t block[2] = {b.p1.raw, b.p2.raw};
            if (sim_mem_copy(ti->randomParaAddr, true, block, false, 16) != SIM_OK)
                return ACL_ERROR_RT_COPY_DATA;
        }
        break;
    }
    case BE_TASK_OVERFLOW_GET:
        b.kind = SIM_DEVTASK_STATUS;
        b.dst = t->dst;
        b.n = t->size;
        break;
    default:
        break;
    }
    return rc_to_acl(sim_devtask(dev, stream, &b), ACL_ERROR_RT_INTERNAL_ERROR);
}

/* An IPC event handle: a tag, then the name of the event's shared state
 * (sim/ipc.c), NUL-terminated. */
static const char ipc_tag[8] = {'a', 'c', 'l', 's', 'i', 'm', 'E', 'V'};

static aclError event_ipc(int import, int32_t dev, void **event, aclrtIpcEventHandle *handle)
{
    char name[SIM_IPC_NAME_MAX];
    _Static_assert(sizeof ipc_tag + SIM_IPC_NAME_MAX <= sizeof handle->reserved,
                   "an IPC event handle holds the tag and the name");
    if (!import) {
        if (sim_event_export(*event, name) != SIM_OK)
            return ACL_ERROR_RT_PARAM_INVALID;
        memset(handle->reserved, 0, sizeof handle->reserved);
        memcpy(handle->reserved, ipc_tag, sizeof ipc_tag);
        memcpy(handle->reserved + sizeof ipc_tag, name, strlen(name) + 1);
        return ACL_SUCCESS;
    }
    const char *at = handle->reserved + sizeof ipc_tag;
    if (memcmp(handle->reserved, ipc_tag, sizeof ipc_tag) != 0 ||
        !memchr(at, '\0', SIM_IPC_NAME_MAX))
        return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_event *e;
    enum sim_rc src = sim_event_import(dev, at, &e);
    if (src == SIM_EINVAL)
        return ACL_ERROR_RT_PARAM_INVALID;
    aclError rc = rc_to_acl(src, ACL_ERROR_RT_NO_EVENT_RESOURCE);
    if (rc == ACL_SUCCESS)
        *event = e;
    return rc;
}

/* IPC memory (sim/ipcmem.c). */
_Static_assert(BE_IPC_KEY_MAX == SIM_IPC_KEY_MAX, "keys are the simulator's");
_Static_assert((int)BE_IPC_EXPORTED == (int)SIM_IPC_EXPORTED &&
                   (int)BE_IPC_IMPORTED == (int)SIM_IPC_IMPORTED, "roles are the simulator's");

static aclError ipc_mem_export(void *ptr, size_t size, uint64_t flags, char *key,
                               const char **why)
{
    return rc_to_acl(sim_ipc_mem_export(ptr, size, flags, key, why),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError ipc_mem_set_pids(const char *key, int32_t *pids, size_t n, const char **why)
{
    return rc_to_acl(sim_ipc_mem_set_pids(key, pids, n, why), ACL_ERROR_RT_PARAM_INVALID);
}

static aclError ipc_mem_import(int32_t dev, const char *key, uint64_t flags, void **ptr,
                               const char **why)
{
    return rc_to_acl(sim_ipc_mem_import(dev, key, flags & ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS,
                                        ptr, why),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static void info_of(const struct sim_ipc_info *i, struct be_ipc_info *out)
{
    memcpy(out->key, i->key, sizeof out->key);
    out->role = i->role;
    out->ptr = i->ptr;
    out->size = (size_t)i->size;
    out->device = i->dev;
    out->importers = i->importers;
}

static aclError ipc_mem_close(const char *key, int role, struct be_ipc_info *info,
                              const char **why)
{
    struct sim_ipc_info i;
    enum sim_rc rc = sim_ipc_mem_close(key, role, &i, why);
    if (rc == SIM_OK)
        info_of(&i, info);
    return rc_to_acl(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError vmm_share_export(void *handle, uint64_t flags, uint64_t *shareable,
                                 const char **why)
{
    return rc_to_acl(sim_ipc_handle_export(handle, flags, shareable, why),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError vmm_share_set_pids(uint64_t shareable, int32_t *pids, size_t n,
                                   const char **why)
{
    return rc_to_acl(sim_ipc_handle_set_pids(shareable, pids, n, why),
                     ACL_ERROR_RT_PARAM_INVALID);
}

static aclError vmm_share_import(uint64_t shareable, int32_t dev, void **handle,
                                 const char **why)
{
    return rc_to_acl(sim_ipc_handle_import(shareable, dev, handle, why),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static int ipc_mem_find(const void *p, size_t n, int role, struct be_ipc_info *out)
{
    struct sim_ipc_info i;
    if (!sim_ipc_mem_find(p, n, role, &i))
        return 0;
    info_of(&i, out);
    return 1;
}

struct ipc_walk {
    void (*fn)(const struct be_ipc_info *i, void *user);
    void *user;
};

static void ipc_visit(const struct sim_ipc_info *i, void *user)
{
    struct ipc_walk *w = user;
    struct be_ipc_info out;
    info_of(i, &out);
    w->fn(&out, w->user);
}

static size_t ipc_mem_each(void (*fn)(const struct be_ipc_info *i, void *user), void *user)
{
    struct ipc_walk w = {fn, user};
    return sim_ipc_mem_each(ipc_visit, &w);
}

/* A failed aclrtFree: device memory goes when its device closes, managed
 * memory (host memory to the simulator) at aclFinalize. */
static void abandon(void *ptr)
{
    sim_mem_abandon(ptr);
    sim_host_abandon(ptr, true);
}

static void abandon_host(void *ptr)
{
    sim_host_abandon(ptr, false);
}

static const struct be_tools tools = {
    .clock = clock_read,
    .clock_reset = clock_reset,
    .note = note,
    .graph_label = graph_label,
    .mark = mark,
    .live_blocks = live_blocks,
    .audit = sim_mem_audit,
    .abandon = abandon,
    .abandon_host = abandon_host,
    .host_task = host_task,
    .host_task_done = host_task_done,
    .host_wait = host_wait,
    .stream_id = stream_id,
    .fault_handler = fault_handler,
    .task_fault = task_fault,
    .hb_reporter = hb_reporter,
    .hb_use = hb_use,
    .hb_callback = hb_callback,
    .hb_quiet = hb_quiet,
    /* ---- virtual memory and stream-ordered pools ---- */
    .vmm_live = vmm_live,
    .mem_frees = sim_mem_frees,
    .ipc_mem_find = ipc_mem_find,
    .ipc_mem_each = ipc_mem_each,
};

static const struct be_ops ops = {
    .name = "sim",
    .memcpy = mem_copy,
    .memset = mem_set,
    .memcpy2d = mem_copy2d,
    .memset_d32 = mem_set_d32,
    .tools = &tools,
    BE_OPS(BE_FIELD)
};

const struct be_ops *be_get(void)
{
    return &ops;
}

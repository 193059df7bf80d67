/*
 * sim.c - the simulator backend: struct be_ops over the NPU memory
 * simulator in sim/.
 *
 * Everything here is static except be_get(). The backend translates:
 * ACL enums to the simulator's (page policies), simulator results to the
 * runtime codes CANN returns for the same failure (out of device memory =
 * ACL_ERROR_RT_MEMORY_ALLOCATION, a bad free = ACL_ERROR_RT_MEMORY_FREE,
 * too many streams = ACL_ERROR_RT_NO_STREAM_RESOURCE).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/mem.h"
#include "base/options.h"
#include "be.h"
#include "sim/clock.h"
#include "sim/sim.h"
#include "sim/trace.h"

struct ctx {
    int32_t dev;
};

static aclError code(enum sim_rc rc, aclError if_nomem)
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
    case SIM_EINVAL:
    default:
        return ACL_ERROR_RT_PARAM_INVALID;
    }
}

static aclError init(const char **why)
{
    if (sim_configure(why) != SIM_OK)
        return ACL_ERROR_INVALID_PARAM;
    const char *trace = opt_str(OPT_TRACE);
    if (trace && !sim_trace_enabled() && sim_trace_open(trace) != SIM_OK) {
        *why = opt_invalid(OPT_TRACE, "the file cannot be created");
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

static void fini(void)
{
    sim_host_forget_all();
    if (sim_trace_enabled())
        sim_trace_close();
}

static aclError device_count(uint32_t *count)
{
    *count = sim_device_count();
    return ACL_SUCCESS;
}

static aclError device_open(int32_t dev)
{
    return code(sim_device_open(dev), ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static void device_close(int32_t dev)
{
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
    (void)priority, (void)flags; /* the simulator schedules streams alike */
    struct sim_stream *s;
    aclError rc = code(sim_stream_create(((struct ctx *)c)->dev, &s),
                       ACL_ERROR_RT_NO_STREAM_RESOURCE);
    if (rc == ACL_SUCCESS)
        *out = s;
    return rc;
}

static aclError stream_destroy(void *s)
{
    sim_stream_destroy(s);
    return ACL_SUCCESS;
}

static aclError stream_sync(void *s, int32_t timeout_ms)
{
    return code(sim_stream_sync(s, timeout_ms), ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError stream_query(void *s, int *done)
{
    *done = sim_stream_done(s);
    return ACL_SUCCESS;
}

static aclError device_sync(int32_t dev)
{
    return code(sim_device_sync(dev), ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError event_create(int32_t dev, uint32_t flags, void **out)
{
    struct sim_event *e;
    aclError rc = code(sim_event_create(dev, flags & ACL_EVENT_TIME_LINE ? SIM_EVENT_TIMELINE : 0,
                                        &e),
                       ACL_ERROR_RT_NO_EVENT_RESOURCE);
    if (rc == ACL_SUCCESS)
        *out = e;
    return rc;
}

static aclError event_destroy(void *e)
{
    sim_event_destroy(e);
    return ACL_SUCCESS;
}

static aclError event_record(void *e, void *s)
{
    sim_event_record(e, s);
    return ACL_SUCCESS;
}

static aclError event_reset(void *e, void *s)
{
    (void)s;
    sim_event_reset(e);
    return ACL_SUCCESS;
}

static aclError event_wait(void *s, void *e)
{
    sim_event_wait(s, e);
    return ACL_SUCCESS;
}

static aclError event_sync(void *e, int32_t timeout_ms)
{
    enum sim_rc rc = sim_event_sync(e, timeout_ms);
    return rc == SIM_ETIMEOUT ? ACL_ERROR_RT_EVENT_SYNC_TIMEOUT : code(rc, 0);
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
    return code(sim_mem_alloc(dev, size, policy_of(policy), flags & BE_ALLOC_NO_PAD, ptr),
                ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError mem_free(void *ptr)
{
    return sim_mem_free(ptr) == SIM_OK ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_FREE;
}

static aclError host_alloc(size_t size, void **ptr)
{
    return code(sim_host_alloc(size, ptr), ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static aclError host_free(void *ptr)
{
    return sim_host_free(ptr) == SIM_OK ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_FREE;
}

static void lookup(const void *ptr, struct be_ptr_info *info)
{
    struct sim_block b;
    void *start;
    size_t size;
    *info = (struct be_ptr_info){.kind = BE_PTR_UNKNOWN, .device = -1};
    if (sim_mem_lookup(ptr, &b)) {
        *info = (struct be_ptr_info){BE_PTR_DEVICE, b.dev, b.start, (size_t)b.usable,
                                     b.page_size};
    } else if (sim_host_lookup(ptr, &start, &size)) {
        *info = (struct be_ptr_info){BE_PTR_HOST_PINNED, -1, start, size, 4096};
    } else if (sim_mem_in_range(ptr)) {
        info->kind = BE_PTR_DEVICE_FREE;
    }
}

static aclError mem_copy(int32_t dev, void *stream, void *dst, const void *src, size_t count,
                         aclrtMemcpyKind kind, int host_waits)
{
    bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    return code(sim_copy(dev, stream, dst, dst_dev, src, src_dev, count, host_waits),
                ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_set(int32_t dev, void *stream, void *dst, int dst_dev, int value,
                        size_t count, int host_waits)
{
    return code(sim_fill(dev, stream, dst, dst_dev, value, count, host_waits),
                ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_info(int32_t dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    uint64_t used, cap;
    sim_mem_usage(dev, &used, NULL, &cap);
    const struct sim_profile *p = sim_device_profile(dev);
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
    uint64_t t = cap > p->reserved_bytes ? cap - p->reserved_bytes : cap;
    *total = (size_t)t;
    *free_bytes = (size_t)(t > used ? t - used : 0);
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
};

static void each_live(const struct sim_block *b, void *const *frames, int n, void *user)
{
    const struct live_ctx *c = user;
    c->fn(b->start, (size_t)b->usable, frames, n, c->user);
}

static size_t live_blocks(int32_t dev,
                          void (*fn)(void *start, size_t size, void *const *frames, int n,
                                     void *user),
                          void *user)
{
    struct live_ctx c = {fn, user};
    return sim_mem_live(dev, each_live, &c);
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
    sim_clock_reset();
    return ACL_SUCCESS;
}

static void note(const char *what, const void *a, const void *b)
{
    if (!sim_trace_enabled())
        return;
    char arg[96];
    snprintf(arg, sizeof arg, "stream=%p desc=%p", a, b);
    sim_trace_instant(-1, what, sim_clock_host(), arg);
}

static void describe(char *buf, size_t len)
{
    const struct sim_profile *p = sim_device_profile(0);
    snprintf(buf, len, "sim (NPU memory simulator: %s, %u device(s), %llu MiB HBM each)",
             p->name, sim_device_count(), (unsigned long long)(sim_device_capacity(0) >> 20));
}

/* ---- errors, callbacks and host functions ---- */

static aclError host_task(void *s, int blocking, uint64_t runner, uint64_t *ready)
{
    return code(sim_host_task(s, blocking != 0, runner, ready), ACL_ERROR_RT_INTERNAL_ERROR);
}

static void host_task_done(void *s, int blocking)
{
    sim_host_task_done(s, blocking != 0);
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

static const struct be_tools tools = {
    .clock = clock_read,
    .clock_reset = clock_reset,
    .note = note,
    .live_blocks = live_blocks,
    .audit = sim_mem_audit,
    .abandon = sim_mem_abandon,
    .abandon_host = sim_host_abandon,
    .host_task = host_task,
    .host_task_done = host_task_done,
    .host_wait = host_wait,
    .stream_id = stream_id,
    .fault_handler = fault_handler,
    .task_fault = task_fault,
};

static const struct be_ops ops = {
    .name = "sim",
    .init = init,
    .fini = fini,
    .device_count = device_count,
    .device_open = device_open,
    .device_close = device_close,
    .soc_name = soc_name,
    .ctx_create = ctx_create,
    .ctx_destroy = ctx_destroy,
    .stream_create = stream_create,
    .stream_destroy = stream_destroy,
    .stream_sync = stream_sync,
    .stream_query = stream_query,
    .device_sync = device_sync,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .event_reset = event_reset,
    .event_wait = event_wait,
    .event_sync = event_sync,
    .event_query = event_query,
    .event_elapsed = event_elapsed,
    .mem_alloc = mem_alloc,
    .mem_free = mem_free,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .lookup = lookup,
    .memcpy = mem_copy,
    .memset = mem_set,
    .mem_info = mem_info,
    .mem_usage = mem_usage,
    .describe = describe,
    .tools = &tools,
};

const struct be_ops *be_get(void)
{
    return &ops;
}

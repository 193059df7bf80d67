/*
 * sim.c - the simulator backend: struct be_ops over the NPU memory
 * simulator in sim/.
 *
 * Everything here is static except be_sim_ops(). The backend translates:
 * ACL enums to the simulator's (page policies), simulator results to the
 * runtime codes CANN returns for the same failure (out of device memory =
 * ACL_ERROR_RT_MEMORY_ALLOCATION, a bad free = ACL_ERROR_RT_MEMORY_FREE,
 * too many streams = ACL_ERROR_RT_NO_STREAM_RESOURCE).
 */
#include <stdlib.h>
#include "be.h"
#include "sim/sim.h"

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
    return sim_configure(why) == SIM_OK ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

static void fini(void)
{
    sim_host_forget_all();
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
    struct ctx *c = malloc(sizeof *c);
    if (!c)
        return ACL_ERROR_BAD_ALLOC;
    c->dev = dev;
    *out = c;
    return ACL_SUCCESS;
}

static void ctx_destroy(void *c)
{
    free(c);
}

static aclError stream_create(void *c, void **out)
{
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

static aclError stream_sync(void *s)
{
    return code(sim_stream_sync(s), ACL_ERROR_RT_INTERNAL_ERROR);
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

static bool on_device(aclrtMemcpyKind kind, bool dst)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
        return dst;
    case ACL_MEMCPY_DEVICE_TO_HOST:
        return !dst;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        return true;
    default:
        return false;
    }
}

static aclError mem_copy(void *dst, const void *src, size_t count, aclrtMemcpyKind kind)
{
    return code(sim_mem_copy(dst, on_device(kind, true), src, on_device(kind, false), count),
                ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_set(void *dst, int value, size_t count)
{
    struct sim_block b;
    return code(sim_mem_fill(dst, sim_mem_lookup(dst, &b), value, count),
                ACL_ERROR_RT_INTERNAL_ERROR);
}

static aclError mem_info(int32_t dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    uint64_t used, cap;
    sim_mem_usage(dev, &used, &cap);
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
    sim_mem_usage_peak(dev, &lines[0].cur, &lines[0].peak);
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
    .mem_alloc = mem_alloc,
    .mem_free = mem_free,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .lookup = lookup,
    .memcpy = mem_copy,
    .memset = mem_set,
    .mem_info = mem_info,
    .mem_usage = mem_usage,
    .live_blocks = live_blocks,
    .audit = sim_mem_audit,
    .abandon = sim_mem_abandon,
    .abandon_host = sim_host_abandon,
};

const struct be_ops *be_get(void)
{
    return &ops;
}

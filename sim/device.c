/*
 * device.c - opening and closing a simulated device: its address space from
 * vaspace.c, its heap from heap.c, its timeline from clock.c, its virtual
 * memory from vmm.c, its allocation stacks from stacks.c, its core limits
 * forgotten (limits.c); at close, its pools (pool.c) and the blocks whose
 * free failed (blocks.c) go too. The configuration and the device table it fills
 * are config.c's: this file sits on top and calls down.
 *
 * ACLSIM_TRACK=1 (base/options.def, read when a device opens) remembers
 * each live block's allocation stack for the leak report. Each device has
 * its own lock (lock.h) for its blocks; config.c's process-wide mutex,
 * held here, serialises open and close with each other and with
 * configuration.
 */
#include <sched.h>
#include <stdatomic.h>
#include "base/options.h"
#include "fault/fault.h"
#include "heap.h"
#include "internal.h"
#include "track.h"
#include "vaspace.h"

/* The ranges closed devices kept go when the library does; not under
 * memcheck, whose leak search runs after this and follows a pointer only
 * into mapped, readable memory (track.h): a device block the program still
 * points to at exit must read as "still reachable", as host memory does
 * (the process ends right after: the kernel takes the range back). */
__attribute__((destructor)) static void devices_unload(void)
{
    if (sim_track_active())
        return;
    for (int32_t i = 0; i < SIM_MAX_DEVICES; i++) {
        struct sim_dev *d = sim_dev_get(i);
        if (!atomic_load(&d->open) && d->vs) {
            atomic_store(&d->retired, false);
            sim_vaspace_destroy(d->vs);
            d->vs = NULL;
        }
    }
}

/* Open device id's timeline: its links and copy engines from the profile
 * (clock.c), and the hidden stream its synchronous work takes. */
static enum sim_rc timeline_open(int32_t id)
{
    const struct sim_profile *p = sim_device_profile(id);
    const struct sim_server *srv = sim_device_server();
    struct sim_clock_params cp = {
        .host_gbps = p->host_gbps,
        .hbm_gbps = p->hbm_gbps,
        .latency_us = p->host_latency_us,
        .host_call_us = SIM_CLOCK_DEFAULT_HOST_CALL_US,
        .host_query_us = SIM_CLOCK_DEFAULT_HOST_QUERY_US,
        .copy_engines = p->copy_engines,
        .memcpy_gbps = p->stage_gbps,
        .stage_bytes = p->stage_bytes,
        .peer_gbps = srv ? srv->link_gbps : 0,
        .peer_latency_us = srv ? srv->link_latency_us : 0,
    };
    enum sim_rc rc = sim_clock_device_open(id, &cp);
    if (rc == SIM_OK && (rc = sim_clock_stream_init(id, &sim_dev_get(id)->sync_clk)) != SIM_OK)
        sim_clock_device_close(id);
    return rc;
}

enum sim_rc sim_device_open(int32_t id)
{
    sim_core_limit_reset(id); /* a device opens with its cores unlimited, as CANN's */
    struct sim_dev *d = sim_dev_get(id);
    const struct sim_profile *p = sim_device_profile(id);
    uint64_t cap = sim_device_capacity(id);
    if (FLT_HIT(SIM_HBM_MAP))
        return SIM_ENOMEM;
    /* The heap's range, then the virtual-memory windows (vmm.c). A device
     * opens again in the range it kept since the last close (internal.h):
     * a stale pointer another thread still uses stays a device address
     * (now the new heap's), and is never unmapped under it and taken for
     * host memory. Only a range of another size (the configuration
     * changed) is replaced. */
    uint64_t span = sim_vmm_span(cap);
    struct sim_vaspace *vs = d->vs, *old = NULL;
    uint64_t whole = (span + SIM_VASPACE_CHUNK - 1) & ~(SIM_VASPACE_CHUNK - 1);
    if (!vs || sim_vaspace_size(vs) != whole) {
        old = vs;
        vs = sim_vaspace_create(span);
        if (!vs)
            return SIM_EHOSTMEM;
    }
    if (timeline_open(id) != SIM_OK) {
        if (vs != d->vs)
            sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    uint64_t base = sim_vaspace_base(vs);
    /* The heap works in offsets from base (see track.h for why): a virtual
     * heap of twice the HBM (vmm.c says why) whose blocks hold at most
     * the pages the driver's reserve leaves. */
    uint64_t pages = (cap - sim_reserve_bytes(p, cap)) & ~(sim_device_granule() - 1);
    struct sim_heap *h =
        sim_heap_create_paged(0, sim_vmm_heap_window(cap), pages, sim_device_granule());
    /* DVPP's heap: its own window of addresses, its pages the device's
     * (blocks.c); starts 128-byte aligned at the least, as acldvppMalloc's
     * documentation promises. */
    struct sim_heap *dvpp = sim_heap_create_paged(0, SIM_DVPP_SPAN, SIM_DVPP_SPAN,
                                                  sim_dvpp_granule(sim_device_granule()));
    if (!h || !dvpp) {
        sim_heap_destroy(h);
        sim_heap_destroy(dvpp);
        sim_clock_device_close(id);
        if (vs != d->vs)
            sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    if (sim_vmm_open(d, cap) != SIM_OK) {
        sim_heap_destroy(h);
        sim_heap_destroy(dvpp);
        sim_clock_device_close(id);
        if (vs != d->vs)
            sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    struct sim_stacks *stacks = opt_bool(OPT_TRACK) ? sim_stacks_create() : NULL;
    sim_config_lock();
    /* Under d->lock too: a late call from before the last close may still
     * take it (d->lock is not re-initialised); whoever takes it next and
     * finds the device open sees everything below. */
    sim_lock_take(&d->lock);
    if (old) { /* its stale pointers are unknown addresses from now on */
        atomic_store(&d->retired, false);
        sim_vaspace_destroy(old);
    }
    d->stacks = stacks;
    d->tracked = sim_track_active();
    d->view_whole = sim_vaspace_whole(vs);
    d->padding = p->malloc_padding;
    d->granule = sim_device_granule();
    d->vs = vs;
    d->heap = h;
    d->pages = pages;
    d->dvpp = dvpp;
    d->dvpp_off = sim_vmm_dvpp_window(cap);
    d->dvpp_used = 0;
    sim_dev_set_base(d, base);
    d->capacity = cap;
    d->span = span;
    atomic_store_explicit(&d->plain, !stacks && !d->tracked && d->view_whole,
                          memory_order_relaxed);
    atomic_store_explicit(&d->open, true, memory_order_release);
    /* Only now: a stale pointer must find the range open or retired at
     * every moment, or it is taken for host memory (sim_mem_in_range). */
    atomic_store(&d->retired, false);
    sim_lock_give(&d->lock);
    sim_config_count_open(+1);
    sim_config_unlock();
    return SIM_OK;
}

void sim_device_close(int32_t id)
{
    struct sim_dev *d = sim_dev_get(id);
    sim_config_lock();
    if (atomic_load_explicit(&d->open, memory_order_relaxed)) {
        /* Calls that found the device open either finish their heap section
         * before this, or find it closed; copies in flight are waited for
         * (internal.h). */
        sim_lock_take(&d->lock);
        atomic_store(&d->plain, false);
        atomic_store(&d->retired, true);
        atomic_store(&d->open, false);
        sim_lock_give(&d->lock);
        while (atomic_load(&d->users) != 0)
            sched_yield();
        /* Blocks whose free failed go now (see sim_mem_abandon). */
        sim_block_release_abandoned(d);
        sim_ipc_mem_drop(id);
        sim_vmm_close(d);
        sim_pool_close(id);
        sim_heap_destroy(d->heap);
        sim_heap_destroy(d->dvpp);
        d->dvpp = NULL;
        /* The range stays reserved, its pages given back (see the top). */
        sim_vaspace_discard(d->vs, sim_dev_base(d), sim_vmm_heap_window(d->capacity));
        sim_vaspace_discard(d->vs, sim_dev_base(d) + d->dvpp_off, SIM_DVPP_SPAN);
        sim_clock_device_close(id);
        sim_stacks_destroy(d->stacks);
        d->stacks = NULL;
        d->heap = NULL;
        sim_config_count_open(-1);
    }
    sim_config_unlock();
}

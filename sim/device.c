/*
 * device.c - simulated devices: configuration from the environment, and
 * opening and closing a device (its address space from vaspace.c, its heap
 * from heap.c, its timeline from clock.c, its allocation stacks from
 * stacks.c); finding the device an address belongs to.
 *
 * Options (base/options.def), applied by sim_configure while no device is
 * open: ACLSIM_SOC (profile), ACLSIM_HBM_BYTES (capacity override, checked
 * here against the profile and the heap's granule), ACLSIM_DEVICE_COUNT,
 * ACLSIM_SERVER (the server the devices sit in, and its default count);
 * ACLSIM_TRACK=1 (read when a device opens) remembers each live block's
 * allocation stack for the leak report.
 * Each device has its own lock (lock.h) for its blocks; a process-wide mutex
 * guards configuration and open/close. Lookups by address scan the open
 * devices' ranges (at most 64, usually one).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "base/options.h"
#include "fault/fault.h"
#include "heap.h"
#include "internal.h"
#include "track.h"
#include "vaspace.h"

static struct {
    pthread_mutex_t lock; /* configuration and open/close */
    _Atomic bool configured; /* read without the lock on hot paths */
    /* Written by configure (no device open), read without the lock. */
    _Atomic(const struct sim_profile *) profile;
    _Atomic uint64_t hbm_override;
    _Atomic(const struct sim_server *) server; /* ACLSIM_SERVER, NULL for none */
    unsigned open_count;
} sim = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct sim_devs sim_devs;

static enum sim_rc configure_locked(const char **why)
{
    const struct sim_profile *p = sim_profile_find(opt_str(OPT_SOC));
    if (!p) {
        *why = opt_invalid(OPT_SOC, "expected the name of a SoC profile (README: SoC profiles)");
        return SIM_EINVAL;
    }
    uint64_t hbm = opt_uint(OPT_HBM_BYTES);
    if (opt_is_set(OPT_HBM_BYTES) && (hbm > p->hbm_bytes || hbm % SIM_HEAP_GRANULE)) {
        char want[128];
        snprintf(want, sizeof want, "expected a multiple of %u bytes from 1 MiB to %s's %llu",
                 SIM_HEAP_GRANULE, p->name, (unsigned long long)p->hbm_bytes);
        *why = opt_invalid(OPT_HBM_BYTES, want);
        return SIM_EINVAL;
    }
    /* ---- the server ---- */
    const char *server = opt_str(OPT_SERVER);
    const struct sim_server *srv = sim_server_find(server);
    uint32_t count = (uint32_t)opt_uint(OPT_DEVICE_COUNT);
    if (!srv && server && strcmp(server, "none") != 0) {
        *why = opt_invalid(OPT_SERVER, "expected none or atlas800t-a2");
        return SIM_EINVAL;
    }
    if (srv && strncmp(p->name, srv->soc_prefix, strlen(srv->soc_prefix)) != 0) {
        char want[160];
        snprintf(want, sizeof want, "expected none: %s holds %s* parts, ACLSIM_SOC is %s",
                 srv->name, srv->soc_prefix, p->name);
        *why = opt_invalid(OPT_SERVER, want);
        return SIM_EINVAL;
    }
    if (srv && !opt_is_set(OPT_DEVICE_COUNT))
        count = srv->devices;
    if (srv && count > srv->devices) {
        char want[160];
        snprintf(want, sizeof want, "expected at most %u with ACLSIM_SERVER=%s", srv->devices,
                 srv->name);
        *why = opt_invalid(OPT_DEVICE_COUNT, want);
        return SIM_EINVAL;
    }
    sim.profile = p;
    sim.hbm_override = opt_is_set(OPT_HBM_BYTES) ? hbm : 0;
    sim.server = srv;
    sim_devs.count = count;
    sim.configured = true;
    return SIM_OK;
}

enum sim_rc sim_configure(const char **why)
{
    enum sim_rc rc = SIM_OK;
    pthread_mutex_lock(&sim.lock);
    if (sim.open_count == 0)
        rc = configure_locked(why);
    pthread_mutex_unlock(&sim.lock);
    return rc;
}

/* Lazily configure for callers that come before aclInit; a bad environment
 * then falls back to the defaults (aclInit reports it). */
static void ensure_configured(void)
{
    if (atomic_load_explicit(&sim.configured, memory_order_acquire))
        return;
    pthread_mutex_lock(&sim.lock);
    if (!sim.configured) {
        const char *why;
        if (configure_locked(&why) != SIM_OK) {
            sim.profile = sim_profile_find("Ascend910B1");
            sim.hbm_override = 0;
            sim.server = NULL;
            sim_devs.count = 1;
            sim.configured = true;
        }
    }
    pthread_mutex_unlock(&sim.lock);
}

uint32_t sim_device_count(void)
{
    ensure_configured();
    return sim_devs.count;
}

const struct sim_profile *sim_device_profile(int32_t dev)
{
    (void)dev; /* every device of a process has the same profile */
    ensure_configured();
    return sim.profile;
}

const struct sim_server *sim_device_server(void)
{
    ensure_configured();
    return sim.server;
}

uint64_t sim_device_capacity(int32_t dev)
{
    const struct sim_profile *p = sim_device_profile(dev);
    return sim.hbm_override ? sim.hbm_override : p->hbm_bytes;
}

bool sim_mem_in_range(const void *ptr)
{
    uintptr_t addr = (uintptr_t)ptr;
    uint32_t n = atomic_load_explicit(&sim_devs.count, memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < SIM_MAX_DEVICES; i++) {
        struct sim_dev *d = sim_dev_get((int32_t)i);
        uint64_t base = atomic_load_explicit(&d->base, memory_order_relaxed);
        if ((atomic_load_explicit(&d->open, memory_order_acquire) ||
             atomic_load_explicit(&d->retired, memory_order_relaxed)) &&
            addr - base < atomic_load_explicit(&d->span, memory_order_relaxed))
            return true;
    }
    return false;
}

/* The ranges closed devices kept go when the library does. */
__attribute__((destructor)) static void devices_unload(void)
{
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
    const struct sim_profile *p = sim.profile;
    const struct sim_server *srv = sim.server;
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
    ensure_configured();
    struct sim_dev *d = sim_dev_get(id);
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
    if (!vs || sim_vaspace_size(vs) != ((span + SIM_VASPACE_CHUNK - 1) & ~(SIM_VASPACE_CHUNK - 1))) {
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
    /* The heap works in offsets from base (see track.h for why) and hands
     * out what the driver's reserve, at the top of the range, leaves. */
    struct sim_heap *h = sim_heap_create(0, cap - sim_reserve_bytes(sim.profile, cap));
    if (!h) {
        sim_clock_device_close(id);
        if (vs != d->vs)
            sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    if (sim_vmm_open(d, cap) != SIM_OK) {
        sim_heap_destroy(h);
        sim_clock_device_close(id);
        if (vs != d->vs)
            sim_vaspace_destroy(vs);
        return SIM_EHOSTMEM;
    }
    struct sim_stacks *stacks = opt_bool(OPT_TRACK) ? sim_stacks_create() : NULL;
    pthread_mutex_lock(&sim.lock);
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
    d->padding = sim.profile->malloc_padding;
    d->vs = vs;
    d->heap = h;
    d->base = base;
    d->capacity = cap;
    d->span = span;
    atomic_store(&d->retired, false);
    atomic_store_explicit(&d->plain, !stacks && !d->tracked && d->view_whole,
                          memory_order_relaxed);
    atomic_store_explicit(&d->open, true, memory_order_release);
    sim_lock_give(&d->lock);
    sim.open_count++;
    pthread_mutex_unlock(&sim.lock);
    return SIM_OK;
}

void sim_device_close(int32_t id)
{
    struct sim_dev *d = sim_dev_get(id);
    pthread_mutex_lock(&sim.lock);
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
        sim_vmm_close(d);
        sim_pool_close(id);
        sim_heap_destroy(d->heap);
        /* The range stays reserved, its pages given back (see the top). */
        sim_vaspace_discard(d->vs, d->base, d->capacity);
        sim_clock_device_close(id);
        sim_stacks_destroy(d->stacks);
        d->stacks = NULL;
        d->heap = NULL;
        sim.open_count--;
    }
    pthread_mutex_unlock(&sim.lock);
}

/*
 * config.c - the simulated devices' configuration and the device table:
 * which profile and server the process simulates, how many devices it has
 * and how much HBM each; the table (struct sim_devs, internal.h) whose
 * entries device.c fills as devices open; and finding whether an address
 * lies in some device's range. It calls nothing of the simulator above the
 * profiles (profile.c) and the roofline (roofline.c), so every file that
 * reads the configuration or the table sits above it.
 *
 * Options (base/options.def), applied by sim_configure while no device is
 * open: ACLSIM_SOC (profile), ACLSIM_HBM_BYTES (capacity override, checked
 * here against SIM_HBM_MAX and the heap's granule), ACLSIM_MALLOC_ALIGN (the
 * granule of blocks on normal pages), ACLSIM_DEVICE_COUNT,
 * ACLSIM_SERVER (the server the devices sit in, and its default count).
 * A process-wide mutex guards the configuration and, held by device.c, the
 * opening and closing of devices; the figures are read without it.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "base/options.h"
#include "heap.h"
#include "internal.h"

#define SIM_HBM_MAX (UINT64_C(1) << 44) /* the most ACLSIM_HBM_BYTES gives a device */

static struct {
    pthread_mutex_t lock;    /* configuration and open/close */
    _Atomic bool configured; /* read without the lock on hot paths */
    /* Written by configure (no device open), read without the lock. */
    _Atomic(const struct sim_profile *) profile;
    _Atomic(const struct sim_soc *) soc; /* the profile's platform facts, looked up once */
    _Atomic uint64_t hbm_override;
    _Atomic(const struct sim_server *) server; /* ACLSIM_SERVER, NULL for none */
    _Atomic uint64_t granule;                  /* ACLSIM_MALLOC_ALIGN */
    unsigned open_count;
} sim = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct sim_devs sim_devs;

/* ---- Configuration ---- */

/* Edit distance of a and b, letters compared without case (a misspelt
 * SoC name is most often a case slip). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strnlen(a, 63), lb = strnlen(b, 63), row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* "expected one of the SoC profiles A, B, ...", and the nearest name when
 * one is near: what an unknown ACLSIM_SOC is told. */
static const char *unknown_soc(const char *name)
{
    char want[1024];
    int at = snprintf(want, sizeof want, "expected one of the SoC profiles");
    const struct sim_profile *near = NULL;
    size_t best = SIZE_MAX;
    for (size_t i = 0; sim_profile_at(i); i++) {
        const struct sim_profile *p = sim_profile_at(i);
        if (at > 0 && (size_t)at < sizeof want)
            at += snprintf(want + at, sizeof want - (size_t)at, "%s %s", i ? "," : "", p->name);
        size_t d = distance(name, p->name);
        if (d < best) {
            best = d;
            near = p;
        }
    }
    if (near && best <= 3 && at > 0 && (size_t)at < sizeof want)
        snprintf(want + at, sizeof want - (size_t)at, "; did you mean %s?", near->name);
    return opt_invalid(OPT_SOC, want);
}

/* The profile ACLSIM_SOC names, if one with figures of its own to time
 * kernels by, and the capacity ACLSIM_HBM_BYTES sets (0: the profile's). */
static enum sim_rc check_soc(const struct sim_profile **out, uint64_t *hbm_out, const char **why)
{
    const struct sim_profile *p = sim_profile_find(opt_str(OPT_SOC));
    if (!p) {
        *why = unknown_soc(opt_str(OPT_SOC) ? opt_str(OPT_SOC) : "");
        return SIM_EINVAL;
    }
    if (!sim_roofline_known(p)) { /* no other SoC's figures stand in for its own */
        char want[160];
        snprintf(want, sizeof want, "%s has no platform facts (cube and vector cores, clocks) "
                 "to time kernels with", p->name);
        *why = opt_invalid(OPT_SOC, want);
        return SIM_EINVAL;
    }
    uint64_t hbm = opt_uint(OPT_HBM_BYTES);
    /* Above the profile's HBM too: "would it fit a part with more memory?"
     * (aclsim-replay --hbm). 16 TiB keeps the device's four windows of
     * addresses (vmm.c) well inside a host's 128 TiB. */
    if (opt_is_set(OPT_HBM_BYTES) && (hbm > SIM_HBM_MAX || hbm % SIM_HEAP_GRANULE)) {
        char want[128];
        snprintf(want, sizeof want, "expected a multiple of %u bytes from 1 MiB to 16 TiB (%llu)",
                 SIM_HEAP_GRANULE, (unsigned long long)SIM_HBM_MAX);
        *why = opt_invalid(OPT_HBM_BYTES, want);
        return SIM_EINVAL;
    }
    *out = p;
    *hbm_out = opt_is_set(OPT_HBM_BYTES) ? hbm : 0;
    return SIM_OK;
}

/* The server ACLSIM_SERVER names for parts of profile p (NULL: none), and
 * the device count: ACLSIM_DEVICE_COUNT, else the server's. */
static enum sim_rc check_server(const struct sim_profile *p, const struct sim_server **out,
                                uint32_t *count_out, const char **why)
{
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
    *out = srv;
    *count_out = count;
    return SIM_OK;
}

/* ACLSIM_MALLOC_ALIGN: a power of two (the range is options.def's). */
static enum sim_rc check_granule(uint64_t *out, const char **why)
{
    uint64_t g = opt_uint(OPT_MALLOC_ALIGN);
    if (g & (g - 1)) {
        *why = opt_invalid(OPT_MALLOC_ALIGN, "expected a power of two from 64 to 4096");
        return SIM_EINVAL;
    }
    *out = g;
    return SIM_OK;
}

static enum sim_rc configure_locked(const char **why)
{
    const struct sim_profile *p = NULL;
    const struct sim_server *srv = NULL;
    uint64_t hbm = 0;
    uint32_t count = 0;
    uint64_t granule = SIM_HEAP_GRANULE_MAX;
    enum sim_rc rc = check_soc(&p, &hbm, why);
    if (rc == SIM_OK)
        rc = check_server(p, &srv, &count, why);
    if (rc == SIM_OK)
        rc = check_granule(&granule, why);
    if (rc != SIM_OK)
        return rc;
    sim.profile = p;
    sim.soc = sim_soc_find(p->name);
    sim.hbm_override = hbm;
    sim.server = srv;
    sim.granule = granule;
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
            sim.soc = sim_soc_find("Ascend910B1");
            sim.hbm_override = 0;
            sim.server = NULL;
            sim.granule = SIM_HEAP_GRANULE_MAX;
            sim_devs.count = 1;
            sim.configured = true;
        }
    }
    pthread_mutex_unlock(&sim.lock);
}

void sim_config_lock(void)
{
    ensure_configured(); /* a device opens in a configuration */
    pthread_mutex_lock(&sim.lock);
}

void sim_config_unlock(void)
{
    pthread_mutex_unlock(&sim.lock);
}

void sim_config_count_open(int delta)
{
    sim.open_count = (unsigned)((int)sim.open_count + delta);
}

/* ---- What the configuration says ---- */

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

const struct sim_soc *sim_device_soc(int32_t dev)
{
    (void)dev; /* as the profile, one for every device */
    ensure_configured();
    return sim.soc;
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

uint64_t sim_device_granule(void)
{
    ensure_configured();
    return sim.granule;
}

/* ---- The device table ---- */

bool sim_mem_in_range(const void *ptr)
{
    uintptr_t addr = (uintptr_t)ptr;
    uint32_t n = atomic_load_explicit(&sim_devs.count, memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < SIM_MAX_DEVICES; i++) {
        struct sim_dev *d = sim_dev_get((int32_t)i);
        uint64_t base = sim_dev_base(d);
        if ((atomic_load_explicit(&d->open, memory_order_acquire) ||
             atomic_load_explicit(&d->retired, memory_order_relaxed)) &&
            addr - base < atomic_load_explicit(&d->span, memory_order_relaxed))
            return true;
    }
    return false;
}

/*
 * profile.c - built-in SoC profiles of the simulator.
 *
 * Each value carries its source (letters refer to the shared fact sheet,
 * section 5): A = hicann/runtime platform_config <SoC>.ini, B = Huawei's
 * msmodeling device.py, C = press reports of Huawei Connect 2025,
 * D = CANN documentation. Where no source gives a number (latency, copy
 * engines) the value is a documented, configurable assumption.
 */
#include <string.h>
#include "sim.h"

#define GiB (1024ull * 1024 * 1024)
#define MiB (1024ull * 1024)

/* RESERVED_MEM of the runtime's cmodel driver (fact sheet 6.1). */
#define RESERVE (8 * MiB)

static const struct sim_profile profiles[] = {
    /* Atlas A2, 64 GiB HBM2e (A: memory_size; B). 1.6 TB/s HBM (B).
     * Host link PCIe 5.0 x16, 64 GB/s per direction theoretical (D), 80%
     * achievable (mxRec tuning doc) = 51.2 GB/s. Link latency 0.2 us (B).
     * Copy engines: unpublished, 4 assumed. AIC clock 1850 MHz (A). Padding
     * 32 (A: padding_size). 1 GB pages on A2/A3 (D). 1984 streams and 65536
     * events per device (D). */
    {.name = "Ascend910B1", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 1600, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1850, .malloc_padding = 32, .huge1g = true, .max_streams = 1984,
     .max_events = 65536},
    /* Atlas A2, 64 GiB, 24 cores at 1800 MHz (A); otherwise as 910B1. */
    {.name = "Ascend910B2", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 1600, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1800, .malloc_padding = 32, .huge1g = true, .max_streams = 1984,
     .max_events = 65536},
    /* Atlas A2, 32 GiB HBM (A), 0.8 TB/s (B: 32 GB variant), 1500 MHz (A). */
    {.name = "Ascend910B4", .hbm_bytes = 32 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 800, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1500, .malloc_padding = 32, .huge1g = true, .max_streams = 1984,
     .max_events = 65536},
    /* Atlas A3 die: 64 GiB and ~1.6 TB/s per die (A, B). The host link is
     * the HCCS plane (D); modelled at the PCIe figure as no HCCS-to-host
     * number is published. */
    {.name = "Ascend910_9391", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 1600, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1850, .malloc_padding = 32, .huge1g = true, .max_streams = 1984,
     .max_events = 65536},
    {.name = "Ascend910_9392", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 1600, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1850, .malloc_padding = 32, .huge1g = true, .max_streams = 1984,
     .max_events = 65536},
    /* Ascend 950PR: 128 GiB HiBL 1.0 at ~1.6 TB/s (A, C); 36 cores at 1800
     * MHz (A). Padding 0 (A). PCIe x16 64 GB/s (B) at 80%. No 1 GB pages (D). */
    {.name = "Ascend950PR_9599", .hbm_bytes = 128 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 1600, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1800, .malloc_padding = 0, .huge1g = false, .max_streams = 1984,
     .max_events = 65536},
    /* Ascend 950DT: 144 GiB HiZQ 2.0 at ~4 TB/s (A, C); 32 cores at 1650
     * MHz (A). Padding 0 (A). */
    {.name = "Ascend950DT_9581", .hbm_bytes = 144 * GiB, .reserved_bytes = RESERVE,
     .hbm_gbps = 4000, .host_gbps = 51.2, .host_latency_us = 0.2, .copy_engines = 4,
     .clock_mhz = 1650, .malloc_padding = 0, .huge1g = false, .max_streams = 1984,
     .max_events = 65536},
};

const struct sim_profile *sim_profile_find(const char *name)
{
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

const struct sim_profile *sim_profile_at(size_t i)
{
    return i < sizeof profiles / sizeof profiles[0] ? &profiles[i] : NULL;
}

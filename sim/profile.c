/*
 * profile.c - built-in SoC profiles of the simulator, and the platform facts
 * (core counts, L2, NPU arch) of every SoC CANN knows.
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

/* ---- Platform facts of every SoC CANN ships a platform file for ---- */

/* One line per platform_config/<SoC>.ini of hicann/runtime (cann/ and
 * cann-dev/; source A): [version] NpuArch and [SoCInfo] ai_core_cnt,
 * cube_core_cnt, vector_core_cnt, ai_cpu_cnt, l2_size, support_bf16,
 * support_inf_nan, as CANN's runtime reads them. 0 (false) where the file
 * has no such key. aclrtCheckArchCompatibility knows a SoC only by this
 * table; aclGetDeviceCapability and aclrtGetDeviceInfo read the figures of
 * the simulated SoC from it. */
static const struct sim_soc socs[] = {
    {"Ascend031", 3004, 1, 0, 1, 4, 4194304ull, false, false},
    {"Ascend035", 3505, 1, 0, 0, 0, 0ull, false, false},
    {"Ascend035A", 3505, 1, 0, 0, 0, 0ull, false, false},
    {"Ascend035B", 3505, 1, 0, 0, 0, 0ull, false, false},
    {"Ascend310B1", 3002, 1, 1, 1, 4, 4194304ull, false, false},
    {"Ascend310B2", 3002, 1, 1, 1, 4, 4194304ull, false, false},
    {"Ascend310B3", 3002, 1, 1, 1, 4, 4194304ull, false, false},
    {"Ascend310B4", 3002, 1, 1, 1, 4, 4194304ull, false, false},
    {"Ascend310P1", 2002, 10, 0, 8, 8, 16777216ull, false, false},
    {"Ascend310P3", 2002, 8, 0, 7, 7, 16777216ull, false, false},
    {"Ascend310P5", 2002, 8, 0, 7, 8, 16777216ull, false, false},
    {"Ascend310P7", 2002, 8, 0, 7, 8, 16777216ull, false, false},
    {"Ascend350_354f", 3510, 14, 14, 28, 2, 58720256ull, true, true},
    {"Ascend350_355e", 3510, 16, 16, 32, 4, 67108864ull, true, true},
    {"Ascend910A", 1001, 32, 0, 0, 4, 33554432ull, false, false},
    {"Ascend910B", 1001, 30, 0, 0, 6, 33554432ull, false, false},
    {"Ascend910B1", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend910B2", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend910B2C", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend910B3", 2201, 20, 20, 40, 6, 201326592ull, true, true},
    {"Ascend910B4", 2201, 20, 20, 40, 6, 100663296ull, true, true},
    {"Ascend910B4-1", 2201, 20, 20, 40, 6, 176160768ull, true, true},
    {"Ascend910PremiumA", 1001, 32, 0, 0, 4, 33554432ull, false, false},
    {"Ascend910ProA", 1001, 32, 0, 0, 4, 33554432ull, false, false},
    {"Ascend910ProB", 1001, 30, 0, 0, 4, 33554432ull, false, false},
    {"Ascend910_9362", 2201, 20, 20, 40, 6, 176160768ull, true, true},
    {"Ascend910_9363", 2201, 20, 20, 40, 6, 176160768ull, true, true},
    {"Ascend910_9372", 2201, 20, 20, 40, 6, 201326592ull, true, true},
    {"Ascend910_9381", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend910_9382", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend910_9391", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend910_9392", 2201, 24, 24, 48, 6, 201326592ull, true, true},
    {"Ascend950DT_950x", 3510, 8, 8, 16, 5, 33554432ull, true, true},
    {"Ascend950DT_950y", 3510, 8, 8, 16, 5, 33554432ull, true, true},
    {"Ascend950DT_9571", 3510, 28, 28, 56, 7, 134217728ull, true, true},
    {"Ascend950DT_9572", 3510, 28, 28, 56, 7, 134217728ull, true, true},
    {"Ascend950DT_9573", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950DT_9574", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950DT_9575", 3510, 28, 28, 56, 7, 134217728ull, true, true},
    {"Ascend950DT_9576", 3510, 28, 28, 56, 7, 134217728ull, true, true},
    {"Ascend950DT_9577", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950DT_9578", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950DT_9581", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950DT_9581x", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950DT_9582", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950DT_9582x", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950DT_9583", 3510, 32, 32, 64, 7, 117440512ull, true, true},
    {"Ascend950DT_9584", 3510, 32, 32, 64, 7, 117440512ull, true, true},
    {"Ascend950DT_9585", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950DT_9586", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950DT_9587", 3510, 32, 32, 64, 7, 117440512ull, true, true},
    {"Ascend950DT_9588", 3510, 32, 32, 64, 7, 117440512ull, true, true},
    {"Ascend950DT_9591", 3510, 36, 36, 72, 6, 134217728ull, true, true},
    {"Ascend950DT_9592", 3510, 36, 36, 72, 6, 134217728ull, true, true},
    {"Ascend950DT_9595", 3510, 36, 36, 72, 6, 134217728ull, true, true},
    {"Ascend950DT_9596", 3510, 36, 36, 72, 6, 134217728ull, true, true},
    {"Ascend950DT_95A1", 3510, 36, 36, 72, 6, 134217728ull, true, true},
    {"Ascend950DT_95A2", 3510, 36, 36, 72, 6, 134217728ull, true, true},
    {"Ascend950PR_950z", 3510, 4, 4, 8, 5, 16777216ull, true, true},
    {"Ascend950PR_9579", 3510, 28, 28, 56, 7, 134217728ull, true, true},
    {"Ascend950PR_957b", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950PR_957bx", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950PR_957c", 3510, 28, 28, 56, 5, 117440512ull, true, true},
    {"Ascend950PR_957d", 3510, 28, 28, 56, 5, 100663296ull, true, true},
    {"Ascend950PR_9589", 3510, 32, 32, 64, 6, 134217728ull, true, true},
    {"Ascend950PR_958b", 3510, 32, 32, 64, 7, 117440512ull, true, true},
    {"Ascend950PR_9599", 3510, 36, 36, 72, 6, 134217728ull, true, true},
};

const struct sim_soc *sim_soc_find(const char *name)
{
    for (size_t i = 0; i < sizeof socs / sizeof socs[0]; i++)
        if (strcmp(socs[i].name, name) == 0)
            return &socs[i];
    return NULL;
}

/*
 * profile.c - built-in SoC profiles of the simulator, the servers they can
 * sit in, and the platform facts (core counts, L2, NPU arch) of every SoC
 * CANN knows.
 *
 * Each value carries its source: A = hicann/runtime
 * src/platform/platform_config/cann/<SoC>.ini (cann-dev/<SoC>.ini for
 * Ascend 950), B = Huawei's msmodeling tensor_cast/device.py, C = press
 * reports of Huawei Connect 2025, D = CANN documentation (hicann/runtime
 * docs/zh/api_ref), E = measurements published in public issues (named
 * where used). Where no source gives a number the value is labelled an
 * assumption.
 */
#include <string.h>
#include "sim.h"

#define GiB (1024ull * 1024 * 1024)
#define MiB (1024ull * 1024)

/* What the driver and runtime keep of a part's HBM: aclrtGetMemInfo's
 * total is the capacity less this (E):
 *  - 64 GB Atlas A2: torch_npu's out-of-memory text reads "60.97 GiB total
 *    capacity" (vllm-ascend issues #19 and #1987, LlamaFactory #5491;
 *    60.96 with some drivers), npu-smi 65536 MB: 64 GiB - 3103 MiB =
 *    62433 MiB = 60.97 GiB.
 *  - 32 GB Atlas A2 (910B4, Atlas 800I A2 32G): "total capacity 29.49 GiB"
 *    (vllm-omni #2968): 32 GiB - 2570 MiB = 30198 MiB = 29.49 GiB.
 *  - Atlas A3 die: "61.27 GiB total capacity" (sglang #29838, an A3
 *    server): 64 GiB - 2796 MiB = 62740 MiB = 61.27 GiB; measured on one
 *    die kind, assumed for every A3 die.
 *  - Ascend 950: nothing published; RESERVED_MEM of CANN's own cmodel
 *    driver (8 MiB) is kept as an assumption. */
#define RESERVE_A2_64G (3103 * MiB)
#define RESERVE_A2_32G (2570 * MiB)
#define RESERVE_A3 (2796 * MiB)
#define RESERVE_CMODEL (8 * MiB)

/* Host link of Atlas A2, pinned memory: 23.4 GB/s H2D at 64 MiB, ~23 GB/s
 * at 4 MiB, measured on a 910B4 with CANN 8.5.0 on a buffer registered by
 * aclrtHostRegisterV2 (E: DeepSpeed issue #8531, PR #8532). The other A2
 * parts are assumed to have the same PCIe link; D2H is assumed equal to
 * H2D (no Ascend measurement is published). */
#define HOST_A2 23.4
/* Host links with no published measurement (assumption): PCIe 5.0 x16,
 * 64 GB/s per direction (B: the 950 PCIe profile), at 80% = 51.2 GB/s; A3
 * reaches the host over its HCCS plane (D), kept at the same figure. */
#define HOST_ASSUMED 51.2

/* Pageable copies (E: DeepSpeed #8531, the same 910B4, mlock-only
 * buffers: ~10 GB/s at 4 MiB, 13-22.5 GB/s at 64 MiB) are staged through
 * the runtime's pinned bounce buffers. Chunk and host memcpy rate are
 * assumptions fitted to those points (clock.h, sim_clock_copy_staged): a
 * 4 MiB copy is one chunk, memcpy then DMA, 10.2 GB/s; a 64 MiB one
 * overlaps the memcpy of a chunk with the DMA of the last, 17.2 GB/s. */
#define STAGE_BYTES (4 * MiB)
#define STAGE_GBPS 18.0

/* Clocks (A): the cube's is [AICoreSpec] cube_freq; the vector cores' is
 * [VectorCoreSpec] vec_freq, which only the Ascend 950 files have. The
 * Atlas A2/A3 files (cube_vector_combine=split) give cube_freq alone: their
 * vector cores, which sit beside the cube cores in the AI core, are assumed
 * to run at it. */
#define A2_CLOCK(mhz) .cube_mhz = mhz, .vector_mhz = mhz

/* Shared by every profile, assumptions unless said: link latency 0.2 us
 * (B gives 0.2 us for its A2 PCIe inter-device grid, marked TODO; no host
 * link latency is published); 4 copy engines (never published); 1984
 * streams and 65536 events per device (D: 06_stream_management.md,
 * 07_event_management.md). */
#define COMMON                                                                             \
    .host_latency_us = 0.2, .copy_engines = 4, .max_streams = 1984, .max_events = 65536, \
    .stage_bytes = STAGE_BYTES, .stage_gbps = STAGE_GBPS

static const struct sim_profile profiles[] = {
    /* Atlas A2, 64 GiB HBM2e (A: memory_size; B), 1.6 TB/s (B; the 950
     * white paper's A2 line). Cube clock 1850 MHz (A: cube_freq). Padding 32
     * (A: padding_size). 1 GB pages on A2/A3 (D). Managed memory (UVM) on
     * A2 and A3, not on 950 (D: 11-05_unified_addressing.md). */
    {.name = "Ascend910B1", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A2_64G,
     .hbm_gbps = 1600, .host_gbps = HOST_A2, A2_CLOCK(1850), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    /* Atlas A2, 64 GiB, 24 cube cores at cube_freq 1800 MHz (A); otherwise as
     * 910B1. */
    {.name = "Ascend910B2", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A2_64G,
     .hbm_gbps = 1600, .host_gbps = HOST_A2, A2_CLOCK(1800), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    /* Atlas A2, 64 GiB, 20 cube cores at cube_freq 1800 MHz (A); 1.6 TB/s (B:
     * A2_313T_64G). */
    {.name = "Ascend910B3", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A2_64G,
     .hbm_gbps = 1600, .host_gbps = HOST_A2, A2_CLOCK(1800), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    /* Atlas A2, 32 GiB HBM (A), 0.8 TB/s (B: A2_280T_32G_PCIE), 20 cube
     * cores at cube_freq 1500 MHz (A); the part the host-link measurement
     * was made on. */
    {.name = "Ascend910B4", .hbm_bytes = 32 * GiB, .reserved_bytes = RESERVE_A2_32G,
     .hbm_gbps = 800, .host_gbps = HOST_A2, A2_CLOCK(1500), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    /* Atlas A3 dies: 64 GiB each (A), ~1.6 TB/s per die (B: A3 die
     * profiles; the 910C package has 3.2 TB/s over 2 dies). 9391/9392 and
     * 9381/9382 have 24 cube cores, 9372 and 9362 20 (A); cube_freq 1850
     * (9391/9392), 1800 (9381/9382/9372), 1500 (9362) MHz (A). The lower
     * bins are assumed to keep the HBM of the 9391. */
    {.name = "Ascend910_9391", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A3,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, A2_CLOCK(1850), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    {.name = "Ascend910_9392", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A3,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, A2_CLOCK(1850), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    {.name = "Ascend910_9381", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A3,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, A2_CLOCK(1800), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    {.name = "Ascend910_9382", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A3,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, A2_CLOCK(1800), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    {.name = "Ascend910_9372", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A3,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, A2_CLOCK(1800), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    {.name = "Ascend910_9362", .hbm_bytes = 64 * GiB, .reserved_bytes = RESERVE_A3,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, A2_CLOCK(1500), .malloc_padding = 32,
     .huge1g = true, .uvm = true, COMMON},
    /* Ascend 950PR: 128 GiB HiBL 1.0 at ~1.6 TB/s (A, C; B: M128G_1_6T); 36
     * cube cores, cube_freq and vec_freq 1800 MHz (A: cann-dev/). Padding 0
     * (A). No 1 GB pages, no UVM (D). */
    {.name = "Ascend950PR_9599", .hbm_bytes = 128 * GiB, .reserved_bytes = RESERVE_CMODEL,
     .hbm_gbps = 1600, .host_gbps = HOST_ASSUMED, .cube_mhz = 1800, .vector_mhz = 1800,
     .malloc_padding = 0, .huge1g = false, .uvm = false, COMMON},
    /* Ascend 950DT: 144 GiB HiZQ 2.0 at ~4 TB/s (A, C; B: M144G_4T); 32
     * cube cores, cube_freq and vec_freq 1650 MHz (A: cann-dev/). Padding 0
     * (A). */
    {.name = "Ascend950DT_9581", .hbm_bytes = 144 * GiB, .reserved_bytes = RESERVE_CMODEL,
     .hbm_gbps = 4000, .host_gbps = HOST_ASSUMED, .cube_mhz = 1650, .vector_mhz = 1650,
     .malloc_padding = 0, .huge1g = false, .uvm = false, COMMON},
};

/* Atlas 800T A2 class: 8 Atlas A2 parts on an HCCS full mesh, 196 GB/s per
 * device and direction over its 7 links (B: ATLAS_800.A2_INTERCONNECT,
 * FULL_MESH, 196e9 B/s, 0.5 us latency marked TODO), so 28 GB/s per link
 * (derived). Measured on 8 x 910B: all_gather algbw 149 GB/s (E:
 * gameofdimension/limulidae README), below the model's 224 (196 * 8 / 7):
 * the model is the nominal fabric. */
static const struct sim_server servers[] = {
    {.name = "atlas800t-a2", .soc_prefix = "Ascend910B", .devices = 8, .device_gbps = 196,
     .link_gbps = 196.0 / 7, .link_latency_us = 0.5},
};

const struct sim_server *sim_server_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof servers / sizeof servers[0]; i++)
        if (strcmp(servers[i].name, name) == 0)
            return &servers[i];
    return NULL;
}

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

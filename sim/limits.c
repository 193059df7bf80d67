/*
 * limits.c - what a simulated device says of its cores and keeps of the
 * program's settings: its core counts and the core limits set on it and on
 * its streams, its SIMT limits, which element types its SDMA reduces, and
 * the device-wide settings (saturation mode, operator timeouts) a program
 * sets and reads back.
 *
 * Limits and settings are kept, not enforced: a kernel uses every core of
 * its unit whatever the limits say (roofline.c), and nothing the simulator
 * runs overflows or times out. Figures come from the SoC's platform facts
 * (profile.c, from hicann/runtime src/platform/platform_config/) and, for
 * SIMT, from CANN's runtime sources named below. Every call is thread-safe:
 * the state is atomic, per device or per stream (stream properties).
 */
#include <stdatomic.h>
#include "sim.h"

/* ---- Device-wide settings ---- */

static _Atomic uint64_t settings[SIM_MAX_DEVICES][SIM_DS_COUNT];

uint64_t sim_device_setting(int32_t dev, enum sim_dev_setting s)
{
    return atomic_load(&settings[dev][s]);
}

void sim_device_set_setting(int32_t dev, enum sim_dev_setting s, uint64_t v)
{
    atomic_store(&settings[dev][s], v);
}

/* ---- Core limits ----
 *
 * As CANN's runtime keeps them: a device's start at its core counts each
 * time it opens; a stream has none until one is set. Stored as value + 1,
 * 0 meaning "none set" (a stream's in its SIM_SP_CUBE_LIMIT and
 * SIM_SP_VECTOR_LIMIT properties). */

static _Atomic uint64_t dev_limits[SIM_MAX_DEVICES][2];

static enum sim_stream_prop limit_prop(enum sim_core c)
{
    return c == SIM_CORE_CUBE ? SIM_SP_CUBE_LIMIT : SIM_SP_VECTOR_LIMIT;
}

uint32_t sim_core_count(int32_t dev, enum sim_core c)
{
    const struct sim_soc *s = sim_device_soc(dev);
    if (!s)
        return 0;
    /* hicann/runtime src/runtime/core/src/device/raw_device_res.cc,
     * RawDevice::InitResource: the AI core count for cube cores */
    return c == SIM_CORE_CUBE ? s->ai_cores : s->vector_cores;
}

uint32_t sim_core_limit(int32_t dev, enum sim_core c)
{
    uint64_t v = atomic_load(&dev_limits[dev][c]);
    return v ? (uint32_t)(v - 1) : sim_core_count(dev, c);
}

void sim_core_limit_set(int32_t dev, enum sim_core c, uint32_t n)
{
    atomic_store(&dev_limits[dev][c], (uint64_t)n + 1);
}

void sim_core_limit_reset(int32_t dev)
{
    atomic_store(&dev_limits[dev][SIM_CORE_CUBE], 0);
    atomic_store(&dev_limits[dev][SIM_CORE_VECTOR], 0);
}

bool sim_stream_core_limit(struct sim_stream *s, enum sim_core c, uint32_t *n)
{
    uint64_t v = sim_stream_prop(s, limit_prop(c));
    if (v)
        *n = (uint32_t)(v - 1);
    return v != 0;
}

void sim_stream_core_limit_set(struct sim_stream *s, enum sim_core c, uint32_t n)
{
    sim_stream_set_prop(s, limit_prop(c), (uint64_t)n + 1);
}

void sim_stream_core_limit_reset(struct sim_stream *s)
{
    sim_stream_set_prop(s, SIM_SP_CUBE_LIMIT, 0);
    sim_stream_set_prop(s, SIM_SP_VECTOR_LIMIT, 0);
}

/* ---- What the SoC can do ---- */

/* NPU arch 3510 (Ascend 950, 350) runs SIMT code. */
enum { ARCH_SIMT = 3510 };

bool sim_device_simt(int32_t dev)
{
    const struct sim_soc *s = sim_device_soc(dev);
    return s && s->npu_arch == ARCH_SIMT;
}

/* The runtime's device properties for arch 3510 (hicann/runtime
 * src/runtime/config/950/dev_info_reg.cc, src/runtime/core/inc/
 * base_david.hpp) give these limits, and 0 for every other arch. UB per
 * vector core is 256 KiB less 32 KiB of data cache and 8 KiB for the
 * compiler. */
int64_t sim_simt_limit(int32_t dev, enum sim_simt what)
{
    if (!sim_device_simt(dev))
        return 0;
    switch (what) {
    case SIM_SIMT_WARP_SIZE:
        return 32;
    case SIM_SIMT_THREADS_PER_VECTOR_CORE:
        return 32 * 64;
    case SIM_SIMT_UB_PER_VECTOR_CORE:
        return (256 - 32 - 8) * 1024;
    case SIM_SIMT_GRID_DIM:
    case SIM_SIMT_BLOCKS_PER_GRID:
        return 65535;
    case SIM_SIMT_THREADS_PER_BLOCK:
    case SIM_SIMT_BLOCK_DIM:
    default:
        return 2048;
    }
}

/* The runtime's chips with tiling-key sink (the task-update feature of
 * aclrtGetDeviceCapability): 910B/A3 (NPU arch 2201), 950/350 (3510), 310P
 * (2002). */
bool sim_device_task_update(int32_t dev)
{
    const struct sim_soc *s = sim_device_soc(dev);
    return s && (s->npu_arch == 2201 || s->npu_arch == ARCH_SIMT || s->npu_arch == 2002);
}

/* Atlas A2 and A3 (NPU arch 2201) record uncorrectable memory errors. */
bool sim_device_records_uce(int32_t dev)
{
    const struct sim_soc *s = sim_device_soc(dev);
    return s && s->npu_arch == 2201;
}

/* CANN's aclrtReduceAsync document: int8, int16, int32, fp16, fp32, bf16
 * on Atlas A2/A3, and uint32 too on Ascend 950. */
bool sim_reduce_supported(int32_t dev, enum sim_elem e)
{
    if (!sim_device_soc(dev))
        return false;
    if (e == SIM_EL_U32)
        return sim_device_simt(dev);
    return e != SIM_EL_I64 && e != SIM_EL_U64;
}

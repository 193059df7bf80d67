/*
 * roofline.c - how long a built-in operator takes on a device: a roofline
 * of cube (matrix) and vector throughput per data type against HBM
 * bandwidth, plus a fixed cost per kernel, all from the device's own
 * profile (profile.c) and its SoC's platform facts (sim_soc_find, which
 * the caller passes: config.c looks them up once per configuration). There is
 * no table of its own: a profile is timed by its own cores and clocks, and
 * one whose SoC has no such facts times nothing (sim_roofline_known).
 *
 * duration = launch + max(flops / throughput(unit, dtype), bytes / HBM)
 *
 * Sources (letters as in sim/profile.c):
 *   A  hicann/runtime src/platform/platform_config/cann/<SoC>.ini (Atlas
 *      A2, A3) and cann-dev/<SoC>.ini (Ascend 950): [SoCInfo] cube_core_cnt
 *      and vector_core_cnt (the platform table of profile.c); [AICoreSpec]
 *      cube_freq (the profile's cube_mhz), cube_m/n/k_size (16 x 16 x 16)
 *      and vec_calc_size (128); [VectorCoreSpec] vec_freq (the profile's
 *      vector_mhz; profile.c says what stands in where a file has none).
 *   D  derived from A: a cube core does m*n*k multiply-adds (2 flops each)
 *      per cycle on fp16/bf16, so cube flop/s = cube cores * 16*16*16 * 2 *
 *      cube_freq (910B1: 24 * 8192 * 1850e6 = 363.7 TFLOPS; 910B3: 20 *
 *      8192 * 1800e6 = 294.9). int8 doubles k (hicann/ge acl_cblas
 *      gemm_ops.cpp: BLOCK_REDUCE_INT8 = 32 against 16).
 *   V  vector: vec_calc_size=128 (A) read as 128 fp16 (64 fp32) lanes per
 *      cycle per vector core, one multiply-add (2 flops) each: the lane
 *      reading is an assumption, the counts and clock are A.
 *   M  Huawei msmodeling (github.com/Ascend/msmodeling, its device model's
 *      kernel launch): a static device cost of 5 us per matmul and 2 us per vector op,
 *      marked TODO there: treat as calibratable.
 *   S  assumption: fp32 on the cube runs at a quarter of fp16 (HF32 is
 *      not modelled); int32 elementwise at the fp32 vector rate.
 * HBM bandwidth is the profile's (profile.c, sourced there).
 * Every figure is per device; kernels of different streams do not share
 * cores (an assumption the README states).
 */
#include "sim.h"

#define LAUNCH_CUBE_PS (5 * SIM_ROOF_PS_PER_US)   /* M */
#define LAUNCH_VECTOR_PS (2 * SIM_ROOF_PS_PER_US) /* M */
#define CUBE_MACS 4096.0                          /* 16 x 16 x 16 (A) */
#define VEC_F16_LANES 128.0                       /* V */

/* fp16 flop/s of one unit of p with its SoC's facts s: 0 when there are
 * none (s NULL), no cores of the unit, or p has no clock for it. */
static double f16_flops(const struct sim_profile *p, const struct sim_soc *s, bool cube)
{
    if (!s)
        return 0;
    if (cube)
        return s->cube_cores * CUBE_MACS * 2 * (p->cube_mhz * 1e6); /* D */
    return s->vector_cores * VEC_F16_LANES * 2 * (p->vector_mhz * 1e6); /* V */
}

bool sim_roofline_known(const struct sim_profile *p)
{
    const struct sim_soc *s = sim_soc_find(p->name);
    return f16_flops(p, s, true) > 0 && f16_flops(p, s, false) > 0;
}

double sim_roofline_flops_per_s(const struct sim_profile *p, const struct sim_soc *s, bool cube,
                                enum sim_dtype dt)
{
    double f16 = f16_flops(p, s, cube);
    if (cube) {
        switch (dt) {
        case SIM_DT_I8:
            return 2 * f16; /* D: k doubles */
        case SIM_DT_F32:
        case SIM_DT_I32:
            return f16 / 4; /* S */
        default:
            return f16;
        }
    }
    switch (dt) {
    case SIM_DT_F16:
    case SIM_DT_BF16:
    case SIM_DT_I8:
    case SIM_DT_U8:
    case SIM_DT_I16:
    case SIM_DT_U16:
    case SIM_DT_BOOL:
        return f16;
    default:
        return f16 / 2; /* 32- and 64-bit lanes: half as many (V, S) */
    }
}

uint64_t sim_roofline_ps(const struct sim_profile *p, const struct sim_soc *s, bool cube,
                         enum sim_dtype dt, double flops, double bytes)
{
    double rate = sim_roofline_flops_per_s(p, s, cube, dt);
    if (!(rate > 0))
        return UINT64_MAX; /* no such unit: sim_configure admits no such profile */
    double compute = flops / rate;
    double memory = bytes / (p->hbm_gbps * 1e9);
    double secs = compute > memory ? compute : memory;
    return (cube ? LAUNCH_CUBE_PS : LAUNCH_VECTOR_PS) + (uint64_t)(secs * 1e12 + 0.5);
}

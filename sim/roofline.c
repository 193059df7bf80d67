/*
 * roofline.c - how long a built-in operator takes on each SoC: a roofline
 * of cube (matrix) and vector throughput per data type against HBM
 * bandwidth, plus a fixed cost per kernel.
 *
 * duration = launch + max(flops / throughput(unit, dtype), bytes / HBM)
 *
 * Sources (letters as in sim/profile.c):
 *   A  hicann/runtime src/platform/platform_config/<SoC>.ini: cube_core_cnt,
 *      vector_core_cnt, cube_freq (MHz), cube_m/n/k_size (16 x 16 x 16).
 *   D  derived from A: a cube core does m*n*k multiply-adds (2 flops each)
 *      per cycle on fp16/bf16, so cube TFLOPS = cores * 16*16*16 * 2 * MHz
 *      / 1e6 (910B1: 24 * 8192 * 1850e6 = 363.7 TFLOPS). int8 doubles k
 *      (hicann/ge acl_cblas gemm_ops.cpp: BLOCK_REDUCE_INT8 = 32 against 16).
 *   V  vector: vec_calc_size=128 (A) read as 128 fp16 (64 fp32) lanes per
 *      cycle per vector core, one multiply-add (2 flops) each: the lane
 *      reading is an assumption, the counts and clock are A.
 *   M  Huawei msmodeling (fidelity-and-needs.md, table A, "Kernel launch"):
 *      a static device cost of 5 us per matmul and 2 us per vector op,
 *      marked TODO there: treat as calibratable.
 *   S  assumption: fp32 on the cube runs at a quarter of fp16 (HF32 is
 *      not modelled); int32 elementwise at the fp32 vector rate.
 * HBM bandwidth is the SoC profile's (profile.c, sourced there).
 * Every figure is per device; kernels of different streams do not share
 * cores (an assumption the README states).
 */
#include <string.h>
#include "sim.h"

struct roofline {
    const char *soc;
    unsigned cube_cores, vector_cores, mhz; /* A */
};

static const struct roofline table[] = {
    {"Ascend910B1", 24, 48, 1850},
    {"Ascend910B2", 24, 48, 1800},
    {"Ascend910B4", 20, 40, 1500},
    {"Ascend910_9391", 24, 48, 1850},
    {"Ascend910_9392", 24, 48, 1850},
    {"Ascend950PR_9599", 36, 72, 1800}, /* A: cann-dev/Ascend950PR_9599.ini */
    {"Ascend950DT_9581", 32, 64, 1650}, /* A: cann-dev/Ascend950DT_9581.ini */
};

#define LAUNCH_CUBE_PS (5 * SIM_ROOF_PS_PER_US)   /* M */
#define LAUNCH_VECTOR_PS (2 * SIM_ROOF_PS_PER_US) /* M */
#define CUBE_MACS 4096.0                          /* 16 x 16 x 16 (A) */
#define VEC_F16_LANES 128.0                       /* V */

static const struct roofline *find(const char *soc)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].soc, soc) == 0)
            return &table[i];
    return &table[0]; /* a profile added later: the A2 figures */
}

double sim_roofline_flops_per_s(const char *soc, bool cube, enum sim_dtype dt)
{
    const struct roofline *r = find(soc);
    double hz = r->mhz * 1e6;
    if (cube) {
        double f16 = r->cube_cores * CUBE_MACS * 2 * hz; /* D */
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
    double f16 = r->vector_cores * VEC_F16_LANES * 2 * hz; /* V */
    switch (dt) {
    case SIM_DT_F16:
    case SIM_DT_BF16:
    case SIM_DT_I8:
    case SIM_DT_U8:
        return f16;
    default:
        return f16 / 2; /* 32- and 64-bit lanes: half as many (V, S) */
    }
}

uint64_t sim_roofline_ps(const char *soc, double hbm_gbps, bool cube, enum sim_dtype dt,
                         double flops, double bytes)
{
    double compute = flops / sim_roofline_flops_per_s(soc, cube, dt);
    double memory = bytes / (hbm_gbps * 1e9);
    double s = compute > memory ? compute : memory;
    return (cube ? LAUNCH_CUBE_PS : LAUNCH_VECTOR_PS) + (uint64_t)(s * 1e12 + 0.5);
}

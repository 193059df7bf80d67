/*
 * tests/sim/test_roofline.c - kernel time (sim/roofline.c) follows each
 * built-in profile's own cores and clocks: every profile has a row below,
 * each row holds its SoC's figures from CANN's platform file (the file is
 * named in the row) and the kernel times worked out by hand from them, and
 * the simulator must give exactly those. A profile added without a row of
 * its own fails here, as does one timed by another SoC's figures, and so
 * does one sim_configure (sim/config.c) refuses: it refuses a profile whose
 * SoC has no figures to time kernels by.
 *
 * The operators are those of the cost model of sim/ops/: an fp16 MatMul of
 * 2048 x 2048 by 2048 x 2048 (2 * 2048^3 flops, three 2048^2 fp16 matrices
 * through HBM: cube-bound everywhere), the fp32 MatMul 512^3 of the house
 * check (2 * 512^3 flops, three 512^2 fp32 matrices) and an fp16 Add of two
 * 2048^2 tensors (2048^2 flops, three tensors through HBM: HBM-bound
 * everywhere). By hand, with roofline.c's model:
 *   cube fp16 flop/s   = cube_core_cnt * 16*16*16 * 2 * cube_freq
 *   cube fp32 flop/s   = a quarter of that
 *   vector fp16 flop/s = vector_core_cnt * 128 * 2 * vec_freq (cube_freq
 *                        where the file has no vec_freq)
 *   time (ps) = launch (5 us cube, 2 us vector)
 *             + max(flops / flop/s, bytes / HBM bytes/s), rounded to 1 ps.
 * Times are pinned to the picosecond, give or take 1 ps for the rounding
 * of the simulator's double arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/options.h"
#include "sim/sim.h"

#define INI "hicann/runtime src/platform/platform_config/"

struct row {
    const char *name;
    const char *source; /* the platform file the figures below come from */
    /* From the file: [SoCInfo] cube_core_cnt, vector_core_cnt; [AICoreSpec]
     * cube_freq; [VectorCoreSpec] vec_freq (0: the file has none). HBM from
     * sim/profile.c (msmodeling's device profiles). */
    unsigned cube_cores, vector_cores, cube_freq, vec_freq;
    double hbm_gbps;
    /* Worked out by hand from the figures above. */
    double cube_f16, vector_f16; /* flop/s */
    uint64_t matmul_f16_2048_ps, matmul_f32_512_ps, add_f16_2048_ps;
};

static const struct row rows[] = {
    {"Ascend910B1", INI "cann/Ascend910B1.ini", 24, 48, 1850, 0, 1600,
     363724800000000.0, 22732800000000.0, 52233153, 7952072, 17728640},
    {"Ascend910B2", INI "cann/Ascend910B2.ini", 24, 48, 1800, 0, 1600,
     353894400000000.0, 22118400000000.0, 53545185, 8034074, 17728640},
    {"Ascend910B3", INI "cann/Ascend910B3.ini", 20, 40, 1800, 0, 1600,
     294912000000000.0, 18432000000000.0, 63254222, 8640889, 17728640},
    {"Ascend910B4", INI "cann/Ascend910B4.ini", 20, 40, 1500, 0, 800,
     245760000000000.0, 15360000000000.0, 74905067, 9369067, 33457280},
    {"Ascend910_9391", INI "cann/Ascend910_9391.ini", 24, 48, 1850, 0, 1600,
     363724800000000.0, 22732800000000.0, 52233153, 7952072, 17728640},
    {"Ascend910_9392", INI "cann/Ascend910_9392.ini", 24, 48, 1850, 0, 1600,
     363724800000000.0, 22732800000000.0, 52233153, 7952072, 17728640},
    {"Ascend910_9381", INI "cann/Ascend910_9381.ini", 24, 48, 1800, 0, 1600,
     353894400000000.0, 22118400000000.0, 53545185, 8034074, 17728640},
    {"Ascend910_9382", INI "cann/Ascend910_9382.ini", 24, 48, 1800, 0, 1600,
     353894400000000.0, 22118400000000.0, 53545185, 8034074, 17728640},
    {"Ascend910_9372", INI "cann/Ascend910_9372.ini", 20, 40, 1800, 0, 1600,
     294912000000000.0, 18432000000000.0, 63254222, 8640889, 17728640},
    {"Ascend910_9362", INI "cann/Ascend910_9362.ini", 20, 40, 1500, 0, 1600,
     245760000000000.0, 15360000000000.0, 74905067, 9369067, 17728640},
    {"Ascend950PR_9599", INI "cann-dev/Ascend950PR_9599.ini", 36, 72, 1800, 1800, 1600,
     530841600000000.0, 33177600000000.0, 37363457, 7022716, 17728640},
    {"Ascend950DT_9581", INI "cann-dev/Ascend950DT_9581.ini", 32, 64, 1650, 1650, 4000,
     432537600000000.0, 27033600000000.0, 44718788, 7482424, 8291456},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

static const struct row *row_of(const char *name)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

/* A MatMul of m x k by k x n with elements of `size` bytes, as kernels.c costs
 * it: 2mnk flops; both inputs and the output through HBM. */
static uint64_t matmul_ps(const struct sim_profile *p, enum sim_dtype dt, double size, double m,
                          double n, double k)
{
    return sim_roofline_ps(p, sim_soc_find(p->name), true, dt, 2 * m * n * k,
                           (m * k + k * n + m * n) * size);
}

/* An elementwise binary operator over `elems` fp16 elements: one flop per
 * element on the vector unit; two inputs and the output through HBM. */
static uint64_t add_f16_ps(const struct sim_profile *p, double elems)
{
    return sim_roofline_ps(p, sim_soc_find(p->name), false, SIM_DT_F16, elems, 3 * 2 * elems);
}

/* Whether `what` on soc takes want ps, give or take 1; says so when not. */
static bool same_ps(const char *what, const char *soc, uint64_t got, uint64_t want)
{
    uint64_t d = got > want ? got - want : want - got;
    if (d > 1)
        print_error("%s on %s takes %llu ps, want %llu (worked out from its own figures)\n",
                    what, soc, (unsigned long long)got, (unsigned long long)want);
    return d <= 1;
}

static void test_every_profile_has_a_row_of_its_own(void **state)
{
    (void)state;
    size_t n = 0;
    const struct sim_profile *p;
    for (; (p = sim_profile_at(n)) != NULL; n++)
        if (!row_of(p->name))
            fail_msg("profile %s has no row in this test: add one, worked out from %s"
                     "<SoC>.ini", p->name, INI);
    for (size_t i = 0; i < N_ROWS; i++)
        if (!sim_profile_find(rows[i].name))
            fail_msg("row %s names no profile", rows[i].name);
    assert_int_equal(n, N_ROWS);
}

static void test_each_profile_has_its_platform_files_figures(void **state)
{
    (void)state;
    const struct sim_profile *p;
    for (size_t i = 0; (p = sim_profile_at(i)) != NULL; i++) {
        const struct row *r = row_of(p->name);
        const struct sim_soc *s = sim_soc_find(p->name);
        assert_non_null(r);
        if (!s)
            fail_msg("%s has no platform facts (sim/profile.c's table of SoCs)", p->name);
        if (s->cube_cores != r->cube_cores || s->vector_cores != r->vector_cores ||
            p->cube_mhz != r->cube_freq ||
            p->vector_mhz != (r->vec_freq ? r->vec_freq : r->cube_freq) ||
            p->hbm_gbps != r->hbm_gbps)
            fail_msg("%s: %u cube and %u vector cores at %u / %u MHz, %g GB/s; %s gives "
                     "%u, %u, cube_freq %u, vec_freq %u", p->name, s->cube_cores,
                     s->vector_cores, p->cube_mhz, p->vector_mhz, p->hbm_gbps, r->source,
                     r->cube_cores, r->vector_cores, r->cube_freq, r->vec_freq);
    }
}

/* Whether profile p gives the row's figures; says which it misses. */
static bool times_as_its_row(const struct sim_profile *p, const struct row *r)
{
    const struct sim_soc *s = sim_soc_find(p->name);
    double cube = sim_roofline_flops_per_s(p, s, true, SIM_DT_F16);
    double vector = sim_roofline_flops_per_s(p, s, false, SIM_DT_F16);
    bool ok = cube == r->cube_f16 && vector == r->vector_f16;
    if (!ok)
        print_error("%s: cube %.0f and vector %.0f fp16 flop/s, want %.0f and %.0f\n", p->name,
                    cube, vector, r->cube_f16, r->vector_f16);
    ok &= same_ps("fp16 MatMul 2048^3", p->name, matmul_ps(p, SIM_DT_F16, 2, 2048, 2048, 2048),
                  r->matmul_f16_2048_ps);
    ok &= same_ps("fp32 MatMul 512^3", p->name, matmul_ps(p, SIM_DT_F32, 4, 512, 512, 512),
                  r->matmul_f32_512_ps);
    ok &= same_ps("fp16 Add 2048^2", p->name, add_f16_ps(p, 2048.0 * 2048), r->add_f16_2048_ps);
    return ok;
}

static void test_kernel_time_follows_each_profiles_cores_and_clock(void **state)
{
    (void)state;
    const struct sim_profile *p;
    int wrong = 0;
    for (size_t i = 0; (p = sim_profile_at(i)) != NULL; i++) {
        const struct row *r = row_of(p->name);
        assert_non_null(r);
        if (!sim_roofline_known(p))
            fail_msg("%s cannot time kernels: its SoC has no platform facts", p->name);
        wrong += !times_as_its_row(p, r);
    }
    if (wrong)
        fail_msg("%d profile(s) not timed by their own figures (above)", wrong);
}

static void test_profile_without_platform_facts_borrows_none(void **state)
{
    (void)state;
    /* 910B1's figures under a name no platform file has, and under the name
     * of a SoC whose file lists no cube or vector cores (Ascend910A). */
    struct sim_profile unknown = *sim_profile_find("Ascend910B1"), coreless = unknown;
    unknown.name = "Ascend910B9";
    coreless.name = "Ascend910A";
    assert_null(sim_soc_find(unknown.name));
    assert_non_null(sim_soc_find(coreless.name));
    const struct sim_profile *fake[2] = {&unknown, &coreless};
    for (int i = 0; i < 2; i++) {
        const struct sim_soc *s = sim_soc_find(fake[i]->name);
        assert_true(sim_roofline_flops_per_s(fake[i], s, true, SIM_DT_F16) == 0);
        assert_true(sim_roofline_flops_per_s(fake[i], s, false, SIM_DT_F16) == 0);
        assert_false(sim_roofline_known(fake[i]));
        assert_true(matmul_ps(fake[i], SIM_DT_F16, 2, 2048, 2048, 2048) == UINT64_MAX);
    }
}

static void test_every_profile_configures(void **state)
{
    (void)state;
    const struct sim_profile *p;
    for (size_t i = 0; (p = sim_profile_at(i)) != NULL; i++) {
        const char *why = NULL;
        setenv("ACLSIM_SOC", p->name, 1);
        assert_int_equal(opt_reload(), 0);
        if (sim_configure(&why) != SIM_OK)
            fail_msg("ACLSIM_SOC=%s does not configure: %s", p->name, why);
        assert_ptr_equal(sim_device_profile(0), p);
    }
    unsetenv("ACLSIM_SOC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_profile_has_a_row_of_its_own),
        cmocka_unit_test(test_each_profile_has_its_platform_files_figures),
        cmocka_unit_test(test_kernel_time_follows_each_profiles_cores_and_clock),
        cmocka_unit_test(test_profile_without_platform_facts_borrows_none),
        cmocka_unit_test(test_every_profile_configures),
    };
    return cmocka_run_group_tests_name("roofline", tests, NULL, NULL);
}

/*
 * tests/sim/test_profile.c - the built-in SoC profiles (sim/profile.c)
 * against the "SoC profiles" table of docs/timing.md: every profile has a row whose
 * HBM, HBM GB/s, padding, 1 GB-pages, reserve, host GB/s and UVM cells are
 * the profile's, every row
 * names only real profiles, and no profile has two rows. The page's path
 * comes from the build (ACLSIM_ROOT, the project root). tests/api/test_policy.c opens each
 * row's profiles through the ACL API.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/sim.h"
#include "tests/soc_table.h"

static struct soc_row rows[SOC_TABLE_MAX_ROWS];

static int read_rows(void)
{
    int n = soc_table_read(ACLSIM_ROOT "/docs/timing.md", rows, SOC_TABLE_MAX_ROWS);
    if (n <= 0)
        fail_msg("%s has no SoC profiles table", ACLSIM_ROOT "/docs/timing.md");
    for (int i = 0; i < n; i++)
        if (!rows[i].parsed)
            fail_msg("docs/timing.md row not in the table's form: %s", rows[i].line);
    return n;
}

static void test_every_profile_has_a_matching_row(void **state)
{
    (void)state;
    int n = read_rows();
    const struct sim_profile *p;
    for (size_t i = 0; (p = sim_profile_at(i)) != NULL; i++) {
        const struct soc_row *row = NULL;
        for (int r = 0; r < n; r++)
            for (int k = 0; k < rows[r].n_names; k++)
                if (strcmp(rows[r].names[k], p->name) == 0) {
                    if (row)
                        fail_msg("%s has two README rows", p->name);
                    row = &rows[r];
                }
        if (!row)
            fail_msg("profile %s has no row in the README's SoC table", p->name);
        if (row->hbm_bytes != p->hbm_bytes || row->hbm_gbps != p->hbm_gbps ||
            row->padding != p->malloc_padding || row->huge1g != p->huge1g ||
            row->reserve_bytes != p->reserved_bytes || row->host_gbps != p->host_gbps ||
            row->uvm != p->uvm)
            fail_msg("README row\n  %s\ndoes not match %s: %llu GiB, %g GB/s, padding %u, "
                     "1 GB pages %s, reserve %llu MiB, host %g GB/s, UVM %s", row->line,
                     p->name, (unsigned long long)(p->hbm_bytes >> 30), p->hbm_gbps,
                     p->malloc_padding, p->huge1g ? "yes" : "no",
                     (unsigned long long)(p->reserved_bytes >> 20), p->host_gbps,
                     p->uvm ? "yes" : "no");
    }
}

static void test_every_row_names_real_profiles(void **state)
{
    (void)state;
    int n = read_rows();
    for (int r = 0; r < n; r++)
        for (int k = 0; k < rows[r].n_names; k++)
            if (!sim_profile_find(rows[r].names[k]))
                fail_msg("README row names %s, which is no profile", rows[r].names[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_profile_has_a_matching_row),
        cmocka_unit_test(test_every_row_names_real_profiles),
    };
    return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}

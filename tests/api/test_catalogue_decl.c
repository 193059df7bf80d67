/*
 * test_catalogue_decl.c - api/abi/calls.def checked against the public headers.
 *
 * Every CALL line must describe its function exactly as api/include/acl/
 * declares it (return type and parameter list), name a declared FAMILY,
 * carry a status that fits its return type, and give a `fail` value that
 * converts to that type; no function may appear twice. All of it is checked
 * at compile time, so building this file is the test; running it prints the
 * counts per status.
 */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_op_compiler.h"
#include "acl/ops/acl_cblas.h"
#include "acl/ops/acl_dvpp.h"
#include "acl/acl_dump.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "api/abi/nnheaders.h"
#include "aclsim/aclsim.h"
#include "aclsim/fault.h"

/* Deprecated calls are catalogued like the others. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* The functions of cann-runtime-functions.txt (404) and cann-op-functions.txt
 * (179), which share no name, the 7 of acl_dump.h (which acl_op.h includes),
 * the 176 of DVPP's ops/acl_dvpp.h, aclsim's 18 additions, the 34 of
 * aclnn/acl_meta.h and aclnn_base.h that aclsim declares and the 306 of the
 * aclnn operator headers of api/include/aclnnop/ (api/abi/nnheaders.h). */
#define CATALOGUE_CALLS (404 + 179 + 7 + 176 + 18 + 34 + 306)

enum fam {
#define FAMILY(id, title, file, why) API_FAM_##id,
#define CALL(fam, st, ret, name, params, args, fail)
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
    API_FAM_COUNT
};

/* Per status: 0 the call returns a value, 1 it returns void, 2 either. */
enum { ST_SIM = 0, ST_DIFF = 0, ST_HOOK = 0, ST_NOSIM = 0, ST_SIMV = 1, ST_NOSIMV = 1, ST_OWN = 2 };
enum { IX_SIM, IX_DIFF, IX_HOOK, IX_SIMV, IX_NOSIM, IX_NOSIMV, IX_OWN, IX_COUNT };
enum {
    ST_SIMULATED_SIM = 1, ST_SIMULATED_DIFF = 1, ST_SIMULATED_HOOK = 1, ST_SIMULATED_SIMV = 1,
    ST_SIMULATED_OWN = 1, ST_SIMULATED_NOSIM = 0, ST_SIMULATED_NOSIMV = 0
};

#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail)                                      \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret (*) params),      \
                   #name ": the catalogue line differs from the header");                \
    _Static_assert(API_FAM_##fam < API_FAM_COUNT, #name ": unknown family " #fam);       \
    _Static_assert(ST_##st == 2 || ST_##st == __builtin_types_compatible_p(ret, void),   \
                   #name ": status " #st " does not fit its return type");               \
    CALL_FAIL_##st(ret, name, fail)
/* `fail` must convert to the return type; the file-scope object per call also
 * makes a duplicated name a redefinition. */
#define CALL_FAIL_SIM(ret, name, fail) static ret fail_##name __attribute__((unused)) = fail;
#define CALL_FAIL_NOSIM CALL_FAIL_SIM
#define CALL_FAIL_DIFF CALL_FAIL_SIM
#define CALL_FAIL_HOOK CALL_FAIL_SIM
#define CALL_FAIL_SIMV(ret, name, fail) static char fail_##name __attribute__((unused));
#define CALL_FAIL_NOSIMV CALL_FAIL_SIMV
#define CALL_FAIL_OWN CALL_FAIL_SIMV
#include "api/abi/calls.def"
#undef CALL

enum {
#define CALL(fam, st, ret, name, params, args, fail) +1
    N_CALLS = 0
#include "api/abi/calls.def"
#undef CALL
};
_Static_assert(N_CALLS == CATALOGUE_CALLS, "calls.def must list every function of both lists");

/* The README's coverage table (printed by scons coverage) has a row per
 * family with its counts: "| title | declared | simulated | not simulated |". */
static int readme_rows_match(void)
{
    static char text[1 << 18];
    FILE *f = fopen(ACLSIM_ROOT "/docs/coverage.md", "r");
    if (!f) {
        printf("cannot read %s\n", ACLSIM_ROOT "/docs/coverage.md");
        return 0;
    }
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
#undef FAMILY
    static const char *const titles[API_FAM_COUNT] = {
#define FAMILY(id, title, file, why) title,
#define CALL(fam, st, ret, name, params, args, fail)
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
    };
    size_t sim[API_FAM_COUNT] = {0}, nosim[API_FAM_COUNT] = {0};
#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail)                                       \
    (ST_SIMULATED_##st ? sim : nosim)[API_FAM_##fam]++;
#include "api/abi/calls.def"
#undef CALL
    int ok = 1;
    for (int i = 0; i < API_FAM_COUNT; i++) {
        char row[256];
        snprintf(row, sizeof row, "| %s | %zu | %zu | %zu |", titles[i], sim[i] + nosim[i], sim[i],
                 nosim[i]);
        if (!strstr(text, row)) {
            printf("docs/coverage.md's coverage table lacks \"%s\" (run scons coverage)\n", row);
            ok = 0;
        }
    }
    return ok;
}

int main(void)
{
    size_t n[IX_COUNT] = {0};
    int bad = 0;
    /* A failing aclError call answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT (enums
     * share aclError's type, so this one is checked by spelling, at run time). */
#define CALL(fam, st, ret, name, params, args, fail)                                       \
    n[IX_##st]++;                                                                         \
    if (strcmp(#ret, "aclError") == 0 && strcmp(#fail, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT") != 0) { \
        printf("%s: an aclError call must fail with ACL_ERROR_RT_FEATURE_NOT_SUPPORT\n", #name); \
        bad = 1;                                                                          \
    }
#include "api/abi/calls.def"
#undef CALL
    printf("catalogue: %d calls in %d families match their headers: %zu SIM, %zu SIMV, "
           "%zu NOSIM, %zu NOSIMV, %zu OWN\n",
           (int)N_CALLS, (int)API_FAM_COUNT, n[IX_SIM], n[IX_SIMV], n[IX_NOSIM], n[IX_NOSIMV],
           n[IX_OWN]);
    if (!readme_rows_match())
        bad = 1;
    return bad;
}

/*
 * exports.c - every exported CANN call, generated from the call catalogue
 * (api/abi/calls.def); nothing else in the library defines an acl* symbol,
 * except the variadic aclAppLog and the aclsim_* additions (OWN lines).
 *
 * What each status generates:
 *   SIM, SIMV  the export calls api_impl_<name>;
 *   DIFF       the same, and in differential mode a call aclsim rejected
 *              is put to the real runtime with the same arguments and the
 *              answers compared;
 *   HOOK       in differential mode api_diff_<name> (diff.c) runs instead;
 *   NOSIM(V)   the call is forwarded to the real runtime when there is one
 *              that has it (hw=ascend), and otherwise fails with the line's
 *              `fail` value and a message naming the call and why it is not
 *              simulated.
 * Every export that returns aclError also notes its result as the calling
 * thread's last error (diag/error.c: runtime errors are kept for
 * aclrtGetLastError, as CANN's runtime keeps them).
 * With LTO each export and its implementation become one function, so a
 * simulated call costs nothing extra and memcheck's stacks name the call.
 */
#include <stdatomic.h>
#include "top.h"
#include "backends/be.h"

/* Deprecated calls are exported like the others. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- The catalogue as data ---- */

static const char *const call_names[API_CALL_COUNT] = {
#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) #name,
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
};

static const enum api_family call_family[API_CALL_COUNT] = {
#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) API_FAM_##fam,
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
};

static const char *const family_why[API_FAM_COUNT] = {
#define FAMILY(id, title, file, why) why,
#define CALL(fam, st, ret, name, params, args, fail)
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
};

/* Queue "<call> is not simulated by aclsim: <why>." for a call of a family
 * aclsim does not simulate. */
static void not_simulated(enum api_call id)
{
    api_report(API_MSG_EH9999, "%s is not simulated by aclsim: %s.", call_names[id],
               family_why[call_family[id]][0] ? family_why[call_family[id]]
                                              : "it has no meaning on the simulator");
}

/* ---- The exports ---- */

#define DIFF_ON __builtin_expect(api_diff_on, 0)
/* Every aclError result passes by the calling thread's last error (diag/error.c,
 * aclrtGetLastError); results of other types do not. */
#define NOTE(r)                                                                          \
    do {                                                                                 \
        if (_Generic((r), aclError: 1, default: 0))                                      \
            api_last_error_note(_Generic((r), aclError: (r), default: 0));               \
    } while (0)

#define API_DEFINE_SIM(ret, name, params, args, fail)                                    \
    API_EXPORT ret name params                                                           \
    {                                                                                    \
        ret r_ = api_impl_##name args;                                                   \
        NOTE(r_);                                                                        \
        return r_;                                                                       \
    }
#define API_DEFINE_SIMV(ret, name, params, args, fail)                                   \
    API_EXPORT void name params                                                          \
    {                                                                                    \
        api_impl_##name args;                                                            \
    }
#define API_DEFINE_DIFF(ret, name, params, args, fail)                                   \
    API_EXPORT ret name params                                                           \
    {                                                                                    \
        ret r_ = api_impl_##name args;                                                   \
        if (DIFF_ON && r_ != ACL_SUCCESS && API_REAL(name))                              \
            api_diff_verdict(#name, r_, API_REAL(name) args);                            \
        NOTE(r_);                                                                        \
        return r_;                                                                       \
    }
/* Hot calls. Their implementation notes its own failures: the export adds
 * nothing after it, so their out-of-line slow paths are tail calls and the
 * common path calls nothing and saves (almost) no registers. Their export
 * starts a cache line, so that its common path is fetched whole (how the
 * other code of the library happens to be laid out moved GetByStream's
 * cost by a tenth; scons bench: registry_speedup_1t). */
#define HOT(name) (API_CALL_##name == API_CALL_aclrtAllocatorGetByStream)
/* The differential path is a function of its own, out of line, so that the
 * common path keeps none of the arguments alive across its one call (the
 * hot lookups, GetByStream above all, then save no registers). */
#define API_DEFINE_HOOK(ret, name, params, args, fail)                                   \
    static __attribute__((noinline, cold)) ret diff_##name params                        \
    {                                                                                    \
        ret r_ = api_diff_##name args;                                                   \
        NOTE(r_);                                                                        \
        return r_;                                                                       \
    }                                                                                    \
    API_EXPORT __attribute__((aligned(HOT(name) ? 64 : 16))) ret name params             \
    {                                                                                    \
        if (DIFF_ON)                                                                     \
            return diff_##name args;                                                     \
        ret r_ = api_impl_##name args;                                                   \
        if (!HOT(name))                                                                  \
            NOTE(r_);                                                                    \
        return r_;                                                                       \
    }
#define API_DEFINE_NOSIM(ret, name, params, args, fail)                                  \
    API_EXPORT ret name params                                                           \
    {                                                                                    \
        ret r_ = fail;                                                                   \
        if (API_REAL(name))                                                              \
            r_ = API_REAL(name) args;                                                    \
        else                                                                             \
            not_simulated(API_CALL_##name);                                              \
        NOTE(r_);                                                                        \
        return r_;                                                                       \
    }
#define API_DEFINE_NOSIMV(ret, name, params, args, fail)                                 \
    API_EXPORT void name params                                                          \
    {                                                                                    \
        if (API_REAL(name)) {                                                            \
            API_REAL(name) args;                                                         \
            return;                                                                      \
        }                                                                                \
        not_simulated(API_CALL_##name);                                                  \
    }
#define API_DEFINE_OWN(ret, name, params, args, fail)

#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) API_DEFINE_##st(ret, name, params, args, fail)
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL

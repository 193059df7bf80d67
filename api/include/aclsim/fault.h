/*
 * aclsim/fault.h - fault injection from a test: make aclsim's fault points
 * fail, to walk a program's failure paths.
 *
 * Point names are listed by `scons faults` and in the README; a name may end
 * in a star to cover every point with that prefix (acl/allocator/ + star). Hits
 * are counted from the moment a rule is added. Every helper returns 0, or
 * -1 when no point matches the name. The same points can be driven from
 * outside a program with libfiu's tools:
 *     fiu-run -x -c 'enable name=acl/rt/malloc' ./app
 * A program that calls libfiu's fiu_enable itself calls
 * aclsim_fault_arm() first.
 */
#ifndef ACLSIM_FAULT_H_
#define ACLSIM_FAULT_H_

#include <stddef.h>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every hit of the matching points fails. */
ACL_FUNC_VISIBILITY int aclsim_fault_enable(const char *name);

/* Only the n-th hit (n >= 1, counted from now) fails; with persistent != 0
 * the n-th and every later hit fail (SQLite's "fail once" / "fail from n
 * on"). */
ACL_FUNC_VISIBILITY int aclsim_fault_enable_nth(const char *name, unsigned long n,
                                                int persistent);

/* Each hit fails with the given probability, reproducibly for a seed. */
ACL_FUNC_VISIBILITY int aclsim_fault_enable_random(const char *name, double probability,
                                                   unsigned seed);

/* Every hit of the matching points sleeps ms milliseconds, then goes on
 * without failing: a slow driver or device, to test what a slow call holds
 * up (a point inside the simulator, e.g. sim/stream/create, is a slow
 * backend call). */
ACL_FUNC_VISIBILITY int aclsim_fault_delay(const char *name, unsigned long ms);

/* Drop the rules added with exactly this name, and disable it in libfiu. */
ACL_FUNC_VISIBILITY int aclsim_fault_disable(const char *name);

/* Drop every rule and disable every point in libfiu. */
ACL_FUNC_VISIBILITY void aclsim_fault_disable_all(void);

/* Let points fire when enabled through libfiu's own API (fiu_enable). */
ACL_FUNC_VISIBILITY void aclsim_fault_arm(void);

/* The catalogue: number of points, and the i-th point's name and what it
 * simulates (NULL past the end). */
ACL_FUNC_VISIBILITY size_t aclsim_fault_count(void);
ACL_FUNC_VISIBILITY const char *aclsim_fault_name(size_t i);
ACL_FUNC_VISIBILITY const char *aclsim_fault_description(size_t i);

/* Hits of a point since fault injection was armed (0 for unknown names). */
ACL_FUNC_VISIBILITY unsigned long aclsim_fault_hits(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* ACLSIM_FAULT_H_ */

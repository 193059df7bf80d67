/*
 * fault.h - fault points: the catalogue (points.def) as C, and the check
 * that production code puts at every point.
 *
 *     if (FLT_HIT(ACL_RT_MALLOC))
 *         return ...the failure the point simulates...;
 *
 * A point costs one load and one predicted branch while fault injection is
 * disarmed, which is always unless something can enable a point: the
 * process was started by fiu-run (FIU_ENABLE or FIU_CTRL_FIFO in the
 * environment, so fiu-ctrl can reach it too), ACLSIM_FAULT_* variables are
 * set, or a program called one of the aclsim_fault_* helpers. Armed, a hit
 * is counted and fails when an aclsim rule (fail always, the n-th hit, from
 * the n-th hit on, or at random under a seed) or libfiu (fiu_fail: points
 * enabled by fiu-run, fiu-ctrl or fiu_enable, wildcards included) says so.
 *
 * Environment (base/options.def, read once, at library load):
 *   ACLSIM_FAULT=name[@n[+]][,...]  fail name always, or only its n-th hit,
 *                                   or its n-th hit and every later one
 *   ACLSIM_FAULT_COUNT=path         at exit, write "name hits" per point
 * Arming also installs the lib/host/malloc check into base/mem.c, so every
 * host allocation of the library can be made to fail.
 * This layer depends only on base/.
 */
#ifndef ACLSIM_FAULT_FAULT_H_
#define ACLSIM_FAULT_FAULT_H_

#include <stdatomic.h>
#include <stddef.h>

enum flt_point {
#define FLT(id, name, code, msg, text, what) FLT_##id,
#include "points.def"
#undef FLT
    FLT_COUNT
};

/* Non-zero while any point may fire. Atomic because a program may arm
 * injection (aclsim_fault_*) while its other threads run. */
extern _Atomic int flt_armed;

/* The armed slow path: count the hit, return non-zero when it must fail. */
int flt_fire(enum flt_point p);

#define FLT_HIT(id)                                                                  \
    (__builtin_expect(atomic_load_explicit(&flt_armed, memory_order_relaxed), 0) &&     \
     flt_fire(FLT_##id))

/* Catalogue entries: libfiu name and what the point simulates. */
const char *flt_name(enum flt_point p);
const char *flt_what(enum flt_point p);
/* The point whose libfiu name is `name`, or FLT_COUNT. */
enum flt_point flt_find(const char *name);

/* Arm fault injection (idempotent). */
void flt_arm(void);

/* Rules, as the aclsim_fault_* helpers set them. `pattern` is a point name
 * or a prefix ending in '*'. n counts hits from now, 1-based. Return 0, or
 * -1 when no catalogued point matches or host memory runs out. */
enum flt_mode { FLT_ALWAYS, FLT_NTH, FLT_FROM_NTH, FLT_RANDOM, FLT_DELAY /* n = ms */ };
int flt_rule_add(const char *pattern, enum flt_mode mode, unsigned long n, double probability,
                 unsigned seed);
/* Drop the rules matching `pattern` exactly (NULL: all rules), and disable
 * the matching points in libfiu too. Returns how many rules went. */
int flt_rule_remove(const char *pattern);

/* Hits of a point since load (counted while armed). */
unsigned long flt_hits(enum flt_point p);

/* The point that last fired in this thread, once: the ACL layer names it
 * in the error message. FLT_COUNT when none fired since the last call. */
enum flt_point flt_take_fired(void);

#endif /* ACLSIM_FAULT_FAULT_H_ */

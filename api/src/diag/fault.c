/*
 * fault.c - the aclsim_fault_* helpers (aclsim/fault.h, the FAULT family
 * of api/abi/calls.def) over the fault-point catalogue of fault/. What a
 * fired point does to the call it fails is errmsg.c's (api_fault).
 */
#include <stdio.h>
#include "aclsim/fault.h"
#include "diag.h"

API_EXPORT int aclsim_fault_enable(const char *name)
{
    return name ? flt_rule_add(name, FLT_ALWAYS, 0, 0, 0) : -1;
}

API_EXPORT int aclsim_fault_enable_nth(const char *name, unsigned long n, int persistent)
{
    return name ? flt_rule_add(name, persistent ? FLT_FROM_NTH : FLT_NTH, n, 0, 0) : -1;
}

API_EXPORT int aclsim_fault_enable_random(const char *name, double probability, unsigned seed)
{
    if (!name || !(probability >= 0 && probability <= 1)) /* NaN too */
        return -1;
    return flt_rule_add(name, FLT_RANDOM, 0, probability, seed);
}

API_EXPORT int aclsim_fault_delay(const char *name, unsigned long ms)
{
    return name && ms ? flt_rule_add(name, FLT_DELAY, ms, 0, 0) : -1;
}

API_EXPORT int aclsim_fault_disable(const char *name)
{
    return name && flt_rule_remove(name) > 0 ? 0 : -1;
}

API_EXPORT void aclsim_fault_disable_all(void)
{
    flt_rule_remove(NULL);
    (void)flt_take_fired();
}

API_EXPORT void aclsim_fault_arm(void)
{
    flt_arm();
}

API_EXPORT size_t aclsim_fault_count(void)
{
    return FLT_COUNT;
}

API_EXPORT const char *aclsim_fault_name(size_t i)
{
    return i < FLT_COUNT ? flt_name((enum flt_point)i) : NULL;
}

API_EXPORT const char *aclsim_fault_description(size_t i)
{
    return i < FLT_COUNT ? flt_what((enum flt_point)i) : NULL;
}

API_EXPORT unsigned long aclsim_fault_hits(const char *name)
{
    enum flt_point p = name ? flt_find(name) : FLT_COUNT;
    return p == FLT_COUNT ? 0 : flt_hits(p);
}

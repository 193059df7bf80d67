/*
 * fault_api.c - what a fired fault point does at the ACL layer, and the
 * aclsim_fault_* helpers (aclsim/fault.h) over fault/.
 *
 * Each point's effect (code, message kind, text) comes from the same line
 * of fault/points.def that names it. The message is the one the runtime
 * gives for that failure, followed in the TraceBack by the point's name.
 */
#include <stdio.h>
#include "aclsim/fault.h"
#include "api.h"

static const struct {
    aclError code;
    enum api_msg msg;
    const char *text;
} effects[FLT_COUNT] = {
#define FLT(id, name, code, msg, text, what) {code, API_MSG_##msg, text},
#include "fault/points.def"
#undef FLT
};

aclError api_fault(enum flt_point p, const char *func)
{
    /* texts may use %s for the API name; extra arguments are harmless */
    char text[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(text, sizeof text, effects[p].text, func);
#pragma GCC diagnostic pop
    api_report(effects[p].msg, "%s", text);
    return effects[p].code;
}

void api_note_fault(void)
{
    enum flt_point p = flt_take_fired();
    if (p != FLT_COUNT)
        api_report(API_MSG_EH9999, "[aclsim] fault point %s fired (%s)", flt_name(p),
                   flt_what(p));
}

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

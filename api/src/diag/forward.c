/*
 * forward.c - the real runtime behind the ACL layer, when a backend has one
 * (hw=ascend): its entry point for a catalogued call, the report of a
 * forwarded call's failure, and the switch of the differential mode.
 */
#include "diag.h"
#include "backends/be.h"

int api_diff_on;

api_any_fn api_real(enum api_call id)
{
    api_any_fn (*real)(enum api_call) = API_BRIDGE(real);
    return real ? real(id) : NULL;
}

aclError api_forwarded(const char *func, aclError rc, bool quiet)
{
    if (rc == ACL_SUCCESS)
        return rc;
    const char *(*msg)(void) = API_REAL(aclGetRecentErrMsg);
    const char *m = msg ? msg() : NULL;
    if (!quiet) {
        api_report(API_MSG_EH9999, "%s failed, runtime result = %d.", func, rc);
        if (m && m[0])
            api_report(API_MSG_EH9999, "[%s runtime] %s", be_get()->name, m);
    }
    return rc;
}

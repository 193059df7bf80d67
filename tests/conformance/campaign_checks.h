/*
 * campaign_checks.h - how the conformance programs (conformance.c,
 * op_conformance.c) check every call, to the fault campaign's standard: on
 * any failure an "[ERROR]" line with the runtime's message, then `goto out`
 * with status 1, where the program releases everything and exits 1. The
 * caller has an int `status` and an `out:` label.
 */
#ifndef ACLSIM_TESTS_CONFORMANCE_CAMPAIGN_CHECKS_H_
#define ACLSIM_TESTS_CONFORMANCE_CAMPAIGN_CHECKS_H_

#include <stdio.h>
#include "acl/acl.h"

/* Report `what` failing with rc; returns the status to exit with. */
static inline int failed(const char *what, aclError rc)
{
    const char *m = aclGetRecentErrMsg();
    fprintf(stderr, "[ERROR] %s returned %d\n%s\n", what, (int)rc, m ? m : "");
    return 1;
}

#define CHECK(call)                                                                \
    do {                                                                           \
        aclError rc_ = (call);                                                     \
        if (rc_ != ACL_SUCCESS) {                                                  \
            status = failed(#call, rc_);                                           \
            goto out;                                                              \
        }                                                                          \
    } while (0)

#define EXPECT(cond)                                                               \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "[ERROR] check failed: %s\n", #cond);                  \
            status = 1;                                                            \
            goto out;                                                              \
        }                                                                          \
    } while (0)

#endif /* ACLSIM_TESTS_CONFORMANCE_CAMPAIGN_CHECKS_H_ */

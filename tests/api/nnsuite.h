/*
 * nnsuite.h - what every aclnn operator suite starts and ends with: the
 * stream S its operators run on, the group set-up (aclInit, device 0, S)
 * and tear-down, and a per-test set-up that clears the last error message.
 * Included by nnhost.h and nnmat.h.
 */
#ifndef ACLSIM_TESTS_API_NNSUITE_H_
#define ACLSIM_TESTS_API_NNSUITE_H_

#include "acl/acl.h"

static aclrtStream S;

static inline int nn_setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&S) != ACL_SUCCESS)
        return -1;
    return 0;
}

static inline int nn_teardown(void **state)
{
    (void)state;
    aclrtDestroyStream(S);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

static inline int nn_fresh(void **state)
{
    (void)state;
    (void)aclGetRecentErrMsg();
    return 0;
}

#endif /* ACLSIM_TESTS_API_NNSUITE_H_ */

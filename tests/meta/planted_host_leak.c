/*
 * planted_host_leak.c - must fail the leak gate: loses the only pointer to
 * page-locked host memory from aclrtMallocHost. Valgrind must report it as
 * definitely lost.
 */
#include "acl/acl.h"

int main(void)
{
    void *h = NULL;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return 2;
    if (aclrtMallocHost(&h, 4096) != ACL_SUCCESS)
        return 3;
    h = NULL; /* the leak */
    aclrtResetDevice(0);
    aclFinalize();
    return h == NULL ? 0 : 4;
}

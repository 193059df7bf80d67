/*
 * planted_device_leak.c - must fail the leak gates: loses the only pointer
 * to a 1 MiB device block. Valgrind (scons leakcheck) must report it as
 * definitely lost at aclrtMalloc, and ACLSIM_LEAK_CHECK=error must turn it
 * into exit status 23.
 */
#include "acl/acl.h"

int main(void)
{
    void *p = NULL;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return 2;
    if (aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return 3;
    p = NULL; /* the leak */
    aclrtResetDevice(0);
    aclFinalize();
    return p == NULL ? 0 : 4;
}

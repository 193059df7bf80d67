/*
 * planted_overrun.c - must fail the memory-error gate: copies 4 KiB into a
 * 256-byte device block at offset 200. aclsim rejects the copy (the real
 * runtime would corrupt memory), and under Valgrind memcheck reports it as
 * an invalid access just past the block, so the gate fails.
 */
#include <string.h>
#include "acl/acl.h"

int main(void)
{
    static char host[4096];
    void *d = NULL;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return 2;
    if (aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return 3;
    aclError rc = aclrtMemcpy((char *)d + 200, sizeof host, host, sizeof host,
                              ACL_MEMCPY_HOST_TO_DEVICE); /* the overrun */
    (void)aclGetRecentErrMsg();
    aclrtFree(d);
    aclrtResetDevice(0);
    aclFinalize();
    return rc == ACL_SUCCESS ? 0 : 0; /* the program itself "succeeds" */
}

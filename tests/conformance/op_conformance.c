/*
 * op_conformance.c - operators the way applications run them, written to
 * the fault campaign's standard (like conformance.c): every call checked,
 * and on any failure an error line with the runtime's message, everything
 * released, exit 1. scons faultcheck runs it with every fault point failing
 * in turn - acl/op/alloc and acl/op/get_addr among them - so a registered
 * allocator is driven through the executor's failure branches too.
 *
 * A pool allocator (block = device address) is registered on one stream;
 * another stream keeps the executor's fallback allocator. Add, MatMul and
 * Cast run on both; the results are checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_rt_allocator.h"
#include "tests/exact_pool.h"
#include "campaign_checks.h"

enum { T = 4 }; /* tensors: a, b, c (fp32 [8, 8]) and h (fp16 [8, 8]) */

int main(void)
{
    int status = 0, inited = 0, device = 0, registered = 0;
    aclrtStream s[2] = {NULL, NULL};
    aclrtAllocatorDesc desc = NULL;
    aclopAttr *cast = NULL;
    struct pool pool = {{NULL}, {0}, {0}, 0};
    void *mem[T] = {NULL};
    aclTensorDesc *td[T] = {NULL};
    aclDataBuffer *db[T] = {NULL};
    float a[64], b[64], c[64];
    int64_t dims[2] = {8, 8};

    CHECK(aclInit(NULL));
    inited = 1;
    CHECK(aclrtSetDevice(0));
    device = 1;
    CHECK(aclrtCreateStream(&s[0]));
    CHECK(aclrtCreateStream(&s[1]));
    desc = aclrtAllocatorCreateDesc();
    EXPECT(desc != NULL);
    CHECK(aclrtAllocatorSetObjToDesc(desc, &pool));
    CHECK(aclrtAllocatorSetAllocFuncToDesc(desc, pool_alloc));
    CHECK(aclrtAllocatorSetFreeFuncToDesc(desc, pool_free));
    CHECK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, pool_addr));
    CHECK(aclrtAllocatorRegister(s[0], desc)); /* s[1] keeps the built-in one */
    registered = 1;
    for (int i = 0; i < 64; i++) {
        a[i] = (float)(i % 8) / 4;
        b[i] = i / 8 == i % 8 ? 2.0f : 0.0f; /* 2I */
    }
    for (int i = 0; i < T; i++) {
        aclDataType t = i == 3 ? ACL_FLOAT16 : ACL_FLOAT;
        td[i] = aclCreateTensorDesc(t, 2, dims, ACL_FORMAT_ND);
        EXPECT(td[i] != NULL);
        size_t bytes = aclGetTensorDescSize(td[i]);
        CHECK(aclrtMalloc(&mem[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        db[i] = aclCreateDataBuffer(mem[i], bytes);
        EXPECT(db[i] != NULL);
    }
    CHECK(aclrtMemcpy(mem[0], sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(mem[1], sizeof b, b, sizeof b, ACL_MEMCPY_HOST_TO_DEVICE));
    cast = aclopCreateAttr();
    EXPECT(cast != NULL);
    CHECK(aclopSetAttrInt(cast, "dst_type", ACL_FLOAT16));
    for (int k = 0; k < 2; k++) {
        /* c = a @ b = 2a; c = c + a = 3a; h = fp16(c) */
        aclTensorDesc *in[2] = {td[0], td[1]}, *out[1] = {td[2]};
        aclDataBuffer *ib[2] = {db[0], db[1]}, *ob[1] = {db[2]};
        CHECK(aclopCompileAndExecuteV2("MatMul", 2, in, ib, 1, out, ob, NULL, ACL_ENGINE_SYS,
                                       ACL_COMPILE_SYS, NULL, s[k]));
        in[0] = td[2], in[1] = td[0], ib[0] = db[2], ib[1] = db[0];
        CHECK(aclopExecuteV2("Add", 2, in, ib, 1, out, ob, NULL, s[k]));
        out[0] = td[3], ob[0] = db[3];
        CHECK(aclopExecuteV2("Cast", 1, &td[2], &db[2], 1, out, ob, cast, s[k]));
        CHECK(aclrtSynchronizeStream(s[k]));
        CHECK(aclrtMemcpy(c, sizeof c, mem[2], sizeof c, ACL_MEMCPY_DEVICE_TO_HOST));
        for (int i = 0; i < 64; i++)
            EXPECT(c[i] == 3 * a[i]);
    }
    EXPECT(pool.n > 0);

out:
    if (s[0])
        aclrtSynchronizeStream(s[0]);
    if (s[1])
        aclrtSynchronizeStream(s[1]);
    if (registered)
        aclrtAllocatorUnregister(s[0]);
    if (desc)
        aclrtAllocatorDestroyDesc(desc);
    for (int i = 0; i < pool.n; i++)
        aclrtFree(pool.addr[i]);
    if (cast)
        aclopDestroyAttr(cast);
    for (int i = 0; i < T; i++) {
        if (td[i])
            aclDestroyTensorDesc(td[i]);
        if (db[i])
            aclDestroyDataBuffer(db[i]);
        if (mem[i])
            aclrtFree(mem[i]);
    }
    for (int k = 0; k < 2; k++)
        if (s[k])
            aclrtDestroyStream(s[k]);
    if (device)
        aclrtResetDevice(0);
    if (inited)
        aclFinalize();
    (void)aclGetRecentErrMsg();
    if (status == 0)
        printf("op_conformance: all checks hold\n");
    return status;
}

/*
 * exact_pool.h - the allocator the operator programs register on a stream
 * (op_conformance.c, bench_ops.c): up to 8 device blocks, block = device
 * address, a freed block reused by a later request of exactly its size, in
 * stream order (MindSpore's style). Header-only: each program has its own.
 * The program frees pool.addr[0 .. n) after its streams synchronised.
 */
#ifndef ACLSIM_TESTS_EXACT_POOL_H_
#define ACLSIM_TESTS_EXACT_POOL_H_

#include <stddef.h>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"

struct pool {
    void *addr[8];
    size_t size[8];
    int used[8], n;
};

static void *pool_alloc(aclrtAllocator a, size_t n)
{
    struct pool *p = a;
    for (int i = 0; i < p->n; i++)
        if (!p->used[i] && p->size[i] == n) {
            p->used[i] = 1;
            return p->addr[i];
        }
    if (p->n == 8 || aclrtMalloc(&p->addr[p->n], n, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    p->size[p->n] = n;
    p->used[p->n] = 1;
    return p->addr[p->n++];
}

static void pool_free(aclrtAllocator a, aclrtAllocatorBlock b)
{
    struct pool *p = a;
    for (int i = 0; i < p->n; i++)
        if (p->addr[i] == b)
            p->used[i] = 0;
}

static void *pool_addr(aclrtAllocatorBlock b)
{
    return b;
}

#endif /* ACLSIM_TESTS_EXACT_POOL_H_ */

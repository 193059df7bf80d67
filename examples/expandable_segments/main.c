/*
 * main.c - an allocator built the way torch_npu's expandable segments work.
 *
 * One large range of device addresses is reserved up front
 * (aclrtReserveMemAddress). As the workload grows, 2 MB pieces of physical
 * memory (aclrtMallocPhysical) are mapped at the end of what is mapped
 * (aclrtMapMem), so the segment stays one contiguous range however large it
 * gets; as it shrinks, the pieces past what is in use are unmapped
 * (aclrtUnmapMem) and freed (aclrtFreePhysical), giving the memory back.
 * Blocks are carved from the segment in order (a stack: the workload frees
 * in reverse order, as a layer-by-layer forward and backward pass does).
 *
 * The workload: three waves that grow the segment block by block, writing
 * each block and checking it through a second copy, then shrink it again;
 * a block may straddle pieces (copies span mappings). The program prints
 * what it reserved, the most it mapped and used, and the figures it ends
 * with. With --leak it resets the device without releasing its segment
 * (ACLSIM_LEAK_CHECK's report names the reservation and the pieces).
 *
 * Build as a user would: gcc main.c -I$CANN/include -L$CANN/lib64 -lascendcl
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"

#define SEGMENT ((size_t)1 << 30) /* reserved: 1 GiB of addresses */
#define MAX_PIECES (SEGMENT / (2u << 20))
#define MAX_BLOCKS 64

struct segment {
    char *base;                            /* the reserved range */
    size_t piece;                          /* granularity: 2 MB */
    aclrtDrvMemHandle pieces[MAX_PIECES];  /* mapped at base + i * piece */
    size_t mapped_pieces;
    size_t used;                           /* bytes carved, from base */
    size_t blocks[MAX_BLOCKS];             /* block sizes, a stack */
    size_t nblocks;
    size_t peak_mapped, peak_used;
    size_t maps;                           /* pieces mapped in all */
    aclrtPhysicalMemProp prop;
};

#define CHECK(x)                                                                      \
    do {                                                                              \
        aclError r_ = (x);                                                            \
        if (r_ != ACL_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s = %d: %s\n", __FILE__, __LINE__, #x, r_,       \
                    aclGetRecentErrMsg());                                            \
            return r_;                                                                \
        }                                                                             \
    } while (0)

static aclError seg_open(struct segment *s)
{
    memset(s, 0, sizeof *s);
    s->prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    s->prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    s->prop.memAttr = ACL_HBM_MEM_HUGE;
    s->prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    s->prop.location.id = 0;
    CHECK(aclrtMemGetAllocationGranularity(&s->prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                                           &s->piece));
    void *va = NULL;
    CHECK(aclrtReserveMemAddress(&va, SEGMENT, 0, NULL, 0));
    s->base = va;
    return ACL_SUCCESS;
}

/* Map pieces until `bytes` from the base are backed. */
static aclError seg_grow(struct segment *s, size_t bytes)
{
    while (s->mapped_pieces * s->piece < bytes) {
        aclrtDrvMemHandle h;
        CHECK(aclrtMallocPhysical(&h, s->piece, &s->prop, 0));
        aclError rc = aclrtMapMem(s->base + s->mapped_pieces * s->piece, s->piece, 0, h, 0);
        if (rc != ACL_SUCCESS) {
            aclrtFreePhysical(h);
            CHECK(rc);
        }
        s->pieces[s->mapped_pieces++] = h;
        s->maps++;
    }
    if (s->mapped_pieces * s->piece > s->peak_mapped)
        s->peak_mapped = s->mapped_pieces * s->piece;
    return ACL_SUCCESS;
}

/* Unmap and free the pieces wholly past `bytes`. */
static aclError seg_shrink(struct segment *s, size_t bytes)
{
    while (s->mapped_pieces && (s->mapped_pieces - 1) * s->piece >= bytes) {
        s->mapped_pieces--;
        CHECK(aclrtUnmapMem(s->base + s->mapped_pieces * s->piece));
        CHECK(aclrtFreePhysical(s->pieces[s->mapped_pieces]));
    }
    return ACL_SUCCESS;
}

static aclError seg_alloc(struct segment *s, size_t size, void **out)
{
    size = (size + 511) & ~(size_t)511;
    if (s->nblocks == MAX_BLOCKS || s->used + size > SEGMENT)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    CHECK(seg_grow(s, s->used + size));
    *out = s->base + s->used;
    s->blocks[s->nblocks++] = size;
    s->used += size;
    if (s->used > s->peak_used)
        s->peak_used = s->used;
    return ACL_SUCCESS;
}

/* Free the last block and give back the pieces nothing uses any more. */
static aclError seg_pop(struct segment *s)
{
    s->used -= s->blocks[--s->nblocks];
    return seg_shrink(s, s->used);
}

static aclError seg_close(struct segment *s)
{
    while (s->nblocks)
        CHECK(seg_pop(s));
    CHECK(seg_shrink(s, 0));
    CHECK(aclrtReleaseMemAddress(s->base));
    return ACL_SUCCESS;
}

/* Fill a block on the stream, then check every byte through the host. */
static aclError touch(void *p, size_t n, int value, aclrtStream st, unsigned char *host)
{
    CHECK(aclrtMemsetAsync(p, n, value, n, st));
    CHECK(aclrtSynchronizeStream(st));
    CHECK(aclrtMemcpy(host, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        if (host[i] != (unsigned char)value) {
            fprintf(stderr, "byte %zu of a block reads %d, wrote %d\n", i, host[i], value);
            return ACL_ERROR_RT_INTERNAL_ERROR;
        }
    return ACL_SUCCESS;
}

static aclError run(int leak)
{
    static struct segment seg;
    aclrtStream st;
    CHECK(aclrtCreateStream(&st));
    CHECK(seg_open(&seg));
    /* three waves: sizes grow and shrink like activations of layers */
    static const size_t wave[3][6] = {
        {3u << 20, 1u << 20, 5u << 20, 700u << 10, 2u << 20, 6u << 20},
        {9u << 20, 4u << 20, 3u << 20, 1u << 20, 0, 0},
        {1u << 20, 2u << 20, 12u << 20, 3u << 20, 5u << 20, 0}};
    unsigned char *host = malloc(12u << 20);
    if (!host)
        return ACL_ERROR_BAD_ALLOC;
    aclError rc = ACL_SUCCESS;
    for (int w = 0; w < 3 && rc == ACL_SUCCESS; w++) {
        size_t n = 0;
        for (int i = 0; i < 6 && wave[w][i] && rc == ACL_SUCCESS; i++, n++) {
            void *p;
            rc = seg_alloc(&seg, wave[w][i], &p);
            if (rc == ACL_SUCCESS)
                rc = touch(p, wave[w][i], 17 * w + i + 1, st, host);
        }
        printf("wave %d: used %zu, mapped %zu\n", w, seg.used, seg.mapped_pieces * seg.piece);
        /* the backward pass frees all but the first block of the wave */
        for (size_t i = 1; i < n && rc == ACL_SUCCESS; i++)
            rc = seg_pop(&seg);
    }
    free(host);
    if (rc != ACL_SUCCESS)
        return rc;
    printf("expandable segment: reserved %zu, peak mapped %zu, peak used %zu, now mapped %zu "
           "in %zu pieces, %zu maps in all\n", SEGMENT, seg.peak_mapped, seg.peak_used,
           seg.mapped_pieces * seg.piece, seg.mapped_pieces, seg.maps);
    if (leak) {
        printf("leaving the segment reserved and mapped (--leak)\n");
        fflush(stdout);
        return ACL_SUCCESS;
    }
    CHECK(seg_close(&seg));
    size_t fr, total;
    CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total));
    printf("released: %zu of %zu bytes free\n", fr, total);
    CHECK(aclrtDestroyStream(st));
    return fr == total ? ACL_SUCCESS : ACL_ERROR_RT_INTERNAL_ERROR;
}

int main(int argc, char **argv)
{
    int leak = argc > 1 && strcmp(argv[1], "--leak") == 0;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "init failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    aclError rc = run(leak);
    aclrtResetDevice(0); /* with --leak: the leak report's moment */
    aclFinalize();
    if (rc != ACL_SUCCESS)
        fprintf(stderr, "expandable segments failed: %d\n", rc);
    return rc == ACL_SUCCESS ? 0 : 1;
}

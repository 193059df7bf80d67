/*
 * copy.c - moving bytes: copies and fills reach device memory through the
 * host view of its address space (vaspace.c's read/write alias, mapped 1
 * GiB at a time), piece by contiguous piece; host memory is used as is.
 * A copy has memmove's meaning even across pieces: when the destination
 * overlaps the source from above, the pieces go from the end backwards.
 * The caller (stream.c) has checked the ranges and takes the time.
 */
#include <string.h>
#include "fault/fault.h"
#include "internal.h"
#include "vaspace.h"

/* Host pointer for n bytes at p, and how many are contiguous there. */
static void *host_view(void *p, bool dev, uint64_t n, uint64_t *avail)
{
    if (!dev) {
        *avail = n;
        return p;
    }
    struct sim_dev *d = sim_dev_of((uintptr_t)p);
    return d ? sim_vaspace_span(d->vs, (uint64_t)(uintptr_t)p, n, avail) : NULL;
}

/* How many of the n device bytes before end are contiguous in the host
 * view. */
static size_t room_before(const char *end, size_t n)
{
    uint64_t r = (((uint64_t)(uintptr_t)end - 1) & (SIM_VASPACE_CHUNK - 1)) + 1;
    return r < n ? (size_t)r : n;
}

/* A device-to-device copy of n bytes from the end backwards, piece by
 * piece: for dst above an overlapping src, each piece is read before a
 * later one (lower down) is written over it. */
static enum sim_rc copy_backwards(char *dst, const char *src, size_t n)
{
    while (n) {
        size_t k = room_before(dst + n, n), ks = room_before(src + n, n);
        k = ks < k ? ks : k;
        uint64_t a, b;
        char *h_to = host_view(dst + n - k, true, k, &a);
        const char *h_from = host_view((void *)(uintptr_t)(src + n - k), true, k, &b);
        if (!h_to || !h_from || a != k || b != k)
            return SIM_EHOSTMEM;
        memmove(h_to, h_from, k);
        n -= k;
    }
    return SIM_OK;
}

enum sim_rc sim_mem_copy(void *dst, bool dst_dev, const void *src, bool src_dev, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    if (dst_dev && src_dev && (uintptr_t)dst > (uintptr_t)src &&
        (uintptr_t)dst - (uintptr_t)src < n)
        return copy_backwards(dst, src, n);
    char *to = dst;
    const char *from = src;
    while (n) {
        uint64_t a, b;
        char *h_to = host_view(to, dst_dev, n, &a);
        const char *h_from = host_view((void *)(uintptr_t)from, src_dev, n, &b);
        if (!h_to || !h_from)
            return SIM_EHOSTMEM;
        size_t k = (size_t)(a < b ? a : b);
        memmove(h_to, h_from, k);
        to += k;
        from += k;
        n -= k;
    }
    return SIM_OK;
}

enum sim_rc sim_mem_fill(void *dst, bool dst_dev, int value, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    char *to = dst;
    while (n) {
        uint64_t a;
        char *h = host_view(to, dst_dev, n, &a);
        if (!h)
            return SIM_EHOSTMEM;
        memset(h, value, (size_t)a);
        to += a;
        n -= (size_t)a;
    }
    return SIM_OK;
}

/*
 * copy.c - moving bytes: copies and fills reach device memory through the
 * host view of its address space (vaspace.c's read/write alias, mapped 1
 * GiB at a time), piece by contiguous piece; host memory is used as is.
 * A copy has memmove's meaning even across pieces: when the destination
 * overlaps the source from above, the pieces go from the end backwards.
 * The caller (task.c) has checked the ranges and takes the time; for
 * work that waited in a stream's queue, sim_mem_holds says whether its
 * device memory is still live. A graph whose memory is known live keeps
 * the host views of its ranges (sim_mem_view) and moves bytes through them
 * directly at each replay.
 */
#include <string.h>
#include "fault/fault.h"
#include "internal.h"
#include "vaspace.h"

/* Host pointer for n bytes at p, and how many are contiguous there; *d is
 * the device entered for it (NULL for host memory), to leave when done.
 * NULL: a device address whose device closed (*rc SIM_EINVAL), or host
 * memory for the view that cannot be had (SIM_EHOSTMEM). */
static void *host_view(void *p, bool dev, uint64_t n, uint64_t *avail, struct sim_dev **d,
                       enum sim_rc *rc, struct sim_dev *entered)
{
    *d = NULL;
    if (!dev) {
        *avail = n;
        return p;
    }
    /* A device this call entered already is not entered twice: a second
     * entry could wait for a remapping that waits for the first. */
    if (entered && sim_dev_holds(entered, (uintptr_t)p)) {
        void *h = sim_vaspace_span(entered->vs, (uint64_t)(uintptr_t)p, n, avail);
        if (!h)
            *rc = SIM_EHOSTMEM;
        return h;
    }
    *d = sim_dev_enter((uintptr_t)p);
    if (!*d) {
        *rc = SIM_EINVAL;
        return NULL;
    }
    void *h = sim_vaspace_span((*d)->vs, (uint64_t)(uintptr_t)p, n, avail);
    if (!h)
        *rc = SIM_EHOSTMEM;
    return h;
}

/* One piece: memmove n bytes between the views of dst and src (either on a
 * device or not); *k is how many moved. */
static enum sim_rc move_piece(char *dst, bool dst_dev, const char *src, bool src_dev, size_t n,
                              size_t *k)
{
    enum sim_rc rc = SIM_OK;
    uint64_t a = 0, b = 0;
    struct sim_dev *dd, *sd = NULL;
    char *h_to = host_view(dst, dst_dev, n, &a, &dd, &rc, NULL);
    const char *h_from =
        h_to ? host_view((void *)(uintptr_t)src, src_dev, n, &b, &sd, &rc, dd) : NULL;
    *k = 0;
    if (h_to && h_from) {
        *k = (size_t)(a < b ? a : b);
        memmove(h_to, h_from, *k);
    }
    sim_dev_leave(sd);
    sim_dev_leave(dd);
    return rc;
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
        size_t moved;
        enum sim_rc rc = move_piece(dst + n - k, true, src + n - k, true, k, &moved);
        if (rc != SIM_OK)
            return rc;
        if (moved != k)
            return SIM_EHOSTMEM;
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
        size_t k;
        enum sim_rc rc = move_piece(to, dst_dev, from, src_dev, n, &k);
        if (rc != SIM_OK)
            return rc;
        to += k;
        from += k;
        n -= k;
    }
    return SIM_OK;
}

/* Fill n bytes at dst, piece by piece, with value as `width` bytes (1: its
 * low byte, as memset; 4: a 32-bit word, dst 4-byte aligned). */
static enum sim_rc fill(void *dst, bool dst_dev, uint32_t value, unsigned width, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    char *to = dst;
    while (n) {
        uint64_t a = 0;
        struct sim_dev *d;
        enum sim_rc rc = SIM_OK;
        char *h = host_view(to, dst_dev, n, &a, &d, &rc, NULL);
        if (h && width == 1)
            memset(h, (int)(value & 0xff), (size_t)a);
        /* pieces start on 1 GiB boundaries of a 4-byte aligned range: each
         * holds whole words */
        for (uint64_t i = 0; h && width == 4 && i + 4 <= a; i += 4)
            memcpy(h + i, &value, 4);
        sim_dev_leave(d);
        if (!h)
            return rc;
        to += a;
        n -= (size_t)a;
    }
    return SIM_OK;
}

enum sim_rc sim_mem_fill(void *dst, bool dst_dev, int value, size_t n)
{
    return fill(dst, dst_dev, (uint32_t)(unsigned char)value, 1, n);
}

enum sim_rc sim_mem_fill32(void *dst, bool dst_dev, uint32_t value, size_t words)
{
    return fill(dst, dst_dev, value, 4, words * 4);
}

void *sim_mem_view(const void *p, bool dev, uint64_t n)
{
    uint64_t a = 0;
    struct sim_dev *d;
    enum sim_rc rc = SIM_OK;
    void *h = host_view((void *)(uintptr_t)p, dev, n, &a, &d, &rc, NULL);
    sim_dev_leave(d);
    return h && a == n ? h : NULL;
}

enum sim_rc sim_mem_copy_view(void *dst, const void *src, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    memmove(dst, src, n);
    return SIM_OK;
}

enum sim_rc sim_mem_fill_view(void *dst, int value, size_t n)
{
    if (FLT_HIT(SIM_COPY_ENGINE))
        return SIM_EIO;
    memset(dst, value & 0xff, n);
    return SIM_OK;
}

bool sim_mem_holds(const void *p, uint64_t n)
{
    struct sim_block b;
    if (!sim_mem_lookup(p, &b) && sim_vmm_lookup(p, &b) != SIM_VMM_MAPPED)
        return false;
    uint64_t off = (uint64_t)((const char *)p - (const char *)b.start);
    return off <= b.usable && n <= b.usable - off;
}

/*
 * vmm.c - virtual memory management: reserved device address ranges,
 * physical handles and the mappings between them (aclrtReserveMemAddress,
 * aclrtMallocPhysical, aclrtMapMem and their kin).
 *
 * Layout. A device's address space (vaspace.c) is four windows, each a
 * multiple of 1 GiB:
 *   [0, H)          the heap (blocks.c), H = 2C: the
 *                   virtual heap whose addresses aclrtMalloc blocks take,
 *                   and one block per physical handle, so that physical
 *                   memory counts against HBM and aclrtGetMemInfo like
 *                   any allocation;
 *                   at most C bytes of it in blocks at once (the pages);
 *   [H, 2H)         the handle window: the handle of the physical memory
 *                   whose heap block is at offset o is the address H + o.
 *                   Handles are thus distinct device addresses of their
 *                   size, which memcheck can watch as blocks (a lost handle
 *                   is a leak at aclrtMallocPhysical), and no aclrtFree or
 *                   copy can mistake one for memory;
 *   [2H, 2H + R)    the reservation window, R = 2C (at least 16 GiB):
 *                   aclrtReserveMemAddress takes ranges from it;
 *   [2H + R, +16 GiB) the DVPP window: acldvppMalloc's blocks (blocks.c).
 * (C is the HBM capacity rounded up to 1 GiB.)
 *
 * Aliasing. The bytes of all physical memory of a device live in one
 * memfd of H bytes (sparse: tmpfs gives pages only to bytes written), the
 * handle at heap offset o owning [o, o + size) of it. Mapping a handle at
 * a reserved address maps that part of the memfd MAP_SHARED|MAP_FIXED
 * over the host view of the address (vaspace.c's read/write alias), so
 * every copy, fill and value write, which all reach device bytes through
 * that view, sees the physical bytes, and a handle mapped at two
 * addresses shows the same bytes at both. Unmapping puts fresh anonymous
 * memory back in the view; freeing a handle punches its bytes out of the
 * memfd. The heap's own blocks keep their private anonymous view:
 * aclrtMalloc and aclrtFree do not change at all.
 *
 * Each reservation keeps one slot per 2 MB of its range, naming the
 * mapping there: a lookup is a binary search over reservations plus one
 * slot. Everything is guarded by the device's lock; offsets, not
 * addresses, are kept (track.h says why).
 */

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/hash.h"
#include "base/mem.h"
#include "clock.h"
#include "fault/fault.h"
#include "heap.h"
#include "internal.h"
#include "trace.h"
#include "track.h"
#include "vaspace.h"

#define SLOT_SHIFT 21u /* 2 MB */
#define SLOT ((uint64_t)1 << SLOT_SHIFT)
#define GIB (UINT64_C(1) << 30)
#define PHYS_TAG 3u /* the heap tag of a physical handle's block (blocks.c) */

struct phys {
    uint64_t off;      /* heap offset of its block = offset in the memfd */
    uint64_t size;     /* as requested */
    uint64_t bytes;    /* rounded to its page: what the heap holds */
    enum sim_page page;
    unsigned refs;     /* the program's references: 1 + retains - frees */
    unsigned maps;     /* mappings of it */
    bool imported;     /* memory of another process (sim_vmm_attach, or
                          sim_vmm_phys_adopt): off is the offset of its
                          first byte in the shared file */
    int fd;            /* an adopted handle's file, -1: the device's memfd */
    uint64_t hoff;     /* device offset of its handle */
    bool shared;       /* exported (sim_vmm_phys_share) */
    bool zombie;       /* freed, its bytes still held by another process */
};

struct map {
    uint64_t off;      /* device offset of the mapping's first byte */
    uint64_t size;
    struct phys *p;
    uint32_t access;   /* SIM_ACCESS_* */
};

struct sim_res {
    uint64_t off, size;
    struct map **slot; /* per 2 MB of the range: the mapping there */
    unsigned nmaps;
    int32_t bound;     /* device of the physical memory mapped, -1: none */
    bool ipc;          /* holds one imported mapping (sim_vmm_attach), not a
                          reservation of the program's */
};


/* The heap's window is twice the device's pages: the driver takes its
 * heaps' addresses from a range of 8 TiB that all devices share
 * (hicann/driver src/sdk_driver/svm/v2/command/ioctl/svm_define.h:112-120)
 * and a new 1 GiB heap when the ones it has lack a free range
 * (src/ascend_hal/svm/v2/devmm/devmm_virt_interface.c:1594-1655), so a
 * program's frees never leave it without addresses while it has pages;
 * with at least the pages' worth of addresses free, the heap here does
 * not either unless a pattern made to defeat it spreads live blocks over
 * every free range. Not more: the device's four windows (about 6C) must
 * fit where the host places a mapping, 1.3 TiB under ThreadSanitizer (a
 * 144 GB part), and the largest device's (16 TiB) in the host's 128 TiB. */
uint64_t sim_vmm_heap_window(uint64_t capacity)
{
    return 2 * ((capacity + GIB - 1) & ~(GIB - 1));
}

/* The end of the reservation window, R = 2C (at least 16 GiB) past 2H. */
static uint64_t res_end(uint64_t capacity)
{
    uint64_t c = (capacity + GIB - 1) & ~(GIB - 1);
    uint64_t r = 2 * c < 16 * GIB ? 16 * GIB : 2 * c;
    return 2 * sim_vmm_heap_window(capacity) + r;
}

uint64_t sim_vmm_dvpp_window(uint64_t capacity)
{
    return res_end(capacity);
}

uint64_t sim_vmm_span(uint64_t capacity)
{
    return res_end(capacity) + SIM_DVPP_SPAN;
}

enum sim_rc sim_vmm_open(struct sim_dev *d, uint64_t capacity)
{
    uint64_t h = sim_vmm_heap_window(capacity);
    struct sim_vmm *v = &d->vmm_state;
    memset(v, 0, sizeof *v);
    v->handle_off = h;
    v->res_lo = 2 * h;
    v->res_hi = res_end(capacity);
    v->fd = -1;
    d->vmm = v;
    return SIM_OK;
}

static void trace_vmm(struct sim_dev *d, const char *what, uint64_t addr, uint64_t size)
{
    char arg[64];
    snprintf(arg, sizeof arg, "0x%llx %llu", (unsigned long long)addr, (unsigned long long)size);
    sim_trace_instant(sim_dev_id(d), what, sim_clock_host(), arg);
    sim_trace_counter(sim_dev_id(d), "reserved", d->vmm->reserved, sim_clock_host());
    sim_trace_counter(sim_dev_id(d), "mapped", d->vmm->mapped, sim_clock_host());
    sim_trace_counter(sim_dev_id(d), "physical", d->vmm->physical, sim_clock_host());
}

/* Put anonymous memory back in the host view of [off, off + size). */
static void view_restore(struct sim_dev *d, uint64_t off, uint64_t size)
{
    sim_views_exclusive(d);
    sim_vaspace_unshare(d->vs, sim_dev_base(d) + off, size, 0);
    sim_views_shared(d);
}

/* Map fd's [foff, foff + size) over the host view of device offset off;
 * -1 (and the view as it was) when the host refuses. */
static int view_share(struct sim_dev *d, uint64_t off, uint64_t size, int fd, uint64_t foff)
{
    sim_views_exclusive(d);
    int rc = sim_vaspace_share(d->vs, sim_dev_base(d) + off, size, fd, foff);
    sim_views_shared(d);
    return rc;
}

static void adopted_release(struct sim_dev *d, struct phys *p);
static bool held_elsewhere(const struct sim_vmm *v, const struct phys *p);

static void phys_release(struct sim_dev *d, struct phys *p)
{
    struct sim_vmm *v = d->vmm;
    if (p->fd >= 0) {
        adopted_release(d, p);
        return;
    }
    if (p->shared && held_elsewhere(v, p)) { /* its bytes go once theirs do */
        if (!p->zombie)
            v->zombies++;
        p->zombie = true;
        return;
    }
    if (p->zombie)
        v->zombies--;
    base_map_remove(&v->phys, p->off + 1, NULL);
    fallocate(v->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)p->off, (off_t)p->bytes);
    sim_heap_free(d->heap, p->off, NULL);
    sim_dev_freed(d);
    v->physical -= p->bytes;
    base_free(p);
}

void sim_vmm_close(struct sim_dev *d)
{
    struct sim_vmm *v = d->vmm;
    if (!v)
        return;
    for (size_t i = 0; i < v->nres; i++) {
        struct sim_res *r = v->res[i];
        for (uint64_t k = 0; k < r->size >> SLOT_SHIFT; k++) {
            struct map *m = r->slot[k];
            if (m && m->off == r->off + (k << SLOT_SHIFT)) {
                view_restore(d, m->off, m->size);
                if (r->ipc)
                    base_free(m->p);
                base_free(m);
            }
        }
        /* not told to memcheck: a reservation never released is a leak
         * there too, as an aclrtMalloc block never freed is */
        base_free(r->slot);
        base_free(r);
    }
    size_t pos = 0;
    void *val;
    while (base_map_next(&v->phys, &pos, NULL, &val)) {
        base_free(val); /* (memcheck still holds a handle never freed) */
    }
    base_map_clear(&v->phys);
    pos = 0;
    while (base_map_next(&v->imports, &pos, NULL, &val)) {
        close(((struct phys *)val)->fd);
        base_free(val);
    }
    base_map_clear(&v->imports);
    if (v->fd >= 0)
        close(v->fd);
    base_free(v->res);
    memset(v, 0, sizeof *v);
    d->vmm = NULL;
}

/* ---- lookups, under d->lock ---- */

/* The index of the reservation holding device offset off, or -1. */
static long res_find(const struct sim_vmm *v, uint64_t off)
{
    size_t lo = 0, hi = v->nres;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct sim_res *r = v->res[mid];
        if (off < r->off)
            hi = mid;
        else if (off - r->off >= r->size)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

/* The device holding va, locked (or NULL), the index of the reservation
 * holding va in *i (-1 when there is none) and va's offset in *off. */
static struct sim_dev *res_lock_of(const void *va, long *i, uint64_t *off)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)va);
    *i = -1;
    *off = 0;
    if (d && d->vmm) {
        *off = (uint64_t)(uintptr_t)va - sim_dev_base(d);
        *i = res_find(d->vmm, *off);
    }
    return d;
}

static struct map *map_at(const struct sim_res *r, uint64_t off)
{
    return r->slot[(off - r->off) >> SLOT_SHIFT];
}

/* The physical handle behind a handle address, device locked; or NULL. */
static struct sim_dev *phys_lock_of(const void *handle, struct phys **out)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)handle);
    if (!d)
        return NULL;
    uint64_t off = (uint64_t)(uintptr_t)handle - sim_dev_base(d);
    void **slot = NULL;
    if (d->vmm && off >= d->vmm->handle_off && off < d->vmm->res_lo)
        slot = base_map_find(&d->vmm->phys, off - d->vmm->handle_off + 1);
    else if (d->vmm && off >= d->vmm->res_lo)
        slot = base_map_find(&d->vmm->imports, off + 1);
    if (!slot || !((struct phys *)*slot)->refs) {
        sim_lock_give(&d->lock);
        return NULL;
    }
    *out = *slot;
    return d;
}

/* ---- granularity ---- */

enum sim_rc sim_vmm_granularity(int32_t dev, enum sim_page page, uint64_t *g)
{
    if (page == SIM_PAGE_HUGE1G && !sim_device_profile(dev)->huge1g)
        return SIM_EUNSUPPORTED;
    *g = page == SIM_PAGE_HUGE1G ? GIB : SLOT;
    return SIM_OK;
}

/* ---- reservations ---- */

/* Where a new reservation of size bytes aligned to al fits: its offset, or
 * 0 when none (0 is never in the window). */
static uint64_t res_place(const struct sim_vmm *v, uint64_t size, uint64_t al, size_t *at)
{
    uint64_t cur = v->res_lo;
    for (size_t i = 0; i <= v->nres; i++) {
        uint64_t end = i < v->nres ? v->res[i]->off : v->res_hi;
        uint64_t start = (cur + al - 1) & ~(al - 1);
        if (start < end && end - start >= size) {
            *at = i;
            return start;
        }
        if (i < v->nres)
            cur = v->res[i]->off + v->res[i]->size;
    }
    return 0;
}

/* The checks of a reservation that need no lock: *size rounded up to the
 * slot, *al the alignment its start needs (1 GB for a request of 1 GB or
 * more, else 2 MB). */
static enum sim_rc reserve_args(int32_t dev, uint64_t *size, const void *expect, uint64_t *al,
                                const char **why)
{
    uint64_t want = (uint64_t)(uintptr_t)expect;
    *al = *size >= GIB ? GIB : SLOT;
    if (FLT_HIT(SIM_VMM_RESERVE)) {
        *why = "no free device address range of that size is left";
        return SIM_ENOMEM;
    }
    if (expect && strncmp(sim_device_profile(dev)->name, "Ascend950", 9) == 0) {
        *why = "expectPtr must be NULL on Ascend 950 (a chosen address is not supported there)";
        return SIM_EUNSUPPORTED;
    }
    if (*size > (UINT64_C(1) << 46)) {
        *why = "the size is larger than the device's reservation window";
        return SIM_ENOMEM;
    }
    *size = (*size + SLOT - 1) & ~(SLOT - 1);
    if (expect && (want & (*al - 1))) {
        *why = *size >= GIB ? "expectPtr must be aligned to 1 GB for a size of 1 GB or more"
                            : "expectPtr must be aligned to 2 MB";
        return SIM_EINVAL;
    }
    return SIM_OK;
}

/* Where a reservation of size bytes goes in d's window: at expect when
 * given (SIM_EINVAL when that range is taken or outside the window), else
 * the first free range aligned to al (SIM_ENOMEM when none): its offset
 * from the device's base in *off, its index among the reservations in *at.
 * pre: d->lock held, d open. */
static enum sim_rc res_locate(const struct sim_dev *d, const void *expect, uint64_t size,
                              uint64_t al, uint64_t *off, size_t *at, const char **why)
{
    const struct sim_vmm *v = d->vmm;
    uint64_t want = (uint64_t)(uintptr_t)expect;
    *at = 0;
    if (!expect) {
        *off = res_place(v, size, al, at);
        if (!*off)
            *why = "no free device address range of that size is left";
        return *off ? SIM_OK : SIM_ENOMEM;
    }
    uint64_t o = want - sim_dev_base(d);
    bool inside = want >= sim_dev_base(d) && o >= v->res_lo && o < v->res_hi && v->res_hi - o >= size;
    if (inside) {
        /* free: no reservation overlaps [o, o + size) */
        for (*at = 0; *at < v->nres && v->res[*at]->off + v->res[*at]->size <= o; ++*at)
            ;
        if (*at == v->nres || v->res[*at]->off >= o + size) {
            *off = o;
            return SIM_OK;
        }
    }
    *why = inside ? "the range at expectPtr is already reserved"
                  : "expectPtr lies outside the device's reservation window";
    return SIM_EINVAL;
}

/* Room in d's list for one more reservation, and [off, off + size) reserved
 * in the host's view of the device unless the view is reserved whole:
 * SIM_EHOSTMEM when either cannot be had. pre: d->lock held, d open. */
static enum sim_rc res_make_room(struct sim_dev *d, uint64_t off, uint64_t size)
{
    struct sim_vmm *v = d->vmm;
    if (v->nres == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        struct sim_res **n = base_realloc(v->res, cap * sizeof *n);
        if (!n)
            return SIM_EHOSTMEM;
        v->res = n;
        v->cap = cap;
    }
    if (!d->view_whole && sim_vaspace_reserve(d->vs, sim_dev_base(d) + off, size) != 0)
        return SIM_EHOSTMEM;
    return SIM_OK;
}

enum sim_rc sim_vmm_reserve(int32_t dev, uint64_t size, void *expect, void **va, const char **why)
{
    struct sim_dev *d = sim_dev_get(dev);
    uint64_t al = 0, off = 0;
    size_t at = 0;
    enum sim_rc rc = reserve_args(dev, &size, expect, &al, why);
    if (rc != SIM_OK)
        return rc;
    struct sim_res *r = base_calloc(1, sizeof *r);
    struct map **slot = base_calloc((size_t)(size >> SLOT_SHIFT), sizeof *slot);
    if (!r || !slot) {
        base_free(r);
        base_free(slot);
        return SIM_EHOSTMEM;
    }
    sim_lock_take(&d->lock);
    if (!atomic_load_explicit(&d->open, memory_order_relaxed) || !d->vmm) {
        *why = "the device is not open";
        rc = SIM_EINVAL;
    }
    if (rc == SIM_OK)
        rc = res_locate(d, expect, size, al, &off, &at, why);
    if (rc == SIM_OK)
        rc = res_make_room(d, off, size);
    if (rc != SIM_OK) {
        sim_lock_give(&d->lock);
        base_free(r);
        base_free(slot);
        return rc;
    }
    struct sim_vmm *v = d->vmm;
    memmove(v->res + at + 1, v->res + at, (v->nres - at) * sizeof *v->res);
    *r = (struct sim_res){off, size, slot, 0, -1, false};
    v->res[at] = r;
    v->nres++;
    v->reserved += size;
    *va = (void *)(uintptr_t)(sim_dev_base(d) + off);
    if (d->tracked)
        sim_track_alloc(*va, size);
    if (sim_trace_enabled())
        trace_vmm(d, "reserve", sim_dev_base(d) + off, size);
    sim_lock_give(&d->lock);
    return SIM_OK;
}

enum sim_rc sim_vmm_release(void *va, const char **why)
{
    long i;
    uint64_t off;
    struct sim_dev *d = res_lock_of(va, &i, &off);
    if (i < 0 || d->vmm->res[i]->off != off) {
        if (d)
            sim_lock_give(&d->lock);
        *why = i < 0 ? "it is not an address returned by aclrtReserveMemAddress (never reserved, "
                       "or already released)"
                     : "it lies inside a reservation, not at its start";
        return SIM_EINVAL;
    }
    struct sim_vmm *v = d->vmm;
    struct sim_res *r = v->res[i];
    if (r->ipc) {
        sim_lock_give(&d->lock);
        *why = "it is device memory imported with aclrtIpcMemImportByKey: close it with aclrtIpcMemClose";
        return SIM_EINVAL;
    }
    if (r->nmaps) {
        sim_lock_give(&d->lock);
        *why = "physical memory is still mapped in the range: unmap it first (aclrtUnmapMem)";
        return SIM_EINVAL;
    }
    memmove(v->res + i, v->res + i + 1, (v->nres - (size_t)i - 1) * sizeof *v->res);
    v->nres--;
    v->reserved -= r->size;
    if (d->tracked)
        sim_track_free(va);
    if (sim_trace_enabled())
        trace_vmm(d, "release", sim_dev_base(d) + r->off, r->size);
    sim_lock_give(&d->lock);
    base_free(r->slot);
    base_free(r);
    return SIM_OK;
}

/* ---- physical memory ---- */

/* Whether another process holds a read lock on p's bytes in the memfd
 * (each adopted handle does, on its own open of the file). */
static bool held_elsewhere(const struct sim_vmm *v, const struct phys *p)
{
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)p->off,
                      .l_len = (off_t)p->bytes};
    return fcntl(v->fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
}

/* Release the freed handles whose bytes nobody holds any more. */
static void sweep_zombies(struct sim_dev *d)
{
    size_t pos = 0;
    void *val;
    struct phys *gone[16];
    size_t n = 0;
    while (n < 16 && base_map_next(&d->vmm->phys, &pos, NULL, &val)) {
        struct phys *p = val;
        if (p->zombie && !held_elsewhere(d->vmm, p))
            gone[n++] = p;
    }
    for (size_t i = 0; i < n; i++)
        phys_release(d, gone[i]);
}

enum sim_rc sim_vmm_phys_alloc(int32_t dev, uint64_t size, enum sim_page page, void **handle)
{
    struct sim_dev *d = sim_dev_get(dev);
    uint64_t pb = page == SIM_PAGE_HUGE1G ? GIB : SLOT;
    if (page == SIM_PAGE_HUGE1G && !sim_device_profile(dev)->huge1g)
        return SIM_EUNSUPPORTED;
    if (size > (UINT64_C(1) << 46))
        return SIM_ENOMEM;
    if (FLT_HIT(SIM_VMM_PHYSICAL) || FLT_HIT(SIM_HBM_ALLOC))
        return SIM_ENOMEM;
    struct phys *p = base_calloc(1, sizeof *p);
    if (!p)
        return SIM_EHOSTMEM;
    sim_lock_take(&d->lock);
    struct sim_vmm *v = d->vmm;
    enum sim_rc rc = SIM_OK;
    if (!atomic_load_explicit(&d->open, memory_order_relaxed) || !v) {
        rc = SIM_ENOMEM;
    } else if (v->fd < 0) {
        v->fd = memfd_create("aclsim-hbm", MFD_CLOEXEC);
        if (v->fd < 0 || ftruncate(v->fd, (off_t)v->handle_off) != 0) {
            if (v->fd >= 0)
                close(v->fd);
            v->fd = -1;
            rc = SIM_EHOSTMEM;
        }
    }
    uint64_t off = 0;
    if (rc == SIM_OK && v->zombies)
        sweep_zombies(d);
    if (rc == SIM_OK) {
        enum sim_heap_rc h =
            sim_heap_alloc(d->heap, (size + pb - 1) & ~(pb - 1), pb, PHYS_TAG, &off);
        rc = h == SIM_HEAP_OK ? SIM_OK : h == SIM_HEAP_NOSPACE ? SIM_ENOMEM : SIM_EHOSTMEM;
    }
    if (rc == SIM_OK) {
        *p = (struct phys){off, size, (size + pb - 1) & ~(pb - 1), page, 1, 0, false, -1,
                           v->handle_off + off, false, false};
        if (base_map_put(&v->phys, off + 1, p) != 0 ||
            (!d->view_whole &&
             sim_vaspace_reserve(d->vs, sim_dev_base(d) + v->handle_off + off, p->bytes) != 0)) {
            base_map_remove(&v->phys, off + 1, NULL);
            sim_heap_free(d->heap, off, NULL);
            rc = SIM_EHOSTMEM;
        }
    }
    if (rc != SIM_OK) {
        sim_lock_give(&d->lock);
        base_free(p);
        return rc;
    }
    v->physical += p->bytes;
    *handle = (void *)(uintptr_t)(sim_dev_base(d) + v->handle_off + off);
    if (d->tracked)
        sim_track_alloc(*handle, size);
    if (sim_trace_enabled())
        trace_vmm(d, "physical", (uint64_t)(uintptr_t)*handle, p->bytes);
    sim_lock_give(&d->lock);
    return SIM_OK;
}

enum sim_rc sim_vmm_phys_free(void *handle)
{
    struct phys *p;
    struct sim_dev *d = phys_lock_of(handle, &p);
    if (!d)
        return SIM_EINVAL;
    if (--p->refs == 0) {
        if (d->tracked)
            sim_track_free(handle);
        if (sim_trace_enabled())
            trace_vmm(d, "physical free", (uint64_t)(uintptr_t)handle, p->bytes);
        if (!p->maps) /* else: freed with its last mapping */
            phys_release(d, p);
    }
    sim_lock_give(&d->lock);
    return SIM_OK;
}

enum sim_rc sim_vmm_phys_info(void *handle, struct sim_phys_info *out)
{
    struct phys *p;
    struct sim_dev *d = phys_lock_of(handle, &p);
    if (!d)
        return SIM_EINVAL;
    *out = (struct sim_phys_info){sim_dev_id(d), p->size, p->page};
    sim_lock_give(&d->lock);
    return SIM_OK;
}

/* ---- mappings ---- */

enum sim_rc sim_vmm_map(void *va, uint64_t size, uint64_t offset, void *handle, uint32_t access,
                        const char **why)
{
    struct phys *p;
    if (FLT_HIT(SIM_VMM_MAP)) {
        *why = "the device could not map the physical memory";
        return SIM_ENOMEM;
    }
    struct sim_dev *pd = phys_lock_of(handle, &p);
    if (!pd) {
        *why = "handle is not a live physical memory handle (never allocated, or freed)";
        return SIM_EINVAL;
    }
    struct sim_dev *d = pd;
    /* The reservation must be on the handle's device (one device's address
     * space per process in the simulator: a reservation of another device
     * is found under its own lock). */
    uint64_t off = (uint64_t)(uintptr_t)va - sim_dev_base(d);
    long i = d->vmm && sim_dev_holds(d, (uintptr_t)va) ? res_find(d->vmm, off) : -1;
    const char *bad = NULL;
    struct sim_res *r = i >= 0 ? d->vmm->res[i] : NULL;
    if (!r)
        bad = sim_mem_in_range(va) && !sim_dev_holds(d, (uintptr_t)va)
                  ? "the range was reserved on another device than the physical memory: a "
                    "reservation is bound to one device"
                  : "virPtr is not inside a range reserved with aclrtReserveMemAddress";
    else if (r->ipc)
        bad = "it is device memory imported with aclrtIpcMemImportByKey: close it with aclrtIpcMemClose";
    else if (offset != 0)
        bad = "offset must be 0";
    else if (size != p->size)
        bad = "size must equal the size given to aclrtMallocPhysical for this handle";
    else if (size % (p->page == SIM_PAGE_HUGE1G ? GIB : SLOT))
        bad = "size must be a multiple of the allocation granularity";
    else if (off % (p->page == SIM_PAGE_HUGE1G ? GIB : SLOT))
        bad = "virPtr must be aligned to the allocation granularity";
    else if (off - r->off > r->size || r->size - (off - r->off) < size)
        bad = "the range [virPtr, virPtr + size) runs past the end of its reservation";
    if (!bad) {
        uint64_t end = (off - r->off + size) >> SLOT_SHIFT;
        for (uint64_t k = (off - r->off) >> SLOT_SHIFT; k < end; k++)
            if (r->slot[k]) {
                bad = "part of the range is already mapped: unmap it first";
                break;
            }
    }
    struct map *m = bad ? NULL : base_malloc(sizeof *m);
    if (bad || !m) {
        sim_lock_give(&d->lock);
        *why = bad;
        return bad ? SIM_EINVAL : SIM_EHOSTMEM;
    }
    if (view_share(d, off, size, p->fd >= 0 ? p->fd : d->vmm->fd, p->off) != 0) {
        sim_lock_give(&d->lock);
        base_free(m);
        *why = NULL;
        return SIM_EHOSTMEM;
    }
    *m = (struct map){off, size, p, access};
    for (uint64_t k = (off - r->off) >> SLOT_SHIFT; k < (off - r->off + size) >> SLOT_SHIFT; k++)
        r->slot[k] = m;
    r->nmaps++;
    r->bound = sim_dev_id(d);
    p->maps++;
    d->vmm->mapped += size;
    if (sim_trace_enabled())
        trace_vmm(d, "map", sim_dev_base(d) + off, size);
    sim_lock_give(&d->lock);
    return SIM_OK;
}

/* The mapping starting at va, device locked; NULL with *why when none. */
static struct sim_dev *map_lock_of(const void *va, struct sim_res **rr, struct map **mm,
                                   const char **why)
{
    long i;
    uint64_t off;
    struct sim_dev *d = res_lock_of(va, &i, &off);
    struct map *m = i >= 0 ? map_at(d->vmm->res[i], off) : NULL;
    if (m && d->vmm->res[i]->ipc) {
        sim_lock_give(&d->lock);
        *why = "it is device memory imported with aclrtIpcMemImportByKey: close it with aclrtIpcMemClose";
        return NULL;
    }
    if (!m || m->off != off) {
        if (d)
            sim_lock_give(&d->lock);
        *why = i < 0 ? "virPtr is not inside a range reserved with aclrtReserveMemAddress"
               : m   ? "virPtr lies inside a mapping, not at its start"
                     : "nothing is mapped at virPtr";
        return NULL;
    }
    *rr = d->vmm->res[i];
    *mm = m;
    return d;
}

enum sim_rc sim_vmm_unmap(void *va, const char **why)
{
    struct sim_res *r;
    struct map *m;
    struct sim_dev *d = map_lock_of(va, &r, &m, why);
    if (!d)
        return SIM_EINVAL;
    sim_dev_freed(d);
    view_restore(d, m->off, m->size);
    uint64_t end = (m->off - r->off + m->size) >> SLOT_SHIFT;
    for (uint64_t k = (m->off - r->off) >> SLOT_SHIFT; k < end; k++)
        r->slot[k] = NULL;
    if (--r->nmaps == 0)
        r->bound = -1;
    d->vmm->mapped -= m->size;
    struct phys *p = m->p;
    if (--p->maps == 0 && p->refs == 0)
        phys_release(d, p);
    if (sim_trace_enabled())
        trace_vmm(d, "unmap", sim_dev_base(d) + m->off, m->size);
    sim_lock_give(&d->lock);
    base_free(m);
    return SIM_OK;
}

enum sim_rc sim_vmm_retain(void *va, void **handle, const char **why)
{
    struct sim_res *r;
    struct map *m;
    struct sim_dev *d = map_lock_of(va, &r, &m, why);
    if (!d)
        return SIM_EINVAL;
    m->p->refs++;
    *handle = (void *)(uintptr_t)(sim_dev_base(d) + m->p->hoff);
    if (m->p->refs == 1 && d->tracked) /* the program had freed it: a handle again */
        sim_track_alloc(*handle, m->p->size);
    sim_lock_give(&d->lock);
    return SIM_OK;
}

enum sim_rc sim_vmm_access(void *va, uint64_t size, bool set, uint32_t *access, const char **why)
{
    struct sim_res *r;
    struct map *m;
    struct sim_dev *d = map_lock_of(va, &r, &m, why);
    if (!d)
        return SIM_EINVAL;
    if (set && size != m->size) {
        sim_lock_give(&d->lock);
        *why = "size must equal the size of the mapping at virPtr";
        return SIM_EINVAL;
    }
    if (set)
        m->access = *access;
    else
        *access = m->access;
    sim_lock_give(&d->lock);
    return SIM_OK;
}

/* ---- what copies and the tools see ---- */

enum sim_vmm_kind sim_vmm_lookup(const void *ptr, struct sim_block *b)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    if (!d)
        return SIM_VMM_NONE;
    enum sim_vmm_kind kind = SIM_VMM_NONE;
    uint64_t off = (uint64_t)(uintptr_t)ptr - sim_dev_base(d);
    long i = d->vmm && off >= d->vmm->res_lo ? res_find(d->vmm, off) : -1;
    if (i >= 0) {
        struct sim_res *r = d->vmm->res[i];
        struct map *m = map_at(r, off);
        if (!m || m->access == SIM_ACCESS_NONE || off < m->off || off - m->off >= m->size) {
            kind = SIM_VMM_UNMAPPED;
        } else if (r->ipc) {
            *b = (struct sim_block){sim_dev_id(d), (void *)(uintptr_t)(sim_dev_base(d) + m->off), m->size,
                                    sim_page_bytes(m->p->page)};
            kind = SIM_VMM_MAPPED;
        } else {
            /* the run of accessible mappings around ptr */
            uint64_t lo = m->off, hi = m->off + m->size;
            struct map *x;
            while (lo > r->off && (x = map_at(r, lo - 1)) && x->access != SIM_ACCESS_NONE)
                lo = x->off;
            while (hi < r->off + r->size && (x = map_at(r, hi)) && x->access != SIM_ACCESS_NONE)
                hi = x->off + x->size;
            *b = (struct sim_block){sim_dev_id(d), (void *)(uintptr_t)(sim_dev_base(d) + lo), hi - lo,
                                    sim_page_bytes(m->p->page)};
            kind = SIM_VMM_MAPPED;
        }
    }
    sim_lock_give(&d->lock);
    return kind;
}

enum sim_rc sim_vmm_range(const void *ptr, void **base, uint64_t *size)
{
    struct sim_dev *d = sim_dev_lock_of((uintptr_t)ptr);
    if (!d)
        return SIM_EINVAL;
    enum sim_rc rc = SIM_EINVAL;
    uint64_t off = (uint64_t)(uintptr_t)ptr - sim_dev_base(d);
    long i = d->vmm && off >= d->vmm->res_lo ? res_find(d->vmm, off) : -1;
    struct map *m = i >= 0 ? map_at(d->vmm->res[i], off) : NULL;
    if (m && off >= m->off && off - m->off < m->size) {
        *base = (void *)(uintptr_t)(sim_dev_base(d) + m->off);
        *size = m->size;
        rc = SIM_OK;
    }
    sim_lock_give(&d->lock);
    return rc;
}

void sim_vmm_usage(int32_t dev, struct sim_vmm_usage *u)
{
    struct sim_dev *d = sim_dev_get(dev);
    memset(u, 0, sizeof *u);
    sim_lock_take(&d->lock);
    if (atomic_load_explicit(&d->open, memory_order_relaxed) && d->vmm) {
        u->reserved = d->vmm->reserved;
        u->mapped = d->vmm->mapped;
        u->physical = d->vmm->physical;
        u->reservations = d->vmm->nres;
        u->handles = d->vmm->phys.count;
    }
    sim_lock_give(&d->lock);
}

size_t sim_vmm_live(int32_t dev, sim_vmm_live_fn fn, void *user)
{
    struct sim_dev *d = sim_dev_get(dev);
    size_t n = 0;
    sim_lock_take(&d->lock);
    struct sim_vmm *v = atomic_load_explicit(&d->open, memory_order_relaxed) ? d->vmm : NULL;
    for (size_t i = 0; v && i < v->nres; i++, n++) {
        struct sim_res *r = v->res[i];
        uint64_t mapped = 0;
        if (r->ipc) { /* the program's IPC imports: the ACL layer names them */
            n--;
            continue;
        }
        for (uint64_t k = 0; k < r->size >> SLOT_SHIFT; k++)
            mapped += r->slot[k] ? SLOT : 0;
        fn(SIM_VMM_LIVE_RESERVATION, (void *)(uintptr_t)(sim_dev_base(d) + r->off), r->size, mapped, user);
    }
    size_t pos = 0;
    void *val;
    while (v && base_map_next(&v->phys, &pos, NULL, &val)) {
        struct phys *p = val;
        if (p->refs) {
            void *handle = (void *)(uintptr_t)(sim_dev_base(d) + v->handle_off + p->off);
            fn(SIM_VMM_LIVE_PHYSICAL, handle, p->bytes, (uint64_t)p->maps, user);
            n++;
        }
    }
    pos = 0;
    while (v && base_map_next(&v->imports, &pos, NULL, &val)) {
        struct phys *p = val;
        if (p->refs) {
            fn(SIM_VMM_LIVE_PHYSICAL, (void *)(uintptr_t)(sim_dev_base(d) + p->hoff), p->bytes,
               (uint64_t)p->maps, user);
            n++;
        }
    }
    sim_lock_give(&d->lock);
    return n;
}

/* ---- memory of another process (ipcmem.c) ---- */

enum sim_rc sim_vmm_attach(int32_t dev, int fd, uint64_t foff, uint64_t size, void **va)
{
    struct sim_dev *d = sim_dev_get(dev);
    uint64_t rsize = (size + SLOT - 1) & ~(SLOT - 1);
    struct sim_res *r = base_calloc(1, sizeof *r);
    struct map **slot = base_calloc((size_t)(rsize >> SLOT_SHIFT), sizeof *slot);
    struct map *m = base_malloc(sizeof *m);
    struct phys *p = base_calloc(1, sizeof *p);
    enum sim_rc rc = r && slot && m && p ? SIM_OK : SIM_EHOSTMEM;
    size_t at = 0;
    uint64_t off = 0;
    sim_lock_take(&d->lock);
    if (rc == SIM_OK && (!atomic_load_explicit(&d->open, memory_order_relaxed) || !d->vmm))
        rc = SIM_EINVAL;
    if (rc == SIM_OK && !(off = res_place(d->vmm, rsize, SLOT, &at)))
        rc = SIM_ENOMEM;
    if (rc == SIM_OK)
        rc = res_make_room(d, off, rsize);
    if (rc == SIM_OK && view_share(d, off, size, fd, foff) != 0)
        rc = SIM_EHOSTMEM;
    if (rc != SIM_OK) {
        sim_lock_give(&d->lock);
        base_free(r), base_free(slot), base_free(m), base_free(p);
        return rc;
    }
    struct sim_vmm *v = d->vmm;
    *p = (struct phys){foff, size, size, SIM_PAGE_HUGE, 0, 1, true, -1, 0, false, false};
    *m = (struct map){off, size, p, SIM_ACCESS_READWRITE};
    *r = (struct sim_res){off, rsize, slot, 1, dev, true};
    for (uint64_t k = 0; k < rsize >> SLOT_SHIFT; k++)
        slot[k] = m;
    memmove(v->res + at + 1, v->res + at, (v->nres - at) * sizeof *v->res);
    v->res[at] = r;
    v->nres++;
    *va = (void *)(uintptr_t)(sim_dev_base(d) + off);
    if (sim_trace_enabled())
        trace_vmm(d, "ipc import", sim_dev_base(d) + off, size);
    sim_lock_give(&d->lock);
    return SIM_OK;
}

enum sim_rc sim_vmm_detach(void *va)
{
    long i;
    uint64_t off;
    struct sim_dev *d = res_lock_of(va, &i, &off);
    struct sim_res *r = i >= 0 ? d->vmm->res[i] : NULL;
    if (!r || !r->ipc || off != r->off) {
        if (d)
            sim_lock_give(&d->lock);
        return SIM_EINVAL;
    }
    struct sim_vmm *v = d->vmm;
    struct map *m = r->slot[0];
    sim_dev_freed(d);
    /* a hole: no lookup finds the range any more, the next attach maps it */
    sim_views_exclusive(d);
    sim_vaspace_unshare(d->vs, sim_dev_base(d) + m->off, m->size, SIM_VASPACE_HOLE);
    sim_views_shared(d);
    memmove(v->res + i, v->res + i + 1, (v->nres - (size_t)i - 1) * sizeof *v->res);
    v->nres--;
    if (sim_trace_enabled())
        trace_vmm(d, "ipc close", sim_dev_base(d) + m->off, m->size);
    sim_lock_give(&d->lock);
    base_free(m->p);
    base_free(m);
    base_free(r->slot);
    base_free(r);
    return SIM_OK;
}

/* ---- physical memory shared between processes (ipcmem.c) ---- */

enum sim_rc sim_vmm_phys_share(void *handle, struct sim_phys_share *out, const char **why)
{
    struct phys *p;
    struct sim_dev *d = phys_lock_of(handle, &p);
    if (!d) {
        *why = "handle is not a live physical memory handle (never allocated, or freed)";
        return SIM_EINVAL;
    }
    enum sim_rc rc = SIM_OK;
    if (p->fd >= 0) {
        *why = "the handle was imported from another process: only its exporter exports it";
        rc = SIM_EINVAL;
    } else if (p->shared) {
        *why = "the handle was exported already (one shareable handle per physical handle)";
        rc = SIM_EINVAL;
    } else {
        p->shared = true;
        *out = (struct sim_phys_share){d->vmm->fd, p->off, p->bytes, p->size, p->page,
                                       sim_dev_id(d)};
    }
    sim_lock_give(&d->lock);
    return rc;
}

static void adopted_release(struct sim_dev *d, struct phys *p)
{
    struct sim_vmm *v = d->vmm;
    base_map_remove(&v->imports, p->hoff + 1, NULL);
    close(p->fd); /* drops its lock on the bytes */
    long i = res_find(v, p->hoff);
    if (i >= 0) {
        struct sim_res *r = v->res[i];
        memmove(v->res + i, v->res + i + 1, (v->nres - (size_t)i - 1) * sizeof *v->res);
        v->nres--;
        base_free(r->slot);
        base_free(r);
    }
    sim_dev_freed(d);
    base_free(p);
}

enum sim_rc sim_vmm_phys_adopt(int32_t dev, int fd, const struct sim_phys_share *s,
                               void **handle)
{
    struct sim_dev *d = sim_dev_get(dev);
    uint64_t rsize = (s->bytes + SLOT - 1) & ~(SLOT - 1);
    struct sim_res *r = base_calloc(1, sizeof *r);
    struct map **slot = base_calloc((size_t)(rsize >> SLOT_SHIFT), sizeof *slot);
    struct phys *p = base_calloc(1, sizeof *p);
    enum sim_rc rc = r && slot && p ? SIM_OK : SIM_EHOSTMEM;
    size_t at = 0;
    uint64_t off = 0;
    sim_lock_take(&d->lock);
    if (rc == SIM_OK && (!atomic_load_explicit(&d->open, memory_order_relaxed) || !d->vmm))
        rc = SIM_EINVAL;
    /* the handle is an address of the reservation window nobody maps */
    if (rc == SIM_OK && !(off = res_place(d->vmm, rsize, SLOT, &at)))
        rc = SIM_ENOMEM;
    if (rc == SIM_OK && (res_make_room(d, off, rsize) != SIM_OK ||
                         base_map_put(&d->vmm->imports, off + 1, p) != 0))
        rc = SIM_EHOSTMEM;
    if (rc != SIM_OK) {
        sim_lock_give(&d->lock);
        base_free(r), base_free(slot), base_free(p);
        close(fd);
        return rc;
    }
    struct sim_vmm *v = d->vmm;
    *p = (struct phys){s->off, s->size, s->bytes, s->page, 1, 0, true, fd, off, false, false};
    *r = (struct sim_res){off, rsize, slot, 0, -1, true};
    memmove(v->res + at + 1, v->res + at, (v->nres - at) * sizeof *v->res);
    v->res[at] = r;
    v->nres++;
    *handle = (void *)(uintptr_t)(sim_dev_base(d) + off);
    if (d->tracked)
        sim_track_alloc(*handle, s->size);
    sim_lock_give(&d->lock);
    return SIM_OK;
}

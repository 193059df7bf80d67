/*
 * internal.h - what the simulator's own files share about devices and
 * device memory, and nothing outside sim/ may use: the state of one device
 * and what each file offers the others, grouped by file. sim.h stays the
 * layer's interface; queue.h is what the stream files share; heap.h,
 * vaspace.h, clock.h, trace.h, lock.h and track.h are the parts devices
 * are built from.
 */
#ifndef ACLSIM_SIM_INTERNAL_H_
#define ACLSIM_SIM_INTERNAL_H_

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/hash.h"
#include "clock.h"
#include "lock.h"
#include "sim.h"

struct sim_heap;
struct sim_vaspace;
struct sim_stacks;
struct sim_res;

/* A device's virtual memory (vmm.c): reservations, physical handles. */
struct sim_vmm {
    uint64_t handle_off;     /* start of the handle window */
    uint64_t res_lo, res_hi; /* the reservation window */
    int fd;                  /* the physical bytes, -1 until first needed */
    struct sim_res **res;    /* sorted by offset */
    size_t nres, cap;
    struct base_map phys;    /* heap offset + 1 -> its physical handle */
    struct base_map imports; /* handle offset + 1 -> physical memory of
                                another process (sim_vmm_phys_adopt) */
    unsigned zombies;        /* handles freed while another process still
                                maps their shared bytes (vmm.c) */
    uint64_t reserved, mapped, physical; /* bytes */
};

/* ---- config.c and device.c: devices ---- */

struct sim_dev {
    struct sim_lock lock; /* the heap, address space, stacks and abandoned list */
    struct sim_stacks *stacks; /* NULL unless ACLSIM_TRACK=1 */
    uint64_t *abandoned;       /* offsets of blocks to free at close */
    size_t n_abandoned, cap_abandoned;
    /* A device may close while other threads' memory calls still name it
     * (a call racing with aclrtResetDevice: the ACL layer holds no
     * reference on the device for those). `open` is read without the lock
     * only to find a device, and checked again under the lock by every heap
     * operation; copies and fills, which use the address space outside the
     * lock, count themselves in `users`, and closing waits for none to be
     * left. A closed device keeps its range reserved (`retired`) until it
     * opens again, so a stale pointer stays a device address nobody owns
     * and is never mistaken for host memory. */
    _Atomic bool open;      /* set last at open, cleared first at close */
    _Atomic bool retired;   /* closed, its range still reserved */
    _Atomic unsigned users; /* copies and fills inside the address space */
    /* A mapping or unmapping changes the host view (vmm.c, under the lock):
     * it raises `remapping` and waits for no user to be left; users entering
     * meanwhile wait for it to fall, so no copy or fill moves bytes through
     * a view while it is replaced (a data race, and bytes lost). */
    _Atomic bool remapping;
    /* Set at open, the same for every open of a configuration, and read
     * without the lock by calls that may race with a close and an open. */
    _Atomic bool tracked;    /* memcheck watches (track.h): tell it of every block */
    /* Open, and a block needs nothing but the heap: not tracked, no stacks,
     * the view whole. Set last at open, cleared first at close, under the
     * lock: the quick paths (blocks.c) read it under the lock instead of
     * `open`, `tracked`, `stacks` and `view_whole`. */
    _Atomic bool plain;
    _Atomic bool view_whole; /* the device view is reserved in full (vaspace.h) */
    _Atomic unsigned padding; /* the profile's aclrtMalloc padding */
    uint64_t granule;         /* of blocks on normal pages (sim_device_granule) */
    uint64_t pages;           /* bytes of HBM blocks may take (the reserve left out) */
    /* DVPP memory (blocks.c): a heap of its own over the DVPP window, its
     * blocks' pages taken from the main heap's limit. Under the lock. */
    struct sim_heap *dvpp;
    uint64_t dvpp_off;        /* the window's offset from base */
    uint64_t dvpp_used;       /* bytes of DVPP blocks */
    /* Frees and unmaps so far (written under the lock, read without it):
     * a graph whose ranges were all live at a count still finds them so
     * while the count is unchanged (graph.c). */
    _Atomic uint64_t frees;
    struct sim_vaspace *vs;
    struct sim_heap *heap;
    /* base: the device's first address, kept with its top bit flipped
     * (sim_dev_base): a plain copy of it would point at the block that
     * starts there, and memcheck could never call that block lost
     * (track.h). Read without the lock by sim_dev_of, as capacity is. */
    _Atomic uint64_t base_hidden, capacity;
    /* ---- virtual memory (vmm.c) ---- */
    struct sim_vmm *vmm; /* &vmm_state while open, else NULL */
    struct sim_vmm vmm_state;
    _Atomic uint64_t span; /* bytes of address space: heap, handles, reservations */
    /* The hidden stream synchronous copies and fills take (task.c), bound
     * to the device's timeline when it opens. */
    struct sim_clock_stream sync_clk;
};

/* Every device, open or not, and how many the configuration has
 * (ACLSIM_DEVICE_COUNT): config.c's table. config.c writes the count (only
 * while no device is open) and device.c a device's entry as it opens and
 * closes, both under config.c's mutex; the others read. In the header so
 * that the hot paths below inline. */
struct sim_devs {
    _Atomic uint32_t count;
    struct sim_dev dev[SIM_MAX_DEVICES];
};
extern struct sim_devs sim_devs;

/* The process-wide mutex over the configuration and the opening and
 * closing of devices (config.c): device.c holds it while it opens or
 * closes one, configuring first if nothing has yet. */
void sim_config_lock(void);
void sim_config_unlock(void);
/* A device opened (+1) or closed (-1): sim_configure changes nothing
 * while any is open. pre: the mutex held. */
void sim_config_count_open(int delta);
/* Where blocks on normal pages start, and the unit they are sized in
 * (ACLSIM_MALLOC_ALIGN: the driver's 4 KiB page unless a test asks for
 * less). */
uint64_t sim_device_granule(void);
/* The DVPP heap's unit on a device of that granule: the granule, 128 bytes
 * at the least (acldvppMalloc's documented start alignment). */
static inline uint64_t sim_dvpp_granule(uint64_t granule)
{
    return granule < 128 ? 128 : granule;
}

/* Device id's state, open or not. pre: 0 <= id < SIM_MAX_DEVICES. */
static inline struct sim_dev *sim_dev_get(int32_t id)
{
    return &sim_devs.dev[id];
}

/* The id of d. */
static inline int32_t sim_dev_id(const struct sim_dev *d)
{
    return (int32_t)(d - sim_devs.dev);
}

/* Whether d is open and its address range holds addr. Without d->lock
 * the answer may be stale by the time it is used: see sim_dev_lock_of. */
#define SIM_ADDR_HIDE (UINT64_C(1) << 63)
static inline uint64_t sim_dev_base(const struct sim_dev *d)
{
    return atomic_load_explicit(&d->base_hidden, memory_order_relaxed) ^ SIM_ADDR_HIDE;
}
static inline void sim_dev_set_base(struct sim_dev *d, uint64_t base)
{
    atomic_store_explicit(&d->base_hidden, base ^ SIM_ADDR_HIDE, memory_order_relaxed);
}

static inline bool sim_dev_holds(struct sim_dev *d, uintptr_t addr)
{
    if (!atomic_load_explicit(&d->open, memory_order_acquire))
        return false;
    uint64_t base = sim_dev_base(d);
    /* below base wraps around */
    return addr - base < atomic_load_explicit(&d->span, memory_order_relaxed);
}

/* The open device whose address range holds addr, or NULL. */
/* Count a free or unmap on d. pre: d->lock held. */
static inline void sim_dev_freed(struct sim_dev *d)
{
    atomic_store_explicit(&d->frees, atomic_load_explicit(&d->frees, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static inline struct sim_dev *sim_dev_of(uintptr_t addr)
{
    uint32_t n = atomic_load_explicit(&sim_devs.count, memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < SIM_MAX_DEVICES; i++) {
        struct sim_dev *d = &sim_devs.dev[i];
        if (sim_dev_holds(d, addr))
            return d;
    }
    return NULL;
}

/* The device holding addr with its lock taken, or NULL: a device closed
 * (or closed and opened again) since sim_dev_of looked is not it. */
static inline struct sim_dev *sim_dev_lock_of(uintptr_t addr)
{
    struct sim_dev *d = sim_dev_of(addr);
    if (!d)
        return NULL;
    if (sim_lock_take(&d->lock) && !sim_dev_holds(d, addr)) {
        sim_lock_give(&d->lock);
        return NULL;
    }
    return d;
}

/* The device holding addr, counted as in use until sim_dev_leave so that
 * it cannot close meanwhile, or NULL. */
static inline struct sim_dev *sim_dev_enter(uintptr_t addr)
{
    struct sim_dev *d = sim_dev_of(addr);
    if (!d)
        return NULL;
    for (;;) {
        atomic_fetch_add(&d->users, 1);
        if (!atomic_load(&d->remapping))
            break;
        atomic_fetch_sub(&d->users, 1); /* a view is being replaced: wait for it */
        while (atomic_load(&d->remapping))
            sched_yield();
    }
    /* Sequentially consistent, as close's store and load: either close
     * sees this user, or this user sees the device closed. */
    if (!atomic_load(&d->open) || !sim_dev_holds(d, addr)) {
        atomic_fetch_sub_explicit(&d->users, 1, memory_order_release);
        return NULL;
    }
    return d;
}

/* A change of d's host view (a mapping, an unmapping, an IPC export or
 * close) is about to start: no copy or fill may be inside the address space
 * meanwhile (`remapping`); sim_views_shared ends it. pre: d's lock held, or
 * d closing, so one change at a time. */
static inline void sim_views_exclusive(struct sim_dev *d)
{
    atomic_store(&d->remapping, true);
    while (atomic_load(&d->users) != 0)
        sched_yield();
}

static inline void sim_views_shared(struct sim_dev *d)
{
    atomic_store(&d->remapping, false);
}

static inline void sim_dev_leave(struct sim_dev *d)
{
    if (d)
        atomic_fetch_sub_explicit(&d->users, 1, memory_order_release);
}

/* ---- Page kinds ---- */

/* Bytes in a page of the kind: inline, so that blocks.c and vmm.c, below
 * policy.c, need nothing of it. */
static inline uint32_t sim_page_bytes(enum sim_page page)
{
    return page == SIM_PAGE_HUGE1G ? 1u << 30 : page == SIM_PAGE_HUGE ? 2u << 20 : 4096u;
}

/* ---- blocks.c: device blocks ---- */

/* One heap allocation of `size` bytes with `usable` of them for the
 * program, on pages of kind `page` (starts aligned to the page, 64 bytes
 * for normal pages). A normal-page block of a plain device comes from the
 * heap's quick lists when it can, without the rest of the path.
 * pre: d open; size a multiple of the heap granule (of the page for huge
 * pages); usable <= size, size - usable < 1 GiB. */
enum sim_rc sim_block_alloc(struct sim_dev *d, uint64_t size, uint64_t usable,
                            enum sim_page page, void **ptr);
/* Free the blocks whose free failed (sim_mem_abandon) and empty the list:
 * the device is closing. pre: d open, no other call on d can run. */
void sim_block_release_abandoned(struct sim_dev *d);
/* A DVPP block of `size` bytes (a multiple of the DVPP heap's granule),
 * `usable` of them the program's, its pages taken from the device's.
 * pre: as sim_block_alloc. */
enum sim_rc sim_dvpp_block(struct sim_dev *d, uint64_t size, uint64_t usable, void **ptr);

/* ---- stacks.c: allocation stacks for leak reports (ACLSIM_TRACK=1) ---- */

/* An empty table, or NULL when host memory ran out (then nothing is
 * tracked: tracking is best effort). */
struct sim_stacks *sim_stacks_create(void);
/* t may be NULL. */
void sim_stacks_destroy(struct sim_stacks *t);
/* Record the caller's stack for the block at offset off (silently nothing
 * when host memory runs out). pre: t != NULL, d->lock held. */
void sim_stacks_remember(struct sim_stacks *t, uint64_t off);
/* Forget the block at off, if recorded. pre: t != NULL, d->lock held. */
void sim_stacks_forget(struct sim_stacks *t, uint64_t off);
/* The number of frames recorded for the block at off, and *frames; 0 when
 * none (t may be NULL). pre: d->lock held. */
int sim_stacks_find(const struct sim_stacks *t, uint64_t off, void *const **frames);

/* ---- copy.c: device memory the host view reaches ---- */

/* Whether [p, p+n) is live device memory now: inside one live block, or in
 * a run of accessible mappings (n 0: p itself). */
bool sim_mem_holds(const void *p, uint64_t n);
/* The host view of the n bytes at p (device memory when dev) if they are
 * contiguous there, else NULL; and a copy or fill through such views (the
 * copy engine's fault point still fires). pre: [p, p+n) live. */
void *sim_mem_view(const void *p, bool dev, uint64_t n);
enum sim_rc sim_mem_copy_view(void *dst, const void *src, size_t n);
enum sim_rc sim_mem_fill_view(void *dst, int value, size_t n);


/* ---- vmm.c: virtual memory ---- */

/* Bytes of address space a device of `capacity` bytes needs: the heap,
 * the handle window and the reservation window (vmm.c). */
uint64_t sim_vmm_span(uint64_t capacity);
/* Bytes of the heap's window, the virtual heap aclrtMalloc's blocks take
 * their addresses from (vmm.c): larger than the device's pages. */
uint64_t sim_vmm_heap_window(uint64_t capacity);
/* Where the DVPP window starts (vmm.c), SIM_DVPP_SPAN bytes long. */
uint64_t sim_vmm_dvpp_window(uint64_t capacity);
#define SIM_DVPP_SPAN (UINT64_C(16) << 30)
/* Set up / tear down d's virtual memory (every mapping, handle and
 * reservation goes). pre: d->lock not held; open: d being opened. */
enum sim_rc sim_vmm_open(struct sim_dev *d, uint64_t capacity);
void sim_vmm_close(struct sim_dev *d);
/* Map fd's [foff, foff + size) at a fresh range of open device dev's
 * address space, not a reservation of the program's (no aclrtGetMemInfo,
 * no leak report of its own): *va, 2 MB aligned. pre: foff and size
 * multiples of the host page; fd that long. */
enum sim_rc sim_vmm_attach(int32_t dev, int fd, uint64_t foff, uint64_t size, void **va);
/* ---- ipcmem.c ---- */

/* Whether process pid lives (an exporter whose key is imported). */
bool sim_pid_alive(int32_t pid);

/* Device dev closes: forget the exports and imports of this process on it
 * (an export's range becomes private memory again, its key goes). pre: d
 * open no more, its address space still there, no call on it running. */
void sim_ipc_mem_drop(int32_t dev);
/* What another process needs to map the physical memory behind handle:
 * the memfd holding it, the offset and bytes there, its size and page and
 * device. The handle is marked shared: freed while another process holds
 * its bytes, they stay (sim_vmm_phys_adopt's lock says so). SIM_EINVAL
 * (*why) for no live handle, a handle shared already or one imported. */
struct sim_phys_share {
    int fd;
    uint64_t off, bytes, size;
    enum sim_page page;
    int32_t dev;
};
enum sim_rc sim_vmm_phys_share(void *handle, struct sim_phys_share *out, const char **why);
/* A handle of open device dev on physical memory of another process: its
 * memfd fd (kept: the handle owns it from now on, also on failure) at
 * s->off, s->bytes long. */
enum sim_rc sim_vmm_phys_adopt(int32_t dev, int fd, const struct sim_phys_share *s,
                               void **handle);
/* Undo sim_vmm_attach at va (the view then reads as zero). */
enum sim_rc sim_vmm_detach(void *va);

#endif /* ACLSIM_SIM_INTERNAL_H_ */

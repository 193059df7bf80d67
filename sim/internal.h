/*
 * internal.h - what the simulator's own files share about devices, and
 * nothing outside sim/ may use: the state of one device and what each file
 * offers the others, grouped by file. sim.h stays the layer's interface;
 * heap.h, vaspace.h, clock.h, trace.h, lock.h and track.h are the parts
 * devices are built from.
 */
#ifndef ACLSIM_SIM_INTERNAL_H_
#define ACLSIM_SIM_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lock.h"
#include "sim.h"

struct sim_heap;
struct sim_vaspace;
struct sim_stacks;

/* ---- device.c: devices ---- */

struct sim_dev {
    struct sim_lock lock; /* the heap, address space, stacks and abandoned list */
    struct sim_stacks *stacks; /* NULL unless ACLSIM_TRACK=1 */
    uint64_t *abandoned;       /* offsets of blocks to free at close */
    size_t n_abandoned, cap_abandoned;
    bool open;
    struct sim_vaspace *vs;
    struct sim_heap *heap;
    uint64_t base, capacity;
};

/* Device id's state, open or not. pre: 0 <= id < SIM_MAX_DEVICES. */
struct sim_dev *sim_dev_get(int32_t id);
/* The id of d. */
int32_t sim_dev_id(const struct sim_dev *d);
/* The open device whose address range holds addr, or NULL. */
struct sim_dev *sim_dev_of(uintptr_t addr);

/* ---- policy.c: CANN's rounding and page rules ---- */

/* Bytes in a page of the kind. */
uint32_t sim_page_bytes(enum sim_page page);

/* ---- blocks.c: device blocks ---- */

/* One heap allocation of `size` bytes with `usable` of them for the
 * program, on pages of kind `page` (starts aligned to the page, 64 bytes
 * for normal pages). pre: d open, usable <= size, size - usable < 1 GiB. */
enum sim_rc sim_block_alloc(struct sim_dev *d, uint64_t size, uint64_t usable,
                            enum sim_page page, void **ptr);
/* Free the blocks whose free failed (sim_mem_abandon) and empty the list:
 * the device is closing. pre: d open, no other call on d can run. */
void sim_block_release_abandoned(struct sim_dev *d);

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

#endif /* ACLSIM_SIM_INTERNAL_H_ */

/*
 * snapshot.h - the run as a torch-format memory snapshot (ACLSIM_SNAPSHOT).
 *
 * While a snapshot is open, every device block made or released (blocks.c)
 * is recorded as torch's caching allocator records its own: a block is its
 * own segment (aclrtMalloc gives each request its own memory), so a
 * malloc is "segment_alloc" then "alloc", a free "free_requested",
 * "free_completed" then "segment_free"; sizes are the bytes the program may
 * use (the request rounded to 32), a segment's the bytes the device took;
 * stream 0 (aclrtMalloc has none); frames, with ACLSIM_TRACK=1, the
 * block's allocation stack, symbolized. sim_snapshot_close writes the file
 * as Python's pickle (protocol 2) of {"segments": [...], "device_traces":
 * [[...] per device]} with the fields and state strings torch_npu's
 * Module.cpp gives them (the blocks still live at close are the segments,
 * "active_allocated"), so PyTorch's memory_viz page and aclsim-replay read
 * it. Thread-safe; when no snapshot is open each hook costs the caller one
 * predictable branch (sim_snapshot_enabled).
 */
#ifndef ACLSIM_SIM_SNAPSHOT_H_
#define ACLSIM_SIM_SNAPSHOT_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "sim.h"

extern atomic_int sim_snapshot_active;

static inline bool sim_snapshot_enabled(void)
{
    return atomic_load_explicit(&sim_snapshot_active, memory_order_relaxed) != 0;
}

/* Start recording for the file at path (created or truncated now, written
 * at close). NULL or empty: nothing. Returns SIM_OK, SIM_EINVAL when one is
 * open already, SIM_EIO when the file cannot be created. */
enum sim_rc sim_snapshot_open(const char *path);

/* A block of `usable` bytes at addr on device dev, taking `size` device
 * bytes; frames[0..n) its allocation stack (n may be 0). */
void sim_snapshot_alloc(int32_t dev, uint64_t addr, uint64_t usable, uint64_t size,
                        void *const *frames, int n);

/* The block at addr on device dev was freed. */
void sim_snapshot_free(int32_t dev, uint64_t addr);

/* Write the file and stop. Returns SIM_OK (also when none is open), or
 * SIM_EIO when the file could not be written. */
enum sim_rc sim_snapshot_close(void);

#endif /* ACLSIM_SIM_SNAPSHOT_H_ */

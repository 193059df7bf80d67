/*
 * track.h - lets Valgrind's memcheck see simulated device memory.
 *
 * Each live device block is announced as a heap block at its device address
 * (MALLOCLIKE at allocation, FREELIKE at free), so memcheck reports a leaked
 * device block like a leaked malloc, with aclrtMalloc on its allocation
 * stack, and an access aclsim rejects (past the end of a block, after
 * aclrtFree) as a memcheck error with the block's stacks. The simulator
 * keeps only offsets into the device range in its own metadata, so a block
 * the program lost is not kept reachable by the heap's bookkeeping.
 * Outside Valgrind each macro is a few no-op instructions; without
 * <valgrind/memcheck.h> they compile to nothing.
 */
#ifndef ACLSIM_SIM_TRACK_H_
#define ACLSIM_SIM_TRACK_H_

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define SIM_TRACK_VALGRIND 1
#endif
#endif

#ifdef SIM_TRACK_VALGRIND
#define sim_track_alloc(p, n) VALGRIND_MALLOCLIKE_BLOCK((p), (n), 0, 0)
#define sim_track_free(p) VALGRIND_FREELIKE_BLOCK((p), 0)
#define sim_track_check(p, n) ((void)VALGRIND_CHECK_MEM_IS_ADDRESSABLE((p), (n)))
#define sim_track_active() (RUNNING_ON_VALGRIND != 0)
#else
#define sim_track_alloc(p, n) ((void)0)
#define sim_track_free(p) ((void)0)
#define sim_track_check(p, n) ((void)0)
#define sim_track_active() 0
#endif

#endif /* ACLSIM_SIM_TRACK_H_ */

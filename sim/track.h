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
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
/* memcheck's leak search counts a pointer to a block only when the block's
 * address is readable memory to the host (valgrind's address-space manager
 * asks for read permission before it follows a pointer): in the PROT_NONE
 * device view every device block would be "definitely lost" even while a
 * global points to it. So under valgrind the view's pages of a live block
 * are made readable and its bytes inaccessible to memcheck (NOACCESS): a
 * host dereference of it is still reported, as an invalid read, and a
 * block still pointed to at exit is "still reachable", as host memory is. */
static inline void sim_track_alloc(void *p, uint64_t n)
{
    VALGRIND_MALLOCLIKE_BLOCK(p, n, 0, 0);
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(pg - 1), hi = ((uintptr_t)p + n + pg - 1) & ~(pg - 1);
    if (n && mprotect((void *)lo, hi - lo, PROT_READ) == 0)
        VALGRIND_MAKE_MEM_NOACCESS(p, n);
}
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

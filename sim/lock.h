/*
 * lock.h - the simulator's short-section lock.
 *
 * Device heaps are touched for a few dozen nanoseconds per aclrtMalloc or
 * aclrtFree; a pthread mutex costs two locked instructions per section, this
 * lock one (an exchange to take it, a plain release store to give it back),
 * which is a third of an uncontended malloc/free pair. Waiters spin briefly,
 * then yield the CPU. Never held across anything that can block or start a
 * thread.
 *
 * While the process has a single thread there is nobody to exclude, and the
 * exchange is skipped, as glibc's own malloc skips its locks: glibc's
 * __libc_single_threaded turns false before a second thread can run and
 * never turns back, and a section never starts a thread, so a section
 * begun alone ends alone.
 */
#ifndef ACLSIM_SIM_LOCK_H_
#define ACLSIM_SIM_LOCK_H_

#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <sys/single_threaded.h>

struct sim_lock {
    _Atomic int held;
};

#define SIM_LOCK_INIT {0}

/* The lock was held: wait for it (out of line, off the common path). */
static __attribute__((noinline, unused)) void sim_lock_wait(struct sim_lock *l)
{
    do {
        for (int spins = 0; atomic_load_explicit(&l->held, memory_order_relaxed); spins++) {
            if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            } else {
                sched_yield();
            }
        }
    } while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire));
}

/* Returns false when the process is alone, so nothing was taken and
 * nothing can have changed under the caller since it last looked. */
static inline bool sim_lock_take(struct sim_lock *l)
{
    if (__libc_single_threaded)
        return false;
    if (atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
        sim_lock_wait(l);
    return true;
}

/* Take l if nobody holds it (or the process is alone): true; false, and
 * nothing taken, when another thread holds it. For fast paths that can
 * leave the waiting to a slow path. */
static inline bool sim_lock_try(struct sim_lock *l)
{
    return __libc_single_threaded || !atomic_exchange_explicit(&l->held, 1, memory_order_acquire);
}

static inline void sim_lock_give(struct sim_lock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif /* ACLSIM_SIM_LOCK_H_ */

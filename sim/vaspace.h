/*
 * sim/vaspace.h - simulated device address space for the aclsim simulator.
 *
 * A device of N bytes gets a range of host virtual addresses [base, base+size)
 * that is reserved PROT_NONE, so dereferencing a device pointer on the host
 * faults with SIGSEGV exactly as it would with real device memory.  The bytes
 * themselves live in a second, separate read/write mapping (the "alias"), which
 * copies reach through sim_vaspace_span().  Everything is MAP_NORESERVE anonymous
 * memory, mapped lazily in 1 GiB chunks, so an untouched 144 GiB device costs
 * (almost) no host RSS and no commit charge.
 *
 * Device view: one PROT_NONE reservation of the whole range is tried first, at a
 * fixed high hint (0x124000000000, like an Ascend device VA), then anywhere.  If
 * no single mapping that large is possible (RLIMIT_AS, or valgrind's ~128 GiB
 * client space for kernel-placed mappings), a prefix of at most 16 GiB is
 * reserved (at the hint if possible) and each further 1 GiB chunk is claimed
 * with MAP_FIXED_NOREPLACE when sim_vaspace_reserve() first covers it.  Under
 * valgrind (detected with RUNNING_ON_VALGRIND when <valgrind/valgrind.h> is
 * available) only the first chunk is reserved up front, because memcheck keeps
 * ~1.3 MiB of bookkeeping per GiB of a mapping placed above 128 GiB (184 MiB and
 * 0.6 s for a 144 GiB reservation, measured).  A chunk whose addresses are
 * already taken by another mapping stays unreserved (sim_vaspace_reserve()
 * reports it); copies through the alias still work there, only the
 * fault-on-dereference guarantee is lost.
 *
 * NOT thread-safe: the caller serialises the calls on one address space, with
 * one exception: sim_vaspace_span() may run concurrently with any call except
 * create/destroy (its lazy alias mapping is published with an atomic
 * compare-and-swap), so copies need not hold the device lock.  No global state.
 */
#ifndef ACLSIM_SIM_VASPACE_H_
#define ACLSIM_SIM_VASPACE_H_

#include <stdint.h>

/* The alias is mapped in pieces of this many bytes, aligned as the device
 * addresses are (the base is a multiple of it): a span never crosses a
 * multiple of SIM_VASPACE_CHUNK. */
#define SIM_VASPACE_CHUNK (UINT64_C(1) << 30)

struct sim_vaspace;

/*
 * Create a device address space of size bytes (rounded up to 1 GiB).
 * pre: size > 0.
 * Returns the handle, or NULL when not even the first 1 GiB could be reserved
 * or on host out-of-memory.
 */
struct sim_vaspace *sim_vaspace_create(uint64_t size);

/*
 * First device address: a multiple of 1 GiB; 0x124000000000 when that range was
 * free, otherwise wherever the host placed it.
 * pre: vs != NULL.
 */
uint64_t sim_vaspace_base(const struct sim_vaspace *vs);

/* Size in bytes of the device range (the create() size rounded up to 1 GiB).
 * pre: vs != NULL. */
uint64_t sim_vaspace_size(const struct sim_vaspace *vs);

/*
 * Host alias of the device bytes [dev, dev+len): returns a host pointer through
 * which those bytes are read and written, and stores in *avail how many bytes
 * from dev are contiguous in that alias (<= len; callers loop until done).
 * Maps the 1 GiB alias chunk on first use.  Bytes never written read as zero.
 * Thread-safe against concurrent span/reserve/discard calls (not create/destroy).
 * pre: [dev, dev+len) lies within [base, base+size); avail != NULL.
 * Returns NULL (and *avail = 0) if the backing cannot be mapped (host OOM) or
 * dev lies outside the address space.
 */
void *sim_vaspace_span(struct sim_vaspace *vs, uint64_t dev, uint64_t len, uint64_t *avail);

/*
 * Drop the host backing (MADV_DONTNEED) of the whole host pages inside
 * [dev, dev+len); those bytes then read as zero.  Partial pages at either end
 * are kept.  Used when a large block is freed.
 * pre: vs != NULL (any range is accepted: parts outside the address space and
 * chunks never spanned are ignored).
 */
void sim_vaspace_discard(struct sim_vaspace *vs, uint64_t dev, uint64_t len);

/*
 * Make sure the device view of [dev, dev+len) is reserved PROT_NONE, so a host
 * dereference faults instead of hitting some other mapping.  Call it right after
 * the heap hands out [dev, dev+len).
 * pre: [dev, dev+len) lies within [base, base+size).
 * Returns 0 when the whole range is reserved, -1 when some 1 GiB chunk of it
 * could not be (its addresses belong to another mapping; copies still work).
 */
int sim_vaspace_reserve(struct sim_vaspace *vs, uint64_t dev, uint64_t len);

/* Whether the whole device view was reserved when the space was created, so
 * that sim_vaspace_reserve never has anything to do.  pre: vs != NULL. */
int sim_vaspace_whole(const struct sim_vaspace *vs);

/*
 * Back the host alias of the device bytes [dev, dev+len) with the file fd from
 * offset foff on (MAP_SHARED|MAP_FIXED over the alias, piece by piece), so that
 * every copy and fill through the alias reads and writes the file: how device
 * memory is shared with another process (ipcmem.c) and how physical memory is
 * mapped (vmm.c).  pre: dev, len and foff are multiples of the host page;
 * [dev, dev+len) inside the address space.  Returns 0, or -1 with the alias
 * as it was (the host refused a mapping).
 */
int sim_vaspace_share(struct sim_vaspace *vs, uint64_t dev, uint64_t len, int fd, uint64_t foff);

/*
 * Give the host alias of [dev, dev+len) private anonymous memory again, as
 * sim_vaspace_share found it; keep SIM_VASPACE_KEEP: with the bytes the
 * alias showed (copied into the new memory first), SIM_VASPACE_ZERO: zero,
 * SIM_VASPACE_HOLE: nothing (unmapped: the caller lets no copy reach those
 * bytes until it shares them again; cheapest).  pre: as sim_vaspace_share.
 * Returns 0, or -1 when keep's copy could not be had (the alias then reads
 * as zero).
 */
enum { SIM_VASPACE_ZERO = 0, SIM_VASPACE_KEEP = 1, SIM_VASPACE_HOLE = 2 };
int sim_vaspace_unshare(struct sim_vaspace *vs, uint64_t dev, uint64_t len, int keep);

/* Unmap everything of the address space and free the handle.  vs may be NULL. */
void sim_vaspace_destroy(struct sim_vaspace *vs);

#endif /* ACLSIM_SIM_VASPACE_H_ */

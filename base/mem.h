/*
 * mem.h - the one way aclsim's own code gets host memory (SQLite's faultsim,
 * libuv's uv__malloc): every allocation of the library goes through these,
 * so one catalogued fault point (lib/host/malloc, fault/points.def) can make
 * any of them fail, and `scons faultcheck` walks every failure branch.
 *
 * The fault layer installs the check (base_mem_set_fail_hook) when fault
 * injection is armed; until then an allocation costs one load and a
 * predicted branch more than the C library's. The *_plain variants are
 * never injected: the fault layer itself uses them for its rules.
 * This layer depends on nothing else in aclsim.
 */
#ifndef ACLSIM_BASE_MEM_H_
#define ACLSIM_BASE_MEM_H_

#include <stddef.h>

/* As malloc, calloc (overflow checked), realloc (NULL leaves p alone),
 * posix_memalign (align a power of two, at least sizeof(void *)), strdup;
 * NULL when memory runs out or an injected fault says so. */
void *base_malloc(size_t n);
void *base_calloc(size_t count, size_t size);
void *base_realloc(void *p, size_t n);
void *base_aligned(size_t align, size_t n);
char *base_strdup(const char *s);
void base_free(void *p);

/* Never injected: the bookkeeping of the tools themselves (the fault
 * layer's rules, the sanitizer's happens-before clocks in sim/hb.c), whose
 * failure no call of the program could report. */
void *base_malloc_plain(size_t n);
void *base_realloc_plain(void *p, size_t n);
char *base_strdup_plain(const char *s);

/* Install the check made before each allocation: it returns non-zero to
 * make that allocation fail. NULL removes it. */
void base_mem_set_fail_hook(int (*hook)(void));

#endif /* ACLSIM_BASE_MEM_H_ */

/*
 * mem.c - host allocations of the library (see mem.h): the only place in
 * aclsim that calls the C library's allocator, through two raw calls
 * (posix_memalign and realloc).
 */
#include "mem.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static _Atomic(int (*)(void)) fail_hook;

void base_mem_set_fail_hook(int (*hook)(void))
{
    atomic_store_explicit(&fail_hook, hook, memory_order_release);
}

static int injected(void)
{
    int (*hook)(void) = atomic_load_explicit(&fail_hook, memory_order_acquire);
    return __builtin_expect(hook != NULL, 0) && hook();
}

/* The one raw allocation: aligned as malloc's would be at least. */
static void *raw(size_t align, size_t n)
{
    void *p = NULL;
    if (align < _Alignof(max_align_t))
        align = _Alignof(max_align_t);
    return posix_memalign(&p, align, n ? n : 1) == 0 ? p : NULL;
}

void *base_malloc(size_t n)
{
    return injected() ? NULL : raw(0, n);
}

void *base_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = base_malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *base_realloc(void *p, size_t n)
{
    return injected() ? NULL : realloc(p, n ? n : 1);
}

void *base_aligned(size_t align, size_t n)
{
    return injected() ? NULL : raw(align, n);
}

static char *dup(const char *s, void *(*get)(size_t))
{
    size_t n = strlen(s) + 1;
    char *c = get(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

char *base_strdup(const char *s)
{
    return dup(s, base_malloc);
}

void base_free(void *p)
{
    free(p);
}

void *base_malloc_plain(size_t n)
{
    return raw(0, n);
}

void *base_realloc_plain(void *p, size_t n)
{
    return realloc(p, n ? n : 1);
}

char *base_strdup_plain(const char *s)
{
    return dup(s, base_malloc_plain);
}

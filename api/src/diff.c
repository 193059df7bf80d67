/*
 * diff.c - differential mode: with ACLSIM_DIFF=1 on a backend over a real
 * runtime (hw=ascend), every allocator and memory call is also put to the
 * real library and the answers compared: return code, the first message
 * aclGetRecentErrMsg would give (title, code and text; not the PID and
 * time), and output values. The generated exports (exports.c) compare the
 * DIFF calls of the catalogue themselves and call the api_diff_* hooks
 * here for the HOOK calls.
 * Each mismatch is printed on stderr as one "aclsim diff:" line naming the
 * call; at exit a summary line counts calls compared and mismatches, and
 * any mismatch makes the process exit with status 24.
 *
 * Allocator calls are mirrored: each desc aclsim creates has a twin in the
 * real runtime, set and registered the same way, so GetByStream can be
 * compared value by value (descs through the twin map). Memory calls are
 * compared when aclsim rejects them: a call aclsim forwards is answered by
 * the real runtime already; one it rejects is put to the real runtime too
 * (and anything that then allocates is freed again). Without differential
 * mode each export is one predictable branch around its implementation.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/mem.h"
#include "top.h"
#include "base/options.h"
#include "backends/be.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long compared, mismatches;

/* ---- Twin descs: aclsim handle -> real handle ---- */

/* A destroyed desc keeps its twin entry (dead): a registration made with
 * it lives on in both registries, and GetByStream still returns both
 * handles, which must still be matched. Entries are freed at exit. */
struct twin {
    struct twin *next;
    const void *ours;
    void *real;
    int dead;
};
static struct twin *twins;

static void twin_put(const void *ours, void *real)
{
    struct twin *t = base_malloc(sizeof *t);
    if (!t)
        return;
    pthread_mutex_lock(&lock);
    *t = (struct twin){twins, ours, real, 0};
    twins = t;
    pthread_mutex_unlock(&lock);
}

/* The real twin of ours (NULL maps to NULL); *known = 0 when ours has none. */
static void *twin_of(const void *ours, int *known)
{
    *known = 1;
    if (!ours)
        return NULL;
    pthread_mutex_lock(&lock);
    struct twin *t = twins;
    while (t && (t->ours != ours || t->dead))
        t = t->next;
    pthread_mutex_unlock(&lock);
    *known = t != NULL;
    return t ? t->real : NULL;
}

static const void *ours_of(const void *real)
{
    pthread_mutex_lock(&lock);
    struct twin *t = twins;
    while (t && t->real != real)
        t = t->next;
    pthread_mutex_unlock(&lock);
    return t ? t->ours : NULL;
}

static void twin_kill(const void *ours)
{
    pthread_mutex_lock(&lock);
    for (struct twin *t = twins; t; t = t->next)
        if (t->ours == ours && !t->dead) {
            t->dead = 1;
            break;
        }
    pthread_mutex_unlock(&lock);
}

/* ---- Comparing ---- */


/* The real runtime's first message without "[PID: n] <time> ". */
static void real_msg(char *buf, size_t len)
{
    const char *(*get)(void) = API_REAL(aclGetRecentErrMsg);
    const char *m = get ? get() : NULL;
    buf[0] = '\0';
    if (!m)
        return;
    const char *p = strchr(m, ']');
    p = p ? strchr(p + 2, ' ') : NULL; /* skip the time stamp */
    p = p ? p + 1 : m;
    size_t n = strcspn(p, "\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

static void verdict(const char *call, aclError ours, aclError theirs, const char *extra)
{
    char mine[512], theirs_msg[512];
    api_msg_peek(mine, sizeof mine);
    real_msg(theirs_msg, sizeof theirs_msg);
    pthread_mutex_lock(&lock);
    compared++;
    int differ = ours != theirs || (ours != ACL_SUCCESS && strcmp(mine, theirs_msg) != 0) ||
                 (extra && *extra);
    if (differ)
        mismatches++;
    pthread_mutex_unlock(&lock);
    if (differ)
        fprintf(stderr, "aclsim diff: %s: aclsim returned %d \"%s\", the real runtime %d "
                "\"%s\"%s%s\n", call, ours, mine, theirs, theirs_msg, extra ? "; " : "",
                extra ? extra : "");
}

/* At exit: the summary, and exit status 24 if anything differed (as
 * ACLSIM_LEAK_CHECK=error uses 23), so a device runner fails on it. */
static void summary(void)
{
    fprintf(stderr, "aclsim diff: %lu calls compared, %lu mismatches\n", compared, mismatches);
    while (twins) {
        struct twin *t = twins;
        twins = t->next;
        base_free(t);
    }
    if (mismatches) {
        fflush(NULL);
        _exit(24);
    }
}

__attribute__((constructor(110))) static void diff_load(void)
{
    if (!opt_bool(OPT_DIFF) || opt_nested())
        return;
    if (!API_BRIDGE(real)) {
        fprintf(stderr, "aclsim diff: ACLSIM_DIFF=1 needs a backend over a real runtime "
                "(scons hw=ascend); the %s backend has none\n", be_get()->name);
        return;
    }
    api_diff_on = 1;
    atexit(summary);
}

void api_diff_verdict(const char *call, aclError rc, aclError theirs)
{
    verdict(call, rc, theirs, NULL);
}

/* ---- Allocator API: twin descs ---- */

aclrtAllocatorDesc api_diff_aclrtAllocatorCreateDesc(void)
{
    aclrtAllocatorDesc d = api_impl_aclrtAllocatorCreateDesc();
    if (d != NULL) {
        void *rd = API_REAL(aclrtAllocatorCreateDesc) ? API_REAL(aclrtAllocatorCreateDesc)() : NULL;
        if (rd)
            twin_put(d, rd);
        verdict("aclrtAllocatorCreateDesc", ACL_SUCCESS, rd ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC,
                NULL);
    }
    return d;
}

aclError api_diff_aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    int known;
    void *rd = twin_of(allocatorDesc, &known);
    aclError r = api_impl_aclrtAllocatorDestroyDesc(allocatorDesc);
    if (known) {
        verdict("aclrtAllocatorDestroyDesc", r, API_REAL(aclrtAllocatorDestroyDesc)(rd), NULL);
        twin_kill(allocatorDesc);
    }
    return r;
}

/* SetObj and the four Set*Func calls: the same value on the twin. */
#define SETTER(name, type)                                                                \
    aclError api_diff_##name(aclrtAllocatorDesc allocatorDesc, type value)                \
    {                                                                                     \
        aclError r = api_impl_##name(allocatorDesc, value);                               \
        int known = 0;                                                                    \
        void *rd = twin_of(allocatorDesc, &known);                                        \
        if (known)                                                                        \
            verdict(#name, r, API_REAL(name)(rd, value), NULL);                               \
        return r;                                                                         \
    }

SETTER(aclrtAllocatorSetObjToDesc, aclrtAllocator)
SETTER(aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorAllocFunc)
SETTER(aclrtAllocatorSetFreeFuncToDesc, aclrtAllocatorFreeFunc)
SETTER(aclrtAllocatorSetAllocAdviseFuncToDesc, aclrtAllocatorAllocAdviseFunc)
SETTER(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorGetAddrFromBlockFunc)

aclError api_diff_aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    aclError r = api_impl_aclrtAllocatorRegister(stream, allocatorDesc);
    int known = 0;
    void *rd = twin_of(allocatorDesc, &known);
    if (known)
        verdict("aclrtAllocatorRegister", r, API_REAL(aclrtAllocatorRegister)(stream, rd), NULL);
    return r;
}

aclError api_diff_aclrtAllocatorGetByStream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    aclError r = api_impl_aclrtAllocatorGetByStream(stream, allocatorDesc, allocator, allocFunc,
                                                    freeFunc, allocAdviseFunc,
                                                    getAddrFromBlockFunc);
    {
        aclrtAllocatorDesc rd = NULL;
        aclrtAllocator obj = NULL;
        aclrtAllocatorAllocFunc af = NULL;
        aclrtAllocatorFreeFunc ff = NULL;
        aclrtAllocatorAllocAdviseFunc adv = NULL;
        aclrtAllocatorGetAddrFromBlockFunc gf = NULL;
        aclError t = API_REAL(aclrtAllocatorGetByStream)(
            stream, allocatorDesc ? &rd : NULL, allocator ? &obj : NULL, allocFunc ? &af : NULL,
            freeFunc ? &ff : NULL, allocAdviseFunc ? &adv : NULL, getAddrFromBlockFunc ? &gf : NULL);
        const char *what = NULL;
        if (r == ACL_SUCCESS && t == ACL_SUCCESS) {
            if (ours_of(rd) != *allocatorDesc)
                what = "allocatorDesc differs";
            else if (allocator && obj != *allocator)
                what = "allocator differs";
            else if ((allocFunc && af != *allocFunc) || (freeFunc && ff != *freeFunc) ||
                     (allocAdviseFunc && adv != *allocAdviseFunc) ||
                     (getAddrFromBlockFunc && gf != *getAddrFromBlockFunc))
                what = "a callback differs";
        }
        verdict("aclrtAllocatorGetByStream", r, t, what);
    }
    return r;
}

aclError api_diff_aclrtAllocatorUnregister(aclrtStream stream)
{
    aclError r = api_impl_aclrtAllocatorUnregister(stream);
    verdict("aclrtAllocatorUnregister", r, API_REAL(aclrtAllocatorUnregister)(stream), NULL);
    return r;
}

/* ---- Allocations: compared when aclsim rejects the call ---- */

/* Put a rejected allocation to the real runtime; free what it gives. */
#define DIFF_ALLOC(name, free_name, ptr, ...)                                             \
    do {                                                                                  \
        if (r != ACL_SUCCESS) {                                                           \
            void *got = NULL;                                                             \
            aclError t = API_REAL(name)(ptr ? &got : NULL, __VA_ARGS__);                      \
            if (t == ACL_SUCCESS && got)                                                  \
                API_REAL(free_name)(got);                                                     \
            verdict(#name, r, t, NULL);                                                   \
        }                                                                                 \
    } while (0)

aclError api_diff_aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    aclError r = api_impl_aclrtMalloc(devPtr, size, policy);
    DIFF_ALLOC(aclrtMalloc, aclrtFree, devPtr, size, policy);
    return r;
}

aclError api_diff_aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    aclError r = api_impl_aclrtMallocAlign32(devPtr, size, policy);
    DIFF_ALLOC(aclrtMallocAlign32, aclrtFree, devPtr, size, policy);
    return r;
}

aclError api_diff_aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    aclError r = api_impl_aclrtMallocCached(devPtr, size, policy);
    DIFF_ALLOC(aclrtMalloc, aclrtFree, devPtr, size, policy); /* the same checks */
    return r;
}

aclError api_diff_aclrtMallocHost(void **hostPtr, size_t size)
{
    aclError r = api_impl_aclrtMallocHost(hostPtr, size);
    DIFF_ALLOC(aclrtMallocHost, aclrtFreeHost, hostPtr, size);
    return r;
}

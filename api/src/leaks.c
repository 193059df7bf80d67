/*
 * leaks.c - aclsim's own leak report, for users without Valgrind.
 *
 * ACLSIM_LEAK_CHECK=warn prints, when a device closes (aclrtResetDevice at
 * reference count zero, aclrtResetDeviceForce, aclFinalize), every device
 * block still allocated (size, address, and with ACLSIM_TRACK=1 the
 * allocation stack), every reserved range, physical memory handle and memory
 * pool never released (with the bytes reserved, mapped and used), every
 * stream, event and context never destroyed, and at
 * aclFinalize every allocator still registered on a stream that no longer
 * exists and every desc destroyed while registered (the dangling handle
 * aclrtAllocatorGetByStream would return). ACLSIM_LEAK_CHECK=error also
 * makes the process exit with status 23 after the report, as
 * LeakSanitizer does. Unset or "off": no report. Lines go to stderr, each
 * prefixed "aclsim: ".
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "top.h"
#include "base/options.h"
#include "backends/be.h"

#define LEAK_EXIT 23

enum mode { OFF, WARN, ERROR };

static int leaks_found;

/* ACLSIM_LEAK_CHECK's words are off|warn|error, in this order. */
static enum mode mode(void)
{
    return (enum mode)opt_enum(OPT_LEAK_CHECK);
}

struct report {
    const char *where;
    int lines;
};

static void header(struct report *r)
{
    if (r->lines++ == 0)
        fprintf(stderr, "aclsim: leak report at %s:\n", r->where);
}

static void block(void *start, size_t size, void *const *frames, int n, void *user)
{
    struct report *r = user;
    header(r);
    fprintf(stderr, "aclsim:   device memory: %zu bytes at %p never freed (aclrtMalloc without "
            "aclrtFree)\n", size, start);
    if (n > 1) {
        fprintf(stderr, "aclsim:     allocated at:\n");
        fflush(stderr);
        backtrace_symbols_fd(frames + 1, n - 1, STDERR_FILENO);
    }
}

/* A reservation, physical handle or pool still alive (be_tools.vmm_live). */
static void vmm_object(int kind, void *addr, uint64_t size, uint64_t aux, void *user)
{
    struct report *r = user;
    header(r);
    if (kind == BE_LIVE_RESERVATION)
        fprintf(stderr, "aclsim:   reserved range: %llu bytes at %p never released, %llu bytes "
                "of it mapped (aclrtReserveMemAddress without aclrtReleaseMemAddress)\n",
                (unsigned long long)size, addr, (unsigned long long)aux);
    else if (kind == BE_LIVE_PHYSICAL)
        fprintf(stderr, "aclsim:   physical memory: %llu bytes, handle %p never freed, mapped "
                "%llu time(s) (aclrtMallocPhysical without aclrtFreePhysical)\n",
                (unsigned long long)size, addr, (unsigned long long)aux);
    else
        fprintf(stderr, "aclsim:   memory pool %p never destroyed: %llu bytes reserved, %llu "
                "used (aclrtMemPoolCreate without aclrtMemPoolDestroy)\n", addr,
                (unsigned long long)size, (unsigned long long)aux);
}

static void finish(struct report *r)
{
    if (!r->lines)
        return;
    fprintf(stderr, "aclsim: %d leak(s) at %s%s\n", r->lines, r->where,
            opt_bool(OPT_TRACK) ? "" : "; set ACLSIM_TRACK=1 for allocation stacks");
    leaks_found = 1;
}

/* A stream, event or user context still alive (api_obj_each callback). */
static void leftover(void *h, enum api_obj_kind kind, struct api_ctx *owner, void *user)
{
    struct report *r = user;
    if (kind == API_OBJ_CONTEXT && owner->primary)
        return; /* the device's default context is the reset's to release */
    header(r);
    fprintf(stderr, "aclsim:   %s %p (%s) never destroyed\n",
            kind == API_OBJ_STREAM ? "stream" : kind == API_OBJ_EVENT ? "event" : "context", h,
            kind == API_OBJ_STREAM ? "aclrtCreateStream"
            : kind == API_OBJ_EVENT ? "aclrtCreateEvent" : "aclrtCreateContext");
}

void api_leaks_device(int32_t dev, const char *where)
{
    if (mode() == OFF || !where) /* a device that failed to open holds nothing */
        return;
    struct report r = {where, 0};
    if (API_TOOL(live_blocks))
        API_TOOL(live_blocks)(dev, block, &r);
    if (API_TOOL(vmm_live))
        API_TOOL(vmm_live)(dev, vmm_object, &r);
    api_obj_each(API_OBJ_STREAM, dev, NULL, leftover, &r);
    api_obj_each(API_OBJ_EVENT, dev, NULL, leftover, &r);
    api_obj_each(API_OBJ_CONTEXT, dev, NULL, leftover, &r);
    finish(&r);
}

static void registration(const void *stream, const struct api_alloc_snapshot *s, void *user)
{
    struct report *r = user;
    if (!api_desc_live(s->desc)) {
        header(r);
        fprintf(stderr, "aclsim:   allocator desc %p was destroyed while still registered on "
                "stream %p: aclrtAllocatorGetByStream returns a dangling handle\n", s->desc,
                stream);
    }
    if (api_obj_kind_of(stream) != API_OBJ_STREAM) {
        header(r);
        fprintf(stderr, "aclsim:   allocator desc %p still registered on stream %p, which is "
                "not a live stream (aclrtAllocatorUnregister was never called)\n", s->desc,
                stream);
    }
}

void api_leaks_registry(const char *where)
{
    if (mode() == OFF)
        return;
    struct report r = {where, 0};
    api_registry_each(registration, &r);
    finish(&r);
}

static void exit_on_leaks(void)
{
    if (leaks_found && mode() == ERROR) {
        fflush(NULL);
        _exit(LEAK_EXIT);
    }
}

__attribute__((constructor)) static void leaks_load(void)
{
    if (mode() == ERROR)
        atexit(exit_on_leaks);
}

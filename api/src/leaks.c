/*
 * leaks.c - aclsim's own leak report, for users without Valgrind.
 *
 * ACLSIM_LEAK_CHECK=warn prints, when a device closes (aclrtResetDevice at
 * reference count zero, aclrtResetDeviceForce, or the runtime's end: the
 * aclInit after an aclFinalize, or exit; aclFinalize itself closes nothing,
 * as CANN's does not, and only warns of what is still held), every device
 * block still allocated (size, address, and with ACLSIM_TRACK=1 the
 * allocation stack), every reserved range, physical memory handle and memory
 * pool never released (with the bytes reserved, mapped and used), every
 * range exported or imported by IPC key and never closed
 * (aclrtIpcMemClose), every stream, event and context never destroyed, and at
 * aclFinalize every allocator still registered on a stream that no longer
 * exists and every desc destroyed while registered (the dangling handle
 * aclrtAllocatorGetByStream would return), and every aclnn executor made
 * repeatable and never destroyed. ACLSIM_LEAK_CHECK=error also
 * makes the process exit with status 23 after the report, as
 * LeakSanitizer does. Unset or "off": no report. Lines go to stderr, each
 * prefixed "aclsim: ".
 */
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

/* Each leaked object is a report of its own (diag/report.c: printed,
 * written to ACLSIM_REPORT, or silenced by ACLSIM_SUPPRESS), under one
 * heading printed before the first that is printed. */
static void begin(struct report *r, const char *object)
{
    api_rep_begin(API_REP_LEAK);
    api_rep_fact("object", "%s", object);
    api_rep_fact("at", "%s", r->where);
}

static void end(struct report *r)
{
    if (api_rep_end())
        r->lines++;
}

#define leak_line(...) api_rep_line(false, __VA_ARGS__)

static void block(void *start, size_t size, void *const *frames, int n, void *user)
{
    struct report *r = user;
    begin(r, "device memory");
    leak_line("device memory: %zu bytes at %p never freed (aclrtMalloc without aclrtFree)",
              size, start);
    api_rep_range(start, size);
    if (n > 0)
        api_rep_stack("  allocated at", frames, n);
    end(r);
}

/* A reservation, physical handle or pool still alive (be_tools.vmm_live). */
static void vmm_object(int kind, void *addr, uint64_t size, uint64_t aux, void *user)
{
    struct report *r = user;
    begin(r, kind == BE_LIVE_RESERVATION ? "reserved range"
             : kind == BE_LIVE_PHYSICAL  ? "physical memory"
                                         : "memory pool");
    if (kind == BE_LIVE_RESERVATION)
        leak_line("reserved range: %llu bytes at %p never released, %llu bytes of it mapped "
                  "(aclrtReserveMemAddress without aclrtReleaseMemAddress)",
                  (unsigned long long)size, addr, (unsigned long long)aux);
    else if (kind == BE_LIVE_PHYSICAL)
        leak_line("physical memory: %llu bytes, handle %p never freed, mapped %llu time(s) "
                  "(aclrtMallocPhysical without aclrtFreePhysical)", (unsigned long long)size,
                  addr, (unsigned long long)aux);
    else
        leak_line("memory pool %p never destroyed: %llu bytes reserved, %llu used "
                  "(aclrtMemPoolCreate without aclrtMemPoolDestroy)", addr,
                  (unsigned long long)size, (unsigned long long)aux);
    if (kind == BE_LIVE_RESERVATION)
        api_rep_range(addr, (size_t)size);
    end(r);
}

static void start(struct report *r)
{
    char h[160];
    snprintf(h, sizeof h, "aclsim: leak report at %s:", r->where);
    api_rep_header(h);
}

static void finish(struct report *r)
{
    api_rep_header(NULL);
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
    const char *what = kind == API_OBJ_STREAM ? "stream" : kind == API_OBJ_EVENT ? "event"
                                                                                 : "context";
    begin(r, what);
    leak_line("%s %p (%s) never destroyed", what, h,
              kind == API_OBJ_STREAM ? "aclrtCreateStream"
              : kind == API_OBJ_EVENT ? "aclrtCreateEvent" : "aclrtCreateContext");
    if (kind == API_OBJ_STREAM)
        api_rep_stream(h);
    end(r);
}

struct ipc_walk {
    struct report *r;
    int32_t dev;
};

/* An IPC key this process exported or imported on the device and never
 * closed (be_tools.ipc_mem_each). */
static void ipc_range(const struct be_ipc_info *i, void *user)
{
    struct ipc_walk *w = user;
    if (i->device != w->dev)
        return;
    bool exported = i->role == BE_IPC_EXPORTED;
    begin(w->r, exported ? "exported memory" : "imported memory");
    leak_line("%s memory: %zu bytes at %p, IPC key %s, never closed (%s without "
              "aclrtIpcMemClose)", exported ? "exported" : "imported", i->size, i->ptr, i->key,
              exported ? "aclrtIpcMemGetExportKey" : "aclrtIpcMemImportByKey");
    api_rep_fact("key", "%s", i->key);
    api_rep_range(i->ptr, i->size);
    end(w->r);
}

void api_leaks_device(int32_t dev, const char *where)
{
    if (mode() == OFF || !where) /* a device that failed to open holds nothing */
        return;
    struct report r = {where, 0};
    start(&r);
    if (API_TOOL(live_blocks))
        API_TOOL(live_blocks)(dev, block, &r);
    if (API_TOOL(vmm_live))
        API_TOOL(vmm_live)(dev, vmm_object, &r);
    struct ipc_walk w = {&r, dev};
    if (API_TOOL(ipc_mem_each))
        API_TOOL(ipc_mem_each)(ipc_range, &w);
    api_obj_each(API_OBJ_STREAM, dev, NULL, leftover, &r);
    api_obj_each(API_OBJ_EVENT, dev, NULL, leftover, &r);
    api_obj_each(API_OBJ_CONTEXT, dev, NULL, leftover, &r);
    finish(&r);
}

/* ---- What aclFinalize leaves open: a warning, not a leak (yet) ---- */

struct held {
    size_t blocks, bytes, vmm, objs[4]; /* objs: streams, events, contexts */
};

static void held_block(void *start, size_t size, void *const *frames, int n, void *user)
{
    (void)start, (void)frames, (void)n;
    struct held *h = user;
    h->blocks++;
    h->bytes += size;
}

static void held_vmm(int kind, void *addr, uint64_t size, uint64_t aux, void *user)
{
    (void)kind, (void)addr, (void)size, (void)aux;
    ((struct held *)user)->vmm++;
}

static void held_obj(void *h, enum api_obj_kind kind, struct api_ctx *owner, void *user)
{
    (void)h;
    if (kind == API_OBJ_CONTEXT && owner->primary)
        return;
    ((struct held *)user)->objs[kind == API_OBJ_STREAM ? 0 : kind == API_OBJ_EVENT ? 1 : 2]++;
}

static void count(char *out, size_t n, size_t *used, size_t k, const char *what)
{
    if (k && *used < n)
        *used += (size_t)snprintf(out + *used, n - *used, "%s%zu %s%s", *used ? ", " : "", k,
                                  what, k == 1 ? "" : "s");
}

/* One line per device that still holds something when aclFinalize returns:
 * CANN's aclFinalize resets no device, so it all stays usable, and what is
 * still there at the end (the next aclInit, or exit) is reported as a leak
 * then (api_leaks_device). */
void api_leaks_finalized(const char *where)
{
    if (mode() == OFF)
        return;
    for (int32_t d = 0; d < BE_MAX_DEVICES; d++) {
        struct held h = {0};
        if (API_TOOL(live_blocks))
            API_TOOL(live_blocks)(d, held_block, &h);
        if (API_TOOL(vmm_live))
            API_TOOL(vmm_live)(d, held_vmm, &h);
        api_obj_each(API_OBJ_STREAM, d, NULL, held_obj, &h);
        api_obj_each(API_OBJ_EVENT, d, NULL, held_obj, &h);
        api_obj_each(API_OBJ_CONTEXT, d, NULL, held_obj, &h);
        char line[256] = "";
        size_t used = 0;
        if (h.blocks && used < sizeof line)
            used += (size_t)snprintf(line, sizeof line, "%zu device block%s (%zu bytes)",
                                     h.blocks, h.blocks == 1 ? "" : "s", h.bytes);
        count(line, sizeof line, &used, h.vmm, "reservation, handle or pool");
        count(line, sizeof line, &used, h.objs[0], "stream");
        count(line, sizeof line, &used, h.objs[1], "event");
        count(line, sizeof line, &used, h.objs[2], "context");
        if (used)
            fprintf(stderr, "aclsim: after %s, device %d still holds %s: CANN's aclFinalize "
                    "resets no device, so they stay usable; release them before exit (or the "
                    "next aclInit), where what is left is reported as a leak\n", where, (int)d,
                    line);
    }
}

static void registration(const void *stream, const struct api_alloc_snapshot *s, void *user)
{
    struct report *r = user;
    if (!api_desc_live(s->desc)) {
        begin(r, "allocator registration");
        leak_line("allocator desc %p was destroyed while still registered on stream %p: "
                  "aclrtAllocatorGetByStream returns a dangling handle", s->desc, stream);
        api_rep_stream(stream);
        end(r);
    }
    if (api_obj_kind_of(stream) != API_OBJ_STREAM) {
        begin(r, "allocator registration");
        leak_line("allocator desc %p still registered on stream %p, which is not a live stream "
                  "(aclrtAllocatorUnregister was never called)", s->desc, stream);
        api_rep_stream(stream);
        end(r);
    }
}

/* A repeatable aclnn executor never destroyed: the program owns it once
 * it is made repeatable (hicann/opbase
 * docs/en/api/nnopbase/aclnn/aclDestroyAclOpExecutor.md:8, "managed by
 * users ... needs to be explicitly called"; aclSetAclOpExecutorRepeatable.md
 * :38). A single-use executor goes with its launch. */
static void executor_left(const aclOpExecutor *e, void *user)
{
    struct report *r = user;
    if (!e->repeatable)
        return;
    begin(r, "aclnn executor");
    leak_line("repeatable aclnn executor %p (for %s) never destroyed "
              "(aclSetAclOpExecutorRepeatable without aclDestroyAclOpExecutor)", (const void *)e,
              e->launch ? e->launch : "?");
    api_rep_fact("launch", "%s", e->launch ? e->launch : "?");
    end(r);
}

void api_leaks_registry(const char *where)
{
    if (mode() == OFF)
        return;
    struct report r = {where, 0};
    start(&r);
    api_registry_each(registration, &r);
    api_nn_executor_each(executor_left, &r);
    finish(&r);
}

static void exit_on_leaks(void)
{
    if (leaks_found && mode() == ERROR) {
        fflush(NULL);
        _exit(LEAK_EXIT);
    }
}

/* Registered at load whatever the mode (aclInit may read another): it
 * runs after rt/init.c's end of a program that never called aclFinalize. */
__attribute__((constructor)) static void leaks_load(void)
{
    atexit(exit_on_leaks);
}

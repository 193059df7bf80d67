/*
 * snapshot.c - the torch-format memory snapshot of a run (snapshot.h says
 * what is recorded): events appended to a growable array under a mutex, the
 * live blocks in a map from address to their alloc event; at close the
 * stacks are symbolized and everything written as a protocol-2 pickle
 * (Python's Lib/pickletools.py documents each opcode used below).
 * Field names and state strings: torch_npu/csrc/npu/Module.cpp (the
 * segment and trace-entry dicts of _npu_memorySnapshot, Ascend/pytorch
 * @9e73e708 L1290-1450), as torch's own memory_snapshot.cpp names them.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "base/hash.h"
#include "base/mem.h"
#include "base/symbols.h"
#include "snapshot.h"

#define MAX_FRAMES 16

enum action { A_SEGMENT_ALLOC, A_ALLOC, A_FREE_REQUESTED, A_FREE_COMPLETED, A_SEGMENT_FREE };
static const char *const action_names[] = {"segment_alloc", "alloc", "free_requested",
                                           "free_completed", "segment_free"};

struct ev {
    uint64_t addr, size;
    void **frames; /* owned; NULL without ACLSIM_TRACK */
    int nframes;
    int8_t dev;
    uint8_t action;
    bool live;     /* an alloc whose block is still live */
    uint64_t seg;  /* an alloc's segment size */
};

atomic_int sim_snapshot_active;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static struct ev *evs;
static size_t nevs, capevs;
static struct base_map live; /* dev << 56 ^ addr -> alloc event index + 1 */
static int max_dev = -1;

enum sim_rc sim_snapshot_open(const char *path)
{
    if (!path || !*path)
        return SIM_OK;
    pthread_mutex_lock(&lock);
    enum sim_rc rc = SIM_OK;
    if (out)
        rc = SIM_EINVAL;
    else if (!(out = fopen(path, "wb")))
        rc = SIM_EIO;
    else
        atomic_store(&sim_snapshot_active, 1);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* pre: lock held. NULL when host memory runs out (the event is lost). */
static struct ev *append(int32_t dev, enum action a, uint64_t addr, uint64_t size)
{
    if (nevs == capevs) {
        size_t cap = capevs ? 2 * capevs : 1024;
        struct ev *v = base_realloc(evs, cap * sizeof *v);
        if (!v)
            return NULL;
        evs = v;
        capevs = cap;
    }
    struct ev *e = &evs[nevs++];
    *e = (struct ev){addr, size, NULL, 0, (int8_t)dev, (uint8_t)a, false, 0};
    if (dev > max_dev)
        max_dev = dev;
    return e;
}

static uint64_t key_of(int32_t dev, uint64_t addr)
{
    return ((uint64_t)dev << 56 ^ addr) + 1;
}

void sim_snapshot_alloc(int32_t dev, uint64_t addr, uint64_t usable, uint64_t size,
                        void *const *frames, int n)
{
    if (!sim_snapshot_enabled())
        return;
    pthread_mutex_lock(&lock);
    if (out && append(dev, A_SEGMENT_ALLOC, addr, size)) {
        struct ev *e = append(dev, A_ALLOC, addr, usable);
        if (e) {
            e->seg = size;
            e->live = true;
            if (n > 0 && (e->frames = base_malloc((size_t)n * sizeof *frames)) != NULL) {
                memcpy(e->frames, frames, (size_t)n * sizeof *frames);
                e->nframes = n;
            }
            if (base_map_put(&live, key_of(dev, addr), (void *)(uintptr_t)nevs) != 0)
                e->live = false;
        }
    }
    pthread_mutex_unlock(&lock);
}

void sim_snapshot_free(int32_t dev, uint64_t addr)
{
    if (!sim_snapshot_enabled())
        return;
    pthread_mutex_lock(&lock);
    void *v = NULL;
    if (out && base_map_remove(&live, key_of(dev, addr), &v)) {
        struct ev *a = &evs[(uintptr_t)v - 1];
        uint64_t usable = a->size, seg = a->seg;
        a->live = false;
        for (int i = A_FREE_REQUESTED; i <= A_SEGMENT_FREE; i++)
            append(dev, (enum action)i, addr, i == A_SEGMENT_FREE ? seg : usable);
    }
    pthread_mutex_unlock(&lock);
}

/* ---- the pickle ---- */

static void op(int c)
{
    fputc(c, out);
}

static void put_str(const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    unsigned char len[4] = {n & 255, n >> 8 & 255, n >> 16 & 255, n >> 24};
    op('X'); /* BINUNICODE */
    fwrite(len, 1, 4, out);
    fwrite(s, 1, n, out);
}

static void put_int(uint64_t v)
{
    if (v < (UINT64_C(1) << 31)) {
        op('J'); /* BININT: 4 bytes, signed */
        for (int i = 0; i < 4; i++)
            op((int)(v >> (8 * i) & 255));
        return;
    }
    op(0x8a); /* LONG1: n bytes, two's complement; a ninth keeps it positive */
    op(9);
    for (int i = 0; i < 8; i++)
        op((int)(v >> (8 * i) & 255));
    op(0);
}

static void key_int(const char *k, uint64_t v)
{
    put_str(k);
    put_int(v);
}

static void key_str(const char *k, const char *v)
{
    put_str(k);
    put_str(v);
}

/* The frames of an event: a list of {filename, line, name}. */
static void put_frames(const struct ev *e)
{
    struct base_frame fr[MAX_FRAMES];
    int n = e->nframes ? base_stack_user(e->frames, e->nframes, fr, MAX_FRAMES) : 0;
    op(']'); /* EMPTY_LIST */
    for (int i = 0; i < n; i++) {
        op('}');
        op('(');
        key_str("filename", fr[i].file[0] ? fr[i].file : fr[i].module);
        key_int("line", (uint64_t)(fr[i].line > 0 ? fr[i].line : 0));
        key_str("name", fr[i].function[0] ? fr[i].function : "??");
        op('u'); /* SETITEMS */
        op('a'); /* APPEND */
    }
}

static void put_entry(const struct ev *e)
{
    op('}');
    op('(');
    key_str("action", action_names[e->action]);
    key_int("addr", e->addr);
    key_int("size", e->size);
    key_int("stream", 0);
    put_str("frames");
    put_frames(e);
    op('u');
}

/* A live block's segment, holding that one block. */
static void put_segment(const struct ev *e)
{
    op('}');
    op('(');
    key_int("device", (uint64_t)e->dev);
    key_int("address", e->addr);
    key_int("total_size", e->seg);
    key_int("allocated_size", e->seg);
    key_int("active_size", e->seg);
    key_int("requested_size", e->size);
    key_int("stream", 0);
    key_str("segment_type", e->seg > (1u << 20) ? "large" : "small");
    put_str("segment_pool_id");
    put_int(0);
    put_int(0);
    op(0x86); /* TUPLE2 */
    put_str("is_expandable");
    op(0x89); /* NEWFALSE */
    put_str("frames");
    op(']');
    put_str("blocks");
    op(']');
    op('}');
    op('(');
    key_int("address", e->addr);
    key_int("size", e->seg);
    key_int("requested_size", e->size);
    key_str("state", "active_allocated");
    put_str("frames");
    put_frames(e);
    op('u');
    op('a');
    op('u');
}

static void write_pickle(void)
{
    op(0x80); /* PROTO 2 */
    op(2);
    op('}');
    op('(');
    put_str("segments");
    op(']');
    for (size_t i = 0; i < nevs; i++)
        if (evs[i].action == A_ALLOC && evs[i].live) {
            put_segment(&evs[i]);
            op('a');
        }
    put_str("device_traces");
    op(']');
    for (int d = 0; d <= max_dev; d++) {
        op(']');
        for (size_t i = 0; i < nevs; i++)
            if (evs[i].dev == d) {
                put_entry(&evs[i]);
                op('a');
            }
        op('a');
    }
    op('u');
    op('.'); /* STOP */
}

enum sim_rc sim_snapshot_close(void)
{
    pthread_mutex_lock(&lock);
    if (!out) {
        pthread_mutex_unlock(&lock);
        return SIM_OK;
    }
    atomic_store(&sim_snapshot_active, 0);
    write_pickle();
    bool bad = ferror(out) != 0;
    bad |= fclose(out) != 0;
    out = NULL;
    for (size_t i = 0; i < nevs; i++)
        base_free(evs[i].frames);
    base_free(evs);
    evs = NULL;
    nevs = capevs = 0;
    base_map_clear(&live);
    max_dev = -1;
    pthread_mutex_unlock(&lock);
    return bad ? SIM_EIO : SIM_OK;
}

/*
 * driver.c - aclsim-replay's engine: drives a normalised allocation trace
 * through an allocator on the simulated NPU and prints what happened as
 * one JSON object.
 *
 *   aclsim-replay-driver [--allocator NAME|PATH] [--keep-going] [--record OUT] EVENTS
 *   aclsim-replay-driver --profiles
 *
 * EVENTS is the stream tools/replay/readers.py writes from a snapshot, an
 * RMM log or an aclsim trace (layout below); the SoC and the device size
 * come from the environment (ACLSIM_SOC, ACLSIM_HBM_BYTES), one process per
 * SoC. Records run in file order, device after device (each device's run
 * ends with every block it still holds freed and the allocator closed).
 * After an allocation fails the device's allocator gets no more requests
 * (unless --keep-going), but the replay goes on counting what the workload
 * asks for, as if the device had no end: every request counts in
 * peak_requested, granted or not. --record writes what the allocator did
 * (its trace and, at the end of each device's trace, its segments and
 * blocks) for aclsim-replay's --snapshot; --profiles prints
 * the SoC profiles aclsim knows, one a line. Exit 0 (whatever failed: the
 * report says), 1 on a bad argument or a file it cannot read.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "builtin.h"

/* The file: a header, then records, little-endian as the host. */
struct header {
    char magic[8]; /* "ACLRPLY1" */
    uint64_t records, blocks;
    uint32_t devices, streams;
};
/* OP_DEVICE opens a device's records (one even when its trace has nothing
 * to replay, so that every device is reported). */
enum { OP_DEVICE = 0, OP_ALLOC = 1, OP_FREE = 2, OP_FREE_REQUESTED = 3 };
#define INITIAL UINT32_MAX /* index of a block live before the trace begins */
struct rec {
    uint8_t op, pad;
    uint16_t dev;
    uint32_t stream; /* 0 .. streams-1 */
    uint32_t index;  /* in the device's trace, or INITIAL */
    uint32_t pool;
    uint64_t id;     /* 0 .. blocks-1 */
    uint64_t size;
};

struct devrun {
    int32_t dev;
    void *state;
    aclrtStream *streams;
    size_t base;            /* device bytes in use before the replay */
    size_t total;           /* the device's memory, as aclrtGetMemInfo says */
    uint64_t initial, allocs, frees;
    uint64_t live;          /* requested bytes live, granted or not */
    uint64_t held;          /* requested bytes of the blocks the allocator granted */
    uint64_t peak_requested, peak_reserved;
    /* at the peak of use: the most bytes granted at once (of those moments,
     * the one with the most reserved) */
    uint64_t at_allocated, at_reserved, peak_index;
    aclsim_replay_stats at;
    int stopped, failed, have_stats;
    struct rec fail;
    uint64_t fail_held; /* granted when it failed */
    char fail_msg[256];
};

static const aclsim_replay_allocator *A;
static uint32_t n_streams;
static void **ptrs; /* per block id: its address while live, or SHADOW */
/* A block the workload holds but the device did not grant (after a failure). */
static char shadow_byte;
#define SHADOW ((void *)&shadow_byte)

/* --record: what the allocator did, for --snapshot. */
static FILE *rec_out;
static struct devrun *rec_dev;
static uint32_t rec_index; /* the trace entry being replayed */

static const aclsim_replay_allocator *pick(const char *name)
{
    const aclsim_replay_allocator *const builtins[] = {&replay_plain, &replay_caching,
                                                       &replay_pool, &replay_expandable};
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (strcmp(name, builtins[i]->name) == 0)
            return builtins[i];
    if (!strchr(name, '/')) {
        fprintf(stderr, "aclsim-replay: no allocator %s (plain, caching, pool, expandable, "
                "or the path of a shared library)\n", name);
        return NULL;
    }
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    aclsim_replay_allocator_get_fn get = h ? (aclsim_replay_allocator_get_fn)(uintptr_t)dlsym(
                                                 h, ACLSIM_REPLAY_ENTRY)
                                           : NULL;
    const aclsim_replay_allocator *a = get ? get() : NULL;
    if (!a || a->abi != ACLSIM_REPLAY_ABI || !a->open || !a->alloc || !a->free || !a->close) {
        fprintf(stderr, "aclsim-replay: %s: %s\n", name,
                !h ? dlerror()
                   : !get ? "exports no " ACLSIM_REPLAY_ENTRY " (aclsim/replay.h)"
                          : "its table is not an aclsim_replay_allocator of ABI "
                            "ACLSIM_REPLAY_ABI with open, alloc, free and close");
        return NULL;
    }
    return a;
}

static int start(struct devrun *d, int32_t dev)
{
    memset(d, 0, sizeof *d);
    d->dev = dev;
    if (aclrtSetDevice(dev) != ACL_SUCCESS) {
        fprintf(stderr, "aclsim-replay: device %d: %s\n", dev, aclGetRecentErrMsg());
        return -1;
    }
    d->streams = calloc(n_streams ? n_streams : 1, sizeof *d->streams);
    size_t fr = 0;
    aclrtGetMemInfo(ACL_HBM_MEM, &fr, &d->total);
    d->base = d->total - fr;
    d->state = d->streams ? A->open(dev) : NULL;
    if (!d->state) {
        fprintf(stderr, "aclsim-replay: the %s allocator did not start on device %d\n",
                A->name ? A->name : "given", dev);
        return -1;
    }
    return 0;
}

static aclrtStream stream_of(struct devrun *d, uint32_t s)
{
    if (!d->streams[s] && aclrtCreateStream(&d->streams[s]) != ACL_SUCCESS)
        d->streams[s] = NULL;
    return d->streams[s];
}

static size_t reserved_now(const struct devrun *d)
{
    size_t used = replay_used();
    return used > d->base ? used - d->base : 0;
}

static uint32_t stream_number(const struct devrun *d, aclrtStream s)
{
    for (uint32_t i = 0; i < n_streams; i++)
        if (d->streams[i] == s)
            return i;
    return 0;
}

static void record(const char *action, uint32_t index, uintptr_t addr, uint64_t size,
                   uint32_t stream, uint32_t pool, const struct devrun *d)
{
    fprintf(rec_out, "E %s %lld %llu %llu %u %u %llu\n", action,
            index == INITIAL ? -1LL : (long long)index, (unsigned long long)addr,
            (unsigned long long)size, stream, pool, (unsigned long long)reserved_now(d));
}

void replay_note(int what, const void *addr, size_t size, aclrtStream stream, uint32_t pool)
{
    static const char *const names[] = {"segment_alloc", "segment_free", "segment_map",
                                        "segment_unmap"};
    if (rec_out && rec_dev && what >= 0 && what < 4)
        record(names[what], rec_index, (uintptr_t)addr, size, stream_number(rec_dev, stream),
               pool, rec_dev);
}

/* The device's figures after an allocation the allocator granted. */
static void measure(struct devrun *d, const struct rec *r)
{
    size_t reserved = reserved_now(d);
    if (reserved > d->peak_reserved)
        d->peak_reserved = reserved;
    /* The peak of use: the most granted, and of those moments the most reserved. */
    if (d->held > d->at_allocated || (d->held == d->at_allocated && reserved > d->at_reserved)) {
        d->at_allocated = d->held;
        d->at_reserved = reserved;
        d->peak_index = r->index;
        d->have_stats = A->stats != NULL;
        if (A->stats)
            A->stats(d->state, &d->at);
    }
}

static void step(struct devrun *d, const struct rec *r, int keep_going)
{
    void *p = ptrs[r->id];
    rec_index = r->index;
    if (r->op == OP_ALLOC) {
        d->initial += r->index == INITIAL;
        d->live += r->size;
        if (d->live > d->peak_requested)
            d->peak_requested = d->live;
        p = d->stopped ? NULL
                       : A->alloc(d->state, (size_t)r->size, stream_of(d, r->stream), r->pool);
        if (!p) { /* the workload holds it all the same */
            if (!d->failed) {
                d->failed = 1;
                d->fail = *r;
                d->fail_held = d->held;
                snprintf(d->fail_msg, sizeof d->fail_msg, "%s", aclGetRecentErrMsg());
                d->stopped = !keep_going;
                if (rec_out)
                    record("oom", r->index, d->total - d->base - reserved_now(d), r->size,
                           r->stream, r->pool, d);
            }
            ptrs[r->id] = SHADOW;
            return;
        }
        ptrs[r->id] = p;
        d->allocs++;
        d->held += r->size;
        if (rec_out)
            record("alloc", r->index, (uintptr_t)p, r->size, r->stream, r->pool, d);
        measure(d, r);
    } else if (p && r->op == OP_FREE) {
        d->live -= r->size;
        ptrs[r->id] = NULL;
        if (p == SHADOW)
            return;
        A->free(d->state, p, (size_t)r->size, stream_of(d, r->stream));
        d->frees++;
        d->held -= r->size;
        if (rec_out)
            record("free_completed", r->index, (uintptr_t)p, r->size, r->stream, r->pool, d);
    } else if (p && p != SHADOW && r->op == OP_FREE_REQUESTED) {
        if (A->free_requested)
            A->free_requested(d->state, p, stream_of(d, r->stream));
        if (rec_out)
            record("free_requested", r->index, (uintptr_t)p, r->size, r->stream, r->pool, d);
    }
}

struct walk_ctx {
    const struct devrun *d;
    struct replay_map index; /* block address -> trace index of its alloc + 1 */
};

static void walk_line(void *ctx, int is_segment, const void *addr, size_t size, size_t req,
                      int allocated, aclrtStream stream, uint32_t pool, int small, int expandable)
{
    struct walk_ctx *w = ctx;
    if (is_segment) {
        fprintf(rec_out, "S %llu %llu %u %u %d %d\n", (unsigned long long)(uintptr_t)addr,
                (unsigned long long)size, stream_number(w->d, stream), pool, small, expandable);
        return;
    }
    uint64_t ix = 0;
    if (allocated && replay_map_take(&w->index, (uintptr_t)addr, &ix))
        replay_map_put(&w->index, (uintptr_t)addr, ix);
    fprintf(rec_out, "B %llu %llu %llu %d %lld\n", (unsigned long long)(uintptr_t)addr,
            (unsigned long long)size, (unsigned long long)req, allocated,
            ix ? (long long)ix - 2 : -1LL);
}

/* The allocator's segments and blocks at the end of the device's trace. */
static void record_state(const struct devrun *d, const struct rec *recs, size_t from, size_t to)
{
    struct walk_ctx w = {d, {0}};
    for (size_t i = from; i < to; i++)
        if (recs[i].op == OP_ALLOC && ptrs[recs[i].id] && ptrs[recs[i].id] != SHADOW)
            replay_map_put(&w.index, (uintptr_t)ptrs[recs[i].id],
                           recs[i].index == INITIAL ? 1 : (uint64_t)recs[i].index + 2);
    if (A == &replay_caching || A == &replay_expandable) {
        replay_torch_walk(d->state, walk_line, &w);
    } else { /* each block its own segment */
        for (size_t i = from; i < to; i++) {
            const struct rec *r = &recs[i];
            void *p = ptrs[r->id];
            if (r->op != OP_ALLOC || !p || p == SHADOW)
                continue;
            walk_line(&w, 1, p, (size_t)r->size, 0, 0, d->streams[r->stream], r->pool, 0, 0);
            walk_line(&w, 0, p, (size_t)r->size, (size_t)r->size, 1, d->streams[r->stream],
                      r->pool, 0, 0);
        }
    }
    replay_map_free(&w.index);
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void report(const struct devrun *d, int first)
{
    printf("%s{\"device\": %d, \"hbm_total\": %llu, \"hbm_free\": %llu, \"initial_live\": %llu, "
           "\"allocs\": %llu, \"frees\": %llu, \"peak_requested\": %llu, "
           "\"peak_reserved\": %llu, \"peak_index\": %lld, \"allocated_at_peak\": %llu, "
           "\"reserved_at_peak\": %llu, ",
           first ? "" : ", ", d->dev, (unsigned long long)d->total,
           (unsigned long long)(d->total - d->base), (unsigned long long)d->initial,
           (unsigned long long)d->allocs, (unsigned long long)d->frees,
           (unsigned long long)d->peak_requested, (unsigned long long)d->peak_reserved,
           !d->at_allocated || d->peak_index == INITIAL ? -1LL : (long long)d->peak_index,
           (unsigned long long)d->at_allocated, (unsigned long long)d->at_reserved);
    if (d->have_stats)
        printf("\"cached_at_peak\": %llu, \"gap_sq_at_peak\": %.17g, ",
               (unsigned long long)d->at.cached, d->at.gap_sq);
    else
        printf("\"cached_at_peak\": null, \"gap_sq_at_peak\": null, ");
    printf("\"stopped\": %s, \"first_failure\": ", d->stopped ? "true" : "false");
    if (!d->failed) {
        printf("null}");
        return;
    }
    printf("{\"index\": %lld, \"size\": %llu, \"stream\": %u, \"pool\": %u, "
           "\"granted\": %llu, \"message\": ",
           d->fail.index == INITIAL ? -1LL : (long long)d->fail.index,
           (unsigned long long)d->fail.size, d->fail.stream, d->fail.pool,
           (unsigned long long)d->fail_held);
    json_str(d->fail_msg);
    printf("}}");
}

/* Every block the device still holds back to its allocator, then the rest. */
static void finish(struct devrun *d, const struct rec *recs, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (recs[i].op == OP_ALLOC && ptrs[recs[i].id]) {
            if (ptrs[recs[i].id] != SHADOW)
                A->free(d->state, ptrs[recs[i].id], (size_t)recs[i].size,
                        stream_of(d, recs[i].stream));
            ptrs[recs[i].id] = NULL;
        }
    A->close(d->state);
    for (uint32_t s = 0; s < n_streams; s++)
        if (d->streams[s])
            aclrtDestroyStream(d->streams[s]);
    free(d->streams);
    aclrtResetDevice(d->dev);
}

static const struct rec *load(const char *path, struct header *h, size_t *bytes)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    void *m = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof *h)
        m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED) {
        fprintf(stderr, "aclsim-replay: %s: cannot read the event stream\n", path);
        return NULL;
    }
    memcpy(h, m, sizeof *h);
    *bytes = (size_t)st.st_size;
    if (memcmp(h->magic, "ACLRPLY1", 8) != 0 ||
        (*bytes - sizeof *h) / sizeof(struct rec) < h->records) {
        fprintf(stderr, "aclsim-replay: %s: not an event stream of readers.py\n", path);
        munmap(m, *bytes);
        return NULL;
    }
    return (const struct rec *)((const char *)m + sizeof *h);
}

static int usage(void)
{
    fprintf(stderr, "usage: aclsim-replay-driver [--allocator NAME|PATH] [--keep-going] "
                    "[--record OUT] EVENTS | --profiles\n");
    return 1;
}

/* The SoC profiles, as the simulator lists them when ACLSIM_SOC names none. */
static int profiles(void)
{
    setenv("ACLSIM_SOC", "?", 1);
    if (aclInit(NULL) == ACL_SUCCESS) {
        aclFinalize();
        return 1;
    }
    const char *m = strstr(aclGetRecentErrMsg(), "expected one of the SoC profiles ");
    if (!m)
        return 1;
    m += strlen("expected one of the SoC profiles ");
    for (size_t n; (n = strcspn(m, ",;. \n")) > 0; m += n + strspn(m + n, ", "))
        printf("%.*s\n", (int)n, m);
    return 0;
}

int main(int argc, char **argv)
{
    const char *alloc_name = "plain", *path = NULL, *record_path = NULL;
    int keep_going = 0;
    if (argc == 2 && strcmp(argv[1], "--profiles") == 0)
        return profiles();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--allocator") == 0 && i + 1 < argc)
            alloc_name = argv[++i];
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc)
            record_path = argv[++i];
        else if (strcmp(argv[i], "--keep-going") == 0)
            keep_going = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            return usage();
    }
    struct header h;
    size_t bytes = 0;
    const struct rec *recs = path ? load(path, &h, &bytes) : NULL;
    if (!path)
        return usage();
    if (!recs || !(A = pick(alloc_name)))
        return 1;
    if ((A == &replay_caching || A == &replay_expandable) && !replay_torch_conf_ok()) {
        fprintf(stderr, "aclsim-replay: PYTORCH_NPU_ALLOC_CONF=%s: the caching allocator reads "
                "expandable_segments:True|False, max_split_size_mb:N (N > 20), "
                "max_non_split_rounding_mb:N, garbage_collection_threshold:X (0 < X < 1), "
                "per_process_memory_fraction:X, roundup_power2_divisions:N (a power of 2), "
                "base_addr_aligned_kb:N, segment_size_mb:N, comma-separated\n",
                getenv("PYTORCH_NPU_ALLOC_CONF"));
        return 1;
    }
    if (record_path && !(rec_out = fopen(record_path, "w"))) {
        fprintf(stderr, "aclsim-replay: %s: cannot be written\n", record_path);
        return 1;
    }
    n_streams = h.streams;
    ptrs = calloc(h.blocks ? h.blocks : 1, sizeof *ptrs);
    if (!ptrs || aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "aclsim-replay: aclInit: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    int progress = isatty(2) && h.records >= (1u << 20);
    int rc = 0, first = 1;
    printf("{\"allocator\": ");
    json_str(A->name ? A->name : alloc_name);
    printf(", \"devices\": [");
    for (size_t i = 0; i < h.records && rc == 0;) {
        struct devrun d;
        size_t from = i;
        if (recs[i].op != OP_DEVICE || start(&d, recs[i].dev)) {
            rc = 1;
            break;
        }
        rec_dev = &d;
        if (rec_out)
            fprintf(rec_out, "D %d\n", d.dev);
        for (i++; i < h.records && recs[i].op != OP_DEVICE; i++) {
            if (recs[i].op == OP_DEVICE)
                continue;
            if (recs[i].id >= h.blocks || recs[i].stream >= h.streams) {
                rc = 1;
                break;
            }
            step(&d, &recs[i], keep_going);
            if (progress && (i & 0xfffff) == 0)
                fprintf(stderr, "\raclsim-replay: %zu of %llu events", i,
                        (unsigned long long)h.records);
        }
        if (rec_out)
            record_state(&d, recs, from, i);
        rec_dev = NULL;
        finish(&d, recs, from, i);
        report(&d, first);
        first = 0;
    }
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    printf("]}\n");
    aclFinalize();
    if (rec_out && fclose(rec_out) != 0)
        rc = 1;
    free(ptrs);
    munmap((void *)((const char *)recs - sizeof h), bytes);
    return rc;
}

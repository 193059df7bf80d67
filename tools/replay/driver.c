/*
 * driver.c - aclsim-replay's engine: drives a normalised allocation trace
 * through an allocator on the simulated NPU and prints what happened as
 * one JSON object.
 *
 *   aclsim-replay-driver [--allocator NAME|PATH] [--keep-going] EVENTS
 *
 * EVENTS is the stream tools/replay/readers.py writes from a snapshot, an
 * RMM log or an aclsim trace (layout below); the SoC and the device size
 * come from the environment (ACLSIM_SOC, ACLSIM_HBM_BYTES), one process per
 * SoC. Records run in file order, device after device (each device's run
 * ends with every block it still holds freed and the allocator closed).
 * After an allocation fails a device's replay stops there, as the workload
 * would have, unless --keep-going. Exit 0 (whatever failed: the report
 * says), 1 on a bad argument or a file it cannot read.
 */
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
enum { OP_ALLOC = 1, OP_FREE = 2, OP_FREE_REQUESTED = 3 };
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
    uint64_t events, initial, allocs, frees;
    uint64_t live, peak_requested, peak_reserved;
    uint64_t at_allocated;  /* at the reserved peak */
    uint64_t peak_index;
    aclsim_replay_stats at; /* idem */
    int stopped, failed, have_stats;
    struct rec fail;
    char fail_msg[256];
};

static const aclsim_replay_allocator *A;
static uint32_t n_streams;
static void **ptrs; /* per block id: its address while live */

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

/* The device's figures after an allocation: a new reserved peak? */
static void measure(struct devrun *d, const struct rec *r)
{
    size_t used = replay_used();
    size_t reserved = used > d->base ? used - d->base : 0;
    if (d->live > d->peak_requested)
        d->peak_requested = d->live;
    /* The peak: the most reserved, and of those moments the most allocated. */
    if (reserved > d->peak_reserved || (reserved == d->peak_reserved && d->live > d->at_allocated)) {
        d->peak_reserved = reserved;
        d->at_allocated = d->live;
        d->peak_index = r->index;
        d->have_stats = A->stats != NULL;
        if (A->stats)
            A->stats(d->state, &d->at);
    }
}

static void step(struct devrun *d, const struct rec *r, int keep_going)
{
    d->events += r->index != INITIAL;
    d->initial += r->index == INITIAL && r->op == OP_ALLOC;
    if (d->stopped)
        return;
    if (r->op == OP_ALLOC) {
        void *p = A->alloc(d->state, (size_t)r->size, stream_of(d, r->stream), r->pool);
        if (!p) {
            if (!d->failed) {
                d->failed = 1;
                d->fail = *r;
                snprintf(d->fail_msg, sizeof d->fail_msg, "%s", aclGetRecentErrMsg());
            }
            d->stopped = !keep_going;
            return;
        }
        ptrs[r->id] = p;
        d->allocs++;
        d->live += r->size;
        measure(d, r);
    } else if (ptrs[r->id] && r->op == OP_FREE) {
        A->free(d->state, ptrs[r->id], (size_t)r->size, stream_of(d, r->stream));
        ptrs[r->id] = NULL;
        d->frees++;
        d->live -= r->size;
    } else if (ptrs[r->id] && r->op == OP_FREE_REQUESTED && A->free_requested) {
        A->free_requested(d->state, ptrs[r->id], stream_of(d, r->stream));
    }
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
    printf("%s{\"device\": %d, \"hbm_total\": %llu, \"hbm_free\": %llu, \"events\": %llu, \"initial_live\": %llu, \"allocs\": %llu, "
           "\"frees\": %llu, \"peak_requested\": %llu, \"peak_reserved\": %llu, "
           "\"peak_index\": %lld, \"allocated_at_peak\": %llu, ",
           first ? "" : ", ", d->dev, (unsigned long long)d->total,
           (unsigned long long)(d->total - d->base), (unsigned long long)d->events,
           (unsigned long long)d->initial, (unsigned long long)d->allocs,
           (unsigned long long)d->frees, (unsigned long long)d->peak_requested,
           (unsigned long long)d->peak_reserved,
           d->peak_index == INITIAL ? -1LL : (long long)d->peak_index,
           (unsigned long long)d->at_allocated);
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
    printf("{\"index\": %lld, \"size\": %llu, \"stream\": %u, \"pool\": %u, \"message\": ",
           d->fail.index == INITIAL ? -1LL : (long long)d->fail.index,
           (unsigned long long)d->fail.size, d->fail.stream, d->fail.pool);
    json_str(d->fail_msg);
    printf("}}");
}

/* Every block the device still holds back to its allocator, then the rest. */
static void finish(struct devrun *d, const struct rec *recs, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (recs[i].op == OP_ALLOC && ptrs[recs[i].id]) {
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
                    "EVENTS\n");
    return 1;
}

int main(int argc, char **argv)
{
    const char *alloc_name = "plain", *path = NULL;
    int keep_going = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--allocator") == 0 && i + 1 < argc)
            alloc_name = argv[++i];
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
        if (recs[i].id >= h.blocks || recs[i].stream >= h.streams || start(&d, recs[i].dev)) {
            rc = 1;
            break;
        }
        for (; i < h.records && recs[i].dev == d.dev; i++) {
            if (recs[i].id >= h.blocks || recs[i].stream >= h.streams) {
                rc = 1;
                break;
            }
            step(&d, &recs[i], keep_going);
            if (progress && (i & 0xfffff) == 0)
                fprintf(stderr, "\raclsim-replay: %zu of %llu events", i,
                        (unsigned long long)h.records);
        }
        finish(&d, recs, from, i);
        report(&d, first);
        first = 0;
    }
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    printf("]}\n");
    aclFinalize();
    free(ptrs);
    munmap((void *)((const char *)recs - sizeof h), bytes);
    return rc;
}

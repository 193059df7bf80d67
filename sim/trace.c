/*
 * trace.c - Chrome trace-event (Perfetto) export of the simulator's timeline.
 *
 * While a trace is open, each hook appends one compact record to a growable
 * array under a mutex; names are interned (copied once into a string table),
 * so callers may pass short-lived strings. sim_trace_close expands every
 * record into its trace events (a device operation becomes one complete
 * event per track it occupies), adds the process and track name metadata for
 * every track that was used, writes the file and frees everything. Times are
 * written exactly: picoseconds printed as microseconds with six decimals.
 * Track ids: each device is process dev + 1, the host is process HOST_PID;
 * within a device, thread 0 holds counters and instants, 1 + link the links,
 * 10 + engine the copy engines and 100 + id the streams.
 */
#include "base/hash.h"
#include "base/mem.h"
#include "trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_PID (SIM_MAX_DEVICES + 1)
#define TID_EVENTS UINT64_C(0)
#define TID_LINK UINT64_C(1)
#define TID_ENGINE UINT64_C(10)
#define TID_STREAM UINT64_C(100)
/* Track order within a device (sort indexes stay well inside int32). */
#define SORT_LINKS UINT64_C(1000000)
#define SORT_EVENTS UINT64_C(2000000)
#define INITIAL_RECS 1024u

enum kind { K_OP, K_HOST, K_COUNTER, K_INSTANT, K_KERNEL, K_SYNC, K_MARK, K_REPLAY };

/* One hook call. */
struct rec {
    sim_ps ts, dur;
    uint64_t value;   /* bytes of an operation, a counter's value, a sync's flow id */
    const char *name; /* interned */
    char *arg;        /* an instant's argument, an operator's blocks (owned), or NULL */
    char *arg2;       /* an operator's tensors (owned), or NULL */
    uint32_t stream;  /* an operation's stream id, or SIM_TRACE_NO_STREAM */
    int8_t dev;       /* -1: the host */
    uint8_t kind, link, engine; /* link of a sync: 1 for a record (flow out) */
};

atomic_int sim_trace_active;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static struct rec *recs;
static size_t nrecs, caprecs;
static struct base_map names; /* name hash -> interned copy */
static struct base_map handles; /* track key of a stream -> its handle */
static uint64_t dropped;

static const char *const link_names[] = {"H2D", "D2H", "HBM", "host", "peer"};
static const char *const link_cats[] = {"h2d", "d2h", "hbm", "host", "peer"};

/* ---- interning ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

/* The table's copy of s, added if new; NULL when memory runs out. A name
 * whose hash another name already holds takes the next free key. */
static const char *intern(const char *s)
{
    for (uint64_t key = hash_str(s);; key++) {
        key += key == 0; /* the map's keys are non-zero */
        void **have = base_map_find(&names, key);
        if (have && strcmp(*have, s) == 0)
            return *have;
        if (!have) {
            char *copy = base_strdup(s);
            if (copy && base_map_put(&names, key, copy) == 0)
                return copy;
            base_free(copy);
            return NULL;
        }
    }
}

static void free_names(void)
{
    void *name;
    for (size_t pos = 0; base_map_next(&names, &pos, NULL, &name);)
        base_free(name);
    base_map_clear(&names);
}

/* ---- recording ---- */

/* A new record with its name interned (lock held), or NULL: dropped. */
static struct rec *append(enum kind kind, const char *name)
{
    if (!out)
        return NULL;
    if (nrecs == caprecs) {
        size_t cap = caprecs ? caprecs * 2 : INITIAL_RECS;
        struct rec *r = base_realloc(recs, cap * sizeof *r);
        if (!r) {
            dropped++;
            return NULL;
        }
        recs = r;
        caprecs = cap;
    }
    const char *iname = intern(name);
    if (!iname) {
        dropped++;
        return NULL;
    }
    struct rec *r = &recs[nrecs++];
    *r = (struct rec){.name = iname, .stream = SIM_TRACE_NO_STREAM, .dev = -1,
                      .kind = (uint8_t)kind};
    return r;
}

static bool valid_dev(int32_t dev)
{
    return dev >= -1 && dev < SIM_MAX_DEVICES;
}

void sim_trace_op(int32_t dev, uint32_t stream, enum sim_link link, unsigned engine,
                  const char *name, sim_ps start, sim_ps end, uint64_t bytes)
{
    if (!sim_trace_enabled() || !valid_dev(dev) || link > SIM_LINK_PEER ||
        (dev < 0 && link != SIM_LINK_HOST) || engine >= SIM_CLOCK_MAX_ENGINES || !name)
        return;
    pthread_mutex_lock(&lock);
    struct rec *r = append(K_OP, name);
    if (r) {
        r->ts = start;
        r->dur = end > start ? end - start : 0;
        r->value = bytes;
        r->stream = dev < 0 ? SIM_TRACE_NO_STREAM : stream;
        r->dev = (int8_t)dev;
        r->link = (uint8_t)link;
        r->engine = (uint8_t)engine;
    }
    pthread_mutex_unlock(&lock);
}

void sim_trace_host(const char *name, sim_ps start, sim_ps end)
{
    if (!sim_trace_enabled() || !name)
        return;
    pthread_mutex_lock(&lock);
    struct rec *r = append(K_HOST, name);
    if (r) {
        r->ts = start;
        r->dur = end > start ? end - start : 0;
    }
    pthread_mutex_unlock(&lock);
}

void sim_trace_counter(int32_t dev, const char *name, uint64_t value, sim_ps at)
{
    if (!sim_trace_enabled() || !valid_dev(dev) || !name)
        return;
    pthread_mutex_lock(&lock);
    struct rec *r = append(K_COUNTER, name);
    if (r) {
        r->ts = at;
        r->value = value;
        r->dev = (int8_t)dev;
    }
    pthread_mutex_unlock(&lock);
}

void sim_trace_instant(int32_t dev, const char *name, sim_ps at, const char *arg)
{
    if (!sim_trace_enabled() || !valid_dev(dev) || !name)
        return;
    char *copy = arg ? base_strdup(arg) : NULL;
    pthread_mutex_lock(&lock);
    struct rec *r = (arg && !copy) ? NULL : append(K_INSTANT, name);
    if (r) {
        r->ts = at;
        r->arg = copy;
        r->dev = (int8_t)dev;
    } else {
        if (arg && !copy && out)
            dropped++;
        base_free(copy);
    }
    pthread_mutex_unlock(&lock);
}

/* A new record of `kind` on a stream's track with a copy of arg (lock
 * held), or NULL: dropped. */
static struct rec *append_on_stream(enum kind kind, int32_t dev, uint32_t stream,
                                    const char *name, sim_ps at, const char *arg)
{
    char *copy = arg ? base_strdup(arg) : NULL;
    struct rec *r = (arg && !copy) ? NULL : append(kind, name);
    if (r) {
        r->ts = at;
        r->arg = copy;
        r->stream = stream;
        r->dev = (int8_t)dev;
    } else {
        if (arg && !copy && out)
            dropped++;
        base_free(copy);
    }
    return r;
}

void sim_trace_kernel(int32_t dev, uint32_t stream, const char *name, sim_ps start, sim_ps end,
                      const char *blocks, const char *tensors)
{
    if (!sim_trace_enabled() || dev < 0 || dev >= SIM_MAX_DEVICES || !name)
        return;
    char *copy = tensors ? base_strdup(tensors) : NULL;
    pthread_mutex_lock(&lock);
    struct rec *r = (tensors && !copy) ? NULL : append_on_stream(K_KERNEL, dev, stream, name,
                                                                 start, blocks);
    if (r) {
        r->dur = end > start ? end - start : 0;
        r->arg2 = copy;
    } else {
        base_free(copy);
    }
    pthread_mutex_unlock(&lock);
}

void sim_trace_replay(int32_t dev, uint32_t stream, sim_ps start, sim_ps end, const char *graph)
{
    if (!sim_trace_enabled() || dev < 0 || dev >= SIM_MAX_DEVICES)
        return;
    pthread_mutex_lock(&lock);
    struct rec *r = append_on_stream(K_REPLAY, dev, stream, "graph replay", start, graph);
    if (r)
        r->dur = end > start ? end - start : 0;
    pthread_mutex_unlock(&lock);
}

void sim_trace_sync(int32_t dev, uint32_t stream, const char *name, sim_ps at, uint64_t flow,
                    bool out_flow, const char *arg)
{
    if (!sim_trace_enabled() || dev < 0 || dev >= SIM_MAX_DEVICES || !name || !flow)
        return;
    pthread_mutex_lock(&lock);
    struct rec *r = append_on_stream(K_SYNC, dev, stream, name, at, arg);
    if (r) {
        r->value = flow;
        r->link = out_flow;
    }
    pthread_mutex_unlock(&lock);
}

void sim_trace_mark(const void *stream, const char *name, sim_ps at, const char *text)
{
    if (!sim_trace_enabled() || !stream || !name)
        return;
    if (at == SIM_PS_FOREVER)
        at = sim_clock_host();
    pthread_mutex_lock(&lock);
    uint64_t key;
    void *h;
    for (size_t pos = 0; base_map_next(&handles, &pos, &key, &h);)
        if (h == stream) {
            (void)append_on_stream(K_MARK, (int32_t)(key >> 48) - 1,
                                   (uint32_t)((key & ((UINT64_C(1) << 48) - 1)) - TID_STREAM),
                                   name, at, text);
            break;
        }
    pthread_mutex_unlock(&lock);
}

/* ---- opening ---- */

enum sim_rc sim_trace_open(const char *path)
{
    if (!path || !*path)
        return SIM_OK;
    pthread_mutex_lock(&lock);
    if (out) {
        pthread_mutex_unlock(&lock);
        return SIM_EINVAL;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        pthread_mutex_unlock(&lock);
        return SIM_EIO;
    }
    recs = base_malloc(INITIAL_RECS * sizeof *recs);
    if (!recs) {
        fclose(f);
        pthread_mutex_unlock(&lock);
        return SIM_EHOSTMEM;
    }
    caprecs = INITIAL_RECS;
    nrecs = 0;
    dropped = 0;
    out = f;
    atomic_store_explicit(&sim_trace_active, 1, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
    return SIM_OK;
}

/* ---- writing ---- */

static int pid_of(int dev)
{
    return dev < 0 ? HOST_PID : dev + 1;
}

/* Track keys: pid in the top 16 bits, tid below; never 0 (pids start at 1). */
static uint64_t track_key(int pid, uint64_t tid)
{
    return (uint64_t)pid << 48 | tid;
}

void sim_trace_stream(int32_t dev, uint32_t id, const void *handle)
{
    if (dev < 0 || dev >= SIM_MAX_DEVICES || !handle)
        return;
    pthread_mutex_lock(&lock);
    /* a failed put leaves the track its plain name */
    if (out)
        (void)base_map_put(&handles, track_key(dev + 1, TID_STREAM + id), (void *)handle);
    pthread_mutex_unlock(&lock);
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* A time in ps as microseconds, exactly. */
static void put_us(FILE *f, sim_ps t)
{
    fprintf(f, "%" PRIu64 ".%06" PRIu64, t / SIM_PS_PER_US, t % SIM_PS_PER_US);
}

/* Opens an event object: {"name":...,"ph":"<ph>","ts":...,"pid":..,"tid":.. */
static void put_head(FILE *f, bool *first, const char *name, char ph, sim_ps ts, int pid,
                     uint64_t tid)
{
    fputs(*first ? "\n" : ",\n", f);
    *first = false;
    fputs("{\"name\":", f);
    put_str(f, name);
    fprintf(f, ",\"ph\":\"%c\",\"ts\":", ph);
    put_us(f, ts);
    fprintf(f, ",\"pid\":%d,\"tid\":%" PRIu64, pid, tid);
}

static void put_span(FILE *f, bool *first, const struct rec *r, int pid, uint64_t tid)
{
    put_head(f, first, r->name, 'X', r->ts, pid, tid);
    fputs(",\"cat\":", f);
    put_str(f, r->kind == K_HOST     ? "host"
               : r->kind == K_KERNEL ? "operator"
               : r->kind == K_SYNC   ? "sync"
               : r->kind == K_REPLAY ? "graph"
                                     : link_cats[r->link]);
    fputs(",\"dur\":", f);
    put_us(f, r->dur);
    if (r->kind == K_OP)
        fprintf(f, ",\"args\":{\"bytes\":%" PRIu64 "}", r->value);
    if (r->kind == K_KERNEL && (r->arg || r->arg2)) {
        fputs(",\"args\":{", f);
        if (r->arg) {
            fputs("\"blocks\":", f);
            put_str(f, r->arg);
        }
        if (r->arg2) {
            fputs(r->arg ? ",\"tensors\":" : "\"tensors\":", f);
            put_str(f, r->arg2);
        }
        fputc('}', f);
    }
    if (r->kind == K_REPLAY && r->arg) {
        fputs(",\"args\":{\"graph\":", f);
        put_str(f, r->arg);
        fputc('}', f);
    }
    if (r->kind == K_SYNC) {
        fprintf(f, ",\"bind_id\":\"%" PRIx64 "\",\"%s\":true", r->value,
                r->link ? "flow_out" : "flow_in");
        if (r->arg) {
            fputs(",\"args\":{\"arg\":", f);
            put_str(f, r->arg);
            fputc('}', f);
        }
    }
    fputc('}', f);
}

/* The tracks of record r, through fn (device ops: stream, link, engine). */
static bool each_track(const struct rec *r, bool (*fn)(int pid, uint64_t tid, void *u), void *u)
{
    int pid = pid_of(r->dev);
    switch ((enum kind)r->kind) {
    case K_OP:
        if (r->stream != SIM_TRACE_NO_STREAM && !fn(pid, TID_STREAM + r->stream, u))
            return false;
        if (r->link == SIM_LINK_HOST)
            return fn(HOST_PID, TID_EVENTS, u);
        return fn(pid, TID_LINK + r->link, u) && fn(pid, TID_ENGINE + r->engine, u);
    case K_HOST:
        return fn(HOST_PID, TID_EVENTS, u);
    case K_KERNEL:
    case K_SYNC:
    case K_MARK:
    case K_REPLAY:
        return fn(pid, r->stream != SIM_TRACE_NO_STREAM ? TID_STREAM + r->stream : TID_EVENTS, u);
    case K_COUNTER:
    case K_INSTANT:
        return fn(pid, TID_EVENTS, u);
    }
    return true;
}

struct span_ctx {
    FILE *f;
    bool *first;
    const struct rec *r;
};

static bool emit_span(int pid, uint64_t tid, void *u)
{
    struct span_ctx *c = u;
    put_span(c->f, c->first, c->r, pid, tid);
    return true;
}

static bool collect_track(int pid, uint64_t tid, void *u)
{
    return base_map_put(u, track_key(pid, tid), NULL) == 0;
}

static void put_record(FILE *f, bool *first, const struct rec *r)
{
    int pid = pid_of(r->dev);
    struct span_ctx c = {f, first, r};
    switch ((enum kind)r->kind) {
    case K_OP:
    case K_HOST:
    case K_KERNEL:
    case K_SYNC:
    case K_REPLAY:
        each_track(r, emit_span, &c);
        break;
    case K_MARK:
        put_head(f, first, r->name, 'i', r->ts, pid,
                 r->stream != SIM_TRACE_NO_STREAM ? TID_STREAM + r->stream : TID_EVENTS);
        fputs(",\"cat\":\"report\",\"s\":\"t\"", f);
        if (r->arg) {
            fputs(",\"args\":{\"text\":", f);
            put_str(f, r->arg);
            fputc('}', f);
        }
        fputc('}', f);
        break;
    case K_COUNTER:
        put_head(f, first, r->name, 'C', r->ts, pid, TID_EVENTS);
        fprintf(f, ",\"args\":{\"value\":%" PRIu64 "}}", r->value);
        break;
    case K_INSTANT:
        put_head(f, first, r->name, 'i', r->ts, pid, TID_EVENTS);
        fputs(",\"s\":\"t\"", f);
        if (r->arg) {
            fputs(",\"args\":{\"arg\":", f);
            put_str(f, r->arg);
            fputc('}', f);
        }
        fputc('}', f);
        break;
    }
}

/* Track and process names, with sort indexes: streams first, then links,
 * copy engines and the events track; the host before the devices. */
static void put_metadata(FILE *f, bool *first, const uint64_t *keys, size_t n)
{
    char buf[64];
    int last_pid = -1;
    for (size_t i = 0; i < n; i++) {
        int pid = (int)(keys[i] >> 48);
        uint64_t tid = keys[i] & ((UINT64_C(1) << 48) - 1);
        if (pid != last_pid) {
            last_pid = pid;
            if (pid == HOST_PID)
                snprintf(buf, sizeof buf, "host");
            else
                snprintf(buf, sizeof buf, "device %d", pid - 1);
            fprintf(f, "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                       "\"args\":{\"name\":\"%s\"}}",
                    *first ? "" : ",", pid, buf);
            fprintf(f, ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                       "\"args\":{\"sort_index\":%d}}",
                    pid, pid == HOST_PID ? 0 : pid);
            *first = false;
        }
        uint64_t sort;
        if (pid == HOST_PID) {
            snprintf(buf, sizeof buf, "host");
            sort = 0;
        } else if (tid >= TID_STREAM) {
            void **h = base_map_find(&handles, track_key(pid, tid));
            if (h)
                snprintf(buf, sizeof buf, "stream %" PRIu64 " (%p)", tid - TID_STREAM, *h);
            else
                snprintf(buf, sizeof buf, "stream %" PRIu64, tid - TID_STREAM);
            sort = tid - TID_STREAM < SORT_LINKS ? tid - TID_STREAM : SORT_LINKS - 1;
        } else if (tid >= TID_ENGINE) {
            snprintf(buf, sizeof buf, "copy engine %" PRIu64, tid - TID_ENGINE);
            sort = SORT_LINKS + tid;
        } else if (tid >= TID_LINK) {
            snprintf(buf, sizeof buf, "link %s", link_names[tid - TID_LINK]);
            sort = SORT_LINKS + tid;
        } else {
            snprintf(buf, sizeof buf, "events");
            sort = SORT_EVENTS;
        }
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64
                   ",\"args\":{\"name\":\"%s\"}}",
                pid, tid, buf);
        fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64
                   ",\"args\":{\"sort_index\":%" PRIu64 "}}",
                pid, tid, sort);
    }
}

enum sim_rc sim_trace_close(void)
{
    pthread_mutex_lock(&lock);
    if (!out) {
        pthread_mutex_unlock(&lock);
        return SIM_OK;
    }
    atomic_store_explicit(&sim_trace_active, 0, memory_order_relaxed);
    FILE *f = out;
    out = NULL;

    bool ok = true, first = true;
    struct base_map tracks = {0}; /* the set of track keys */
    for (size_t i = 0; i < nrecs && ok; i++)
        ok = each_track(&recs[i], collect_track, &tracks);
    uint64_t *keys = NULL;
    if (ok && tracks.count) {
        keys = base_malloc(tracks.count * sizeof *keys);
        ok = keys != NULL;
    }
    fputs("{\"traceEvents\":[", f);
    if (ok) {
        size_t n = 0;
        uint64_t key;
        for (size_t pos = 0; base_map_next(&tracks, &pos, &key, NULL);)
            keys[n++] = key;
        if (n)
            qsort(keys, n, sizeof *keys, cmp_key);
        put_metadata(f, &first, keys, n);
        for (size_t i = 0; i < nrecs; i++)
            put_record(f, &first, &recs[i]);
    }
    fprintf(f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped_events\":%" PRIu64
               "}}\n",
            dropped);
    ok = !ferror(f) && ok;
    ok = fclose(f) == 0 && ok;

    base_free(keys);
    base_map_clear(&tracks);
    for (size_t i = 0; i < nrecs; i++) {
        base_free(recs[i].arg);
        base_free(recs[i].arg2);
    }
    base_free(recs);
    recs = NULL;
    nrecs = caprecs = 0;
    dropped = 0;
    free_names();
    base_map_clear(&handles);
    pthread_mutex_unlock(&lock);
    return ok ? SIM_OK : SIM_EIO;
}

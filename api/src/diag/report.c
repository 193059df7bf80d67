/*
 * report.c - the reports of the allocator sanitizer (alloc/sanitizer.c)
 * and of the leak check (leaks.c): how they reach people and programs.
 *
 * A report is made between api_rep_begin and api_rep_end (diag.h): its
 * lines, its facts (operators, streams, byte range, simulated times, the
 * allocator) and its stacks, symbolized (base/symbols.c). At the end it is
 *  - silenced when a rule of ACLSIM_SUPPRESS names it (suppress.c): not
 *    printed, not written, not counted;
 *  - printed on stderr, the first ACLSIM_REPORT_LIMIT of them (then one line
 *    says the rest are counted but not printed);
 *  - appended to ACLSIM_REPORT, a JSON document {"reports": [...]} that is
 *    whole after every report (the closing "]}" is written each time and
 *    overwritten by the next), so a program that dies still leaves it
 *    readable.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "internal.h"
#include "base/mem.h"
#include "base/options.h"
#include "backends/be.h"

static const char *const kind_names[API_REP_KIND_COUNT] = {
    "host-memory", "freed-memory", "out-of-bounds", "cross-stream-reuse", "host-reuse",
    "free-while-pending", "shared-allocator", "unregister-while-pending",
    "destroy-desc-while-pending", "graph-memory-freed", "graph-block-reuse", "overlapping-blocks",
    "block-freed-before-launch", "ipc-order", "leak"};

const char *api_rep_kind_name(enum api_rep_kind k)
{
    return (unsigned)k < API_REP_KIND_COUNT ? kind_names[k] : "?";
}

/* A growing text; on a failed allocation it stops growing (a report is
 * never worth failing the caller). */
struct buf {
    char *p;
    size_t n, cap;
};

static void vput(struct buf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int need = vsnprintf(NULL, 0, fmt, ap);
    if (need >= 0 && b->n + (size_t)need + 1 > b->cap) {
        size_t cap = (b->n + (size_t)need + 1) * 2;
        char *p = base_realloc(b->p, cap);
        if (p) {
            b->p = p;
            b->cap = cap;
        }
    }
    if (need >= 0 && b->n + (size_t)need + 1 <= b->cap) {
        vsnprintf(b->p + b->n, (size_t)need + 1, fmt, again);
        b->n += (size_t)need;
    }
    va_end(again);
}

__attribute__((format(printf, 2, 3))) static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(b, fmt, ap);
    va_end(ap);
}

/* s as a JSON string. */
static void put_str(struct buf *b, const char *s)
{
    put(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(b, "\\%c", c);
        else if (c < 0x20)
            put(b, "\\u%04x", c);
        else
            put(b, "%c", c);
    }
    put(b, "\"");
}

#define MAX_STREAMS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    enum api_rep_kind kind;
    struct buf text;  /* the lines for stderr */
    struct buf lines; /* the same, as JSON strings */
    struct buf facts; /* ,"key":value members */
    struct buf times, allocs, stacks_json;
    const void *streams[MAX_STREAMS];
    int n_streams;
    char head[512]; /* the headline, for the trace's markers */
    double at_us[2];  /* "at" and "earlier_at": of streams[0] and [1] */
    struct rep_stack stacks[REP_STACKS];
    int n_stacks;
} cur;

static char header[512];
static unsigned long printed;
static FILE *json;
static char json_path[4096];
static unsigned long written;

static void reset(struct buf *b)
{
    b->n = 0;
    if (b->p)
        b->p[0] = '\0';
}

void api_rep_begin(enum api_rep_kind kind)
{
    pthread_mutex_lock(&lock);
    cur.kind = kind;
    reset(&cur.text);
    reset(&cur.lines);
    reset(&cur.facts);
    reset(&cur.times);
    reset(&cur.allocs);
    reset(&cur.stacks_json);
    cur.n_streams = cur.n_stacks = 0;
    cur.head[0] = '\0';
    cur.at_us[0] = cur.at_us[1] = NAN;
}

/* The report that stands leaves a marker on the trace's track of each
 * stream it names, named by its headline up to the first colon
 * ("allocator check (cross-stream-reuse)"). */
static void mark_streams(void)
{
    void (*mark)(const void *, const char *, const char *, uint64_t) = API_TOOL(mark);
    if (!mark || !cur.n_streams)
        return;
    char name[96];
    size_t n = strcspn(cur.head, ":");
    snprintf(name, sizeof name, "%.*s", (int)(n ? n : strlen(cur.head)), cur.head);
    for (int i = 0; i < cur.n_streams; i++) {
        double us = i < 2 ? cur.at_us[i] : NAN;
        mark(cur.streams[i], name[0] ? name : kind_names[cur.kind], cur.head,
             isfinite(us) && us >= 0 ? (uint64_t)llround(us * 1e6) : UINT64_MAX);
    }
}

static void vline(bool first, const char *fmt, va_list ap)
{
    struct buf one = {NULL, 0, 0};
    vput(&one, fmt, ap);
    put(&cur.text, "%s%s\n", first ? "aclsim: " : "aclsim:   ", one.p ? one.p : "");
    if (first)
        snprintf(cur.head, sizeof cur.head, "%s", one.p ? one.p : "");
    put(&cur.lines, "%s", cur.lines.n ? "," : "");
    put_str(&cur.lines, one.p);
    base_free(one.p);
}

void api_rep_line(bool first, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(first, fmt, ap);
    va_end(ap);
}

void api_rep_stream(const void *stream)
{
    for (int i = 0; i < cur.n_streams; i++)
        if (cur.streams[i] == stream)
            return;
    if (stream && cur.n_streams < MAX_STREAMS)
        cur.streams[cur.n_streams++] = stream;
}

void api_rep_op(const char *role, const char *type, uint64_t seq, const void *stream)
{
    put(&cur.facts, ",\"%s\":{\"type\":", role);
    put_str(&cur.facts, type);
    put(&cur.facts, ",\"seq\":%llu,\"stream\":\"%p\"}", (unsigned long long)seq, stream);
    api_rep_stream(stream);
}

void api_rep_range(const void *start, size_t bytes)
{
    put(&cur.facts, ",\"range\":{\"start\":\"%p\",\"end\":\"%p\",\"bytes\":%zu}", start,
        (const void *)((const char *)start + bytes), bytes);
}

void api_rep_time(const char *name, double us)
{
    if (strcmp(name, "at") == 0)
        cur.at_us[0] = us;
    else if (strcmp(name, "earlier_at") == 0)
        cur.at_us[1] = us;
    if (isfinite(us))
        put(&cur.times, "%s\"%s\":%.3f", cur.times.n ? "," : "", name, us);
}

void api_rep_fact(const char *key, const char *fmt, ...)
{
    struct buf v = {NULL, 0, 0};
    va_list ap;
    va_start(ap, fmt);
    vput(&v, fmt, ap);
    va_end(ap);
    put(&cur.facts, ",\"%s\":", key);
    put_str(&cur.facts, v.p);
    base_free(v.p);
}

static void put_frame(struct buf *b, const struct base_frame *f)
{
    put(b, "{\"pc\":\"0x%lx\",\"function\":", (unsigned long)f->pc);
    put_str(b, f->function);
    put(b, ",\"file\":");
    put_str(b, f->file);
    put(b, ",\"line\":%d,\"module\":", f->line);
    put_str(b, f->module);
    put(b, "}");
}

/* "p_alloc probe.c:11" for a callback, and its JSON member `key`. */
static const char *callback(const char *key, uintptr_t fn, char *text, int size)
{
    struct base_frame f;
    if (!fn || base_symbolize((const void *)fn, &f) != 0) {
        snprintf(text, (size_t)size, "0x%lx", (unsigned long)fn);
        put(&cur.allocs, ",\"%s\":{\"pc\":\"0x%lx\"}", key, (unsigned long)fn);
        return text;
    }
    put(&cur.allocs, ",\"%s\":", key);
    put_frame(&cur.allocs, &f);
    return base_frame_text(&f, text, size);
}

void api_rep_allocator(uint64_t seq, const void *obj, uintptr_t alloc_fn, uintptr_t free_fn)
{
    char a[400], f[400];
    put(&cur.allocs, "%s{\"operator_seq\":%llu,\"obj\":\"%p\"", cur.allocs.n ? "," : "",
        (unsigned long long)seq, obj);
    callback("allocFunc", alloc_fn, a, sizeof a);
    callback("freeFunc", free_fn, f, sizeof f);
    put(&cur.allocs, "}");
    api_rep_line(false, "operator #%llu took its blocks from allocator obj %p: allocFunc %s, "
                 "freeFunc %s", (unsigned long long)seq, obj, a, f);
}

void api_rep_stack(const char *what, void *const *frames, int n)
{
    struct rep_stack scratch, *s = cur.n_stacks < REP_STACKS ? &cur.stacks[cur.n_stacks++]
                                                             : &scratch;
    s->n = base_stack_user(frames, n, s->f, REP_FRAMES);
    put(&cur.text, "aclsim:   %s:\n", what);
    put(&cur.stacks_json, "%s{\"what\":", cur.stacks_json.n ? "," : "");
    put_str(&cur.stacks_json, what);
    put(&cur.stacks_json, ",\"frames\":[");
    for (int i = 0; i < s->n; i++) {
        char t[512];
        put(&cur.text, "aclsim:     #%d %s\n", i, base_frame_text(&s->f[i], t, sizeof t));
        put(&cur.stacks_json, "%s", i ? "," : "");
        put_frame(&cur.stacks_json, &s->f[i]);
    }
    if (s->n == 0)
        put(&cur.text, "aclsim:     (no frames outside aclsim)\n");
    put(&cur.stacks_json, "]}");
}

void api_rep_header(const char *text)
{
    pthread_mutex_lock(&lock);
    snprintf(header, sizeof header, "%s", text ? text : "");
    pthread_mutex_unlock(&lock);
}

/* Append the report to ACLSIM_REPORT. pre: lock held, json open. */
static void write_json(void)
{
    struct buf b = {NULL, 0, 0};
    put(&b, "%s{\"kind\":\"%s\"%s,\"streams\":[", written ? ",\n" : "", kind_names[cur.kind],
        cur.facts.p ? cur.facts.p : "");
    for (int i = 0; i < cur.n_streams; i++)
        put(&b, "%s\"%p\"", i ? "," : "", cur.streams[i]);
    put(&b, "],\"times_us\":{%s},\"allocators\":[%s],\"stacks\":[%s],\"message\":[%s]}\n]}\n",
        cur.times.p ? cur.times.p : "", cur.allocs.p ? cur.allocs.p : "",
        cur.stacks_json.p ? cur.stacks_json.p : "", cur.lines.p ? cur.lines.p : "");
    if (b.p && fseek(json, -3, SEEK_END) == 0) {
        fputs(b.p, json);
        fflush(json);
        written++;
    }
    base_free(b.p);
}

bool api_rep_end(void)
{
    bool stands = !rep_suppressed(kind_names[cur.kind], cur.stacks, cur.n_stacks);
    if (stands) {
        uint64_t limit = opt_uint(OPT_REPORT_LIMIT);
        if (limit == 0 || printed < limit) {
            if (header[0])
                fprintf(stderr, "%s\n", header);
            header[0] = '\0';
            fputs(cur.text.p ? cur.text.p : "", stderr);
        } else if (printed == limit) {
            fprintf(stderr, "aclsim: %llu reports printed (ACLSIM_REPORT_LIMIT): later ones are "
                    "counted%s but not printed\n", (unsigned long long)limit,
                    json ? " and written to ACLSIM_REPORT" : "");
        }
        printed++;
        if (json)
            write_json();
        mark_streams();
    }
    pthread_mutex_unlock(&lock);
    return stands;
}

int api_rep_configure(const char **why)
{
    static char err[600];
    const char *path = opt_str(OPT_REPORT);
    pthread_mutex_lock(&lock);
    int rc = 0;
    printed = 0; /* the limit counts from each start of the runtime */
    if (!path || strcmp(path, json_path) != 0) {
        if (json)
            fclose(json);
        json = NULL;
        json_path[0] = '\0';
        written = 0;
        if (path && (json = fopen(path, "w+")) == NULL) {
            *why = opt_invalid(OPT_REPORT, "the file cannot be created");
            rc = -1;
        } else if (path) {
            fputs("{\"reports\": [\n]}\n", json);
            fflush(json);
            snprintf(json_path, sizeof json_path, "%s", path);
        }
    }
    if (rc == 0 && rep_suppress_load(opt_str(OPT_SUPPRESS), err, sizeof err) != 0) {
        *why = opt_invalid(OPT_SUPPRESS, err);
        rc = -1;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

__attribute__((destructor)) static void report_unload(void)
{
    if (json)
        fclose(json);
    json = NULL;
    rep_suppress_free();
    base_free(cur.text.p);
    base_free(cur.lines.p);
    base_free(cur.facts.p);
    base_free(cur.times.p);
    base_free(cur.allocs.p);
    base_free(cur.stacks_json.p);
    memset(&cur, 0, sizeof cur);
}

/*
 * options.c - the run-time options of options.def: parsed once, checked,
 * cached (see options.h).
 *
 * Values live in static storage: strings are copied into fixed buffers, so
 * reading an option never allocates and never touches the environment.
 * Numbers are atomics because a reload (aclInit) may, in a careless
 * program, race with a reader on another thread; the strings are read only
 * by code that runs inside aclInit or at load.
 */
#include "options.h"
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { STR, PATH, UINT, BOOL, ENUM, SET };
enum when { LOAD, INIT };

struct entry {
    const char *name;
    enum kind kind;
    const char *def;
    uint64_t lo, hi;
    enum when when;
    const char *help;
};

static const struct entry catalogue[OPT_COUNT] = {
#define OPT(id, name, kind, def, lo, hi, when, help) {name, kind, def, lo, hi, when, help},
#include "options.def"
#undef OPT
};

#define STR_MAX PATH_MAX

static struct {
    _Atomic uint64_t num[OPT_COUNT];
    _Atomic bool set[OPT_COUNT];
    char str[OPT_COUNT][STR_MAX]; /* STR and PATH: the value or the default */
    char raw[OPT_COUNT][STR_MAX]; /* any kind: the text as set ("" unset) */
    char error[OPT_COUNT][STR_MAX + 256]; /* "" when the value is fine */
    bool nested;
} o;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Strict decimal: digits only, no sign, no blanks, no overflow. */
static int parse_uint(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The i-th '|'-separated word of list equal to s: its index, or -1. */
static int enum_index(const char *list, const char *s)
{
    size_t n = strlen(s);
    int i = 0;
    for (const char *w = list; *w; i++) {
        size_t len = strcspn(w, "|");
        if (len == n && strncmp(w, s, n) == 0)
            return i;
        w += len + (w[len] == '|');
    }
    return -1;
}

static void complain(enum opt_id id, const char *value, const char *expected)
{
    snprintf(o.error[id], sizeof o.error[id], "%s=%s is invalid: %s", catalogue[id].name, value,
             expected);
}

/* The expectation text of a kind, for complaints. */
static void expected(enum opt_id id, char *buf, size_t len)
{
    const struct entry *e = &catalogue[id];
    switch (e->kind) {
    case UINT:
        if (e->hi == UINT64_MAX)
            snprintf(buf, len, "expected a decimal number of at least %llu",
                     (unsigned long long)e->lo);
        else
            snprintf(buf, len, "expected a decimal number from %llu to %llu",
                     (unsigned long long)e->lo, (unsigned long long)e->hi);
        break;
    case BOOL:
        snprintf(buf, len, "expected 0 or 1");
        break;
    case ENUM: {
        snprintf(buf, len, "expected one of ");
        size_t at = strlen(buf);
        for (const char *c = e->def; *c && at + 2 < len; c++) {
            if (*c == '|') {
                buf[at++] = ',';
                buf[at++] = ' ';
            } else {
                buf[at++] = *c;
            }
        }
        buf[at] = '\0';
        break;
    }
    default:
        snprintf(buf, len, "expected at most %d characters", STR_MAX - 1);
        break;
    }
}

static void read_one(enum opt_id id)
{
    const struct entry *e = &catalogue[id];
    const char *v = getenv(e->name);
    bool set = v && *v;
    uint64_t num = 0;
    char want[160];
    o.str[id][0] = '\0';
    o.error[id][0] = '\0';
    snprintf(o.raw[id], STR_MAX, "%s", v ? v : "");
    switch (e->kind) {
    case UINT:
    case BOOL:
        if (*e->def)
            parse_uint(e->def, &num);
        if (set) {
            uint64_t got;
            if (parse_uint(v, &got) == 0 && got >= e->lo && got <= e->hi) {
                num = got;
            } else {
                expected(id, want, sizeof want);
                complain(id, v, want);
                set = false;
            }
        }
        break;
    case ENUM:
        if (set) {
            int i = enum_index(e->def, v);
            if (i >= 0) {
                num = (uint64_t)i;
            } else {
                expected(id, want, sizeof want);
                complain(id, v, want);
                set = false;
            }
        }
        break;
    case STR:
    case PATH:
        if (set && strlen(v) >= STR_MAX) {
            expected(id, want, sizeof want);
            complain(id, v, want);
            set = false;
        }
        snprintf(o.str[id], STR_MAX, "%s", set ? v : e->def);
        break;
    case SET:
        break;
    }
    atomic_store_explicit(&o.num[id], num, memory_order_relaxed);
    atomic_store_explicit(&o.set[id], set, memory_order_relaxed);
}

/* Whether this copy lives in a link-map namespace other than the
 * program's: only dlmopen puts it there (the ascend backend does). */
static bool detect_nested(void)
{
    Dl_info info;
    struct link_map *self = NULL;
    Lmid_t ns = LM_ID_BASE;
    if (!dladdr1((void *)(uintptr_t)detect_nested, &info, (void **)&self, RTLD_DL_LINKMAP) ||
        !self)
        return false;
    /* In glibc a handle is the object's link map. */
    if (dlinfo(self, RTLD_DI_LMID, &ns) != 0)
        return false;
    return ns != LM_ID_BASE;
}

/* Runs before the other constructors of the library, which read options. */
__attribute__((constructor(101))) static void opt_load(void)
{
    o.nested = detect_nested();
    for (int i = 0; i < OPT_COUNT; i++) {
        read_one((enum opt_id)i);
        /* Nothing may run before aclInit reports it: say it now, and what
         * follows (aclInit refuses to start while any value is bad). */
        if (catalogue[i].when == LOAD && o.error[i][0] && !o.nested)
            fprintf(stderr, "aclsim: %s; aclInit fails until it is fixed\n", o.error[i]);
    }
}

int opt_reload(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < OPT_COUNT; i++)
        if (catalogue[i].when == INIT)
            read_one((enum opt_id)i);
    pthread_mutex_unlock(&lock);
    return opt_error() ? -1 : 0;
}

const char *opt_error(void)
{
    for (int i = 0; i < OPT_COUNT; i++)
        if (o.error[i][0])
            return o.error[i];
    return NULL;
}

const char *opt_invalid(enum opt_id id, const char *expected_text)
{
    pthread_mutex_lock(&lock);
    complain(id, o.raw[id], expected_text);
    pthread_mutex_unlock(&lock);
    if (catalogue[id].when == LOAD && !o.nested)
        fprintf(stderr, "aclsim: %s; aclInit fails until it is fixed\n", o.error[id]);
    return o.error[id];
}

const char *opt_str(enum opt_id id)
{
    return o.str[id][0] ? o.str[id] : NULL;
}

uint64_t opt_uint(enum opt_id id)
{
    return atomic_load_explicit(&o.num[id], memory_order_relaxed);
}

bool opt_bool(enum opt_id id)
{
    return opt_uint(id) != 0;
}

unsigned opt_enum(enum opt_id id)
{
    return (unsigned)opt_uint(id);
}

bool opt_is_set(enum opt_id id)
{
    return atomic_load_explicit(&o.set[id], memory_order_relaxed);
}

const char *opt_name(enum opt_id id)
{
    return catalogue[id].name;
}

const char *opt_help(enum opt_id id)
{
    return catalogue[id].help;
}

bool opt_nested(void)
{
    return o.nested;
}

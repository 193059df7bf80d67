/*
 * fault.c - the fault-point machinery behind fault.h: arming, hit counts,
 * aclsim's rules (always, n-th hit, from n-th hit, random under a seed, and
 * "slow": every hit sleeps, for tests of what a slow call blocks) and
 * the libfiu glue (fiu_fail, so fiu-run, fiu-ctrl and fiu_enable reach every
 * point, wildcards included).
 *
 * The rules are aclsim's own rather than libfiu's fiu_enable_random and
 * fiu_enable_external: the random ones are reproducible per rule whatever
 * order libfiu was seeded and initialised in, and removing a rule cannot be
 * shadowed by a one-time exact-name point as libfiu's wildcards can.
 */
/* libfiu compiles its core calls away unless FIU_ENABLE is defined. */
#define FIU_ENABLE 1
#include <fiu.h>
#include <fiu-control.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/mem.h"
#include "base/options.h"
#include "fault.h"

struct entry {
    const char *name, *what;
};

static const struct entry catalogue[FLT_COUNT] = {
#define FLT(id, name, code, msg, text, what) {name, what},
#include "points.def"
#undef FLT
};

_Atomic int flt_armed;

struct rule {
    struct rule *next;
    char *pattern;
    enum flt_mode mode;
    unsigned long n, seen;
    double probability;
    uint64_t prng;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rule *rules;
static _Atomic unsigned long hits[FLT_COUNT];
static _Thread_local int fired; /* point + 1, 0 for none */
static char *count_path;

/* In a counting run (ACLSIM_FAULT_COUNT), the call path of every hit: a
 * hash of the stack that reached it, in hit order, so that a campaign can
 * take one case per distinct path (campaign.py --distinct-paths). */
#define PATH_FRAMES 12
static struct {
    uint32_t *h;
    size_t n, cap;
} paths[FLT_COUNT];

/* Note the path of the current hit of p. pre: lock held, counting. */
static void note_path(enum flt_point p)
{
    void *frames[PATH_FRAMES];
    int n = backtrace(frames, PATH_FRAMES);
    uint32_t h = 2166136261u;
    for (int i = 2; i < n; i++) { /* past note_path and flt_fire */
        uintptr_t a = (uintptr_t)frames[i];
        for (unsigned b = 0; b < sizeof a; b++)
            h = (h ^ (uint32_t)((a >> (8 * b)) & 0xff)) * 16777619u;
    }
    if (paths[p].n == paths[p].cap) {
        size_t c = paths[p].cap ? paths[p].cap * 2 : 16;
        uint32_t *v = realloc(paths[p].h, c * sizeof *v); /* not base_malloc: its hook is us */
        if (!v)
            return;
        paths[p].h = v;
        paths[p].cap = c;
    }
    paths[p].h[paths[p].n++] = h;
}

const char *flt_name(enum flt_point p)
{
    return catalogue[p].name;
}

const char *flt_what(enum flt_point p)
{
    return catalogue[p].what;
}

enum flt_point flt_find(const char *name)
{
    for (int i = 0; i < FLT_COUNT; i++)
        if (strcmp(catalogue[i].name, name) == 0)
            return (enum flt_point)i;
    return FLT_COUNT;
}

static int matches(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);
    if (n > 0 && pattern[n - 1] == '*')
        return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

/* Whether pattern names at least one catalogued point. */
static int any_match(const char *pattern)
{
    for (int i = 0; i < FLT_COUNT; i++)
        if (matches(pattern, catalogue[i].name))
            return 1;
    return 0;
}

/* The library's host allocations (base/mem.c) ask this while armed. */
static int host_malloc_hit(void)
{
    return flt_fire(FLT_LIB_HOST_MALLOC);
}

void flt_arm(void)
{
    pthread_mutex_lock(&lock);
    if (!atomic_load_explicit(&flt_armed, memory_order_relaxed)) {
        fiu_init(0);
        base_mem_set_fail_hook(host_malloc_hit);
        atomic_store_explicit(&flt_armed, 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
}

/* xorshift64*: reproducible per rule. */
static double next_uniform(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

int flt_fire(enum flt_point p)
{
    atomic_fetch_add_explicit(&hits[p], 1, memory_order_relaxed);
    const char *name = catalogue[p].name;
    int fail = 0;
    unsigned long delay_ms = 0;
    pthread_mutex_lock(&lock);
    if (count_path)
        note_path(p);
    for (struct rule *r = rules; r; r = r->next) {
        if (!matches(r->pattern, name))
            continue;
        r->seen++;
        switch (r->mode) {
        case FLT_ALWAYS:
            fail = 1;
            break;
        case FLT_NTH:
            fail |= r->seen == r->n;
            break;
        case FLT_FROM_NTH:
            fail |= r->seen >= r->n;
            break;
        case FLT_RANDOM:
            fail |= next_uniform(&r->prng) < r->probability;
            break;
        case FLT_DELAY:
            delay_ms += r->n;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    if (delay_ms) {
        struct timespec t = {(time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) != 0 && errno == EINTR)
            ;
    }
    if (!fail)
        fail = fiu_fail(name) != 0;
    if (fail)
        fired = (int)p + 1;
    return fail;
}

int flt_rule_add(const char *pattern, enum flt_mode mode, unsigned long n, double probability,
                 unsigned seed)
{
    if (!any_match(pattern) || ((mode == FLT_NTH || mode == FLT_FROM_NTH) && n == 0))
        return -1;
    struct rule *r = base_malloc_plain(sizeof *r);
    char *copy = base_strdup_plain(pattern);
    if (!r || !copy) {
        base_free(r);
        base_free(copy);
        return -1;
    }
    *r = (struct rule){.pattern = copy, .mode = mode, .n = n, .probability = probability,
                       .prng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0xBF58476D1CE4E5B9ull)};
    if (r->prng == 0)
        r->prng = 1;
    flt_arm();
    pthread_mutex_lock(&lock);
    r->next = rules;
    rules = r;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* Unlink and free the rules matching pattern (all when NULL). */
static int drop_rules(const char *pattern)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    for (struct rule **pp = &rules; *pp;) {
        struct rule *r = *pp;
        if (!pattern || strcmp(r->pattern, pattern) == 0) {
            *pp = r->next;
            base_free(r->pattern);
            base_free(r);
            n++;
        } else {
            pp = &r->next;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}

int flt_rule_remove(const char *pattern)
{
    int n = drop_rules(pattern);
    /* libfiu keeps exact names and wildcards apart (an exact one-time point
     * shadows a wildcard), so every matching exact name is disabled too. */
    if (atomic_load_explicit(&flt_armed, memory_order_relaxed)) {
        for (int i = 0; i < FLT_COUNT; i++)
            if (!pattern || matches(pattern, catalogue[i].name))
                fiu_disable(catalogue[i].name);
        if (pattern)
            fiu_disable(pattern);
    }
    return n;
}

unsigned long flt_hits(enum flt_point p)
{
    return atomic_load_explicit(&hits[p], memory_order_relaxed);
}

enum flt_point flt_take_fired(void)
{
    int f = fired;
    fired = 0;
    return f ? (enum flt_point)(f - 1) : FLT_COUNT;
}

/* One "name[@n[+]]" item of ACLSIM_FAULT: 0, or -1 with *why set. n is a
 * decimal count from 1, nothing may follow it but one '+'. */
static int parse_item(char *item, enum flt_mode *mode, unsigned long *n, const char **why)
{
    char *at = strchr(item, '@');
    *mode = FLT_ALWAYS;
    *n = 0;
    if (!at)
        return 0;
    *at++ = '\0';
    unsigned long v = 0;
    const char *c = at;
    for (; *c >= '0' && *c <= '9'; c++) {
        if (v > (ULONG_MAX - 9) / 10) {
            *why = "the count is too large";
            return -1;
        }
        v = v * 10 + (unsigned long)(*c - '0');
    }
    if (c == at || v == 0) {
        *why = "expected a hit count from 1 after '@' (name@n, name@n+)";
        return -1;
    }
    if (*c == '+')
        c++;
    if (*c) {
        *why = "expected nothing but '+' after the hit count (name@n, name@n+)";
        return -1;
    }
    *mode = at[strlen(at) - 1] == '+' ? FLT_FROM_NTH : FLT_NTH;
    *n = v;
    return 0;
}

/* ACLSIM_FAULT=name[@n[+]][,...]: either every item is valid and added, or
 * none is and the option is reported invalid. */
static void rules_from_env(const char *spec)
{
    char *copy = base_strdup_plain(spec), *save = NULL;
    if (!copy)
        return;
    char why[160] = "";
    for (char *item = strtok_r(copy, ",", &save); item && !why[0];
         item = strtok_r(NULL, ",", &save)) {
        enum flt_mode mode;
        unsigned long n;
        const char *bad = NULL;
        if (parse_item(item, &mode, &n, &bad) != 0)
            snprintf(why, sizeof why, "%s", bad);
        else if (!any_match(item))
            snprintf(why, sizeof why, "no fault point matches '%s' (scons faults lists them)", item);
    }
    base_free(copy);
    if (why[0]) {
        opt_invalid(OPT_FAULT, why);
        return;
    }
    copy = base_strdup_plain(spec);
    if (!copy)
        return;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        enum flt_mode mode;
        unsigned long n;
        const char *bad;
        if (parse_item(item, &mode, &n, &bad) == 0)
            flt_rule_add(item, mode, n, 0, 0);
    }
    base_free(copy);
}

static void write_counts(void)
{
    FILE *f = fopen(count_path, "w");
    if (!f) {
        fprintf(stderr, "aclsim: ACLSIM_FAULT_COUNT=%s: cannot write the hit counts: %s\n",
                count_path, strerror(errno));
        return;
    }
    for (int i = 0; i < FLT_COUNT; i++)
        fprintf(f, "%s %lu\n", catalogue[i].name, flt_hits((enum flt_point)i));
    /* "path <point> <hash of hit 1> <hash of hit 2> ...", as far as kept */
    pthread_mutex_lock(&lock);
    for (int i = 0; i < FLT_COUNT; i++) {
        if (!paths[i].n)
            continue;
        fprintf(f, "path %s", catalogue[i].name);
        for (size_t k = 0; k < paths[i].n; k++)
            fprintf(f, " %08x", paths[i].h[k]);
        fputc('\n', f);
        free(paths[i].h);
        paths[i].h = NULL;
        paths[i].n = paths[i].cap = 0;
    }
    pthread_mutex_unlock(&lock);
    if (fclose(f) != 0)
        fprintf(stderr, "aclsim: ACLSIM_FAULT_COUNT=%s: cannot write the hit counts: %s\n",
                count_path, strerror(errno));
}

/* After the options are read (options.c runs at priority 101). */
__attribute__((constructor(102))) static void fault_load(void)
{
    /* A copy loaded as aclsim's own "real" runtime (the ascend backend's
     * loopback) leaves the program's faults to the copy the program calls. */
    if (opt_nested())
        return;
    const char *spec = opt_str(OPT_FAULT), *count = opt_str(OPT_FAULT_COUNT);
    if (opt_is_set(OPT_FIU_ENABLE) || opt_is_set(OPT_FIU_CTRL_FIFO) || spec || count)
        flt_arm();
    if (spec)
        rules_from_env(spec);
    if (count) {
        /* Say now, not silently at exit, when the file cannot be written. */
        FILE *f = fopen(count, "w");
        if (!f) {
            char why[160];
            snprintf(why, sizeof why, "the file cannot be created: %s", strerror(errno));
            opt_invalid(OPT_FAULT_COUNT, why);
            return;
        }
        fclose(f);
        count_path = base_strdup_plain(count); /* written when the library unloads */
    }
}

/* Runs at exit, after the program's own atexit handlers (and, for a library
 * loaded at start-up, after every atexit handler: those a library registers
 * from its constructor run after the loader's destructors, too late). */
__attribute__((destructor)) static void fault_unload(void)
{
    if (count_path)
        write_counts();
    drop_rules(NULL);
    base_free(count_path);
    count_path = NULL;
}

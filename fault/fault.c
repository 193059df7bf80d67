/*
 * fault.c - the fault-point machinery behind fault.h: arming, hit counts,
 * aclsim's rules (always, n-th hit, from n-th hit, random under a seed) and
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
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fault.h"

struct entry {
    const char *name, *what;
};

static const struct entry catalogue[FLT_COUNT] = {
#define FLT(id, name, code, msg, text, what) {name, what},
#include "points.def"
#undef FLT
};

int flt_armed;

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

void flt_arm(void)
{
    pthread_mutex_lock(&lock);
    if (!flt_armed) {
        fiu_init(0);
        flt_armed = 1;
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
    pthread_mutex_lock(&lock);
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
        }
    }
    pthread_mutex_unlock(&lock);
    if (!fail)
        fail = fiu_fail(name) != 0;
    if (fail)
        fired = (int)p + 1;
    return fail;
}

int flt_rule_add(const char *pattern, enum flt_mode mode, unsigned long n, double probability,
                 unsigned seed)
{
    int any = 0;
    for (int i = 0; i < FLT_COUNT; i++)
        any |= matches(pattern, catalogue[i].name);
    if (!any || ((mode == FLT_NTH || mode == FLT_FROM_NTH) && n == 0))
        return -1;
    struct rule *r = calloc(1, sizeof *r);
    char *copy = strdup(pattern);
    if (!r || !copy) {
        free(r);
        free(copy);
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
            free(r->pattern);
            free(r);
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
    if (flt_armed) {
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

/* ACLSIM_FAULT=name[@n[+]][,...] */
static void rules_from_env(const char *spec)
{
    char *copy = strdup(spec), *save = NULL;
    if (!copy)
        return;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *at = strchr(item, '@');
        enum flt_mode mode = FLT_ALWAYS;
        unsigned long n = 0;
        if (at) {
            *at++ = '\0';
            char *end;
            n = strtoul(at, &end, 10);
            mode = *end == '+' ? FLT_FROM_NTH : FLT_NTH;
        }
        if (flt_rule_add(item, mode, n, 0, 0) != 0)
            fprintf(stderr, "aclsim: ACLSIM_FAULT: no fault point matches '%s'\n", item);
    }
    free(copy);
}

static void write_counts(void)
{
    FILE *f = fopen(count_path, "w");
    if (!f)
        return;
    for (int i = 0; i < FLT_COUNT; i++)
        fprintf(f, "%s %lu\n", catalogue[i].name, flt_hits((enum flt_point)i));
    fclose(f);
}

__attribute__((constructor)) static void fault_load(void)
{
    /* A copy loaded as aclsim's own "real" runtime (ACLSIM_NESTED, the
     * ascend backend's loopback) leaves the program's faults to the copy
     * the program calls. */
    if (getenv("ACLSIM_NESTED"))
        return;
    const char *spec = getenv("ACLSIM_FAULT"), *count = getenv("ACLSIM_FAULT_COUNT");
    if (getenv("FIU_ENABLE") || getenv("FIU_CTRL_FIFO") || (spec && *spec) || (count && *count))
        flt_arm();
    if (spec && *spec)
        rules_from_env(spec);
    if (count && *count)
        count_path = strdup(count); /* written when the library unloads */
}

/* Runs at exit, after the program's own atexit handlers (and, for a library
 * loaded at start-up, after every atexit handler: those a library registers
 * from its constructor run after the loader's destructors, too late). */
__attribute__((destructor)) static void fault_unload(void)
{
    if (count_path)
        write_counts();
    drop_rules(NULL);
    free(count_path);
    count_path = NULL;
}

/*
 * devtask.c - the work of device tasks on device bytes (sim.h):
 * SDMA reductions, the DSA's random numbers, the overflow status words.
 * stream.c puts them in their stream's queue and task.c runs and times
 * them when the stream reaches them; this file only computes.
 *
 * Reductions: dst = dst op src element by element (CANN's reduce is an SDMA
 * copy with an inline operation, aclrtReduceAsync's count in bytes; a
 * partial trailing element is left alone). Floats are combined in fp32 and
 * rounded to nearest even back to fp16/bf16; integers wrap (the SDMA's
 * saturation behaviour is not documented).
 *
 * Random numbers: CANN's runtime hands the DSA algorithm 0, which its
 * comments name Philox4x32_10 (random_num_task.cc), a 64-bit seed as the
 * key and the 16-byte counter at randomCounterAddr. The simulator runs
 * Philox4x32-10 as published (Salmon et al., SC'11; Random123's
 * known-answer vectors hold), reads the counter as four little-endian
 * words (word 0 lowest), draws 32-bit words in order, four per counter
 * value, and writes the counter back advanced past the blocks it used, so
 * the next task continues the stream. How words become values is aclsim's
 * (the DSA's mapping is not published): uniform floats min + u (max - min)
 * with u = (w >> 8) / 2^24 in [0, 1), computed in fp32 and rounded to the
 * type; uniform integers min + floor(w r / 2^32) (64-bit types: two words,
 * w r / 2^64) with r = max - min, min itself when max <= min; normal values
 * by Box-Muller on word pairs (u1 = (w + 1) / 2^32, u2 = w / 2^32), mean +
 * stddev z; the truncated normal redraws |z| > 2; a dropout bitmask has
 * bit i (of byte i / 8, least significant first) set when element i is
 * kept, i.e. u >= ratio, so a fraction ratio is dropped.
 *
 * Overflow status: nothing overflows on the simulator, so the status
 * words read 0 and a reset has nothing to clear.
 */
#include <math.h>
#include <string.h>
#include "base/mem.h"
#include "queue.h"

#define CHUNK 65536u

/* ---- element types ---- */

static size_t elem_size(enum sim_elem t)
{
    switch (t) {
    case SIM_EL_I8:
        return 1;
    case SIM_EL_F16:
    case SIM_EL_BF16:
    case SIM_EL_I16:
        return 2;
    case SIM_EL_I64:
    case SIM_EL_U64:
        return 8;
    default:
        return 4;
    }
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1fu) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else { /* subnormal: normalise */
        uint32_t k = 0;
        while (!(man & 0x400u)) {
            man <<= 1;
            k++;
        }
        bits = sign | ((113u - k) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Round n >> shift to nearest, ties to even. pre: 0 < shift < 32. */
static uint32_t round_shift(uint32_t n, uint32_t shift)
{
    uint32_t q = n >> shift, rem = n & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
    return q + (rem > mid || (rem == mid && (q & 1u)));
}

static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xffu)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
    int32_t e = (int32_t)exp - 112;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        return (uint16_t)(sign | round_shift(man | 0x800000u, (uint32_t)(14 - e)));
    }
    /* A carry out of the mantissa moves into the exponent, as it should. */
    return (uint16_t)(sign | round_shift(((uint32_t)e << 23) | man, 13));
}

static float bf16_to_f32(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* a quiet NaN */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* Element i of buf as a float (float types). */
static float get_f(const unsigned char *p, enum sim_elem t)
{
    uint16_t h;
    float f;
    switch (t) {
    case SIM_EL_F16:
        memcpy(&h, p, 2);
        return f16_to_f32(h);
    case SIM_EL_BF16:
        memcpy(&h, p, 2);
        return bf16_to_f32(h);
    default:
        memcpy(&f, p, 4);
        return f;
    }
}

static void put_f(unsigned char *p, enum sim_elem t, float f)
{
    uint16_t h;
    switch (t) {
    case SIM_EL_F16:
        h = f32_to_f16(f);
        memcpy(p, &h, 2);
        break;
    case SIM_EL_BF16:
        h = f32_to_bf16(f);
        memcpy(p, &h, 2);
        break;
    default:
        memcpy(p, &f, 4);
        break;
    }
}

static bool is_float(enum sim_elem t)
{
    return t == SIM_EL_F32 || t == SIM_EL_F16 || t == SIM_EL_BF16;
}

/* An integer element, sign- or zero-extended. */
static int64_t get_i(const unsigned char *p, enum sim_elem t)
{
    int8_t a;
    int16_t b;
    int32_t c;
    uint32_t d;
    int64_t e;
    switch (t) {
    case SIM_EL_I8:
        memcpy(&a, p, 1);
        return a;
    case SIM_EL_I16:
        memcpy(&b, p, 2);
        return b;
    case SIM_EL_I32:
        memcpy(&c, p, 4);
        return c;
    case SIM_EL_U32:
        memcpy(&d, p, 4);
        return d;
    default:
        memcpy(&e, p, 8);
        return e;
    }
}

/* Store the low bytes of v (wrapping). */
static void put_i(unsigned char *p, enum sim_elem t, uint64_t v)
{
    uint8_t a = (uint8_t)v;
    uint16_t b = (uint16_t)v;
    uint32_t c = (uint32_t)v;
    switch (elem_size(t)) {
    case 1:
        memcpy(p, &a, 1);
        break;
    case 2:
        memcpy(p, &b, 2);
        break;
    case 4:
        memcpy(p, &c, 4);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

/* Whether [p, p+n) lies inside one live device block. */
static bool live(const void *p, uint64_t n)
{
    struct sim_block b;
    return sim_mem_lookup(p, &b) && (uint64_t)((const char *)p - (const char *)b.start) + n <=
                                        b.usable;
}

/* ---- reductions ---- */

static void combine(unsigned char *d, const unsigned char *s, enum sim_elem t,
                    enum sim_reduce_op op)
{
    if (is_float(t)) {
        float a = get_f(d, t), b = get_f(s, t);
        put_f(d, t, op == SIM_RED_SUM ? a + b : op == SIM_RED_MAX ? fmaxf(a, b) : fminf(a, b));
        return;
    }
    int64_t a = get_i(d, t), b = get_i(s, t);
    uint64_t r = op == SIM_RED_SUM ? (uint64_t)a + (uint64_t)b
                 : op == SIM_RED_MAX ? (uint64_t)(a > b ? a : b)
                                     : (uint64_t)(a < b ? a : b);
    put_i(d, t, r);
}

static enum sim_rc reduce(const struct sim_devtask *b)
{
    if (!live(b->dst, b->n) || !live(b->src, b->n))
        return SIM_EINVAL;
    size_t es = elem_size(b->type);
    uint64_t total = b->n / es * es;
    unsigned char *d = base_malloc(CHUNK), *s = base_malloc(CHUNK);
    enum sim_rc rc = d && s ? SIM_OK : SIM_EHOSTMEM;
    for (uint64_t off = 0; rc == SIM_OK && off < total; off += CHUNK) {
        size_t k = (size_t)(total - off < CHUNK ? total - off : CHUNK);
        rc = sim_mem_copy(d, false, (char *)b->dst + off, true, k);
        if (rc == SIM_OK)
            rc = sim_mem_copy(s, false, (const char *)b->src + off, true, k);
        if (rc != SIM_OK)
            break;
        for (size_t i = 0; i < k; i += es)
            combine(d + i, s + i, b->type, b->op);
        rc = sim_mem_copy((char *)b->dst + off, true, d, false, k);
    }
    base_free(d);
    base_free(s);
    return rc;
}

/* ---- Philox4x32-10 ---- */

void sim_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        if (round) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* A stream of 32-bit words from a counter and a key. */
struct gen {
    uint32_t ctr[4], key[2], out[4];
    unsigned used; /* words of out[] handed out */
    bool have_z;   /* a second normal value kept from the last pair */
    double z;
};

static uint32_t next_word(struct gen *g)
{
    if (g->used == 4) {
        sim_philox4x32_10(g->ctr, g->key, g->out);
        for (int i = 0; i < 4 && ++g->ctr[i] == 0; i++)
            ; /* 128-bit increment */
        g->used = 0;
    }
    return g->out[g->used++];
}

/* u in [0, 1) with 24 bits, exact in fp32. */
static float unit24(struct gen *g)
{
    return (float)(next_word(g) >> 8) * (1.0f / 16777216.0f);
}

static double std_normal(struct gen *g)
{
    if (g->have_z) {
        g->have_z = false;
        return g->z;
    }
    double u1 = ((double)next_word(g) + 1.0) / 4294967296.0; /* (0, 1] */
    double u2 = (double)next_word(g) / 4294967296.0;         /* [0, 1) */
    double r = sqrt(-2.0 * log(u1)), a = 6.283185307179586476925 * u2;
    g->z = r * sin(a);
    g->have_z = true;
    return r * cos(a);
}

/* A parameter's bytes: its value, or `n` bytes read from its address. */
static enum sim_rc param(const struct sim_rand_param *p, size_t n, uint64_t *v)
{
    *v = 0;
    if (!p->addr) {
        *v = p->raw;
        return SIM_OK;
    }
    const void *at = (const void *)(uintptr_t)p->raw;
    if (!live(at, n))
        return SIM_EINVAL;
    return sim_mem_copy(v, false, at, true, n);
}

/* A float parameter of element type t. */
static float param_f(uint64_t raw, enum sim_elem t)
{
    unsigned char b[8];
    memcpy(b, &raw, 8);
    return get_f(b, t);
}

/* The high 64 bits of a * b. */
static uint64_t mulhi64(uint64_t a, uint64_t b)
{
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* A random task's parameters as numbers: the float bounds, mean and
 * stddev, or ratio (fa, fb), or the lowest integer and the range above it. */
struct rand_nums {
    float fa, fb;
    int64_t ia;
    uint64_t range;
};

static struct rand_nums rand_nums(const struct sim_devtask *b, uint64_t r1, uint64_t r2)
{
    struct rand_nums k = {0, 0, 0, 0};
    if (is_float(b->type)) {
        k.fa = param_f(r1, b->type);
        k.fb = param_f(r2, b->type);
    } else {
        unsigned char x[8], y[8];
        memcpy(x, &r1, 8);
        memcpy(y, &r2, 8);
        k.ia = get_i(x, b->type);
        int64_t ib = get_i(y, b->type);
        bool wide_unsigned = b->type == SIM_EL_U64;
        bool above = wide_unsigned ? (uint64_t)ib > (uint64_t)k.ia : ib > k.ia;
        k.range = above ? (uint64_t)ib - (uint64_t)k.ia : 0;
    }
    return k;
}

/* One element of a uniform or normal distribution, es bytes at p. */
static void draw(const struct sim_devtask *b, const struct rand_nums *k, struct gen *g,
                 unsigned char *p, size_t es)
{
    if (b->dist == SIM_RAND_UNIFORM && is_float(b->type)) {
        put_f(p, b->type, k->fa + unit24(g) * (k->fb - k->fa));
    } else if (b->dist == SIM_RAND_UNIFORM) {
        uint64_t off;
        if (es == 8) {
            uint64_t w = next_word(g);
            w |= (uint64_t)next_word(g) << 32;
            off = mulhi64(w, k->range);
        } else {
            off = ((uint64_t)next_word(g) * k->range) >> 32;
        }
        put_i(p, b->type, (uint64_t)k->ia + off);
    } else {
        double z = std_normal(g);
        while (b->dist == SIM_RAND_TRUNC_NORMAL && fabs(z) > 2.0)
            z = std_normal(g);
        put_f(p, b->type, (float)((double)k->fa + (double)k->fb * z));
    }
}

static enum sim_rc random_numbers(const struct sim_devtask *b, uint64_t *bytes)
{
    size_t es = elem_size(b->type);
    uint64_t seed, num, r1, r2 = 0;
    enum sim_rc rc = param(&b->seed, 8, &seed);
    if (rc == SIM_OK)
        rc = param(&b->num, 8, &num);
    if (rc == SIM_OK)
        rc = param(&b->p1, es, &r1);
    if (rc == SIM_OK && b->dist != SIM_RAND_DROPOUT)
        rc = param(&b->p2, es, &r2);
    if (rc != SIM_OK)
        return rc;
    uint64_t out = b->dist == SIM_RAND_DROPOUT ? num / 8 + (num % 8 != 0) : num * es;
    if ((b->dist != SIM_RAND_DROPOUT && num > UINT64_MAX / es) || !live(b->dst, out) ||
        !live(b->counter, 16))
        return SIM_EINVAL;
    struct gen g = {.key = {(uint32_t)seed, (uint32_t)(seed >> 32)}, .used = 4};
    rc = sim_mem_copy(g.ctr, false, b->counter, true, 16);
    unsigned char *buf = rc == SIM_OK ? base_calloc(1, CHUNK) : NULL;
    if (rc == SIM_OK && !buf)
        rc = SIM_EHOSTMEM;
    struct rand_nums k = rand_nums(b, r1, r2);
    uint64_t done = 0; /* bytes written */
    size_t fill = 0;   /* bytes in buf */
    for (uint64_t i = 0; rc == SIM_OK && i < num;) {
        if (b->dist == SIM_RAND_DROPOUT) {
            if (unit24(&g) >= k.fa)
                buf[fill] |= (unsigned char)(1u << (i % 8));
            i++;
            if (i % 8 == 0 || i == num)
                fill++;
        } else {
            draw(b, &k, &g, buf + fill, es);
            fill += es;
            i++;
        }
        if (fill + es > CHUNK || i == num) {
            if (fill > 0)
                rc = sim_mem_copy((char *)b->dst + done, true, buf, false, fill);
            done += fill;
            memset(buf, 0, CHUNK);
            fill = 0;
        }
    }
    base_free(buf);
    if (rc == SIM_OK)
        rc = sim_mem_copy(b->counter, true, g.ctr, false, 16);
    *bytes = out;
    return rc;
}

enum sim_rc sim_devtask_compute(const struct sim_devtask *b, uint64_t *bytes)
{
    *bytes = b->n;
    switch (b->kind) {
    case SIM_DEVTASK_REDUCE:
        return reduce(b);
    case SIM_DEVTASK_STATUS:
        /* Nothing overflowed: the status words are clean. */
        return live(b->dst, b->n) ? sim_mem_fill(b->dst, true, 0, b->n) : SIM_EINVAL;
    case SIM_DEVTASK_STATUS_RESET:
        return SIM_OK;
    default:
        return random_numbers(b, bytes);
    }
}

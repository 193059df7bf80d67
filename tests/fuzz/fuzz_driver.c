/*
 * fuzz_driver.c - the API-sequence fuzzer without libFuzzer: sequences of
 * seeded random bytes through the same decoder and model (fuzz_model.c),
 * for machines without clang and for the brief run in `scons test`.
 *
 *   fuzz_driver [--seed N] [--runs M] [--len L] [--seconds S] [--verbose]
 *   fuzz_driver --input FILE [--verbose]     replay one input (a libFuzzer
 *                                            crash file, or any bytes)
 *
 * Sequence i uses seed N + i, so a failure names the one seed that
 * reproduces it alone (--seed N+i --runs 1). Without arguments: seed 1 and
 * FUZZ_RUNS sequences (default 3000), the brief run CI makes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fuzz_model.h"

static const char *prog;
static unsigned long long current_seed;
static const char *current_input;

static void on_failure(void)
{
    if (current_input)
        fprintf(stderr, "aclsim fuzz: reproduce with: %s --input %s --verbose\n", prog,
                current_input);
    else
        fprintf(stderr, "aclsim fuzz: reproduce with: %s --seed %llu --runs 1 --verbose\n", prog,
                current_seed);
    exit(1);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int usage(void)
{
    fprintf(stderr, "usage: %s [--seed N] [--runs M] [--len L] [--seconds S] [--verbose]\n"
                    "       %s --input FILE [--verbose]\n", prog, prog);
    return 2;
}

static int replay(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return 2;
    }
    static uint8_t data[1 << 20];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    current_input = path;
    unsigned calls = fuzz_one(data, n);
    printf("fuzz_driver: %s: %zu bytes, %u calls, no mismatch\n", path, n, calls);
    return 0;
}

int main(int argc, char **argv)
{
    prog = argv[0];
    unsigned long long seed = 1, runs = 3000;
    unsigned long len = 512;
    double seconds = 0;
    const char *input = NULL;
    if (getenv("FUZZ_RUNS"))
        runs = strtoull(getenv("FUZZ_RUNS"), NULL, 10);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--verbose") == 0) {
            fuzz_verbose = 1;
            continue;
        }
        if (!v)
            return usage();
        if (strcmp(a, "--seed") == 0)
            seed = strtoull(v, NULL, 10);
        else if (strcmp(a, "--runs") == 0)
            runs = strtoull(v, NULL, 10);
        else if (strcmp(a, "--len") == 0)
            len = strtoul(v, NULL, 10);
        else if (strcmp(a, "--seconds") == 0)
            seconds = strtod(v, NULL);
        else if (strcmp(a, "--input") == 0)
            input = v;
        else
            return usage();
        i++;
    }
    if (len < 1 || len > (1ul << 20))
        return usage();
    fuzz_fail_hook = on_failure;
    if (fuzz_setup() != 0)
        return 2;
    if (input)
        return replay(input);
    static uint8_t data[1 << 20];
    unsigned long long calls = 0, done = 0;
    double start = now();
    for (unsigned long long i = 0; i < runs || seconds > 0; i++) {
        if (seconds > 0 && (i & 63) == 0 && now() - start >= seconds)
            break;
        current_seed = seed + i;
        uint64_t s = current_seed;
        size_t n = 1 + (size_t)(splitmix(&s) % len);
        for (size_t k = 0; k < n; k += 8) {
            uint64_t r = splitmix(&s);
            memcpy(data + k, &r, n - k < 8 ? n - k : 8);
        }
        calls += fuzz_one(data, n);
        done++;
    }
    double t = now() - start;
    printf("fuzz_driver: %llu sequences (%llu calls) from seed %llu in %.2f s: %.0f sequences/s, "
           "%.0f calls/s, no mismatch\n",
           done, calls, seed, t, t > 0 ? (double)done / t : 0.0, t > 0 ? (double)calls / t : 0.0);
    return 0;
}

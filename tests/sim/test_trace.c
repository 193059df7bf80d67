/*
 * tests/sim/test_trace.c - cmocka suite for sim/trace (the Chrome trace-event export).
 *
 * Drives the timing model (sim/clock) with tracing on, closes the trace and
 * reads the file back: a first check in C (the JSON shape, the events and
 * track names it must contain, exact microsecond times), then python3's json
 * module through system() (the file must parse, and its events must carry
 * the expected names, phases, tracks and byte counts). Also pins that
 * tracing is off by default, that open errors are reported, that names are
 * copied, that the trace does not change simulated times, that hooks from
 * many threads all land, and (under valgrind) that close frees everything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include "sim/clock.h"
#include "sim/trace.h"

#define MiB (UINT64_C(1) << 20)

static const struct sim_clock_params params = {
    .host_gbps = 50, .hbm_gbps = 1000, .latency_us = 1, .host_call_us = 0.5,
    .host_query_us = 0.1, .copy_engines = 4, .memcpy_gbps = 10};

/* Per test: a fresh temporary path (the file itself is created by the trace). */
struct fixture {
    char path[64];
    char script[80];
};

static int setup(void **state)
{
    static struct fixture fx;
    snprintf(fx.path, sizeof fx.path, "/tmp/aclsim-trace-XXXXXX");
    int fd = mkstemp(fx.path);
    if (fd < 0)
        return -1;
    close(fd);
    snprintf(fx.script, sizeof fx.script, "%s.py", fx.path);
    if (sim_clock_device_open(0, &params) != SIM_OK)
        return -1;
    if (sim_clock_device_open(1, &params) != SIM_OK)
        return -1;
    sim_clock_reset();
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    sim_trace_close();
    sim_clock_device_close(0);
    sim_clock_device_close(1);
    unlink(fx->path);
    unlink(fx->script);
    return 0;
}

/* The whole file as a string (caller frees). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Runs python3 on `body` (a script reading the trace at sys.argv[1] into
 * `t`, the parsed object, and `ev`, its events); its exit status. */
static int python_check(const struct fixture *fx, const char *body)
{
    FILE *f = fopen(fx->script, "w");
    assert_non_null(f);
    fprintf(f, "import json, sys\n"
               "t = json.load(open(sys.argv[1]))\n"
               "assert isinstance(t, dict)\n"
               "ev = t['traceEvents']\n"
               "assert isinstance(ev, list)\n"
               "def named(n, ph='X'):\n"
               "    return [e for e in ev if e['name'] == n and e['ph'] == ph]\n"
               "tracks = {(e['pid'], e['tid']): e['args']['name'] for e in ev\n"
               "          if e['ph'] == 'M' and e['name'] == 'thread_name'}\n"
               "procs = {e['pid']: e['args']['name'] for e in ev\n"
               "         if e['ph'] == 'M' and e['name'] == 'process_name'}\n"
               "def track(e):\n"
               "    return procs[e['pid']] + '/' + tracks[(e['pid'], e['tid'])]\n"
               "%s\n",
            body);
    assert_int_equal(fclose(f), 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 %s %s", fx->script, fx->path);
    return system(cmd);
}

/* ------------------------------------------------------------ switching on and off */

static void test_trace_is_off_until_opened(void **state)
{
    (void)state;
    assert_false(sim_trace_enabled());
    assert_int_equal(sim_trace_open(NULL), SIM_OK);
    assert_false(sim_trace_enabled());
    assert_int_equal(sim_trace_open(""), SIM_OK);
    assert_false(sim_trace_enabled());
    assert_int_equal(sim_trace_close(), SIM_OK);
    /* hooks without a trace do nothing */
    sim_trace_counter(0, "device memory", 1, 0);
    sim_trace_instant(0, "x", 0, "arg");
    sim_trace_host("h", 0, 1);
    sim_trace_op(0, 0, SIM_LINK_H2D, 0, "op", 0, 1, 1);
}

static void test_open_reports_errors(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(sim_trace_open("/nonexistent-aclsim-dir/trace.json"), SIM_EIO);
    assert_false(sim_trace_enabled());
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    assert_true(sim_trace_enabled());
    assert_int_equal(sim_trace_open(fx->path), SIM_EINVAL);
    assert_int_equal(sim_trace_close(), SIM_OK);
    assert_false(sim_trace_enabled());
    assert_int_equal(sim_trace_close(), SIM_OK);
}

/* ------------------------------------------------------------ the file */

static void test_trace_file_holds_ops_counters_and_instants(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    struct sim_clock_stream a, b;
    assert_int_equal(sim_clock_stream_init(0, &a), SIM_OK);
    assert_int_equal(sim_clock_stream_init(0, &b), SIM_OK);
    sim_clock_copy(&a, SIM_LINK_H2D, 4 * MiB, false, "upload", NULL);
    sim_clock_copy(&b, SIM_LINK_D2H, 2 * MiB, false, "download", NULL);
    sim_clock_fill(&a, MiB, false, NULL, NULL);
    sim_clock_copy(&b, SIM_LINK_HBM, 3 * MiB, false, NULL, NULL);
    sim_clock_copy(NULL, SIM_LINK_HOST, 4096, false, "host copy", NULL);
    sim_clock_sync_until(sim_clock_device_now(0), SIM_PS_FOREVER, NULL);
    sim_trace_counter(0, "device memory", 4096, sim_clock_host());
    sim_trace_counter(0, "device memory", 0, sim_clock_host() + 1);
    sim_trace_instant(0, "allocator registered", sim_clock_host(), "stream \"1\"\n\t\\");
    sim_trace_instant(-1, "host note", 5, NULL);
    assert_int_equal(sim_trace_close(), SIM_OK);

    char *text = slurp(fx->path);
    assert_true(strncmp(text, "{\"traceEvents\":[", 16) == 0);
    assert_non_null(strstr(text, "\"displayTimeUnit\":\"ns\""));
    /* 4 device ops x 3 tracks, the host copy x 1, the sync's host span x 1 */
    assert_int_equal(count(text, "\"ph\":\"X\""), 4 * 3 + 1 + 1);
    assert_int_equal(count(text, "\"name\":\"upload\""), 3);
    assert_int_equal(count(text, "\"name\":\"download\""), 3);
    assert_int_equal(count(text, "\"name\":\"memset\""), 3);
    assert_int_equal(count(text, "\"name\":\"memcpy D2D\""), 3);
    assert_int_equal(count(text, "\"name\":\"host copy\""), 1);
    assert_int_equal(count(text, "\"ph\":\"C\""), 2);
    assert_int_equal(count(text, "\"ph\":\"i\""), 2);
    assert_non_null(strstr(text, "\"args\":{\"bytes\":4194304}"));
    const char *names[] = {"\"device 0\"", "\"stream 0\"", "\"stream 1\"", "\"link H2D\"",
                           "\"link D2H\"", "\"link HBM\"", "\"copy engine 0\"",
                           "\"copy engine 1\"", "\"host\"", "\"events\""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_non_null(strstr(text, names[i]));
    assert_null(strstr(text, "\"device 1\"")); /* no work there */
    free(text);

    assert_int_equal(python_check(fx,
        "up = named('upload')\n"
        "assert sorted(track(e) for e in up) == "
        "['device 0/copy engine 0', 'device 0/link H2D', 'device 0/stream 0'], up\n"
        "assert all(e['args']['bytes'] == 4 * 2**20 for e in up)\n"
        "assert all(abs(e['dur'] - (1 + 4 * 2**20 * 20e-6)) < 1e-6 for e in up), up\n"
        "assert all(abs(e['ts'] - 0.5) < 1e-9 for e in up), up\n"
        "assert sorted(track(e) for e in named('download')) == "
        "['device 0/copy engine 1', 'device 0/link D2H', 'device 0/stream 1']\n"
        "assert [track(e) for e in named('host copy')] == ['host/host']\n"
        "assert len(named('synchronize device')) == 1\n"
        "c = named('device memory', 'C')\n"
        "assert [e['args']['value'] for e in c] == [4096, 0] and track(c[0]) == "
        "'device 0/events'\n"
        "i = named('allocator registered', 'i')\n"
        "assert len(i) == 1 and i[0]['args']['arg'] == 'stream \"1\"\\n\\t\\\\', i\n"
        "assert track(named('host note', 'i')[0]) == 'host/host'\n"
        "assert all(e['ph'] in 'XCiM' for e in ev)\n"
        "assert t['displayTimeUnit'] == 'ns'\n"),
        0);
}

static void test_times_are_written_exactly_in_microseconds(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    sim_trace_op(1, 7, SIM_LINK_D2H, 3, "direct", UINT64_C(1234567), UINT64_C(3234568), 42);
    sim_trace_op(0, SIM_TRACE_NO_STREAM, SIM_LINK_HBM, 0, "streamless", UINT64_C(5000000000000),
                 UINT64_C(5000000000001), 1);
    /* out-of-range arguments are ignored */
    sim_trace_op(SIM_MAX_DEVICES, 0, SIM_LINK_H2D, 0, "bad dev", 0, 1, 1);
    sim_trace_op(-1, 0, SIM_LINK_H2D, 0, "device op without a device", 0, 1, 1);
    sim_trace_op(0, 0, SIM_LINK_H2D, SIM_CLOCK_MAX_ENGINES, "bad engine", 0, 1, 1);
    sim_trace_counter(-2, "bad counter", 0, 0);
    assert_int_equal(sim_trace_close(), SIM_OK);

    char *text = slurp(fx->path);
    assert_int_equal(count(text, "\"ts\":1.234567,"), 3);
    assert_int_equal(count(text, "\"dur\":2.000001,"), 3);
    assert_int_equal(count(text, "\"ts\":5000000.000000,"), 2);
    assert_int_equal(count(text, "\"dur\":0.000001,"), 2);
    assert_non_null(strstr(text, "\"stream 7\""));
    assert_non_null(strstr(text, "\"copy engine 3\""));
    assert_non_null(strstr(text, "\"device 1\""));
    assert_null(strstr(text, "bad"));
    assert_null(strstr(text, "without"));
    free(text);
    assert_int_equal(python_check(fx,
        "assert len([e for e in ev if e['ph'] == 'X']) == 5\n"
        "assert sorted(track(e) for e in named('streamless')) == "
        "['device 0/copy engine 0', 'device 0/link HBM']\n"),
        0);
}

static void test_names_are_copied(void **state)
{
    struct fixture *fx = *state;
    char name[32], arg[32];
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    struct sim_clock_stream s;
    assert_int_equal(sim_clock_stream_init(0, &s), SIM_OK);
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "op %d", i % 10);
        sim_clock_copy(&s, SIM_LINK_H2D, 64, false, name, NULL);
        snprintf(arg, sizeof arg, "arg %d", i);
        sim_trace_instant(0, name, 0, arg);
    }
    strcpy(name, "overwritten");
    strcpy(arg, "overwritten");
    assert_int_equal(sim_trace_close(), SIM_OK);
    assert_int_equal(python_check(fx,
        "for k in range(10):\n"
        "    assert len(named('op %d' % k)) == 30, k\n"
        "    assert len(named('op %d' % k, 'i')) == 10, k\n"
        "args = sorted(e['args']['arg'] for e in ev if e['ph'] == 'i')\n"
        "assert args == sorted('arg %d' % k for k in range(100))\n"),
        0);
}

static void test_empty_trace_is_valid_json(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    assert_int_equal(sim_trace_close(), SIM_OK);
    assert_int_equal(python_check(fx, "assert ev == []\n"), 0);
}

/* ------------------------------------------------------------ with the model */

/* A fixed mix of operations; their times in t. */
static size_t script(sim_ps *t)
{
    struct sim_clock_stream a, b, c;
    size_t n = 0;
    assert_int_equal(sim_clock_stream_init(0, &a), SIM_OK);
    assert_int_equal(sim_clock_stream_init(0, &b), SIM_OK);
    assert_int_equal(sim_clock_stream_init(1, &c), SIM_OK);
    for (uint64_t i = 0; i < 30; i++) {
        t[n++] = sim_clock_copy(&a, SIM_LINK_H2D, MiB * i + 64, i % 4 == 0, NULL, NULL);
        t[n++] = sim_clock_copy(&b, SIM_LINK_D2H, 1000 * i, false, NULL, NULL);
        t[n++] = sim_clock_fill(&c, MiB, false, NULL, NULL);
        sim_ps ev = sim_clock_record(&a);
        t[n++] = sim_clock_wait(&c, ev);
        t[n++] = sim_clock_copy(NULL, SIM_LINK_HOST, 100 * i, false, NULL, NULL);
        t[n++] = sim_clock_sync_stream(&b);
        while (!sim_clock_done(ev))
            ;
        t[n++] = sim_clock_host();
    }
    t[n++] = sim_clock_sync_until(sim_clock_device_now(1), SIM_PS_FOREVER, NULL);
    return n;
}

static void test_tracing_does_not_change_simulated_times(void **state)
{
    struct fixture *fx = *state;
    static sim_ps off[512], on[512];
    size_t n1 = script(off);
    sim_clock_reset();
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    size_t n2 = script(on);
    assert_int_equal(sim_trace_close(), SIM_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(off, on, n1 * sizeof off[0]);
    assert_int_equal(python_check(fx,
        "h2d = [track(e) for e in named('memcpy H2D')]\n"
        "assert len([k for k in h2d if k != 'host/host']) == 30 * 3\n"
        "assert h2d.count('host/host') == 8  # the copies the host waited for\n"
        "assert len(named('memset')) == 30 * 3\n"
        "assert len(named('memcpy H2H')) == 30\n"
        "assert set(procs.values()) == {'device 0', 'device 1', 'host'}\n"),
        0);
}

#define THREADS 4
#define OPS_PER_THREAD 500

static void *tracer(void *arg)
{
    struct sim_clock_stream *s = arg;
    for (int i = 0; i < OPS_PER_THREAD; i++) {
        sim_clock_copy(s, i % 2 ? SIM_LINK_H2D : SIM_LINK_D2H, 4096, false, "threaded", NULL);
        sim_trace_counter(s->device, "device memory", (uint64_t)i, sim_clock_host());
    }
    return NULL;
}

static void test_hooks_from_many_threads_all_land(void **state)
{
    struct fixture *fx = *state;
    struct sim_clock_stream s[THREADS];
    pthread_t th[THREADS];
    assert_int_equal(sim_trace_open(fx->path), SIM_OK);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(sim_clock_stream_init(i % 2, &s[i]), SIM_OK);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, tracer, &s[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(sim_trace_close(), SIM_OK);
    char *text = slurp(fx->path);
    assert_int_equal(count(text, "\"name\":\"threaded\""), THREADS * OPS_PER_THREAD * 3);
    assert_int_equal(count(text, "\"ph\":\"C\""), THREADS * OPS_PER_THREAD);
    free(text);
    assert_int_equal(python_check(fx, "assert t['otherData']['dropped_events'] == 0\n"), 0);
}

static void test_trace_can_be_reopened_after_close(void **state)
{
    struct fixture *fx = *state;
    for (int round = 0; round < 3; round++) {
        assert_int_equal(sim_trace_open(fx->path), SIM_OK);
        sim_trace_instant(0, "round", (sim_ps)round, "with an argument");
        sim_trace_counter(1, "device memory", 64, 0);
        assert_int_equal(sim_trace_close(), SIM_OK);
        char *text = slurp(fx->path);
        assert_int_equal(count(text, "\"name\":\"round\""), 1);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trace_is_off_until_opened, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_reports_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_file_holds_ops_counters_and_instants, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_times_are_written_exactly_in_microseconds, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_names_are_copied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_trace_is_valid_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tracing_does_not_change_simulated_times, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_hooks_from_many_threads_all_land, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_can_be_reopened_after_close, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/sim/test_clock.c - cmocka suite for sim/clock (the simulator's timing model).
 *
 * Pins the model's rules with exact picosecond values where the arithmetic is
 * simple and with ratios where the brief speaks in ratios: bandwidth-bound
 * and latency-bound copies, serialisation on a link, full-duplex host links,
 * HBM independent of the host links, copy-engine limits, stream order,
 * cross-stream waits on events, host-side costs (enqueue, waits, syncs,
 * polling), host-to-host copies, reset, re-opened devices, determinism,
 * saturation instead of overflow, and thread safety.
 *
 * Test parameters: host link 50 GB/s (20 ps per byte), HBM 1000 GB/s (1 ps
 * per byte), latency 1 us, enqueue 0.5 us, query 0.1 us, host memcpy 10 GB/s
 * (100 ps per byte), 4 copy engines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "sim/clock.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define LAT UINT64_C(1000000)   /* latency, ps */
#define CALL UINT64_C(500000)   /* enqueue cost, ps */
#define QUERY UINT64_C(100000)  /* query cost, ps */
#define LINK_PS UINT64_C(20)    /* host link ps per byte */
#define HBM_PS UINT64_C(1)      /* HBM ps per byte */
#define MEMCPY_PS UINT64_C(100) /* host memcpy ps per byte */

static const struct sim_clock_params params = {
    .host_gbps = 50, .hbm_gbps = 1000, .latency_us = 1, .host_call_us = 0.5,
    .host_query_us = 0.1, .copy_engines = 4, .memcpy_gbps = 10};

static sim_ps link_dur(uint64_t bytes)
{
    return LAT + bytes * LINK_PS;
}

/* A fill writes its bytes once. */
static sim_ps hbm_dur(uint64_t bytes)
{
    return LAT + bytes * HBM_PS;
}

/* A copy inside HBM reads and writes them. */
static sim_ps hbm_copy_dur(uint64_t bytes)
{
    return LAT + 2 * bytes * HBM_PS;
}

static int setup(void **state)
{
    (void)state;
    if (sim_clock_device_open(0, &params) != SIM_OK)
        return -1;
    sim_clock_reset();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int32_t d = 0; d < SIM_MAX_DEVICES; d++)
        sim_clock_device_close(d);
    return 0;
}

static void new_stream(int32_t dev, struct sim_clock_stream *s)
{
    assert_int_equal(sim_clock_stream_init(dev, s), SIM_OK);
}

/* ------------------------------------------------------------ parameters */

static void test_open_rejects_bad_parameters(void **state)
{
    (void)state;
    struct sim_clock_params p = params;
    assert_int_equal(sim_clock_device_open(-1, &p), SIM_EINVAL);
    assert_int_equal(sim_clock_device_open(SIM_MAX_DEVICES, &p), SIM_EINVAL);
    assert_int_equal(sim_clock_device_open(1, NULL), SIM_EINVAL);
    assert_int_equal(sim_clock_device_open(0, &p), SIM_EINVAL); /* already open */

    const double nan = __builtin_nan("");
    double *fields[] = {&p.host_gbps, &p.hbm_gbps, &p.latency_us, &p.host_call_us,
                        &p.host_query_us, &p.memcpy_gbps};
    const double bad[][3] = {{0, -1, nan}, {0, -1, nan}, {-1, nan, 1e12},
                             {-1, nan, 1e12}, {0, -1, nan}, {-1, nan, 1e-9}};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        for (size_t i = 0; i < 3; i++) {
            p = params;
            *fields[f] = bad[f][i];
            assert_int_equal(sim_clock_device_open(1, &p), SIM_EINVAL);
        }
    }
    p = params;
    p.copy_engines = 0;
    assert_int_equal(sim_clock_device_open(1, &p), SIM_EINVAL);
    p.copy_engines = SIM_CLOCK_MAX_ENGINES + 1;
    assert_int_equal(sim_clock_device_open(1, &p), SIM_EINVAL);
    p.copy_engines = SIM_CLOCK_MAX_ENGINES;
    p.memcpy_gbps = 0; /* the default */
    assert_int_equal(sim_clock_device_open(1, &p), SIM_OK);
}

static void test_stream_init_needs_an_open_device(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    assert_int_equal(sim_clock_stream_init(1, &s), SIM_EINVAL);
    assert_int_equal(sim_clock_stream_init(-1, &s), SIM_EINVAL);
    assert_int_equal(sim_clock_stream_init(0, NULL), SIM_EINVAL);
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    assert_int_equal(a.device, 0);
    assert_int_equal(b.id, a.id + 1);
    assert_int_equal(sim_clock_stream_now(&a), 0);
}

/* ------------------------------------------------------------ copy costs */

static void test_bandwidth_bound_copy_time_scales_with_bytes(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps start1, start2;
    sim_ps one = sim_clock_copy(&s, SIM_LINK_H2D, GiB, true, "one", &start1) - start1;
    sim_ps two = sim_clock_copy(&s, SIM_LINK_H2D, 2 * GiB, true, "two", &start2) - start2;
    assert_int_equal(one, link_dur(GiB));
    assert_int_equal(two, link_dur(2 * GiB));
    assert_in_range(two * 1000 / one, 1990, 2000);

    one = sim_clock_copy(&s, SIM_LINK_HBM, GiB, true, NULL, &start1) - start1;
    two = sim_clock_copy(&s, SIM_LINK_HBM, 2 * GiB, true, NULL, &start2) - start2;
    assert_int_equal(one, hbm_copy_dur(GiB));
    assert_in_range(two * 1000 / one, 1990, 2000);
}

static void test_small_copy_costs_about_the_latency(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps start;
    sim_ps d = sim_clock_copy(&s, SIM_LINK_H2D, 64, false, NULL, &start) - start;
    assert_int_equal(d, LAT + 64 * LINK_PS);
    assert_in_range(d, LAT, LAT + LAT / 100);
    d = sim_clock_copy(&s, SIM_LINK_D2H, 1, false, NULL, &start) - start;
    assert_in_range(d, LAT, LAT + LAT / 100);
}

static void test_fractional_bandwidth_is_exact(void **state)
{
    (void)state;
    struct sim_clock_params p = params;
    p.host_gbps = 51.2;
    p.latency_us = 0.2;
    assert_int_equal(sim_clock_device_open(1, &p), SIM_OK);
    struct sim_clock_stream s;
    new_stream(1, &s);
    sim_ps start;
    /* 2^30 B / 51.2e9 B/s = 20.97152 ms */
    sim_ps d = sim_clock_copy(&s, SIM_LINK_H2D, GiB, false, NULL, &start) - start;
    assert_int_equal(d, UINT64_C(200000) + UINT64_C(20971520000));
    /* 1 B at 51.2 GB/s = 19.53125 ps, rounded to 20 */
    d = sim_clock_copy(&s, SIM_LINK_H2D, 1, false, NULL, &start) - start;
    assert_int_equal(d, UINT64_C(200000) + 20);
}

static void test_huge_copies_do_not_overflow(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps start;
    sim_ps d = sim_clock_copy(&s, SIM_LINK_H2D, 144 * GiB, false, NULL, &start) - start;
    assert_int_equal(d, link_dur(144 * GiB)); /* 3.09 s */
    d = sim_clock_copy(&s, SIM_LINK_HBM, UINT64_MAX / 4, false, NULL, &start) - start;
    assert_int_equal(d, hbm_copy_dur(UINT64_MAX / 4));
    /* beyond 2^64 ps: times saturate instead of wrapping */
    sim_ps end = sim_clock_copy(&s, SIM_LINK_H2D, UINT64_MAX, false, NULL, NULL);
    assert_true(end == UINT64_MAX);
    assert_true(sim_clock_stream_now(&s) == UINT64_MAX);
    sim_clock_reset();
    assert_int_equal(sim_clock_stream_now(&s), 0);
}

/* ------------------------------------------------------------ resources */

static void test_same_direction_copies_on_two_streams_serialise(void **state)
{
    (void)state;
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    const sim_ps one = link_dur(256 * MiB);
    sim_ps sa, sb;
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, "a", &sa);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_H2D, 256 * MiB, false, "b", &sb);
    assert_int_equal(sa, CALL);
    assert_int_equal(sb, ea); /* b waits for the link */
    assert_int_equal(eb - sa, 2 * one);
    assert_in_range((eb - sa) * 1000 / one, 1990, 2010);
    /* D2H too (on two fresh streams: a and b are busy until ea and eb) */
    struct sim_clock_stream c, d;
    new_stream(0, &c);
    new_stream(0, &d);
    sim_ps ec = sim_clock_copy(&c, SIM_LINK_D2H, MiB, false, NULL, &sa);
    sim_ps ed = sim_clock_copy(&d, SIM_LINK_D2H, MiB, false, NULL, &sb);
    assert_int_equal(sb, ec);
    assert_int_equal(ed - sa, 2 * link_dur(MiB));
}

static void test_opposite_directions_overlap_full_duplex(void **state)
{
    (void)state;
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    const sim_ps one = link_dur(256 * MiB);
    sim_ps sa, sb;
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, &sa);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_D2H, 256 * MiB, false, NULL, &sb);
    assert_int_equal(sb, sa + CALL); /* only the enqueue separates them */
    sim_ps total = (ea > eb ? ea : eb) - sa;
    assert_int_equal(total, one + CALL);
    assert_in_range(total * 1000 / one, 1000, 1010);
}

static void test_hbm_copies_do_not_contend_with_host_links(void **state)
{
    (void)state;
    struct sim_clock_stream a, b, c;
    new_stream(0, &a);
    new_stream(0, &b);
    new_stream(0, &c);
    sim_ps sa, sb, sc;
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, &sa);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_HBM, GiB, false, NULL, &sb);
    assert_int_equal(sb, 2 * CALL);
    assert_true(sb < ea);
    /* but HBM is one resource: a fill on a third stream queues behind the copy */
    sim_clock_fill(&c, MiB, false, NULL, &sc);
    assert_int_equal(sc, eb);
}

static void test_one_copy_engine_serialises_h2d_and_d2h(void **state)
{
    (void)state;
    struct sim_clock_params p = params;
    p.copy_engines = 1;
    assert_int_equal(sim_clock_device_open(1, &p), SIM_OK);
    struct sim_clock_stream a, b;
    new_stream(1, &a);
    new_stream(1, &b);
    sim_ps sa, sb;
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, &sa);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_D2H, 256 * MiB, false, NULL, &sb);
    assert_int_equal(sb, ea);
    assert_int_equal(eb - sa, 2 * link_dur(256 * MiB));
}

static void test_copy_engines_limit_concurrency(void **state)
{
    (void)state;
    struct sim_clock_params p = params;
    p.copy_engines = 2;
    assert_int_equal(sim_clock_device_open(1, &p), SIM_OK);
    struct sim_clock_stream a, b, c;
    new_stream(1, &a);
    new_stream(1, &b);
    new_stream(1, &c);
    sim_ps sa, sb, sc;
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, &sa);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_D2H, 128 * MiB, false, NULL, &sb);
    sim_clock_copy(&c, SIM_LINK_HBM, MiB, false, NULL, &sc);
    assert_int_equal(sb, sa + CALL); /* two engines: the first two overlap */
    assert_true(eb < ea);
    assert_int_equal(sc, eb); /* the third takes the engine that frees first */
}

static void test_devices_have_their_own_resources(void **state)
{
    (void)state;
    assert_int_equal(sim_clock_device_open(1, &params), SIM_OK);
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(1, &b);
    sim_ps sa, sb;
    sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, &sa);
    sim_clock_copy(&b, SIM_LINK_H2D, 256 * MiB, false, NULL, &sb);
    assert_int_equal(sb, sa + CALL);
    assert_int_equal(sim_clock_device_now(0), sa + link_dur(256 * MiB));
    assert_int_equal(sim_clock_device_now(1), sb + link_dur(256 * MiB));
}

static void test_stream_runs_its_work_in_order(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps s1, s2, s3;
    sim_ps e1 = sim_clock_copy(&s, SIM_LINK_H2D, MiB, false, NULL, &s1);
    sim_ps e2 = sim_clock_copy(&s, SIM_LINK_D2H, MiB, false, NULL, &s2);
    sim_ps e3 = sim_clock_fill(&s, MiB, false, NULL, &s3);
    assert_int_equal(s2, e1);
    assert_int_equal(s3, e2);
    assert_int_equal(e3, s3 + hbm_dur(MiB));
    assert_int_equal(sim_clock_stream_now(&s), e3);
    assert_int_equal(sim_clock_device_now(0), e3);
}

static void test_fill_costs_like_an_hbm_copy(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps start;
    sim_ps end = sim_clock_fill(&s, 64 * MiB, false, NULL, &start);
    assert_int_equal(end - start, hbm_dur(64 * MiB));
}

/* ------------------------------------------------------------ events */

static void test_wait_on_recorded_event_delays_the_waiting_stream(void **state)
{
    (void)state;
    struct sim_clock_stream a, b, c;
    new_stream(0, &a);
    new_stream(0, &b);
    new_stream(0, &c);
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, NULL);
    sim_ps ev = sim_clock_record(&a);
    assert_int_equal(ev, ea);
    assert_int_equal(sim_clock_wait(&b, ev), ev);
    sim_ps sb, sc;
    sim_clock_copy(&b, SIM_LINK_HBM, MiB, false, NULL, &sb);
    assert_int_equal(sb, ev); /* b waited for a's copy */
    sim_clock_copy(&c, SIM_LINK_D2H, MiB, false, NULL, &sc);
    assert_true(sc < ev); /* c did not */
}

static void test_wait_on_a_completed_event_does_not_delay(void **state)
{
    (void)state;
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    sim_ps e = sim_clock_copy(&b, SIM_LINK_H2D, 256 * MiB, false, NULL, NULL);
    sim_ps ev = sim_clock_record(&a); /* a is idle */
    assert_int_equal(sim_clock_wait(&b, ev), e);
    assert_int_equal(sim_clock_stream_now(&b), e);
}

static void test_record_on_idle_stream_completes_at_enqueue(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps ev1 = sim_clock_record(&s);
    assert_int_equal(ev1, CALL);
    sim_clock_copy(NULL, SIM_LINK_HOST, MiB, false, NULL, NULL); /* host work */
    sim_ps ev2 = sim_clock_record(&s);
    assert_int_equal(ev2 - ev1, CALL + MiB * MEMCPY_PS + CALL);
}

/* ------------------------------------------------------------ the host */

static void test_enqueue_costs_the_host_a_call(void **state)
{
    (void)state;
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    sim_ps ev = 0;
    for (int i = 0; i < 10; i++)
        sim_clock_copy(&a, SIM_LINK_H2D, 64 * MiB, false, NULL, NULL);
    assert_int_equal(sim_clock_host(), 10 * CALL);
    sim_clock_fill(&a, MiB, false, NULL, NULL);
    ev = sim_clock_record(&a);
    sim_clock_wait(&b, ev);
    assert_int_equal(sim_clock_host(), 13 * CALL);
    sim_clock_stream_now(&a);
    sim_clock_device_now(0);
    assert_int_equal(sim_clock_host(), 13 * CALL); /* reading is free */
}

static void test_host_waits_advances_the_host_clock(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps end = sim_clock_copy(&s, SIM_LINK_H2D, GiB, true, NULL, NULL);
    assert_int_equal(end, CALL + link_dur(GiB));
    assert_int_equal(sim_clock_host(), end);
    end = sim_clock_fill(&s, GiB, true, NULL, NULL);
    assert_int_equal(sim_clock_host(), end);
}

static void test_async_copy_leaves_the_host_clock_alone(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps end = sim_clock_copy(&s, SIM_LINK_H2D, GiB, false, NULL, NULL);
    assert_int_equal(sim_clock_host(), CALL);
    assert_true(end > sim_clock_host());
}

static void test_sync_stream_advances_the_host_clock(void **state)
{
    (void)state;
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, GiB, false, NULL, NULL);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_D2H, 2 * GiB, false, NULL, NULL);
    assert_int_equal(sim_clock_sync_stream(&a), ea);
    assert_int_equal(sim_clock_host(), ea);
    assert_int_equal(sim_clock_sync_stream(&b), eb);
    assert_int_equal(sim_clock_sync_stream(&a), eb); /* never goes back */
}

static void test_sync_until_advances_the_host_clock(void **state)
{
    (void)state;
    assert_int_equal(sim_clock_device_open(1, &params), SIM_OK);
    struct sim_clock_stream a, b, c;
    new_stream(0, &a);
    new_stream(0, &b);
    new_stream(1, &c);
    sim_clock_copy(&a, SIM_LINK_H2D, GiB, false, NULL, NULL);
    sim_ps eb = sim_clock_copy(&b, SIM_LINK_D2H, 2 * GiB, false, NULL, NULL);
    sim_ps ec = sim_clock_copy(&c, SIM_LINK_D2H, 3 * GiB, false, NULL, NULL);
    assert_int_equal(sim_clock_device_now(0), eb);
    assert_true(ec > eb + 1000);
    /* A device synchronisation waits for its context's streams (a, b):
     * c's work is not waited for. */
    sim_ps until = sim_clock_stream_now(&b);
    assert_int_equal(sim_clock_sync_until(until, SIM_PS_FOREVER, NULL), eb);
    assert_int_equal(sim_clock_host(), eb);
    bool late = false;
    assert_int_equal(sim_clock_sync_until(ec, 1000, &late), eb + 1000); /* the limit ran out */
    assert_true(late);
    assert_int_equal(sim_clock_sync_until(ec, SIM_PS_FOREVER, &late), ec);
    assert_false(late);
    assert_int_equal(sim_clock_sync_until(eb, SIM_PS_FOREVER, NULL), ec); /* never goes back */
}

static void test_done_polling_terminates(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps end = sim_clock_copy(&s, SIM_LINK_H2D, 16 * MiB, false, NULL, NULL);
    sim_ps host0 = sim_clock_host();
    uint64_t polls = 0;
    while (!sim_clock_done(end) && polls < 100000000)
        polls++;
    assert_int_equal(polls + 1, (end - host0 + QUERY - 1) / QUERY);
    assert_true(sim_clock_host() >= end);
    assert_true(sim_clock_host() < end + QUERY);
    assert_true(sim_clock_done(end));
    assert_true(sim_clock_done(0));
}

static void test_host_to_host_copy_costs_host_time_only(void **state)
{
    (void)state;
    struct sim_clock_stream a, b;
    new_stream(0, &a);
    new_stream(0, &b);
    sim_ps ea = sim_clock_copy(&a, SIM_LINK_H2D, 256 * MiB, false, NULL, NULL);
    sim_ps h0 = sim_clock_host();
    sim_ps sh;
    sim_ps eh = sim_clock_copy(NULL, SIM_LINK_HOST, MiB, false, "h2h", &sh);
    assert_int_equal(sh, h0 + CALL);
    assert_int_equal(eh, sh + MiB * MEMCPY_PS);
    assert_int_equal(sim_clock_host(), eh); /* the host did the copy: always waits */
    assert_int_equal(sim_clock_device_now(0), ea); /* no device resource used */
    sim_ps sb;
    sim_clock_copy(&b, SIM_LINK_H2D, MiB, false, NULL, &sb);
    assert_int_equal(sb, ea); /* the link is as busy as before, no more */
    /* on a stream: ordered after the stream's work */
    sim_clock_copy(&a, SIM_LINK_HOST, MiB, false, NULL, &sh);
    assert_int_equal(sh, ea);
    assert_int_equal(sim_clock_host(), ea + MiB * MEMCPY_PS);
}

/* ------------------------------------------------------------ reset, reopen */

static void test_reset_zeroes_clocks_and_streams_keep_working(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    uint32_t id = s.id;
    sim_clock_copy(&s, SIM_LINK_H2D, GiB, true, NULL, NULL);
    sim_clock_copy(&s, SIM_LINK_D2H, GiB, false, NULL, NULL);
    sim_clock_reset();
    assert_int_equal(sim_clock_host(), 0);
    assert_int_equal(sim_clock_device_now(0), 0);
    assert_int_equal(sim_clock_stream_now(&s), 0);
    sim_ps start;
    sim_ps end = sim_clock_copy(&s, SIM_LINK_D2H, MiB, false, NULL, &start);
    assert_int_equal(start, CALL); /* the D2H link was freed too */
    assert_int_equal(end, CALL + link_dur(MiB));
    assert_int_equal(s.id, id);
}

static void test_reopened_device_restarts_stale_streams(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_clock_copy(&s, SIM_LINK_H2D, GiB, false, NULL, NULL);
    sim_clock_device_close(0);
    assert_int_equal(sim_clock_device_now(0), 0);
    sim_ps h = sim_clock_host();
    /* a closed device's stream does nothing */
    assert_int_equal(sim_clock_copy(&s, SIM_LINK_H2D, GiB, true, NULL, NULL), h);
    assert_int_equal(sim_clock_record(&s), h);
    assert_int_equal(sim_clock_host(), h);
    assert_int_equal(sim_clock_device_open(0, &params), SIM_OK);
    assert_int_equal(sim_clock_stream_now(&s), 0);
    sim_ps start;
    sim_clock_copy(&s, SIM_LINK_H2D, MiB, false, NULL, &start);
    assert_int_equal(start, h + CALL);
}

/* The same scripted mix of every operation; every returned time lands in t. */
static size_t script(sim_ps *t)
{
    struct sim_clock_stream a, b, c;
    size_t n = 0;
    new_stream(0, &a);
    new_stream(0, &b);
    new_stream(1, &c);
    for (uint64_t i = 0; i < 20; i++) {
        sim_ps start;
        t[n++] = sim_clock_copy(&a, SIM_LINK_H2D, (i + 1) * 3 * MiB + i, i % 3 == 0, NULL,
                                &start);
        t[n++] = start;
        t[n++] = sim_clock_copy(&b, SIM_LINK_D2H, 4096 * i + 7, false, NULL, NULL);
        t[n++] = sim_clock_fill(&c, MiB * i, i % 5 == 0, NULL, NULL);
        t[n++] = sim_clock_copy(&c, SIM_LINK_HBM, 123456789 * i, false, NULL, NULL);
        sim_ps ev = sim_clock_record(&a);
        t[n++] = ev;
        t[n++] = sim_clock_wait(&b, ev);
        t[n++] = sim_clock_copy(i % 2 ? &b : NULL, SIM_LINK_HOST, 1000 * i, false, NULL, NULL);
        if (i % 4 == 0)
            t[n++] = sim_clock_sync_stream(&b);
        if (i % 7 == 0)
            t[n++] = sim_clock_sync_until(sim_clock_device_now(1), SIM_PS_FOREVER, NULL);
        while (!sim_clock_done(ev))
            ;
        t[n++] = sim_clock_host();
        t[n++] = sim_clock_device_now(0);
        t[n++] = sim_clock_stream_now(&c);
    }
    return n;
}

static void test_same_calls_give_same_times_after_reset(void **state)
{
    (void)state;
    static sim_ps first[512], second[512];
    assert_int_equal(sim_clock_device_open(1, &params), SIM_OK);
    size_t n1 = script(first);
    sim_clock_reset();
    size_t n2 = script(second);
    assert_int_equal(n1, n2);
    assert_true(n1 <= 512);
    assert_memory_equal(first, second, n1 * sizeof first[0]);
    assert_true(first[n1 - 3] > 0);
}

/* ------------------------------------------------------------ threads */

#define THREADS 4
#define COPIES_PER_THREAD 1000
#define THREAD_BYTES (64 * 1024)

static void *copier(void *arg)
{
    struct sim_clock_stream *s = arg;
    for (int i = 0; i < COPIES_PER_THREAD; i++)
        sim_clock_copy(s, SIM_LINK_H2D, THREAD_BYTES, false, NULL, NULL);
    return NULL;
}

static void test_copies_from_many_threads_share_the_link(void **state)
{
    (void)state;
    struct sim_clock_stream s[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        new_stream(0, &s[i]);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, copier, &s[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    /* the link is the bottleneck (a copy outlasts an enqueue), whatever the interleaving */
    assert_int_equal(sim_clock_device_now(0),
                     CALL + THREADS * COPIES_PER_THREAD * link_dur(THREAD_BYTES));
    assert_int_equal(sim_clock_host(), THREADS * COPIES_PER_THREAD * CALL);
}


/* ------------------------------------------------------------ staging and peers */

/* Pageable memory: the host memcpy of a chunk (10 GB/s here) overlaps the
 * DMA of the one before; the host returns with the last chunk. */
static void test_staged_copy_overlaps_memcpy_and_dma(void **state)
{
    (void)state;
    struct sim_clock_params p = params;
    p.stage_bytes = MiB;
    assert_int_equal(sim_clock_device_open(1, &p), SIM_OK);
    struct sim_clock_stream s;
    new_stream(1, &s);
    sim_ps start, t0 = sim_clock_host();
    sim_ps end = sim_clock_copy_staged(&s, SIM_LINK_H2D, 4 * MiB, NULL, &start);
    /* call, 4 memcpys back to back, then the last chunk's DMA */
    assert_int_equal(end, t0 + CALL + 4 * MiB * MEMCPY_PS + LAT + MiB * LINK_PS);
    assert_int_equal(start, t0 + CALL + MiB * MEMCPY_PS);
    assert_int_equal(sim_clock_host(), end);
    /* device to host: DMA, then the host copies each chunk out */
    t0 = sim_clock_host();
    end = sim_clock_copy_staged(&s, SIM_LINK_D2H, 2 * MiB, NULL, &start);
    assert_int_equal(start, t0 + CALL);
    assert_int_equal(end, t0 + CALL + LAT + MiB * LINK_PS + 2 * MiB * MEMCPY_PS);
    /* a chunk is the whole copy: memcpy, then DMA */
    t0 = sim_clock_host();
    end = sim_clock_copy_staged(&s, SIM_LINK_H2D, 1000, NULL, NULL);
    assert_int_equal(end, t0 + CALL + 1000 * MEMCPY_PS + LAT + 1000 * LINK_PS);
}

/* A staged copy first waits for its stream, as the runtime's implicit
 * synchronisation does; without a chunk it is a pinned copy the host waits
 * for. */
static void test_staged_copy_waits_for_the_stream(void **state)
{
    (void)state;
    struct sim_clock_stream s;
    new_stream(0, &s);
    sim_ps busy = sim_clock_copy(&s, SIM_LINK_HBM, GiB, false, NULL, NULL);
    sim_ps start, end = sim_clock_copy_staged(&s, SIM_LINK_H2D, MiB, NULL, &start);
    assert_true(start >= busy);
    assert_int_equal(end - start, link_dur(MiB)); /* params: no stage_bytes */
    assert_int_equal(sim_clock_host(), end);
    assert_int_equal(sim_clock_copy_staged(&s, SIM_LINK_HBM, MiB, NULL, NULL), sim_clock_host());
}

/* A fabric: one link per ordered pair of devices; copies over different
 * links overlap, two over one link take turns; without one, a peer copy is
 * timed on the stream's device's HBM, the bytes once. */
static void test_peer_copies_use_one_link_per_pair(void **state)
{
    (void)state;
    struct sim_clock_params p = params;
    p.peer_gbps = 25; /* 40 ps per byte */
    p.peer_latency_us = 2;
    for (int32_t d = 1; d <= 3; d++)
        assert_int_equal(sim_clock_device_open(d, &p), SIM_OK);
    struct sim_clock_stream a, b, c;
    new_stream(2, &a);
    new_stream(3, &b);
    new_stream(2, &c);
    sim_ps sa, sb, sc;
    sim_ps ea = sim_clock_copy_peer(&a, 1, 2, MiB, false, NULL, &sa);
    sim_ps eb = sim_clock_copy_peer(&b, 1, 3, MiB, false, NULL, &sb);
    assert_int_equal(ea - sa, UINT64_C(2000000) + MiB * 40);
    assert_true(sb < ea); /* another link: they overlap */
    sim_ps ec = sim_clock_copy_peer(&c, 1, 2, MiB, false, NULL, &sc);
    assert_int_equal(sc, ea); /* the same link: after the first */
    assert_int_equal(ec - sc, ea - sa);
    (void)eb;
    /* the other direction is a link of its own */
    sim_ps sd, ed = sim_clock_copy_peer(&a, 2, 1, MiB, false, NULL, &sd);
    assert_int_equal(ed - sd, ea - sa);
    /* device 0 has no fabric: HBM of the stream's device, once */
    struct sim_clock_stream z;
    new_stream(0, &z);
    sim_ps sz, ez = sim_clock_copy_peer(&z, 0, 1, MiB, false, NULL, &sz);
    assert_int_equal(ez - sz, hbm_dur(MiB));
    assert_int_equal(sim_clock_copy_peer(&z, 0, 0, MiB, false, NULL, NULL), sim_clock_host());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_rejects_bad_parameters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_init_needs_an_open_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bandwidth_bound_copy_time_scales_with_bytes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_small_copy_costs_about_the_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fractional_bandwidth_is_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_copies_do_not_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_direction_copies_on_two_streams_serialise,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_opposite_directions_overlap_full_duplex, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_hbm_copies_do_not_contend_with_host_links, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_one_copy_engine_serialises_h2d_and_d2h, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copy_engines_limit_concurrency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_devices_have_their_own_resources, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_runs_its_work_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fill_costs_like_an_hbm_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_on_recorded_event_delays_the_waiting_stream,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_on_a_completed_event_does_not_delay, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_record_on_idle_stream_completes_at_enqueue, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_enqueue_costs_the_host_a_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_waits_advances_the_host_clock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_async_copy_leaves_the_host_clock_alone, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sync_stream_advances_the_host_clock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sync_until_advances_the_host_clock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_done_polling_terminates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_to_host_copy_costs_host_time_only, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reset_zeroes_clocks_and_streams_keep_working, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reopened_device_restarts_stale_streams, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_same_calls_give_same_times_after_reset, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_copies_from_many_threads_share_the_link, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_staged_copy_overlaps_memcpy_and_dma, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_staged_copy_waits_for_the_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peer_copies_use_one_link_per_pair, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

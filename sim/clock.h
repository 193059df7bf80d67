/*
 * clock.h - the simulator's timing model: simulated time for copies, streams and events.
 *
 * Time is simulated, never measured or slept: integer picoseconds (sim_ps) on
 * one process-wide model. The model holds a host clock (the program's own
 * timeline) and, per open device, five kinds of shared resources, each with
 * the time it is next free: the host link in each direction (H2D, D2H: full
 * duplex), HBM (device-to-device traffic and fills), the copy engines and,
 * on a server with a fabric, one link to each peer device. A stream is an
 * in-order queue: its tail is the end of its last operation. An operation
 * starts at the latest of its stream's tail, the host clock when it was
 * enqueued, its link's free time and the earliest free copy engine; it lasts
 * latency + traffic / bandwidth, where a copy inside one device's HBM reads
 * and writes its bytes (twice the traffic of a fill). A copy from or to
 * pageable host memory is staged through a pinned bounce buffer in chunks
 * (sim_clock_copy_staged). A recorded event is only a time the caller
 * keeps. Equal call sequences give equal times (integer arithmetic only).
 * When tracing is on (trace.h) every operation is also exported.
 * All functions are thread-safe (one mutex).
 */
#ifndef ACLSIM_SIM_CLOCK_H_
#define ACLSIM_SIM_CLOCK_H_

#include <stdbool.h>
#include <stdint.h>
#include "sim.h"

/* Simulated time, in picoseconds. */
typedef uint64_t sim_ps;

#define SIM_PS_PER_US UINT64_C(1000000)

/* Most copy engines a device may have. */
#define SIM_CLOCK_MAX_ENGINES 16u

/* The host-side costs the model uses before any device is opened. */
#define SIM_CLOCK_DEFAULT_HOST_CALL_US 1.0
#define SIM_CLOCK_DEFAULT_HOST_QUERY_US 0.1
#define SIM_CLOCK_DEFAULT_MEMCPY_GBPS 10.0

/* The path a copy takes. */
enum sim_link {
    SIM_LINK_H2D = 0, /* host to device, over the host link */
    SIM_LINK_D2H = 1, /* device to host, over the host link (the other direction) */
    SIM_LINK_HBM = 2, /* device to device on the stream's device, through HBM */
    SIM_LINK_HOST = 3, /* host to host: the host CPU copies, no device resource */
    SIM_LINK_PEER = 4  /* device to another device, over the fabric (sim_clock_copy_peer) */
};

/*
 * A device's timing parameters, filled by the caller from the SoC profile
 * (struct sim_profile). GB = 1e9 bytes. host_call_us, host_query_us and
 * memcpy_gbps describe the host, not the device: the model keeps one value of
 * each, the one given by the most recent sim_clock_device_open.
 */
struct sim_clock_params {
    double host_gbps;      /* host link bandwidth per direction, GB/s (profile host_gbps) */
    double hbm_gbps;       /* HBM bandwidth for device-to-device copies and fills, GB/s */
    double latency_us;     /* fixed cost of every device copy or fill (profile host_latency_us) */
    double host_call_us;   /* host time to enqueue one operation (copy, fill, record, wait) */
    double host_query_us;  /* host time of one completion query (sim_clock_done), > 0 */
    unsigned copy_engines; /* copy engines (SDMA queues); each runs one copy at a time */
    double memcpy_gbps;    /* host memcpy bandwidth for SIM_LINK_HOST copies and for
                              staging pageable memory; 0 = default */
    uint64_t stage_bytes;  /* chunk of the runtime's pinned bounce buffer for pageable
                              copies; 0 = pageable copies take the pinned path */
    double peer_gbps;      /* one fabric link to each peer, per direction, GB/s; 0 = no
                              fabric: peer copies are timed on the issuing device's HBM */
    double peer_latency_us; /* fixed cost of a copy over a fabric link */
};

/*
 * A stream's timing state. The caller owns the storage (embed it in its own
 * stream object); the model owns the fields: read them through the functions.
 * After sim_clock_reset, or when its device is closed and opened again, the
 * stream's tail reads as 0 from its next use on (each device counts
 * generations; a stream whose generation is old has its tail reset lazily).
 */
struct sim_clock_stream {
    int32_t device; /* the device whose resources the stream's work uses */
    uint32_t id;    /* per-device stream number, for trace tracks */
    sim_ps tail;    /* end of the stream's last operation */
    uint64_t gen;   /* the device generation tail belongs to */
};

/*
 * Open device dev with the given parameters: its resources start free at
 * time 0 and the host-side costs become the process-wide ones.
 * pre: 0 <= dev < SIM_MAX_DEVICES; p->host_gbps, p->hbm_gbps > 0;
 *      p->latency_us, p->host_call_us >= 0; p->host_query_us > 0;
 *      1 <= p->copy_engines <= SIM_CLOCK_MAX_ENGINES; p->memcpy_gbps >= 0;
 *      p->peer_gbps >= 0, p->peer_latency_us >= 0.
 * Returns SIM_OK, or SIM_EINVAL (nothing changed) when a precondition fails
 * or dev is already open.
 */
enum sim_rc sim_clock_device_open(int32_t dev, const struct sim_clock_params *p);

/*
 * Close device dev (no effect when it is not open). Streams on it must not
 * be used again until it is opened again (then their tails restart at 0).
 */
void sim_clock_device_close(int32_t dev);

/*
 * Bind the caller's stream s to device dev with the next stream id of that
 * device and an empty queue (tail 0).
 * pre: dev open, s != NULL.
 * Returns SIM_OK, or SIM_EINVAL when dev is not open or s is NULL.
 */
enum sim_rc sim_clock_stream_init(int32_t dev, struct sim_clock_stream *s);

/*
 * Enqueue a copy of `bytes` bytes on stream s over `link`. The host pays
 * host_call first; the copy starts at max(s's tail, host clock, the link's
 * free time, the earliest free copy engine) and lasts latency + bytes /
 * bandwidth (host_gbps for H2D and D2H; hbm_gbps for HBM, where the copy
 * reads and writes its bytes: 2 * bytes of traffic); the link, the engine
 * and s are busy until it ends. (SIM_LINK_PEER copies go through
 * sim_clock_copy_peer; here they are a precondition failure.) With host_waits (a synchronous copy,
 * or an async one from pageable memory) the host clock then becomes
 * max(host, end). SIM_LINK_HOST is done by the host: it starts at max(host,
 * s's tail), lasts bytes / memcpy_gbps, uses no device resource and the host
 * always waits for it; s may be NULL for it (then no device is involved).
 * name labels the trace event (NULL: a default per link). *start, when
 * start != NULL, receives the start time.
 * pre: s initialised on an open device (or NULL with SIM_LINK_HOST).
 * Returns the end time (the host clock, with no effect, when pre fails).
 */
sim_ps sim_clock_copy(struct sim_clock_stream *s, enum sim_link link, uint64_t bytes,
                      bool host_waits, const char *name, sim_ps *start);

/*
 * Enqueue a copy of `bytes` bytes between pageable host memory and device
 * memory (link SIM_LINK_H2D or SIM_LINK_D2H) on s, as the runtime does it:
 * it first waits for s to be idle (an implicit stream synchronisation), then
 * moves the bytes in chunks of stage_bytes through two pinned bounce
 * buffers: the host memcpy of one chunk (memcpy_gbps; the host is busy)
 * overlaps the DMA of the previous one (latency + chunk / host_gbps on the
 * link and a copy engine). The host returns when the last chunk is done.
 * With stage_bytes 0 it is sim_clock_copy(..., host_waits true).
 * pre: s initialised on an open device; link is H2D or D2H.
 * Returns the end time; *start (may be NULL) the first DMA's start.
 */
sim_ps sim_clock_copy_staged(struct sim_clock_stream *s, enum sim_link link, uint64_t bytes,
                             const char *name, sim_ps *start);

/*
 * Enqueue a copy of `bytes` bytes from device src_dev's memory to device
 * dst_dev's (src_dev != dst_dev) on s (a stream of either or of a third
 * device): over the fabric link from src_dev to dst_dev (peer_gbps of
 * src_dev, peer_latency_us), with a copy engine of s's device. Without a
 * fabric (peer_gbps 0) it is timed on s's device's HBM, reading the bytes
 * once (an assumption). Ordering and host_waits as sim_clock_copy.
 * pre: s initialised on an open device; src_dev and dst_dev open.
 * Returns the end time; *start as for sim_clock_copy.
 */
sim_ps sim_clock_copy_peer(struct sim_clock_stream *s, int32_t src_dev, int32_t dst_dev,
                           uint64_t bytes, bool host_waits, const char *name, sim_ps *start);

/*
 * Enqueue a memset of `bytes` bytes of device memory on s: it writes the
 * bytes once, through HBM, ordered as a SIM_LINK_HBM copy (name NULL:
 * "memset").
 * pre: s initialised on an open device.
 * Returns the end time; *start as for sim_clock_copy.
 */
sim_ps sim_clock_fill(struct sim_clock_stream *s, uint64_t bytes, bool host_waits,
                      const char *name, sim_ps *start);

/*
 * Record an event on s: the host pays host_call; the event completes when s
 * reaches it, at max(s's tail, host clock) (an idle stream runs it at once),
 * which also becomes s's tail.
 * pre: s initialised on an open device.
 * Returns the event's completion time (the value the caller stores as the event).
 */
sim_ps sim_clock_record(struct sim_clock_stream *s);

/*
 * Make s wait for an event that completes at t (a cross-stream wait): the
 * host pays host_call and s's tail becomes max(tail, t).
 * pre: s initialised on an open device.
 * Returns s's new tail.
 */
sim_ps sim_clock_wait(struct sim_clock_stream *s, sim_ps t);

/*
 * Block the host until s is idle: host clock = max(host, s's tail).
 * pre: s initialised on an open device.
 * Returns the new host clock.
 */
sim_ps sim_clock_sync_stream(struct sim_clock_stream *s);

/*
 * A device synchronisation: block the host until t, the latest tail of the
 * streams it waits for (a context's), at most limit (as
 * sim_clock_host_wait; the trace names it "synchronize device").
 * Returns the new host clock.
 */
sim_ps sim_clock_sync_until(sim_ps t, sim_ps limit, bool *timed_out);

/*
 * Ask whether work that completes at t is done, from the program's point of
 * view: the host pays host_query (so a polling loop advances host time and
 * ends), then the answer is host clock >= t.
 * Returns true when done.
 */
bool sim_clock_done(sim_ps t);

/* The host clock. */
sim_ps sim_clock_host(void);

/* The latest end of any operation on dev (0 when dev is not open). */
sim_ps sim_clock_device_now(int32_t dev);

/*
 * The end of s's last operation (its tail).
 * pre: s initialised.
 */
sim_ps sim_clock_stream_now(struct sim_clock_stream *s);

/*
 * When work the host enqueues on s now would start: after the host's call,
 * and not before s's tail (what reports give as a task's time).
 * pre: s initialised.
 */
sim_ps sim_clock_next_start(struct sim_clock_stream *s);

/*
 * Put every clock back to 0: the host clock, every open device's resources
 * and latest end, and (lazily, through the device generation) every stream's
 * tail. Devices stay open with their parameters; streams keep their ids and
 * keep working. Callers use it between measurements.
 */
void sim_clock_reset(void);

/* "No time limit" for sim_clock_host_wait. */
#define SIM_PS_FOREVER UINT64_MAX

/*
 * The host blocks until simulated time t (an event's completion, a stream's
 * tail), but for at most `limit` picoseconds (SIM_PS_FOREVER: no limit).
 * *timed_out (may be NULL) says whether the limit cut the wait short.
 * Returns the host clock afterwards.
 */
sim_ps sim_clock_host_wait(sim_ps t, sim_ps limit, bool *timed_out);

/*
 * A wait that held s (a notify, a value, an event recorded later) is
 * satisfied at t: s's tail becomes max(tail, t). The device does it, so the
 * host pays nothing. pre: s initialised on an open device.
 * Returns s's new tail.
 */
sim_ps sim_clock_release(struct sim_clock_stream *s, sim_ps t);

/*
 * Drop s's work that has not started by the host clock: its tail becomes
 * min(tail, host). Links and engines keep what they had booked (an
 * approximation: an aborted copy still occupied them). pre: as above.
 * Returns s's new tail.
 */
sim_ps sim_clock_abort(struct sim_clock_stream *s);

/*
 * Enqueue a kernel (a built-in operator) of `duration` on s: the host pays
 * host_call; it starts at max(s's tail, host clock) and uses no link or
 * copy engine (kernels of different streams overlap). name labels the
 * trace's slice on the stream's track, the n_blocks device blocks
 * [blocks[i], blocks[i] + bytes[i]) it took are its args, with `tensors`
 * (may be NULL: its shapes, types and workspace as text). *start, when
 * start != NULL, receives the start time.
 * pre: s initialised on an open device.
 * Returns the end time (the host clock, with no effect, when pre fails).
 */
sim_ps sim_clock_kernel(struct sim_clock_stream *s, sim_ps duration, const char *name,
                        const void *const *blocks, const size_t *bytes, int n_blocks,
                        const char *tensors, sim_ps *start);

#endif /* ACLSIM_SIM_CLOCK_H_ */

/*
 * trace.h - export of everything the simulator does as a Chrome trace-event file.
 *
 * The file is Chrome's JSON trace format ({"traceEvents": [...]}), which
 * Perfetto (ui.perfetto.dev) and chrome://tracing load. Recording starts with
 * sim_trace_open (the library calls it when ACLSIM_TRACE names a file); events
 * are buffered in memory and the file is written by sim_trace_close. Layout:
 * one process per device ("device 0") with one track per stream ("stream 3"),
 * per link ("link H2D", "link D2H", "link HBM", "link peer"), per copy engine ("copy engine
 * 1") and one for counters and instants ("events"); one "host" process with a
 * "host" track for work the host does itself (host-to-host copies, waits in
 * sync calls). Each device operation appears on its stream, link and engine
 * tracks with its byte count; each operator as a slice on its stream's track
 * with the blocks it took; each record of an event, notify or count notify
 * as a zero-length slice on its stream linked by flow arrows to the waits
 * it released; each sanitizer report as an instant on the tracks of the
 * streams it names. Times are simulated (clock.h), written in
 * microseconds with picosecond precision. When tracing is off each hook costs
 * one predictable branch in the caller (sim_trace_enabled). Thread-safe.
 */
#ifndef ACLSIM_SIM_TRACE_H_
#define ACLSIM_SIM_TRACE_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "clock.h"

/* A stream id meaning "no stream" for sim_trace_op. */
#define SIM_TRACE_NO_STREAM UINT32_MAX

/* Non-zero while recording; read it through sim_trace_enabled. */
extern atomic_int sim_trace_active;

/*
 * Start recording to the file at path (created or truncated now, written at
 * close). A NULL or empty path leaves tracing off.
 * Returns SIM_OK (also for NULL/empty), SIM_EINVAL when a trace is already
 * open, SIM_EIO when the file cannot be created, SIM_EHOSTMEM when memory
 * runs out.
 */
enum sim_rc sim_trace_open(const char *path);

/* Whether a trace is being recorded: the hooks below are called only then. */
static inline bool sim_trace_enabled(void)
{
    return atomic_load_explicit(&sim_trace_active, memory_order_relaxed) != 0;
}

/*
 * Stream `id` of device dev is the handle `handle` (the program's
 * aclrtStream): its track is named "stream N (0x...)", as the sanitizer's
 * reports name it. Streams never named keep "stream N".
 * No effect when no trace is open.
 */
void sim_trace_stream(int32_t dev, uint32_t id, const void *handle);

/*
 * Record a device operation (a copy or a fill) lasting [start, end): an
 * event on the stream's track (unless stream is SIM_TRACE_NO_STREAM), on the
 * link's track and on the copy engine's track; for SIM_LINK_HOST on the
 * host track instead of link and engine. args carry bytes.
 * pre: name != NULL; dev in 0..SIM_MAX_DEVICES-1, or -1 (no device) with
 *      SIM_LINK_HOST; engine < SIM_CLOCK_MAX_ENGINES; start <= end.
 * No effect when no trace is open (or memory runs out: the event is counted
 * as dropped in the file).
 */
void sim_trace_op(int32_t dev, uint32_t stream, enum sim_link link, unsigned engine,
                  const char *name, sim_ps start, sim_ps end, uint64_t bytes);

/*
 * Record a span [start, end) of the host's own timeline on the host track
 * (e.g. the host blocked in a synchronize call).
 * pre: name != NULL, start <= end. No effect when no trace is open.
 */
void sim_trace_host(const char *name, sim_ps start, sim_ps end);

/*
 * Record the value of a counter of device dev at time `at` (e.g. "device
 * memory" and the bytes in use); dev -1 puts it on the host process.
 * pre: name != NULL; -1 <= dev < SIM_MAX_DEVICES. No effect when no trace is open.
 */
void sim_trace_counter(int32_t dev, const char *name, uint64_t value, sim_ps at);

/*
 * Record an instant event `name` on device dev's "events" track (dev -1:
 * the host track) at time `at`, with an optional text argument (args.arg),
 * e.g. an allocator being registered.
 * pre: name != NULL; -1 <= dev < SIM_MAX_DEVICES; arg may be NULL.
 * No effect when no trace is open.
 */
void sim_trace_instant(int32_t dev, const char *name, sim_ps at, const char *arg);

/*
 * Record an operator (a kernel) of stream `stream` of device dev lasting
 * [start, end): a slice named `name` (the call that launched it: aclnnAdd,
 * aclop's Add, aclblasGemmEx) on the stream's track, with the blocks it
 * took from its allocator as args.blocks and its tensors (shapes, types,
 * workspace) as args.tensors (texts, may be NULL).
 * pre: name != NULL; 0 <= dev < SIM_MAX_DEVICES; start <= end.
 * No effect when no trace is open.
 */
void sim_trace_kernel(int32_t dev, uint32_t stream, const char *name, sim_ps start, sim_ps end,
                      const char *blocks, const char *tensors);

/*
 * Record a replay of a graph on stream `stream` of device dev lasting
 * [start, end): a slice "graph replay" on the stream's track (the replayed
 * tasks nest inside it), `graph` (may be NULL) naming it as args.graph.
 * pre: 0 <= dev < SIM_MAX_DEVICES. No effect when no trace is open.
 */
void sim_trace_replay(int32_t dev, uint32_t stream, sim_ps start, sim_ps end, const char *graph);

/*
 * Record a synchronisation task of stream `stream` of device dev at `at`: a
 * record (out: an event, notify or count record) or the point a wait let
 * the stream go on (!out), as a zero-length slice `name` on the stream's
 * track. Records and waits of one flow id are linked by a flow arrow
 * (Chrome's flow events, v2: bind_id with flow_out / flow_in), from the
 * record to every wait it released. arg (may be NULL) becomes args.arg.
 * pre: name != NULL; 0 <= dev < SIM_MAX_DEVICES; flow != 0.
 * No effect when no trace is open.
 */
void sim_trace_sync(int32_t dev, uint32_t stream, const char *name, sim_ps at, uint64_t flow,
                    bool out, const char *arg);

/*
 * Record an instant `name` at `at` (SIM_PS_FOREVER: the host's time now) on
 * the track of the stream whose handle is `stream` (a sanitizer report
 * about it), its text as args.text. The stream is found by the handle
 * sim_trace_stream was told, never read: it may be gone.
 * pre: name != NULL; text may be NULL. No effect when no trace is open or
 * no track has that handle.
 */
void sim_trace_mark(const void *stream, const char *name, sim_ps at, const char *text);

/*
 * Stop recording: write the file ({"traceEvents": [...], "displayTimeUnit":
 * "ns"} with process and track names), close it and free every buffer.
 * Returns SIM_OK (also when no trace is open), or SIM_EIO when writing failed.
 */
enum sim_rc sim_trace_close(void);

#endif /* ACLSIM_SIM_TRACE_H_ */

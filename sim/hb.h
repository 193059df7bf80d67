/*
 * hb.h - what the simulator's stream files share about happens-before
 * (hb.c): the vector clocks streams, events, notifies and queued tasks
 * carry, and the edges each kind of task adds. sim.h has the part the
 * layers above see (uses of bytes, the report hook, host uses).
 *
 * Clocks are sparse: a sorted list of (clock id, count) pairs, so a
 * program with thousands of streams pays for the few each clock has
 * heard of. Id 0 is the host; every stream and every run of a host task
 * (a callback) gets its own id. Every function here takes hb.c's lock,
 * a leaf lock (it may be taken under the queue lock, never the reverse).
 */
#ifndef ACLSIM_SIM_HB_H_
#define ACLSIM_SIM_HB_H_

#include <stdbool.h>
#include <stdint.h>

struct sim_stream;

struct sim_hb_ent {
    uint32_t id, c;
};
/* A vector clock (zeroed: knows nothing). */
struct sim_hb_vc {
    uint32_t n, cap;
    struct sim_hb_ent *e;
};
/* A stream's clock: its id, how many of its tasks ran (own), what it
 * has heard of from others (vc), and the host version it last joined. */
struct sim_hb_clock {
    uint32_t id, own;
    int32_t dev;
    struct sim_hb_vc vc;
    uint64_t host_seen;
    struct sim_hb_clock *next; /* every live stream's clock (device syncs) */
};

/* A stream is made / goes. */
void sim_hb_stream_init(struct sim_hb_clock *c, int32_t dev);
void sim_hb_stream_fini(struct sim_hb_clock *c);
/* Free a clock's memory. */
void sim_hb_vc_free(struct sim_hb_vc *v);

/* ---- Edges (each its own function, so a new task kind calls one) ---- */

/* Program order and host -> task: a task of s runs now; it is ordered
 * after everything before it on s and after what the host (or the host
 * task running on this thread) had done when it enqueued the task: that
 * is `enq` for a task that waited in a queue (NULL: the host's clock
 * now). */
void sim_hb_task(struct sim_stream *s, const struct sim_hb_vc *enq);
/* The host's clock now, for a task that joins a queue (freed with
 * sim_hb_vc_free; zeroed when happens-before is off). */
void sim_hb_enqueued(struct sim_hb_vc *out);
/* A record (event, notify, counting notify, value write) on s runs:
 * *mark becomes s's clock (join: a counting notify's accumulates). */
void sim_hb_mark(struct sim_hb_vc *mark, struct sim_stream *s, bool join);
/* A wait on s is satisfied by a record whose clock is *mark. */
void sim_hb_wait(struct sim_stream *s, const struct sim_hb_vc *mark);
/* The wait holding `to` was released by work of `from` (NULL: the host). */
void sim_hb_release(struct sim_stream *to, struct sim_stream *from);
/* A wait on an event of another process: its record cannot be seen, so
 * s is ordered after everything this process knows (no false reports). */
void sim_hb_wait_foreign(struct sim_stream *s);
/* The host learns that s's work so far is done (stream synchronisation,
 * a query that found it complete). */
void sim_hb_host_learns_stream(struct sim_stream *s);
/* ... that the work of an event's record is done (*mark: its clock). */
void sim_hb_host_learns(const struct sim_hb_vc *mark);
/* ... that everything of every stream is done (an IPC event's record). */
void sim_hb_host_learns_all(void);
/* A graph launch on s: lane streams start after s's work so far
 * (begin); s's later work comes after everything the lanes did (end). */
void sim_hb_fork(struct sim_stream *lane, struct sim_stream *s);
void sim_hb_join(struct sim_stream *s, struct sim_stream *lane);
/* The value last written at addr (value writes and waits). */
void sim_hb_value_write(struct sim_stream *s, const void *addr);
void sim_hb_value_wait(struct sim_stream *s, const void *addr);

/* ---- The uses of tasks (hb.c) ---- */

/* While queue.c replays a queued task: the host's clock of its enqueue
 * (NULL after). */
void sim_hb_enq_begin(const struct sim_hb_vc *enq);
/* While graph.c launches graph g (NULL after): uses name it. */
void sim_hb_graph(const void *g);
/* A task of s (NULL: the host, a synchronous copy or fill) runs and makes
 * the n uses u: its clock ticks (sim_hb_task), then they are checked and
 * recorded. */
struct sim_use;
void sim_task_uses(struct sim_stream *s, struct sim_use *u, int n);

#endif /* ACLSIM_SIM_HB_H_ */

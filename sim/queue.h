/*
 * queue.h - what the simulator's stream files share: the stream, event and
 * task objects, and what each of those files offers the others (sim.h
 * explains the model).
 *
 * Every task a program puts on a stream goes through stream.c. When the
 * stream is not held it runs at once, through task.c ("run one task now");
 * when a wait holds the stream, queue.c keeps it in the stream's queue and
 * replays it, through task.c again, when the wait is satisfied. While a
 * stream captures, record.c keeps its tasks instead, and graph.c submits
 * them again through stream.c at each launch. The calls point one way:
 * graph.c -> stream.c -> queue.c -> record.c -> task.c, stream.c -> task.c; ipc.c
 * keeps the state IPC events share and calls none of them. devtask.c and
 * kernels.c compute the work of device tasks and operators for task.c.
 */
#ifndef ACLSIM_SIM_QUEUE_H_
#define ACLSIM_SIM_QUEUE_H_

#include <pthread.h>
#include <stdatomic.h>
#include "clock.h"
#include "hb.h"
#include "sim.h"

struct sim_task;

/* What a stream's queue waits behind (queue.c). */
enum sim_queue_behind {
    SIM_BEHIND_NOTHING,  /* nothing: no queue, or the queue is being replayed */
    SIM_BEHIND_NOTIFY,   /* a notify wait holds the stream (obj: the notify) */
    SIM_BEHIND_EVENT,    /* an event wait whose record is itself queued (obj: the event) */
    SIM_BEHIND_VALUE,    /* a value wait (addr, value, flag) */
    SIM_BEHIND_CNT,      /* a counting notify wait (obj: the notify; value, flag: its
                            condition, as SIM_T_CNT_WAIT's) */
    SIM_BEHIND_ORPHAN,   /* a wait on a notify or event destroyed since: nothing satisfies it */
    SIM_BEHIND_HOST_TASK /* no wait: the replay reached a blocking host task (obj: its
                            record), and the rest waits until the host has run it */
};

/* A stream's queue: the tasks enqueued while a wait holds the stream, in
 * order, and what the queue waits behind. Every field is queue.c's, under
 * its lock. */
struct sim_queue {
    enum sim_queue_behind behind;
    const void *obj;
    const void *addr;
    uint64_t value;
    uint32_t flag;
    sim_ps deadline;          /* when the wait times out (SIM_PS_FOREVER: never) */
    const void *from;         /* the record whose replay put the wait there (NULL: none) */
    struct sim_task *head, **tail;
    struct sim_stream *next;  /* the next stream with a queue */
};

struct sim_stream {
    int32_t dev;
    struct sim_clock_stream clk;
    _Atomic uint64_t prop[SIM_SP_COUNT];
    /* Task ids and device faults (task.c). */
    _Atomic uint32_t tasks;       /* tasks enqueued so far: the next task's id */
    _Atomic uint32_t last_thread; /* who enqueued the last one (low 32 bits) */
    /* Blocking host tasks (task.c). */
    _Atomic unsigned blocking;    /* blocking host tasks not yet run */
    _Atomic uint64_t runner;      /* the thread that runs them */
    /* Whether tasks enqueued on the stream join its queue (queue.c): from
     * a wait that holds it until its queue is empty again (the queue may
     * meanwhile wait behind a blocking host task it reached). Set and
     * cleared under queue.c's lock; read without it by the fast path. */
    _Atomic bool queueing;
    struct sim_queue q;
    /* While the stream captures (record.c): the record its tasks go to
     * instead of running, and its lane there. Set and cleared by graph.c;
     * the fast path is one atomic load. */
    struct sim_record *_Atomic rec;
    unsigned lane;
    /* Its happens-before clock (hb.c). */
    struct sim_hb_clock hb;
    /* Task groups (graph.c): the group its captured tasks go into, between
     * aclmdlRICaptureTaskGrpBegin and End; the group its operators update,
     * between aclmdlRICaptureTaskUpdateBegin and End, and the index of the
     * next task they replace. Set and cleared by the thread that enqueues. */
    struct sim_group *_Atomic grp;
    struct sim_group *_Atomic upd;
    unsigned upd_next;
    /* The task it recorded last (record.c), for the ACL layer to name it. */
    struct sim_task *_Atomic last_rec;
};

/* An event's state is one atomic word, so a record on one thread and
 * queries, waits and syncs on others see it whole: 0 when never recorded
 * (or reset), SIM_MARK_PENDING while its record is held behind a wait,
 * else the completion time of the captured work plus one. */
#define SIM_MARK_PENDING UINT64_MAX
struct sim_ipc;
struct sim_event {
    int32_t dev;
    uint32_t flags;
    uint32_t id;
    _Atomic sim_ps own;    /* the state of an event of this process only */
    _Atomic sim_ps *mark;  /* &own, or the state an IPC event shares (ipc.c) */
    struct sim_ipc *ipc;   /* NULL unless ACL_EVENT_IPC */
    /* The record that set mark: its stream, task and thread (device faults). */
    _Atomic uint32_t rec_stream, rec_task, rec_thread;
    /* The recording stream's clock at the record (hb.c). */
    struct sim_hb_vc hb;
};

/* ---- ipc.c: the state of events shared between processes ---- */

/* Whether the state of an IPC event was last set by this process (then it
 * is a time of this process's timeline); note that it is. */
bool sim_ipc_mine(const struct sim_ipc *ipc);
void sim_ipc_note_writer(struct sim_ipc *ipc);
/* Give e, being created, a new shared state (an event of SIM_EVENT_IPC), or
 * the live one named `name` (an import: SIM_EINVAL when none lives);
 * SIM_EHOSTMEM when host memory or the mapping cannot be had. */
enum sim_rc sim_ipc_attach_new(struct sim_event *e);
enum sim_rc sim_ipc_attach_name(struct sim_event *e, const char *name);
/* e is being destroyed: it lets go of its shared state. */
void sim_ipc_detach(struct sim_event *e);

/* The event's state as this process sees it. Another process's record of
 * an IPC event is a time of that process's own timeline, which this one
 * cannot compare: it counts as complete from the start (time 0), even a
 * record still held behind a wait there. */
static inline sim_ps sim_ev_mark(const struct sim_event *e)
{
    sim_ps m = atomic_load_explicit(e->mark, memory_order_acquire);
    if (e->ipc && m != 0 && !sim_ipc_mine(e->ipc))
        return 1;
    return m;
}

static inline void sim_ev_set(struct sim_event *e, sim_ps v)
{
    if (e->ipc)
        sim_ipc_note_writer(e->ipc);
    atomic_store_explicit(e->mark, v, memory_order_release);
}

/* Whether a and b are one event's state (an IPC event and its imports). */
static inline bool sim_ev_same(const struct sim_event *a, const struct sim_event *b)
{
    return a->mark == b->mark;
}

/* ---- ipcnotify.c: the state notifies share between processes ---- */

struct sim_ntf_ipc;
/* Consume the shared state (true when it was set), set it, and whether a
 * and b share one (both exported or imported from one key). */
bool sim_ntf_ipc_take(struct sim_ntf_ipc *i);
void sim_ntf_ipc_give(struct sim_ntf_ipc *i);
bool sim_ntf_ipc_same(const struct sim_ntf_ipc *a, const struct sim_ntf_ipc *b);
/* A new shared state (set or not, export flags), its key into key;
 * SIM_EHOSTMEM when it cannot be had. */
enum sim_rc sim_ntf_ipc_export(bool set, uint64_t flags, struct sim_ntf_ipc **out,
                               char key[SIM_IPC_KEY_MAX]);
/* Add pids to the export's whitelist (SIM_ENOMEM: full, *why). */
enum sim_rc sim_ntf_ipc_pids(struct sim_ntf_ipc *i, const int32_t *pids, size_t n,
                             const char **why);
/* The shared state of key: SIM_EINVAL (no live export, or its exporter
 * died) or SIM_EPERM (not on the whitelist) with *why. */
enum sim_rc sim_ntf_ipc_open(const char *key, struct sim_ntf_ipc **out, const char **why);
/* Let go of it (the exporter's: no new imports). */
void sim_ntf_ipc_close(struct sim_ntf_ipc *i);

/* ---- Tasks ---- */

/* One operation enqueued on a stream. */
enum sim_task_kind {
    SIM_T_NOP,           /* flag: a forgotten record or wait of a graph (SIM_NOP_*),
                            obj then only its key for happens-before (graph.c) */
    SIM_T_COPY,          /* dst, src, n; staging: a copy of a host source */
    SIM_T_COPY2D,        /* dst, dpitch, src, spitch, n (width), rows; staging as COPY */
    SIM_T_FILL,          /* dst, n, fill */
    SIM_T_FILL32,        /* dst, n bytes, value: the 32-bit pattern */
    SIM_T_MIGRATE,       /* n bytes of managed pages, to the device when flag */
    SIM_T_WAIT_UNTIL,    /* value: the stream waits until that simulated time */
    SIM_T_RECORD,        /* obj: event */
    SIM_T_WAIT_EVENT,    /* obj: event */
    SIM_T_NOTIFY_RECORD, /* obj: notify */
    SIM_T_NOTIFY_WAIT,   /* obj: notify; value: timeout in s */
    SIM_T_VALUE_WRITE,   /* dst, value */
    SIM_T_VALUE_WAIT,    /* src, value, flag */
    SIM_T_DEVTASK,       /* obj: the task's own copy of a struct sim_devtask */
    SIM_T_OP,            /* obj: the task's own copy of a struct sim_op (host inputs
                            staged with it) */
    SIM_T_HOST,          /* obj: its host task record (queue.c) */
    SIM_T_CMO,           /* dst, n: a cache operation's range; value: the barrier it
                            signals when done (0: none) */
    SIM_T_CNT_RECORD,    /* obj: counting notify; value: the value; flag: the record mode */
    SIM_T_CNT_WAIT,      /* obj: counting notify; value: the value, timeout in s in the
                            high 32 bits; flag: the wait mode, clear after it in bit 8 */
    SIM_T_CNT_RESET,     /* obj: counting notify */
    SIM_T_EVENT_RESET,   /* obj: event (back to never recorded when the stream reaches it) */
    SIM_T_GROUP_SET,     /* obj: a task group; value: the index of its task replaced;
                            src: the caller's operator (struct sim_op) that replaces it,
                            staging: a kept task's own copy of it */
    /* ---- recorded only (graph.c interprets them at each launch) ---- */
    SIM_T_LABEL,         /* obj: the label set here */
    SIM_T_SWITCH,        /* src: the device uint32 index; obj: the label list */
    /* ---- recorded only, expanded when a stream reaches them (queue.c) ---- */
    SIM_T_GROUP,         /* obj: a task group: its tasks of that moment run here */
    SIM_T_COND           /* obj: a conditional task: the sub-graph its word chooses runs
                            here; value: the iterations of a WHILE so far */
};
struct sim_task {
    enum sim_task_kind kind;
    int32_t dev;   /* OP: the device whose profile times it */
    void *dst;
    const void *src;
    bool dst_dev, src_dev;
    size_t n;
    size_t dpitch, spitch, rows;
    int fill;
    void *obj;
    uint64_t value;
    uint32_t flag; /* COPY, COPY2D: SIM_COPY_* flags; FILL, FILL32: the host waits */
    void *staging; /* memory the queued task owns */
    unsigned lane; /* a recorded task: the lane of the stream that captured it */
    uint64_t hgen; /* a recorded copy or fill whose host side was pinned or registered
                      memory when recorded: that block (sim_host_block.gen), which
                      replays check is still there; 0: none */
    const void *from; /* a recorded task and its copies: the record it came from */
    void *hdst;       /* a recorded copy or fill whose memory graph.c found live: */
    const void *hsrc; /* the host views of its ranges (NULL: none) */
    struct sim_hb_vc enq; /* a queued task: the host's clock at its enqueue (hb.c) */
    struct sim_task *next;
};

/* ---- queue.c: the queue of a held stream ---- */

/* Whether any stream has a queue (tasks enqueued before now that have
 * not run yet). */
bool sim_queue_any(void);

/* Whether tasks enqueued on s now join its queue (the fast path: one
 * atomic load). */
static inline bool sim_stream_queueing(struct sim_stream *s)
{
    return atomic_load_explicit(&s->queueing, memory_order_acquire);
}

/* Put t on s, which is queueing: in its queue (a copy of t, host sources
 * and the caller's descriptions copied with it), or, when s's queue has
 * emptied since, run it now. SIM_EHOSTMEM when a copy cannot be had
 * (nothing done). */
enum sim_rc sim_queue_submit(struct sim_stream *s, const struct sim_task *t);
/* An operator on s, which is queueing: queued (a copy of op, its blocks
 * pending until it has run), *start and *end SIM_PS_PENDING; or, when s's
 * queue has emptied since, run now. */
enum sim_rc sim_queue_op(int32_t dev, struct sim_stream *s, const struct sim_op *op,
                         uint64_t *start, uint64_t *end);
/* Record or wait for an event on s: always through the queue, as they may
 * hold or release streams. */
void sim_queue_record(struct sim_event *e, struct sim_stream *s);
void sim_queue_wait_event(struct sim_stream *s, const struct sim_event *e);
/* After device memory was written by work of s that ran outside the
 * queue: release the value waits it may satisfy. */
void sim_queue_written(struct sim_stream *s);
/* A host task on s, which is queueing: it is queued (*ticket names it),
 * and fn(arg, ready) is called once the replay reaches it (under the queue
 * lock: fn must not call the simulator). *ready is SIM_PS_PENDING then;
 * when s's queue has emptied since, it runs now: *ready its time, *ticket
 * 0. */
enum sim_rc sim_queue_host_task(struct sim_stream *s, bool blocking, uint64_t runner,
                                sim_ready_fn fn, void *arg, uint64_t *ready, uint64_t *ticket);
/* The host ran (or dropped) the queued host task `ticket` of s: a task
 * still queued is taken out; a blocking one the replay reached lets the
 * rest of the queue go on. Returns whether it was such a one (it counts in
 * s->blocking, which the caller takes back). */
bool sim_queue_host_done(struct sim_stream *s, uint64_t ticket);
/* Synchronise a stream with a queue: *held false when s has none (the
 * caller does the ordinary synchronisation). */
enum sim_rc sim_queue_sync(struct sim_stream *s, int32_t timeout_ms, bool *held);
/* Settle every stream of ss[0..n) with a queue (a context's streams), the
 * host waiting at most timeout_ms (< 0: no limit; SIM_ETIMEOUT when it runs
 * out first); ordinary synchronisation follows. */
enum sim_rc sim_queue_sync_set(struct sim_stream *const *ss, size_t n, int32_t timeout_ms);
/* An event whose record is queued: wait for it as for its stream. */
enum sim_rc sim_queue_event_sync(struct sim_event *e, int32_t timeout_ms);
/* s is being destroyed or aborted: drop its queue. */
void sim_queue_drop(struct sim_stream *s);
/* Release the streams a wait on an IPC notify holds whose notify another
 * process recorded since (the fast path: one atomic load). */
void sim_queue_poll(void);
/* This thread submits the replay of record `from` now (NULL: done). */
void sim_queue_tag(const void *from);
/* The graph whose record is `from` is aborted: its replays' tasks still
 * queued anywhere become no-ops, and a stream one of its waits holds goes
 * on with its other work. */
void sim_queue_abort(const void *from);
/* An event or notify is being destroyed: forget it in every queue. */
void sim_queue_forget(const void *obj);

/* ---- record.c: the tasks capturing streams record ---- */

/* The tasks a capture recorded, in the order they were enqueued on its
 * streams (graph.c owns one per graph). */
struct sim_record {
    pthread_mutex_t lock;
    struct sim_task *head, **tail;
    unsigned n;
    struct sim_record *next; /* the next live record (record.c's list) */
};

/* Whether s captures: its tasks are recorded, not run. */
static inline bool sim_stream_recording(struct sim_stream *s)
{
    return atomic_load_explicit(&s->rec, memory_order_acquire) != NULL;
}
/* Record a copy of t as the next task of s's lane: the copy owns the
 * descriptions of a device task or an operator, not host sources (a
 * replay reads host memory when it runs). SIM_EHOSTMEM: nothing recorded. */
enum sim_rc sim_record_task(struct sim_stream *s, const struct sim_task *t);
/* An empty record, listed among the live ones; and its end (every task and
 * what it owns freed). */
void sim_record_init(struct sim_record *r);
void sim_record_fini(struct sim_record *r);
/* An event or notify is being destroyed: the records of every live
 * capture forget it (its records and waits become no-ops). */
void sim_record_forget(const void *obj);
/* A graph's record or wait whose event or notify was destroyed after the
 * capture: CANN's capture recorded into an event the model owns
 * (runtime src/runtime/feature/aclgraph/v100/api_impl_capture_event.cc:
 * 28-78, InsertCaptureEvent at :71), so the edge outlives the user's
 * handle. A replay still orders the lanes by it (graph.c). */
enum { SIM_NOP_PLAIN, SIM_NOP_MARK, SIM_NOP_WAIT };

/* ---- Task groups and conditional tasks (graph.c makes them, record.c
 * reads them for queue.c) ----
 *
 * A task group is a run of operators a capture recorded as one task
 * (SIM_T_GROUP): each replay that reaches it runs the operators the group
 * holds at that moment; an update (SIM_T_GROUP_SET, on the stream that
 * updates) replaces one of them when that stream reaches it, so a replay
 * ordered after the update runs the new operator. The lock is a leaf: held
 * only to append, replace or copy tasks. */
struct sim_group {
    pthread_mutex_t lock;
    struct sim_task *head, **tail;
    unsigned n;
    struct sim_group *next; /* the graph's groups */
};
/* A conditional task: when a replay reaches it, it reads the 8-byte word
 * at `word` (device memory) and runs one sub-graph's record there: IF the
 * first when the word is not 0, else the second (if any); SWITCH the one
 * the word indexes (none past the end); WHILE the only one again and
 * again while the word is not 0. */
enum { SIM_COND_IF = 0, SIM_COND_WHILE = 1, SIM_COND_SWITCH = 2 };
struct sim_cond {
    const void *word;
    int type;
    unsigned n;
    struct sim_cond *next;        /* the graph's conditional tasks */
    struct sim_record *sub[];     /* the sub-graphs' records (graph.c owns them) */
};
/* The tasks a group or a conditional task stands for when a stream reaches
 * it now (copies, linked, their `next` set; host sources staged): a
 * group's, or the sub-graph a condition chooses (WHILE: followed by a copy
 * of t itself, to test again; nothing past the bound of iterations).
 * *out NULL: nothing to run. SIM_EHOSTMEM: no copy could be had. pre: t is
 * SIM_T_GROUP or SIM_T_COND. */
enum sim_rc sim_record_expand(const struct sim_task *t, struct sim_task **out);
/* Replace task `index` of group g by the operator of a SIM_T_GROUP_SET
 * task t (t keeps the operator it replaces, freed with it). */
void sim_group_set(struct sim_group *g, struct sim_task *t);

/* ---- stream.c, for graph.c ---- */

/* Submit recorded task t again on s, as if the program enqueued it now;
 * data work leaves alone memory freed since it was recorded, unless `live`
 * says the caller found all of it live. */
enum sim_rc sim_stream_replay(struct sim_stream *s, const struct sim_task *t, bool live);

/* ---- task.c: run one task now ---- */

/* Count a task of s; returns its id. */
uint32_t sim_task_begin(struct sim_stream *s);
/* When the last cache operation done under any of the n barrier ids of
 * device dev completes (0: none yet). */
sim_ps sim_task_barrier_time(int32_t dev, const uint32_t *ids, unsigned n);
/* Tell the fault handler of a failed task. */
void sim_task_fault(enum sim_fault_kind kind, int32_t dev, uint32_t stream_id, uint32_t task_id,
                    uint32_t thread);
/* Between these two calls (nested, per thread) faults wait, and are raised
 * by the outermost sim_task_faults_raise: the queue lock is held there. */
void sim_task_faults_defer(void);
void sim_task_faults_raise(void);

/* Run a copy, fill, 2-D copy or 32-bit fill now, on stream s or (s NULL)
 * synchronously on device dev. pre: ranges checked by the caller. */
enum sim_rc sim_copy_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                         const void *src, bool src_dev, size_t n, unsigned flags);
enum sim_rc sim_fill_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev, int value,
                         size_t n, bool host_waits);
enum sim_rc sim_copy2d_run(int32_t dev, struct sim_stream *s, void *dst, size_t dpitch,
                           bool dst_dev, const void *src, size_t spitch, bool src_dev,
                           size_t width, size_t height, unsigned flags);
enum sim_rc sim_fill32_run(int32_t dev, struct sim_stream *s, void *dst, bool dst_dev,
                           uint32_t value, size_t words, bool host_waits);
/* Run a device task, an operator now on s (*start, *end: its interval). */
enum sim_rc sim_devtask_run(struct sim_stream *s, const struct sim_devtask *b);
enum sim_rc sim_op_exec(int32_t dev, struct sim_stream *s, const struct sim_op *op,
                        uint64_t *start, uint64_t *end);
/* Run a queued task of a data kind (copies, fills, migrations, waits until
 * a time, device tasks, operators) now, on s: memory freed since it was
 * enqueued is left alone; `device`: the device reached it in s's queue.
 * Returns whether it may have written device memory. */
bool sim_task_run(struct sim_stream *s, const struct sim_task *t, bool device);
/* Whether the device memory a copy or fill touches (as the task keeps it)
 * is still allocated; true for other kinds, which check as they run. */
bool sim_task_memory_live(const struct sim_task *t);
/* A replayed task whose device memory graph.c found live: run now on s,
 * its ranges not looked up again (an operator's still are). */
bool sim_task_run_live(struct sim_stream *s, const struct sim_task *t);
/* An operator was queued on s: its workspace and tiling block are pending
 * (pending.c) until it has run; one that will never run lets them go. */
void sim_task_queued_op(struct sim_stream *s, const struct sim_op *op);
void sim_task_drop_op(struct sim_stream *s, const struct sim_op *op);

/* Run a host task now: ready when s's work so far is done (the returned
 * time, s's new tail; `device` true: the device reached it in s's queue,
 * the host pays nothing). A blocking one counts until sim_blocking_done;
 * queue.c holds s's later work behind it meanwhile (no enqueue waits). */
sim_ps sim_host_run(struct sim_stream *s, bool blocking, uint64_t runner, bool device);
/* Whether the calling thread is the one that must run a blocking host task
 * still pending on s: a synchronisation of s would wait for itself (it
 * fails at once instead). */
bool sim_blocking_runner(struct sim_stream *s);
/* A blocking host task of s ran (or was dropped). */
void sim_blocking_done(struct sim_stream *s);

/* ---- devtask.c, kernels.c: the work of a task on the device bytes ---- */

/* Do b's work (no time taken); *bytes is how many bytes it moved, for its
 * timing. */
enum sim_rc sim_devtask_compute(const struct sim_devtask *b, uint64_t *bytes);
/* Compute op's results into its output, workspace and tiling block (no
 * time taken); *ps is how long its kernel takes on device dev (roofline). */
enum sim_rc sim_op_compute(int32_t dev, const struct sim_op *op, uint64_t *ps);
/* A copy of t to keep (base_free frees it and its ->staging), which owns
 * the caller's description of a device task or an operator and, when
 * host_sources, the bytes of a host source (2-D rows packed); its next is
 * NULL. NULL when host memory runs out. */
struct sim_task *sim_task_keep(const struct sim_task *t, bool host_sources);
/* Free a list of kept tasks (next-linked) and what each owns. */
void sim_task_free_list(struct sim_task *t);
/* A copy of op that owns its name and its host-memory inputs (one block,
 * base_free frees it), or NULL when host memory runs out. */
struct sim_op *sim_op_copy(const struct sim_op *op);
/* Whether every device range op touches is still live memory. */
bool sim_op_live(const struct sim_op *op);

#endif /* ACLSIM_SIM_QUEUE_H_ */

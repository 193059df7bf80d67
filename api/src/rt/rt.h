/*
 * rt.h - the contract of api/src/rt/, the runtime's own objects: init and
 * finalize, devices and contexts with the current-context cache
 * (device.c), the handles given out and their users (objects.c), streams
 * (stream.c), events (event.c), notifies (notify.c), callbacks
 * (callback.c), peer access (peer.c), IPC events (ipcevent.c), core limits
 * (reslimit.c), versions (version.c), device queries (devinfo.c) and the
 * state callbacks (state.c).
 *
 * rt/ includes diag/ and nothing else of api/src. It knows nothing of
 * memory, allocators or operators: when a stream, context or device goes,
 * it walks the table of watchers it was given (api_watchers, defined at
 * the top of api/src), in the table's order.
 */
#ifndef ACLSIM_API_RT_RT_H_
#define ACLSIM_API_RT_RT_H_

#include <stdatomic.h>
#include "diag/diag.h"

/* ---- device.c: devices and contexts ---- */

/* A context. Not freed before the library unloads (device.c), so a
 * pointer to one stays readable after the context is destroyed. */
struct api_ctx {
    int32_t device;
    bool primary;      /* the device's default context */
    void *be_ctx;      /* backend context handle */
    aclrtStream deflt; /* the context's default stream (backend handle) */
    struct api_ctx *next_dead;
    _Atomic int64_t sysopt[3]; /* aclrtCtxSetSysParamOpt's values (sysopt.c) */
    _Atomic unsigned sysopt_set; /* bit o: option o was set */
};

/* The calling thread's current context, validated (NULL and 107002 with a
 * message when there is none). `func` names the API for the message. No
 * reference is taken: enough for reading its device. */
aclError api_current_ctx(const char *func, struct api_ctx **out);

/* The published context behind a user handle, or NULL (objects.c). */
struct api_ctx *api_ctx_lookup(const void *handle);

/* devctl.c: dev in [0, device count), as the runtime's CheckDeviceIdIsValid
 * asks (open or not): else ACL_ERROR_RT_INVALID_DEVICEID with its EE1003
 * text for `what` and `param`. */
aclError api_device_id_check(const char *what, const char *param, int32_t dev);

/* ACL_SUCCESS when deviceId names an open device; otherwise
 * ACL_ERROR_RT_INVALID_DEVICEID with a message naming `func`. */
aclError api_device_usable(const char *func, int32_t deviceId);

/* Whether device dev is open now (no message; it may close right after). */
bool api_device_is_open(int32_t dev);

/* The device a call that needs no context acts on: the current context's
 * when the thread has one, else the lowest open device; false (no message)
 * when no device is open. */
bool api_device_for_call(int32_t *dev);

/* ---- The watchers: who is told when a stream, context or device goes ----
 *
 * rt/ is given one table of watchers (api/src/watchers.c, above every
 * family, installs it as the library loads) and calls each watcher's hooks
 * in the table's order, skipping NULL ones. Hooks run with no aclsim lock
 * held. */
struct api_watcher {
    const char *name;
    /* A stream (backend handle) is about to be destroyed, a context's
     * default stream included: what the watcher keeps for it goes. */
    void (*stream_gone)(void *stream);
    /* A context is about to be destroyed (after its default stream's
     * stream_gone). */
    void (*ctx_gone)(const struct api_ctx *ctx);
    /* Device dev is about to close, nothing of it released yet: `where`
     * names the call that closes it (NULL: a failed open). */
    void (*device_closing)(int32_t dev, const char *where);
    /* aclFinalize returned: the runtime is uninitialised, but, as CANN's
     * aclFinalizeInternal resets no device, every device, context, stream
     * and block the program still holds stays usable until the end below. */
    void (*finalized)(const char *where);
    /* The runtime's end (the aclInit that follows an aclFinalize, or the
     * exit): every device is closed already. */
    void (*finalizing)(const char *where);
};
/* Install the table rt/ walks (objects.c keeps it): once, before any call. */
void api_watchers_install(const struct api_watcher *table, size_t n);

/* ---- objects.c: live handles the ACL layer gave out, and their users ---- */

enum api_obj_kind {
    API_OBJ_CONTEXT = 1,
    API_OBJ_STREAM = 2,
    API_OBJ_EVENT = 3,
    API_OBJ_DSTREAM = 4, /* a context's default stream: usable, released by its context */
    API_OBJ_NOTIFY = 5,
    API_OBJ_CNT_NOTIFY = 6 /* a counting notify (aclrtCntNotifyCreate) */
};
enum { API_OBJ_NOMEM = -1, API_OBJ_GONE = -2 };

struct api_obj;

/* What releases the backend object behind a handle once its last
 * reference goes (called with no lock held); `owner` is the struct the
 * handle was published with (a context's own struct for a context). */
typedef void (*api_release_fn)(void *handle, struct api_ctx *owner);

/* Publish a handle the backend just created, with its kind, device, owning
 * context (a context: its own struct) and what releases it: lookups find
 * it from now on. Returns 0; API_OBJ_NOMEM when host memory runs out,
 * API_OBJ_GONE when the owner is no longer published (being destroyed):
 * the caller then destroys the handle again. */
int api_obj_add(void *handle, enum api_obj_kind kind, int32_t device, struct api_ctx *owner,
                api_release_fn release);

/* The end of every create call: when rc is ACL_SUCCESS, publish handle,
 * just made by the backend on the held context ctx, as `kind` released by
 * `release`; if that fails, destroy(handle) undoes the creation and the
 * result says why (ACL_ERROR_RT_CONTEXT_NULL: ctx is being destroyed;
 * ACL_ERROR_BAD_ALLOC). Returns rc otherwise. */
aclError api_obj_publish(aclError rc, void *handle, enum api_obj_kind kind, struct api_ctx *ctx,
                         api_release_fn release, aclError (*destroy)(void *handle));

/* The published handle of `kind` with a reference taken (the backend
 * object stays alive until api_obj_put), or NULL when there is none. */
struct api_obj *api_obj_get(const void *handle, enum api_obj_kind kind);
void api_obj_put(struct api_obj *o);
void *api_obj_handle(const struct api_obj *o);
struct api_ctx *api_obj_owner(const struct api_obj *o);
int32_t api_obj_device(const struct api_obj *o);
/* A value its family keeps with a published handle (an event's creation
 * flags): read it from a held object; set it by handle (no-op for a
 * handle not published). */
uint64_t api_obj_aux(const struct api_obj *o);
void api_obj_set_aux(const void *handle, enum api_obj_kind kind, uint64_t v);

/* Withdraw a published handle (a context's streams with it); its backend
 * object is released once the last reference is put, at once if there is
 * none. Returns 0, or -1 when handle is not a published one of kind. */
int api_obj_retire(const void *handle, enum api_obj_kind kind);
/* Retire every published handle of `kind` on `device` (any when < 0)
 * owned by `owner` (any when NULL). */
void api_obj_retire_all(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner);
/* A reference on each published handle of `kind` owned by `owner`, as
 * many as held[0..cap) takes (api_obj_put on each gives them back);
 * returns how many there are, which may be more than cap. */
size_t api_obj_hold(enum api_obj_kind kind, const struct api_ctx *owner, struct api_obj **held,
                    size_t cap);
/* Wait until every object of device has been released. */
void api_obj_wait_device(int32_t device);

/* Kind of a published handle, 0 when unknown. */
enum api_obj_kind api_obj_kind_of(const void *handle);
/* Call fn for every published handle of `kind` on `device` (any when < 0)
 * owned by `owner` (any when NULL). fn runs under the table's lock: it must
 * not call api_obj_* or the backend. */
void api_obj_each(enum api_obj_kind kind, int32_t device, const struct api_ctx *owner,
                  void (*fn)(void *handle, enum api_obj_kind kind, struct api_ctx *owner,
                             void *user),
                  void *user);

/* ---- stream.c ---- */

/* A stream in use by a call: the backend handle, its context, and the
 * reference that keeps both alive (api_stream_put). */
struct api_stream_ref {
    void *stream;
    struct api_ctx *ctx;
    struct api_obj *obj;
};

/* Resolve a user stream argument (NULL: the current context's default
 * stream) and take a reference. An unknown or destroyed handle gives
 * ACL_ERROR_RT_INTERNAL_ERROR (CANN's code for an invalid stream) with a
 * message naming `func`. */
aclError api_stream_get(const char *func, aclrtStream stream, struct api_stream_ref *out);
void api_stream_put(struct api_stream_ref *ref);

/* Where a copy or fill works: an asynchronous one (async) holds its stream
 * (as api_stream_get) and runs in the stream's context, a synchronous one
 * in the current context with ref->stream NULL. api_work_put ends both. */
aclError api_work_get(const char *func, bool async, aclrtStream stream,
                      struct api_stream_ref *ref, struct api_ctx **ctx);
void api_work_put(struct api_stream_ref *ref);

/* The message of a failed stream or device synchronisation; returns rc. */
aclError api_sync_failed(const char *func, aclError rc);

/* device.c: CANN's device synchronisation (rtDeviceSynchronize), as
 * aclrtSynchronizeDevice[WithTimeout] and the frees that synchronise make
 * it: the host waits for the current context's streams (its other
 * contexts' are not waited for), at most timeout (< 0: no limit); 107027
 * when one of them captures. */
aclError api_sync_device(const char *fn, int32_t timeout);

/* The runtime's EE1003 for an invalid argument, as its error_code.json
 * words it (hicann/runtime src/dfx/error_manager/error_code.json, EE1003):
 * "<what> failed because value <value> for parameter <param> is invalid.
 * Expected value: <expected>.", `what` the runtime's description of the
 * call; returns ACL_ERROR_RT_PARAM_INVALID. */
aclError api_rt_bad_value(const char *func, const char *what, const char *value,
                          const char *param, const char *expected);
/* The runtime's own words, with its description `desc` of the call
 * (hicann/runtime src/runtime/core/inc/common/error_message_manage.hpp):
 * the EE1003 "<desc> failed because value <value> for parameter <param> is
 * invalid. Expected value: <expect>." of its value checks (its EE1004 for a
 * NULL pointer is diag's api_rt_null). Returns ACL_ERROR_RT_PARAM_INVALID. */
aclError api_rt_value(const char *desc, const char *value, const char *param, const char *expect);

/* ---- peer.c ---- */

/* A copy between device memory of src_dev and dst_dev issued on device dev
 * (the current one): ACL_SUCCESS when they are one device or dev has peer
 * access to the other; otherwise CANN's error, with a message naming func. */
aclError api_peer_copy_check(const char *func, int32_t dev, int32_t src_dev, int32_t dst_dev);

/* ---- callback.c: callbacks and host functions, as a watcher ---- */

/* A stream (backend handle) is about to be destroyed: its subscription and
 * the callbacks still queued for it go (never run), once none is running. */
void api_cb_stream_gone(void *stream);
/* A context is about to be destroyed: its host-function thread ends. */
void api_cb_ctx_gone(const struct api_ctx *ctx);

/* ---- state.c: device and stream state callbacks ---- */

/* Tell the registered device and stream state callbacks (aclrtReg*State-
 * Callback) that device dev or a stream (backend handle) changed state.
 * Called with no lock held; a no-op while api_state_mute is on. */
void api_state_device(int32_t dev, aclrtDeviceState state);
void api_state_stream(void *stream, aclrtStreamState state);
/* aclFinalize closes what the program left open without telling the state
 * callbacks (CANN leaves devices open until the process exits). */
void api_state_mute(bool on);

/* ---- capture.c: streams that capture, and the graphs they make ---- */

#define API_CAP_LANES 32  /* streams one capture may take in */
#define API_CAP_RANGES 16 /* byte ranges noted per captured task: its tensors and blocks */
#define API_CAP_FRAMES 16
#define API_GRAPH_ENDED 3    /* a graph's status once its capture ended */
#define API_GRAPH_BUILDING 4 /* between aclmdlRIBuildBegin and aclmdlRIBuildEnd */
#define API_GRAPH_SUB_NEW 5  /* a conditional task's sub-graph whose capture never began */

struct api_cap_range {
    const void *p;
    size_t n;
    bool w;           /* the task writes them (else it reads them) */
    const char *as;   /* what they are to it (a static string: "workspace",
                         "the executor's block", "output"), or NULL */
    const char *call; /* a workspace: the call it was passed to (aclnnMatmul) */
};
struct api_graph;
/* A task a capture recorded, as the ACL layer saw it (an aclmdlRITask). */
struct api_task_grp;
struct api_cap_task {
    struct api_graph *graph;
    aclmdlRITaskType type;
    char what[32];  /* the call, or the operator's type */
    void *stream;   /* the stream that captured it (backend handle) */
    unsigned lane;  /* its index among the capture's streams */
    uint32_t seq;   /* its index among the graph's tasks */
    bool disabled;  /* aclmdlRITaskDisable */
    int n_r;
    struct api_cap_range r[API_CAP_RANGES]; /* the bytes it reads or writes */
    uint16_t host; /* bit i: r[i] was pinned or registered host memory when captured */
    int nframes;    /* its stack, with ACLSIM_TRACK=1 */
    void *frames[API_CAP_FRAMES];
    /* What aclmdlRITaskGetParams answers and aclmdlRITaskSetParams
     * changes (api_cap_note_params sets it after the note). */
    void *be_task;              /* the backend's handle of the task */
    struct api_task_grp *grp;   /* the task group it belongs to */
    void *obj;                  /* an event's user handle */
    uint32_t obj_flag;          /* the event's creation flags */
    uint32_t flag;              /* record / wait flag, value wait's flag */
    void *addr;                 /* value write / wait address */
    uint64_t value;
    /* An edit made by SetParams or Disable, applied by aclmdlRIUpdate. */
    bool edited;
    aclmdlRITaskType edit_type; /* DEFAULT: disable */
};
/* A task group (an aclrtTaskGrp): the operators one lane captured between
 * aclmdlRICaptureTaskGrpBegin and End. */
struct api_task_grp {
    struct api_graph *graph;
    void *be_group;
    unsigned lane;
    unsigned n;           /* its tasks */
    size_t first;         /* the index of its first task among the graph's */
    bool closed;          /* End made it */
    void *updater;        /* the stream updating it now (NULL: none) */
    unsigned next;        /* the updater's next task */
    struct api_task_grp *next_grp;
};
/* A condition handle (an aclmdlRICondHandle): an 8-byte device word the
 * runtime owns, and the sub-graphs the conditional task made. */
#define API_COND_SUBS 64 /* sub-graphs one conditional task may take */
struct api_cond {
    struct api_graph *graph;
    uint64_t *word;
    uint32_t deflt;
    int flag;            /* aclmdlRICondHandleFlag */
    int type;            /* aclmdlRICondTaskType, once a task took it */
    unsigned n;          /* sub-graphs (0: no conditional task yet) */
    struct api_cond *next;
};
/* A graph (an aclmdlRI): from aclmdlRICaptureBegin to aclmdlRIDestroy.
 * Fields above `next` are capture.c's, read under its lock or once the
 * capture ended; the rest belong to the capture family. */
struct api_graph {
    uint32_t id;
    int32_t device;
    struct api_ctx *ctx;
    int mode;        /* aclmdlRICaptureMode */
    uint64_t thread; /* the thread that began the capture */
    int status;      /* aclmdlRICaptureStatus, then API_GRAPH_ENDED */
    void *be_graph;  /* the backend's graph, once ended */
    unsigned n_lanes;
    void *lane[API_CAP_LANES]; /* lane 0: the stream that began it */
    bool rejoined[API_CAP_LANES];
    struct api_cap_task **tasks;
    size_t n_tasks, cap_tasks;
    /* Task groups: all of them, the one each lane captures into now, the
     * 107034 a task outside them raised meanwhile. */
    struct api_task_grp *grps;
    struct api_task_grp *open_grp[API_CAP_LANES];
    aclError grp_err;
    /* Conditions: the handles made in it; a sub-graph's parent (NULL for
     * a graph of its own) and whether its capture began. */
    struct api_cond *conds;
    struct api_graph *parent;
    bool built; /* made by aclmdlRIBuildBegin: its streams are model streams */
    bool unbound[API_CAP_LANES]; /* a lane aclmdlRIUnbindStream let go */
    /* The model's status after its capture (CANN's RtCaptureModelStatus):
     * READY, UPDATING after a SetParams or Disable, FAULT after a failed
     * one, READY again after aclmdlRIUpdate. */
    int ri_status;
    /* Calls using the graph now (api_graph_get), and whether it is going:
     * aclmdlRIDestroy waits for them. */
    unsigned users;
    bool dying;
    struct api_graph *next;
    char *name;
    struct {
        aclrtCallback fn;
        void *data;
    } cb[8];
    unsigned n_cb;
    _Atomic uint64_t launches;
    /* The sanitizer's: every range was allocated at this count of frees
     * (be_tools.mem_frees), checked_frees valid once `checked`. */
    bool checked;
    uint64_t checked_frees;
};
enum { API_RI_READY = 0, API_RI_UPDATING = 1, API_RI_FAULT = 2 };

/* Whether any stream of the process captures now, whether any graph lives
 * (one atomic load each). */
bool api_cap_any(void);
bool api_graphs_live(void);
/* A stream's per-device id, for messages. */
uint32_t api_cap_stream_id(const void *stream);
/* Whether stream (backend handle) captures: *status (ACTIVE or
 * INVALIDATED) and the graph it captures into. */
bool api_cap_status(const void *stream, int *status, struct api_graph **g);
struct api_graph *api_cap_graph_of(const void *stream);

/* The refusals, each with CANN's message (desc: the runtime's name for
 * the operation, "Stream synchronization"...), ACL_SUCCESS when none: a
 * capturing stream (107027); an event recorded in a capture under way
 * (107028); a context with a capturing stream (107027: context.cc
 * Context::Synchronize L1231-1233 refuses to synchronise it); a
 * synchronous copy or fill the capture modes forbid (107030, or 107041
 * for an asynchronous pageable copy turned synchronous: converted). */
aclError api_cap_check_stream(const char *desc, const void *stream);
aclError api_cap_check_event(const char *desc, const void *event, uint32_t event_id);
aclError api_cap_check_ctx(const char *desc, const struct api_ctx *ctx);
aclError api_cap_check_unsafe(const char *desc, const struct api_ctx *ctx, bool converted);
/* aclmdlRICaptureThreadExchangeMode: set the thread's mode, return the old. */
int api_cap_exchange_mode(int mode);

/* Note a task enqueued on stream with the bytes it touches: true when the
 * stream captures (the task is the capture's), false when it runs. An
 * operator on a stream that updates a task group (true too) gives the
 * group's task it replaces its bytes. _ex also keeps what
 * aclmdlRITaskGetParams answers; api_cap_noted sets that for the task the
 * stream captured last (a record or wait noted before its backend call),
 * each naming the backend's task, which the stream recorded last. */
struct api_cap_params {
    void *obj;         /* an event's user handle */
    uint32_t obj_flag; /* its creation flags */
    uint32_t flag;     /* a record's or wait's flag, a value wait's */
    void *addr;        /* a value write's or wait's address */
    uint64_t value;
};
bool api_cap_note(const void *stream, aclmdlRITaskType type, const char *what,
                  const struct api_cap_range *r, int n);
bool api_cap_note_ex(const void *stream, aclmdlRITaskType type, const char *what,
                     const struct api_cap_range *r, int n, const struct api_cap_params *p);
void api_cap_noted(const void *stream, const struct api_cap_params *p);
/* Whether any stream captures or updates a task group now (one load). */
bool api_cap_busy(void);
/* Whether stream may take a task of `type` now (the runtime's names for
 * its kind: ts_name, ts_type): an updating stream only operators, no more
 * than its group holds (507009, 507899); a capturing stream into its open
 * task group only operators (507009), and no task outside it while
 * another lane of its capture has one open (107034). CANN's messages. */
aclError api_cap_admit(const void *stream, aclmdlRITaskType type, const char *ts_name,
                       unsigned ts_type);
/* Task groups: Begin (107029, 107033 refused) and End (the group, or
 * NULL with 107029, 107033, 107034, 507903); the live closed group behind
 * a user handle (NULL: none); updates Begin (107027, 107005, 107033) and
 * End (507899 when tasks were left); the graph whose group stream updates
 * (NULL: none); graph g goes: its groups' updates end. */
aclError api_cap_grp_begin(void *stream);
aclError api_cap_grp_end(void *stream, struct api_task_grp **out);
struct api_task_grp *api_cap_grp_lookup(const void *handle);
aclError api_cap_update_begin(void *stream, struct api_task_grp *t);
aclError api_cap_update_end(void *stream);
struct api_graph *api_cap_update_graph(const void *stream);
void api_cap_updates_drop(struct api_graph *g);
/* An event record / wait on stream: noted when the stream captures; a
 * wait on an event recorded in a capture pulls its stream into that
 * capture. A wait's refusals: 107031 on the default stream, 107024 for a
 * record outside the capture (use ACL_EVENT_WAIT_EXTERNAL), with CANN's
 * message. */
aclError api_cap_record(const char *desc, void *event, void *stream, bool external);
aclError api_cap_wait(const char *desc, void *stream, void *event, bool external,
                      bool default_stream);
/* An error inside the capture of stream: aclmdlRICaptureEnd will fail. */
void api_cap_invalidate(const void *stream);

/* Begin a capture on stream (of context ctx) in mode: a new graph, the
 * backend told. ACL_ERROR_RT_STREAM_CAPTURED when stream captures already. */
aclError api_cap_begin(void *stream, struct api_ctx *ctx, int mode, struct api_graph **out);
/* End g's capture (begun on stream): the backend's graph taken, its
 * streams free. 507903 (invalidated) and 107025 (a joined stream never
 * rejoined) with CANN's messages; the graph is the caller's either way. */
aclError api_cap_end(struct api_graph *g, void *stream);
/* An explicitly built graph (aclmdlRIBuildBegin): made with no stream;
 * each bound stream captures into it (no call refused for its mode: a
 * build is RELAXED); the end takes the backend's graph. bind:
 * ACL_ERROR_RT_STREAM_MODEL (*other: the model's id) when the stream is
 * bound to a model already, ACL_ERROR_RT_STREAM_CAPTURED when it
 * captures. bound: whether stream is bound to g; unbind lets it go
 * (false: it was not bound). pre for build_end: a stream is bound. */
aclError api_cap_build_begin(struct api_ctx *ctx, struct api_graph **out);
aclError api_cap_bind(struct api_graph *g, void *stream, uint32_t *other);
bool api_cap_bound(const struct api_graph *g, const void *stream);
bool api_cap_unbind(struct api_graph *g, const void *stream);
/* The model (graph of any status) stream is a lane of: true with its id,
 * whether it was loaded (its capture or build ended), the backend's graph
 * (once loaded) and the lane; false when the stream is bound to none. */
bool api_cap_model_of(const void *stream, uint32_t *id, bool *loaded, void **be_graph,
                      unsigned *lane);
aclError api_cap_build_end(struct api_graph *g);
/* Conditions: a handle of graph g over the device word `word` (the
 * caller allocated it); the live handle behind a user's (NULL: none); a
 * conditional task of type over c on capturing stream (pre: the handle is
 * of the stream's capture, unused, n checked), with n new sub-graphs
 * (status API_GRAPH_SUB_NEW) into subs; a capture on stream into such a
 * sub-graph (107026 when it was begun already, 107027 for a capturing
 * stream); fn called for every handle of g and the sub-graphs under it
 * (under the lock: fn must not call capture.c). */
aclError api_cap_cond_new(struct api_graph *g, uint64_t *word, uint32_t deflt, int flag,
                          struct api_cond **out);
struct api_cond *api_cap_cond_lookup(const void *handle);
aclError api_cap_cond_task(void *stream, struct api_cond *c, int type, unsigned n,
                           aclmdlRI *subs);
aclError api_cap_begin_into(void *stream, struct api_ctx *ctx, int mode, struct api_graph *sub);
void api_cap_cond_words(struct api_graph *g, void (*fn)(const struct api_cond *c, void *u),
                        void *u);
/* The live graph behind a user handle, or NULL. _get also counts the
 * caller among its users until api_graph_put; api_graph_retire makes it
 * unfindable and waits for its users to go (false: another call retired
 * it first). */
struct api_graph *api_graph_lookup(const void *handle);
struct api_graph *api_graph_get(const void *handle);
void api_graph_put(struct api_graph *g);
bool api_graph_retire(struct api_graph *g);
/* End the capture of g in the backend if it is under way (a graph going
 * with its capture, a sub-graph's with its parent's). */
void api_cap_abandon(struct api_graph *g);
/* A watcher's: stream goes (its context was destroyed while it captured or
 * was bound to a model being built). Its capture ends in the backend now,
 * while the stream is still there, and the graph is left faulty: it cannot
 * be launched, only destroyed. */
void api_cap_stream_gone(void *stream);
/* Whether stream is bound to a built model (CANN's model stream), and
 * that model's id (id may be NULL). */
bool api_graph_bound(const void *stream, uint32_t *id);
/* A sub-graph whose parent is g, or NULL. */
struct api_graph *api_graph_sub_of(const struct api_graph *g);
/* Whether handle is a task of a live graph. */
bool api_graph_task_live(const void *task);
/* Call fn for each task of g, in order, under the lock (fn must not call
 * capture.c). */
void api_graph_each_task(struct api_graph *g, void (*fn)(const struct api_cap_task *t, void *u),
                         void *u);
/* The same, fn free to change the tasks (their ranges looked at again). */
void api_graph_each_task_mut(struct api_graph *g, void (*fn)(struct api_cap_task *t, void *u),
                             void *u);
/* A live graph of device dev (any), or NULL; the newest graph one of
 * whose streams is `stream`, or NULL. */
struct api_graph *api_graph_on_device(int32_t dev);
struct api_graph *api_graph_of_stream(const void *stream);
/* Forget g and free it (its backend graph is the caller's to destroy). */
void api_graph_release(struct api_graph *g);

/* A live graph other than `except` whose tasks touch [p, p+n): the first
 * such task, copied. */
struct api_graph_use {
    struct api_graph *graph;
    uint32_t id;
    char name[64];
    struct api_cap_task task;
    struct api_cap_range range;
};
bool api_graph_uses(const void *p, size_t n, const struct api_graph *except,
                    struct api_graph_use *out);
/* A live graph that owns bytes of [p, p+n): a task of it writes them and
 * no task before it (nor itself) reads them, so every replay writes them
 * before it reads them (workspaces, intermediates, outputs): the first
 * such task, copied, its range cut to the owned part. */
bool api_graph_owns(const void *p, size_t n, struct api_graph_use *out);
/* "graph N (aclmdlRI 0x...)" (with its name, when it has one) for the
 * graph whose backend graph is be_graph, or "a graph" when none lives. */
const char *api_graph_name_be(const void *be_graph, char *buf, size_t len);
/* The same for graph g. pre: g live. */
const char *api_graph_name(const struct api_graph *g, char *buf, size_t len);
/* g is named `name` (its own copy, taken over) from now on. */
void api_graph_rename(struct api_graph *g, char *name);
/* Tell the backend's trace that name, for g's replays (after its capture
 * or build ended, and when it is renamed). */
void api_graph_label(const struct api_graph *g);

#endif /* ACLSIM_API_RT_RT_H_ */

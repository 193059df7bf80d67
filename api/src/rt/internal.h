/*
 * internal.h - what the files of api/src/rt/ share among themselves and
 * nobody else: the lock of the device bookkeeping, the init and finalize
 * callbacks, the op wait timeout, which events are IPC events, and the
 * release of each kind of handle (objects.c calls what it was given).
 *
 * Included only by rt/'s own files (ci/check-layers).
 */
#ifndef ACLSIM_API_RT_INTERNAL_H_
#define ACLSIM_API_RT_INTERNAL_H_

#include "rt.h"

/* ---- device.c ---- */

/* The mutex of the device and context bookkeeping (never held across a
 * backend call). */
void api_lock(void);
void api_unlock(void);

/* Close every open device, whatever it still holds, without telling the
 * state callbacks (aclFinalize; `where` names it). pre: no lock held. */
void api_devices_close_all(const char *where);
/* Whether any device is open (or opening, or closing). */
bool api_devices_any_open(void);
/* init.c: after an aclFinalize that left devices open, the end of the
 * runtime once the last one has closed. pre: no lock held. */
void api_end_if_idle(void);

/* Whether device dev's default context is held (set, not reset yet). */
bool api_primary_ctx_held(int32_t dev);
/* Context c's system option `opt` (< 3): set it to *value, or read it into
 * *value; false when reading one never set. */
bool api_ctx_sysopt(struct api_ctx *c, int opt, bool set, int64_t *value);

/* The op wait timeout of device dev in seconds (0: none). */
uint32_t api_op_wait_timeout(int32_t dev);
/* devctl.c: a device opened, the operator timeouts count in the driver's
 * interval from now on (device.c tells it). */
void api_op_timeout_device_opened(void);

/* ---- stream.c: what the stream, event and device calls share ---- */

/* CANN's RT_STREAM_LEAST_PRIORITY; 0 is the greatest. */
#define API_LEAST_PRIORITY 7

/* The stream or event slots (BE_AVAIL_*) left on the current device. */
aclError api_avail_num(const char *fn, int what, uint32_t *count);

/* ---- devctl.c: the runtime's checks the device and peer queries share ---- */

/* An atomic-capability query's outputs and count (EE1004, EE1003); the
 * capabilities are zeroed first, as the runtime does. */
aclError api_atomic_query_check(const char *what, uint32_t *caps, const aclrtAtomicOperation *ops,
                                uint32_t count);
/* Each operation in the runtime's range (EE1011). */
aclError api_atomic_ops_check(const aclrtAtomicOperation *ops, uint32_t count);

/* ---- peer.c ---- */

/* Forget the peer access a device that closes had enabled (its peers'
 * access to it stays, as the driver keeps it). */
void api_peer_forget(int32_t dev);

/* ---- ipcevent.c: IPC events ---- */

/* Remember that live event handle h is an IPC event: 0, or -1 when host
 * memory runs out. */
int api_ipc_event_add(const void *h);
/* Whether h is a live IPC event (CANN refuses several calls for them). */
bool api_ipc_event_is(const void *h);
/* h is being released. */
void api_ipc_event_forget(const void *h);
/* Undo an event creation (plain or IPC): forget it, destroy it in the
 * backend. For api_obj_publish. */
aclError api_ipc_event_drop(void *h);

/* ---- notify.c ---- */

/* The last reference to a notify went: the backend destroys it (for
 * api_obj_publish, of notify.c's and ipcnotify.c's notifies). */
void api_notify_release(void *h, struct api_ctx *owner);

/* ---- capture.c, for capgroup.c ---- */

/* The capture state's lock, and what it guards: the graph whose capture
 * stream belongs to (*lane its lane, lane may be NULL), the first graph of
 * the list (g->next the others), whether stream is bound to a built model
 * (CANN's model stream). pre: lock held for the last three. */
void api_cap_lock(void);
void api_cap_unlock(void);
struct api_graph *api_cap_find(const void *stream, unsigned *lane);
struct api_graph *api_graph_first(void);
bool api_graph_bound_locked(const void *stream);
/* capgroup.c, for capture.c: the group an updating stream's operator
 * replaces a task of gets its ranges (the graph, or NULL: not updating).
 * pre: lock held. */
struct api_graph *api_cap_update_note(const void *stream, const char *what,
                                      const struct api_cap_range *r, int n);

/* ---- Telling the watchers (rt.h), in the installed table's order ---- */

/* objects.c: the table api_watchers_install was given. */
extern const struct api_watcher *api_watch_table;
extern size_t api_watch_count;

static inline void api_tell_stream_gone(void *stream)
{
    for (size_t i = 0; i < api_watch_count; i++)
        if (api_watch_table[i].stream_gone)
            api_watch_table[i].stream_gone(stream);
}

static inline void api_tell_ctx_gone(const struct api_ctx *ctx)
{
    for (size_t i = 0; i < api_watch_count; i++)
        if (api_watch_table[i].ctx_gone)
            api_watch_table[i].ctx_gone(ctx);
}

static inline void api_tell_device_closing(int32_t dev, const char *where)
{
    for (size_t i = 0; i < api_watch_count; i++)
        if (api_watch_table[i].device_closing)
            api_watch_table[i].device_closing(dev, where);
}

static inline void api_tell_finalized(const char *where)
{
    for (size_t i = 0; i < api_watch_count; i++)
        if (api_watch_table[i].finalized)
            api_watch_table[i].finalized(where);
}

static inline void api_tell_finalizing(const char *where)
{
    for (size_t i = 0; i < api_watch_count; i++)
        if (api_watch_table[i].finalizing)
            api_watch_table[i].finalizing(where);
}

/* ---- The releases objects.c is given (api_release_fn) ---- */

/* event.c: an event (plain or IPC) whose last reference went. */
void api_release_event(void *event, struct api_ctx *owner);
/* device.c: a context whose last reference went: its default stream and
 * its backend context are destroyed (the watchers told first). */
void api_release_ctx(void *handle, struct api_ctx *ctx);

#endif /* ACLSIM_API_RT_INTERNAL_H_ */

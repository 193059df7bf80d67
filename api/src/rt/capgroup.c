/*
 * capgroup.c - task groups of captures (aclmdlRICaptureTaskGrpBegin/End),
 * their updates from other streams (aclmdlRICaptureTaskUpdateBegin/End),
 * and what a capturing or updating stream admits: the state the calls
 * below the capture family consult before they enqueue a task
 * (api_cap_admit), kept with capture.c's under its lock (internal.h).
 *
 * CANN's rules, hicann/runtime src/runtime/feature/aclgraph/
 * context_aclgraph.cc (StreamBeginTaskGrp L778-811, StreamEndTaskGrp
 * L813-856, StreamBeginTaskUpdate L858-876, StreamEndTaskUpdate L878-905),
 * api_error_aclgraph.cc L80-112 and L173-190 (the refusals before them),
 * src/runtime/core/src/stream/stream.cc (AllocTask L4742-4764: on an
 * updating stream only kernels, each taking the group's next task, none
 * past its end, UpdateTask L4702-4740; PackingTaskGroup L5182-5200: only
 * kernels go into a group; IsTaskGroupBreak L5219-5234: a task of the
 * capture outside the open group interrupts it, 107034) and
 * capture_adapt_v100.cc TaskTypeIsSupportTaskGroup (AI core and vector
 * kernels only).
 */
#include <stdatomic.h>
#include <stdio.h>
#include "backends/be.h"
#include "base/mem.h"
#include "internal.h"

static _Atomic unsigned updating; /* streams updating a task group now */

bool api_cap_busy(void)
{
    return api_cap_any() || atomic_load_explicit(&updating, memory_order_acquire) != 0;
}

/* The group stream updates now, or NULL. pre: lock held. */
static struct api_task_grp *update_of(const void *stream, struct api_graph **owner)
{
    if (atomic_load_explicit(&updating, memory_order_relaxed) == 0)
        return NULL;
    for (struct api_graph *g = api_graph_first(); g; g = g->next)
        for (struct api_task_grp *t = g->grps; t; t = t->next_grp)
            if (t->updater == stream) {
                if (owner)
                    *owner = g;
                return t;
            }
    return NULL;
}

struct api_task_grp *api_cap_grp_lookup(const void *handle)
{
    api_cap_lock();
    struct api_task_grp *hit = NULL;
    for (struct api_graph *g = api_graph_first(); g && !hit; g = g->next)
        for (struct api_task_grp *t = g->grps; t && !hit; t = t->next_grp)
            if (t == handle && t->closed && !g->dying)
                hit = t;
    api_cap_unlock();
    return hit;
}

/* ---- What a stream admits ---- */

aclError api_cap_admit(const void *stream, aclmdlRITaskType type, const char *ts_name,
                       unsigned ts_type)
{
    if (!api_cap_busy())
        return ACL_SUCCESS;
    aclError rc = ACL_SUCCESS;
    api_cap_lock();
    unsigned lane = 0;
    struct api_task_grp *u = update_of(stream, NULL);
    struct api_graph *g = u ? NULL : api_cap_find(stream, &lane);
    bool open_elsewhere = false;
    for (unsigned i = 0; g && i < g->n_lanes; i++)
        open_elsewhere |= i != lane && g->open_grp[i] != NULL;
    if (u && type != ACL_MODEL_RI_TASK_KERNEL) {
        api_report(API_MSG_EE1006, "Updating the task group failed. Task type %s(%u) is not "
                   "supported. Reason: Only tasks running on Cube Core or Vector Core support task "
                   "group update.", ts_name, ts_type);
        rc = ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT;
    } else if (u && u->next >= u->n) {
        api_report(API_MSG_EH9999, "The number of tasks cannot exceed the size of the task group, "
                   "current task index=%u, task group size=%u, runtime result = %d.", u->next, u->n,
                   ACL_ERROR_RT_INTERNAL_ERROR);
        rc = ACL_ERROR_RT_INTERNAL_ERROR; /* RT_ERROR_STREAM_TASKGRP_UPDATE */
    } else if (u) {
        u->next++;
    } else if (g && g->open_grp[lane] && type != ACL_MODEL_RI_TASK_KERNEL) {
        api_report(API_MSG_EE1006, "Adding the task to the task group failed. Task type %s(%u) is "
                   "not supported. Reason: Only tasks running on Cube Core or Vector Core can be "
                   "added to a task group.", ts_name, ts_type);
        rc = ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT;
    } else if (g && !g->open_grp[lane] && open_elsewhere) {
        g->grp_err = ACL_ERROR_STREAM_TASK_GROUP_INTR; /* its group's End reports it */
        api_report(API_MSG_EH9999, "the task group interrupted: stream (stream_id=%u) put a task "
                   "into the capture outside the open task group, runtime result = %d.",
                   api_cap_stream_id(stream), ACL_ERROR_STREAM_TASK_GROUP_INTR);
        rc = ACL_ERROR_STREAM_TASK_GROUP_INTR;
    }
    api_cap_unlock();
    return rc;
}

/* ---- Groups ---- */

/* 107029 for a stream not capturing (api_error_aclgraph.cc L176-178,
 * L186-188), with desc the runtime's words for the call. pre: lock held. */
static aclError not_capturing(const char *desc, const void *stream)
{
    api_report(API_MSG_EE1016, "%s failed. Reason: Stream (stream_id=%u) is not in the capture "
               "stage.", desc, api_cap_stream_id(stream));
    return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
}

aclError api_cap_grp_begin(void *stream)
{
    static const char desc[] = "Marking the start of a task group";
    struct api_task_grp *t = base_calloc(1, sizeof *t);
    if (!t)
        return ACL_ERROR_BAD_ALLOC;
    api_cap_lock();
    unsigned lane = 0;
    struct api_graph *g = api_cap_find(stream, &lane);
    aclError rc = ACL_SUCCESS;
    if (!g || g->status == API_GRAPH_BUILDING) {
        rc = not_capturing(desc, stream);
    } else if (g->open_grp[lane] || update_of(stream, NULL)) {
        api_report(API_MSG_EH9999, "aclmdlRICaptureTaskGrpBegin failed: Task group is repeatedly "
                   "started, or a task group is being updated, runtime result = %d.",
                   ACL_ERROR_STREAM_TASK_GROUP_STATUS);
        rc = ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    } else {
        rc = be_get()->group_begin(stream);
    }
    if (rc == ACL_SUCCESS) {
        t->graph = g;
        t->lane = lane;
        t->first = g->n_tasks;
        t->next_grp = g->grps;
        g->grps = t;
        g->open_grp[lane] = t;
    }
    api_cap_unlock();
    if (rc != ACL_SUCCESS)
        base_free(t);
    return rc;
}

aclError api_cap_grp_end(void *stream, struct api_task_grp **out)
{
    static const char desc[] = "Marking the end of a task group";
    *out = NULL;
    api_cap_lock();
    unsigned lane = 0;
    struct api_graph *g = api_cap_find(stream, &lane);
    aclError rc = ACL_SUCCESS;
    struct api_task_grp *t = g ? g->open_grp[lane] : NULL;
    if (!g || g->status == API_GRAPH_BUILDING) {
        rc = not_capturing(desc, stream);
    } else if (!t) {
        api_report(API_MSG_EH9999, "aclmdlRICaptureTaskGrpEnd failed: The end operation cannot be "
                   "performed on a stream that has not started a task group, runtime result = %d.",
                   ACL_ERROR_STREAM_TASK_GROUP_STATUS);
        rc = ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    } else {
        void *be_group = NULL;
        rc = be_get()->group_end(stream, &be_group);
        g->open_grp[lane] = NULL;
        for (size_t i = t->first; i < g->n_tasks; i++)
            t->n += g->tasks[i]->grp == t;
        t->be_group = be_group;
        if (rc == ACL_SUCCESS && g->grp_err != ACL_SUCCESS) {
            api_report(API_MSG_EE1017, "%s failed. Parameter stream (stream_id=%u) is invalid. "
                       "Reason: The ACL Graph associated with the stream has errors. The previous "
                       "API may report an error. Handle the error reported by the previous API "
                       "first.", desc, api_cap_stream_id(stream));
            rc = g->grp_err;
        } else if (rc == ACL_SUCCESS && g->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED) {
            api_report(API_MSG_EE1017, "%s failed. Parameter stream (stream_id=%u) is invalid. "
                       "Reason: The ACL Graph capture associated with the stream has been "
                       "invalidated.", desc, api_cap_stream_id(stream));
            rc = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
        } else if (rc == ACL_SUCCESS) {
            t->closed = true;
            *out = t;
        }
    }
    api_cap_unlock();
    return rc;
}

/* ---- Updates ---- */

/* The refusals Begin and End share (api_error_aclgraph.cc L87-94,
 * L103-109): a capturing stream (107027), a stream bound to a model
 * (107005). pre: lock held. */
static aclError update_refused(const char *desc, void *stream)
{
    if (api_cap_find(stream, NULL)) {
        api_report(API_MSG_EE1016, "%s failed. Reason: Stream (stream_id=%u) during the capture "
                   "stage is not supported.", desc, api_cap_stream_id(stream));
        return ACL_ERROR_RT_STREAM_CAPTURED;
    }
    if (api_graph_bound_locked(stream)) {
        api_report(API_MSG_EE1016, "%s failed. Reason: Only single operator stream is supported.",
                   desc);
        return ACL_ERROR_RT_STREAM_MODEL;
    }
    return ACL_SUCCESS;
}

aclError api_cap_update_begin(void *stream, struct api_task_grp *t)
{
    static const char desc[] = "Marking the start of the task to be updated";
    api_cap_lock();
    aclError rc = update_refused(desc, stream);
    if (rc == ACL_SUCCESS && update_of(stream, NULL)) {
        api_report(API_MSG_EE1016, "%s failed. Reason: The stream is already in task update or "
                   "sample mode.", desc);
        rc = ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    } else if (rc == ACL_SUCCESS && t->updater) {
        api_report(API_MSG_EH9999, "aclmdlRICaptureTaskUpdateBegin failed: The handle only can be "
                   "updated by one stream, runtime result = %d.",
                   ACL_ERROR_STREAM_TASK_GROUP_STATUS);
        rc = ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    } else if (rc == ACL_SUCCESS) {
        rc = be_get()->group_update(stream, t->be_group);
    }
    if (rc == ACL_SUCCESS) {
        t->updater = stream;
        t->next = 0;
        atomic_fetch_add(&updating, 1);
    }
    api_cap_unlock();
    return rc;
}

aclError api_cap_update_end(void *stream)
{
    static const char desc[] = "Marking the end of the task to be updated";
    api_cap_lock();
    aclError rc = update_refused(desc, stream);
    struct api_task_grp *t = rc == ACL_SUCCESS ? update_of(stream, NULL) : NULL;
    if (rc == ACL_SUCCESS && !t) {
        api_report(API_MSG_EE1016, "%s failed. Reason: The stream is not in task update mode.",
                   desc);
        rc = ACL_ERROR_STREAM_TASK_GROUP_STATUS;
    } else if (t) {
        be_get()->group_update(stream, NULL);
        t->updater = NULL;
        atomic_fetch_sub(&updating, 1);
        if (t->next != t->n) {
            api_report(API_MSG_EE1017, "%s failed. Parameter stream (stream_id=%u) is invalid. "
                       "Reason: The task group under this stream contains unupdated tasks. "
                       "total_num=%u, matched_num=%u.", desc, api_cap_stream_id(stream), t->n,
                       t->next);
            rc = ACL_ERROR_RT_INTERNAL_ERROR; /* RT_ERROR_STREAM_TASKGRP_UPDATE */
        }
    }
    api_cap_unlock();
    return rc;
}

struct api_graph *api_cap_update_note(const void *stream, const char *what,
                                      const struct api_cap_range *r, int n)
{
    struct api_graph *g = NULL;
    struct api_task_grp *t = update_of(stream, &g);
    if (!t || t->next == 0)
        return NULL;
    /* The operator replaces the group's task next - 1: its bytes now. */
    unsigned k = 0;
    for (size_t i = t->first; i < g->n_tasks; i++) {
        struct api_cap_task *task = g->tasks[i];
        if (task->grp != t || k++ != t->next - 1)
            continue;
        snprintf(task->what, sizeof task->what, "%s", what);
        task->n_r = 0;
        for (int j = 0; j < n && j < API_CAP_RANGES; j++)
            if (r[j].p && r[j].n)
                task->r[task->n_r++] = r[j];
        g->checked = false; /* the sanitizer looks at its ranges again */
        break;
    }
    return g;
}

struct api_graph *api_cap_update_graph(const void *stream)
{
    if (atomic_load_explicit(&updating, memory_order_acquire) == 0)
        return NULL;
    api_cap_lock();
    struct api_graph *g = NULL;
    update_of(stream, &g);
    api_cap_unlock();
    return g;
}

void api_cap_updates_drop(struct api_graph *g)
{
    api_cap_lock();
    for (struct api_task_grp *t = g->grps; t; t = t->next_grp)
        if (t->updater) {
            be_get()->group_update(t->updater, NULL);
            t->updater = NULL;
            atomic_fetch_sub(&updating, 1);
        }
    api_cap_unlock();
}

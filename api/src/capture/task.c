/*
 * task.c - the tasks of model runtime instances (the MODELTASK family):
 * which tasks a stream of a model holds (aclmdlRIGetTasksByStream), each
 * task's type, sequence id and parameters, and changes to them that a
 * later aclmdlRIUpdate applies to the replays (aclmdlRITaskSetParams,
 * aclmdlRITaskDisable).
 *
 * CANN has no ACL layer checks for these but the kernel attribute's
 * (hicann/runtime src/acl/aclrt_impl/kernel.cpp L107-112, L252-281,
 * L727-787; stream.cpp L397-404; model_ri.cpp L106-112): the runtime's
 * are those below (src/runtime/api/impl/api_error.cc L7729-7817, EE1004
 * 107000 for a NULL; api_impl.cc TaskGetParams L9538-9628, TaskSetParams
 * L9630-9673, ModelUpdate L9682-9708, StreamGetTasks L9742-9753,
 * TaskGetType L9755-9762, ModelTaskDisable L9764-9792, TaskGetSeqId
 * L9919-9936; kernel_utils.cc ConvertTaskType L68-120, GetKernelTaskParams
 * L122-156, UpdateKernelParams L217-276, GetKernelAttribute L308ff;
 * memory_task.cc L631-776 and event_task.cc L481-517 for the other
 * kinds; capture_model_utils.cc CheckCaptureModelForUpdate L241-270;
 * stream.cc StreamGetTasks: a short array gets the first tasks, 107039).
 *
 * A change marks the model UPDATING (a launch is refused until
 * aclmdlRIUpdate) and FAULT when it fails; aclmdlRIUpdate hands each
 * change to the backend's record and makes the model READY again. The
 * simulator has no kernels: an operator's task answers as a kernel task
 * whose function handle is NULL and whose arguments are the device
 * addresses it reads and writes, in the order the task stores them.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "backends/be.h"

static const char *type_text(aclmdlRITaskType t, char buf[24])
{
    static const char *const names[] = {"TASK_DEFAULT(0)", "TASK_KERNEL(1)",
                                        "TASK_EVENT_RECORD(2)", "TASK_EVENT_WAIT(3)",
                                        "TASK_EVENT_RESET(4)", "TASK_VALUE_WRITE(5)",
                                        "TASK_VALUE_WAIT(6)"};
    if ((unsigned)t < sizeof names / sizeof names[0])
        return names[t];
    snprintf(buf, 24, "UNKNOWN(%d)", (int)t);
    return buf;
}

/* The task behind a user handle (pre: not NULL), or NULL with 107000. */
static struct api_cap_task *task_of(const char *fn, aclmdlRITask task, aclError *rc)
{
    if (!api_graph_task_live(task)) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, task %p is not a "
                   "task of a live model runtime instance.", fn, task);
        *rc = ACL_ERROR_RT_PARAM_INVALID;
        return NULL;
    }
    return task;
}

/* task_of after the runtime's NULL checks of the task and of the call's
 * out argument (named out_name; NULL: the call has none): 107000, EE1004
 * with the runtime's description desc of the call; a sub-graph's task is
 * 207000, a warning only (the runtime's IsTaskBelongToSubCaptureMdl). */
static struct api_cap_task *task_arg(const char *fn, const char *desc, aclmdlRITask task,
                                     const void *out, const char *out_name, aclError *rc)
{
    if (!task) {
        *rc = api_rt_null(desc, "task");
        return NULL;
    }
    if (out_name && !out) {
        *rc = api_rt_null(desc, out_name);
        return NULL;
    }
    struct api_cap_task *t = task_of(fn, task, rc);
    if (t && t->graph->parent) {
        *rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        return NULL;
    }
    return t;
}

/* ---- Tasks of a stream ---- */

struct task_walk {
    const void *stream;
    aclmdlRITask *out;
    uint32_t room, n;
};

static void each_task(const struct api_cap_task *t, void *u)
{
    struct task_walk *w = u;
    if (t->stream != w->stream)
        return;
    if (w->out && w->n < w->room)
        w->out[w->n] = (aclmdlRITask)t;
    w->n++;
}

aclError api_impl_aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks,
                                           uint32_t *numTasks)
{
    static const char fn[] = "aclmdlRIGetTasksByStream";
    static const char desc[] = "Obtaining all tasks in a stream";
    if (!stream)
        return api_rt_null(desc, "stm");
    if (!numTasks)
        return api_rt_null(desc, "numTasks");
    struct api_graph *g = api_graph_of_stream(stream);
    if (!g) {
        api_report(API_MSG_EE1011, "%s failed. Value 0 for parameter stm->modelNum is invalid. "
                   "Reason: The stream (stream_id=%u) is not bound to a model.", desc,
                   api_cap_stream_id(stream));
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    (void)fn;
    if (g->parent)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    struct task_walk w = {stream, tasks, *numTasks, 0};
    api_graph_each_task(g, each_task, &w);
    if (!tasks) {
        *numTasks = w.n;
        return ACL_SUCCESS;
    }
    for (uint32_t i = w.n; i < *numTasks; i++) /* the rest NULL */
        tasks[i] = NULL;
    if (*numTasks < w.n) { /* the first ones are given, and the error */
        api_report(API_MSG_EE1011, "%s failed. Value %u for parameter numTasks is invalid. Reason: "
                   "The array space is insufficient. The array size is less than the total "
                   "number of tasks in model streams %u.", desc, *numTasks, w.n);
        return ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY;
    }
    *numTasks = w.n;
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
    static const char fn[] = "aclmdlRITaskGetType";
    static const char desc[] = "Obtaining the task type";
    aclError rc = ACL_SUCCESS;
    const struct api_cap_task *t = task_arg(fn, desc, task, type, "type", &rc);
    if (!t)
        return rc;
    *type = t->type;
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
    static const char fn[] = "aclmdlRITaskGetSeqId";
    static const char desc[] = "Obtaining the Submission Queue Entry (SQE) ID of a task";
    aclError rc = ACL_SUCCESS;
    const struct api_cap_task *t = task_arg(fn, desc, task, id, "id", &rc);
    if (!t)
        return rc;
    if (t->graph->built) {
        api_report(API_MSG_EE1016, "%s failed. Reason: Non ACL Graph mode is not supported.", desc);
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    *id = t->seq;
    return ACL_SUCCESS;
}

/* ---- Parameters ---- */

aclError api_impl_aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    static const char fn[] = "aclmdlRITaskGetParams";
    static const char desc[] = "Obtaining task parameter information";
    aclError rc = ACL_SUCCESS;
    const struct api_cap_task *t = task_arg(fn, desc, task, params, "params", &rc);
    if (!t)
        return rc;
    if (t->type == ACL_MODEL_RI_TASK_DEFAULT) {
        api_report(API_MSG_EE1017, "%s failed. Parameter task->type is invalid. Reason: The "
                   "current task type RT_TASK_DEFAULT does not support obtaining of parameters. "
                   "Only task types other than RT_TASK_DEFAULT supports obtaining of parameters.",
                   desc);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    memset(params, 0, sizeof *params);
    params->type = t->type;
    switch (t->type) {
    case ACL_MODEL_RI_TASK_KERNEL: {
        /* No kernel object: the task's arguments are its tensors' and
         * blocks' device addresses, as it stores them. */
        static _Thread_local void *args[API_CAP_RANGES];
        for (int i = 0; i < t->n_r; i++)
            args[i] = (void *)t->r[i].p;
        params->taskGrp = t->grp;
        params->kernelTaskParams.args = args;
        params->kernelTaskParams.argsSize = (size_t)t->n_r * sizeof args[0];
        break;
    }
    case ACL_MODEL_RI_TASK_EVENT_RECORD:
        params->eventRecordTaskParams.event = t->obj;
        params->eventRecordTaskParams.eventFlag = t->obj_flag;
        params->eventRecordTaskParams.recordFlag = t->flag;
        break;
    case ACL_MODEL_RI_TASK_EVENT_WAIT:
        params->eventWaitTaskParams.event = t->obj;
        params->eventWaitTaskParams.eventFlag = t->obj_flag;
        params->eventWaitTaskParams.waitFlag = t->flag;
        break;
    case ACL_MODEL_RI_TASK_EVENT_RESET:
        params->eventResetTaskParams.event = t->obj;
        params->eventResetTaskParams.eventFlag = t->obj_flag;
        break;
    case ACL_MODEL_RI_TASK_VALUE_WRITE:
        params->valueWriteTaskParams.devAddr = t->addr;
        params->valueWriteTaskParams.value = t->value;
        break;
    default: /* ACL_MODEL_RI_TASK_VALUE_WAIT */
        params->valueWaitTaskParams.devAddr = t->addr;
        params->valueWaitTaskParams.value = t->value;
        params->valueWaitTaskParams.flag = t->flag;
        break;
    }
    return ACL_SUCCESS;
}

/* CheckCaptureModelForUpdate: a captured graph (not a built one, not a
 * sub-graph), ready or being updated. */
static aclError updatable(struct api_graph *g)
{
    static const char desc[] = "Checking whether the capture model is updatable";
    if (g->built) {
        api_report(API_MSG_EE1016, "%s failed. Reason: Non ACL Graph mode is not supported.", desc);
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    if (g->parent)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    if (g->status != API_GRAPH_ENDED || g->ri_status == API_RI_FAULT) {
        api_report(API_MSG_EE1017, "%s failed. Parameter modelRI is invalid. Reason: ModelRI "
                   "(model_id=%u) is in running or capture state, status=%s.", desc, g->id,
                   g->status != API_GRAPH_ENDED ? "CAPTURE_ACTIVE(1)" : "FAULT(4)");
        return ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    }
    return ACL_SUCCESS;
}

/* A change of task t of type `to` (params' other fields checked as
 * memory_task.cc CheckUpdatingTaskParams and kernel_utils.cc
 * UpdateKernelParams do). */
static aclError set_checked(struct api_cap_task *t, const aclmdlRITaskParams *p)
{
    char v[32];
    if (p->type == ACL_MODEL_RI_TASK_KERNEL) {
        if (t->type != ACL_MODEL_RI_TASK_KERNEL) {
            api_report(API_MSG_EE1017, "Updating kernel parameters failed. Parameter task is "
                       "invalid. Reason: The input task must be a compute task on the Cube Core "
                       "or Vector Core. Before calling aclmdlRITaskSetParams, use "
                       "aclmdlRITaskGetType to obtain the task type and check whether the task "
                       "type is correct.");
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        if (p->taskGrp) {
            snprintf(v, sizeof v, "%p", p->taskGrp);
            return api_rt_value("rtModelTaskSetParams", v, "params->taskGrp", "NULL pointer");
        }
        /* No function handle names a kernel here: kernels are outside the
         * simulator (aclrtBinaryGetFunction is not simulated). */
        if (!p->kernelTaskParams.funcHandle)
            return api_rt_null("rtModelTaskSetParams", "params->kernelTaskParams->funcHandle");
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: aclmdlRITaskSetParams failed, "
                   "params->kernelTaskParams->funcHandle %p is not a kernel: kernels and device "
                   "binaries are outside the simulator.", p->kernelTaskParams.funcHandle);
        return ACL_ERROR_RT_INVALID_HANDLE;
    }
    if (p->type != ACL_MODEL_RI_TASK_VALUE_WRITE && p->type != ACL_MODEL_RI_TASK_VALUE_WAIT)
        return api_rt_value("Setting task parameters", type_text(p->type, v), "params->type",
                            "TASK_KERNEL(1) or TASK_VALUE_WRITE(5) or TASK_VALUE_WAIT(6)");
    const char *why = t->type == ACL_MODEL_RI_TASK_DEFAULT ? "current task type is invalid"
                      : p->taskGrp                          ? "taskGrp must be nullptr"
                      : p->opInfoPtr                        ? "opInfoPtr must be nullptr"
                      : p->opInfoSize                       ? "opInfoSize must be 0"
                                                            : NULL;
    if (why) { /* the runtime logs it only */
        api_report(API_MSG_EH9999, "aclmdlRITaskSetParams failed: %s, runtime result = %d.", why,
                   ACL_ERROR_RT_PARAM_INVALID);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    static const char fn[] = "aclmdlRITaskSetParams";
    static const char desc[] = "Setting task parameters";
    API_FAULT(ACL_MDLRI_UPDATE, fn);
    aclError rc = ACL_SUCCESS;
    struct api_cap_task *t = task_arg(fn, desc, task, params, "params", &rc);
    if (!t)
        return rc;
    struct api_graph *g = t->graph;
    rc = updatable(g);
    if (rc != ACL_SUCCESS)
        return rc;
    g->ri_status = API_RI_UPDATING;
    rc = set_checked(t, params);
    if (rc != ACL_SUCCESS) {
        g->ri_status = API_RI_FAULT;
        return rc;
    }
    t->edited = true;
    t->edit_type = params->type;
    if (params->type == ACL_MODEL_RI_TASK_VALUE_WRITE) {
        t->addr = params->valueWriteTaskParams.devAddr;
        t->value = params->valueWriteTaskParams.value;
    } else {
        t->addr = params->valueWaitTaskParams.devAddr;
        t->value = params->valueWaitTaskParams.value;
        t->flag = params->valueWaitTaskParams.flag;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRITaskDisable(aclmdlRITask task)
{
    static const char fn[] = "aclmdlRITaskDisable";
    static const char desc[] = "Setting the status of a specified task to disabled";
    API_FAULT(ACL_MDLRI_UPDATE, fn);
    aclError rc = ACL_SUCCESS;
    struct api_cap_task *t = task_arg(fn, desc, task, NULL, NULL, &rc);
    if (!t)
        return rc;
    struct api_graph *g = t->graph;
    rc = updatable(g);
    if (rc != ACL_SUCCESS)
        return rc;
    g->ri_status = API_RI_UPDATING;
    if (t->type == ACL_MODEL_RI_TASK_DEFAULT) {
        g->ri_status = API_RI_FAULT;
        api_report(API_MSG_EE1017, "%s failed. Parameter taskType is invalid. Reason: Current "
                   "task type is RT_TASK_DEFAULT which cannot be reset.", desc);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    t->edited = true;
    t->edit_type = ACL_MODEL_RI_TASK_DEFAULT; /* disabled */
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
                                                 aclrtLaunchKernelAttrValue *attrValue)
{
    static const char fn[] = "aclmdlRIKernelTaskGetAttribute";
    if (!task)
        return api_err_null(fn, "task");
    if (!attrValue)
        return api_err_null(fn, "attrValue");
    aclError rc = ACL_SUCCESS;
    const struct api_cap_task *t = task_of(fn, task, &rc);
    if (!t)
        return rc;
    if (t->type != ACL_MODEL_RI_TASK_KERNEL) {
        api_report(API_MSG_EE1017, "Obtaining kernel function attributes failed. Parameter task "
                   "is invalid. Reason: The input task must be a compute task on the Cube Core or "
                   "Vector Core. Before calling aclmdlRIKernelTaskGetAttribute, use "
                   "aclmdlRITaskGetType to obtain the task type and check whether the task type is "
                   "correct.");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    (void)attrId;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, the task runs the "
               "built-in operator %s: a kernel's launch attributes belong to kernels, which are "
               "outside the simulator.", fn, t->what);
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

/* ---- aclmdlRIUpdate ---- */

struct edit_walk {
    struct api_graph *g;
    aclError rc;
};

static void apply(const struct api_cap_task *t, void *u)
{
    struct edit_walk *w = u;
    if (!t->edited || w->rc != ACL_SUCCESS)
        return;
    struct be_task_edit e = {BE_EDIT_DISABLE, t->addr, t->value, t->flag};
    if (t->edit_type == ACL_MODEL_RI_TASK_VALUE_WRITE)
        e.how = BE_EDIT_VALUE_WRITE;
    else if (t->edit_type == ACL_MODEL_RI_TASK_VALUE_WAIT)
        e.how = BE_EDIT_VALUE_WAIT;
    w->rc = t->be_task ? be_get()->graph_task_edit(w->g->be_graph, t->be_task, &e)
                       : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

/* The edits are applied: each task takes its new kind. */
static void settle(struct api_cap_task *t, void *u)
{
    (void)u;
    if (!t->edited)
        return;
    t->edited = false;
    t->disabled = t->edit_type == ACL_MODEL_RI_TASK_DEFAULT;
    t->host = 0;
    t->n_r = 0; /* the bytes it touches from now on */
    if (!t->disabled) {
        t->type = t->edit_type;
        t->r[t->n_r++] = (struct api_cap_range){
            .p = t->addr, .n = 8, .w = t->type == ACL_MODEL_RI_TASK_VALUE_WRITE};
    }
}

aclError api_impl_aclmdlRIUpdate(aclmdlRI modelRI)
{
    static const char fn[] = "aclmdlRIUpdate";
    static const char desc[] = "Model update";
    API_FAULT(ACL_MDLRI_UPDATE, fn);
    if (!modelRI) /* no ACL layer check (model_ri.cpp L106-112) */
        return api_rt_null(desc, "mdl");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = api_ri_get(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (g->built) {
        api_report(API_MSG_EE1016, "%s failed. Reason: Non ACL Graph mode is not supported.", desc);
        rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    } else if (g->parent) {
        rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    } else if (g->status != API_GRAPH_ENDED || g->ri_status == API_RI_FAULT) {
        api_report(API_MSG_EH9999, "%s failed: model is not ready for update, model_id=%u, "
                   "current status=%s, runtime result = %d.", fn, g->id,
                   g->status != API_GRAPH_ENDED ? "CAPTURE_ACTIVE(1)" : "FAULT(4)",
                   ACL_ERROR_RT_MODEL_UPDATE_FAILED);
        rc = ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    } else if (g->ri_status == API_RI_UPDATING) {
        struct edit_walk w = {g, ACL_SUCCESS};
        api_graph_each_task(g, apply, &w);
        if (w.rc == ACL_SUCCESS) {
            api_graph_each_task_mut(g, settle, NULL);
            g->ri_status = API_RI_READY;
        } else {
            g->ri_status = API_RI_FAULT;
            rc = api_err_runtime(fn, w.rc);
        }
    }
    api_graph_put(g);
    return rc;
}

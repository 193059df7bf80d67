/*
 * model.c - model runtime instances (the MODELRI family): the graphs
 * stream captures make, run again (aclmdlRIExecuteAsync on any stream,
 * aclmdlRIExecute with a timeout), named, looked into (their streams,
 * their tasks, a JSON description) and destroyed with their destroy
 * callbacks. Checks as hicann/runtime src/acl/aclrt_impl/model_ri.cpp
 * (NULL handles: 100000) and the runtime's (a capturing stream: 107027).
 *
 * A replay runs the backend's record of the capture; before it, the
 * allocator sanitizer checks that the bytes the graph's tasks touch are
 * still allocated (alloc/graphcheck.c).
 */
#include <stdio.h>
#include <string.h>
#include "capture.h"
#include "alloc/alloc.h"
#include "backends/be.h"
#include "base/mem.h"

#define NAME_MAX_LEN 512 /* aclmdlRIGetName: at most 512 bytes */

/* The ended graph behind a user handle, or NULL with CANN's error. */
static struct api_graph *graph_of(const char *fn, aclmdlRI modelRI, aclError *rc)
{
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, modelRI %p is not a "
                   "live model runtime instance.", fn, modelRI);
        *rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if (g->status != API_GRAPH_ENDED) {
        api_report(API_MSG_EE1016, "%s failed. Reason: ModelRI (model_id=%u) is still being "
                   "captured; call aclmdlRICaptureEnd first.", fn, g->id);
        *rc = ACL_ERROR_RT_MODEL_CAPTURED;
        g = NULL;
    }
    return g;
}

/* Launch g on the held stream s (backend handle). */
static aclError launch(const char *fn, struct api_graph *g, void *s)
{
    aclError rc = api_cap_check_stream("Model execution", s);
    if (rc != ACL_SUCCESS)
        return rc;
    api_check_graph_replay(g);
    rc = be_get()->graph_launch(g->be_graph, s);
    if (rc == ACL_ERROR_RT_NO_STREAM_RESOURCE)
        return api_err_create(fn, rc, ACL_ERROR_RT_NO_STREAM_RESOURCE, "stream");
    if (rc == ACL_SUCCESS)
        atomic_fetch_add(&g->launches, 1);
    return api_err_runtime(fn, rc);
}

aclError api_impl_aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    static const char fn[] = "aclmdlRIExecuteAsync";
    API_FAULT(ACL_MDLRI_EXECUTE, fn);
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = launch(fn, g, s.stream);
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    static const char fn[] = "aclmdlRIExecute";
    API_FAULT(ACL_MDLRI_EXECUTE, fn);
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (timeout == 0 || timeout < -1) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)timeout);
        return api_rt_bad_value(fn, "Executing a model", v, "timeout",
                                "greater than or equal to -1 and not equal to 0");
    }
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    /* Synchronous: on the graph's context's default stream, then waited for. */
    struct api_stream_ref s;
    rc = api_stream_get(fn, NULL, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = launch(fn, g, s.stream);
    if (rc == ACL_SUCCESS)
        rc = api_sync_failed(fn, be_get()->stream_sync(s.stream, timeout));
    api_stream_put(&s);
    return rc;
}

void api_graph_free(struct api_graph *g)
{
    for (unsigned i = 0; i < g->n_cb; i++)
        g->cb[i].fn(g->cb[i].data);
    if (g->be_graph)
        be_get()->graph_destroy(g->be_graph);
    api_graph_release(g);
}

aclError api_impl_aclmdlRIDestroy(aclmdlRI modelRI)
{
    static const char fn[] = "aclmdlRIDestroy";
    API_FAULT(ACL_MDLRI_DESTROY, fn);
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    api_graph_free(g);
    return ACL_SUCCESS;
}

void api_graphs_device_closing(int32_t dev, const char *where)
{
    (void)where;
    struct api_graph *g;
    while ((g = api_graph_on_device(dev)) != NULL)
        api_graph_free(g);
}

aclError api_impl_aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func,
                                                  void *userData)
{
    static const char fn[] = "aclmdlRIDestroyRegisterCallback";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!func)
        return api_err_null(fn, "func");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (g->n_cb == sizeof g->cb / sizeof g->cb[0]) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, modelRI %u has %u "
                   "destroy callbacks already, the most it takes.", fn, g->id, g->n_cb);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    g->cb[g->n_cb].fn = func;
    g->cb[g->n_cb++].data = userData;
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
    static const char fn[] = "aclmdlRIDestroyUnregisterCallback";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!func)
        return api_err_null(fn, "func");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    for (unsigned i = 0; i < g->n_cb; i++)
        if (g->cb[i].fn == func) {
            memmove(&g->cb[i], &g->cb[i + 1], (g->n_cb - i - 1) * sizeof g->cb[0]);
            g->n_cb--;
            return ACL_SUCCESS;
        }
    api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, func is not a "
               "destroy callback of modelRI %u.", fn, g->id);
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* ---- Names, ids, streams, tasks ---- */

aclError api_impl_aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
    static const char fn[] = "aclmdlRISetName";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!name)
        return api_err_null(fn, "name");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    size_t n = strnlen(name, NAME_MAX_LEN - 1);
    char *copy = base_malloc(n + 1);
    if (!copy)
        return api_err_host_alloc(n + 1);
    memcpy(copy, name, n);
    copy[n] = '\0';
    api_graph_rename(g, copy);
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
    static const char fn[] = "aclmdlRIGetName";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!name)
        return api_err_null(fn, "name");
    if (maxLen == 0)
        return api_rt_bad_value(fn, "Getting the model name", "0", "maxLen", "greater than 0");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    snprintf(name, maxLen, "%s", g->name ? g->name : "");
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
    static const char fn[] = "aclmdlRIGetId";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!modelRIId)
        return api_err_null(fn, "modelRIId");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (g)
        *modelRIId = g->id;
    return g ? ACL_SUCCESS : rc;
}

aclError api_impl_aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    static const char fn[] = "aclmdlRIGetStreams";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!numStreams)
        return api_err_null(fn, "numStreams");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (streams) {
        if (*numStreams < g->n_lanes)
            return api_rt_bad_value(fn, "Getting the streams of a model", "too small",
                                    "numStreams", "at least the model's stream count");
        for (unsigned i = 0; i < g->n_lanes; i++)
            streams[i] = g->lane[i];
    }
    *numStreams = g->n_lanes;
    return ACL_SUCCESS;
}

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
    if (!stream)
        return api_err_null(fn, "stream");
    if (!numTasks)
        return api_err_null(fn, "numTasks");
    struct task_walk w = {stream, tasks, *numTasks, 0};
    struct api_graph *g = api_graph_of_stream(stream);
    if (!g) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, stream %p belongs "
                   "to no model runtime instance.", fn, stream);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    api_graph_each_task(g, each_task, &w);
    if (tasks && w.n > *numTasks)
        return api_rt_bad_value(fn, "Getting the tasks of a stream", "too small", "numTasks",
                                "at least the stream's task count");
    *numTasks = w.n;
    return ACL_SUCCESS;
}

static const struct api_cap_task *task_of(const char *fn, aclmdlRITask task, aclError *rc)
{
    if (!task) {
        *rc = api_err_null(fn, "task");
        return NULL;
    }
    if (!api_graph_task_live(task)) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, task %p is not a "
                   "task of a live model runtime instance.", fn, task);
        *rc = ACL_ERROR_RT_PARAM_INVALID;
        return NULL;
    }
    return task;
}

aclError api_impl_aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
    static const char fn[] = "aclmdlRITaskGetType";
    if (!type)
        return api_err_null(fn, "type");
    aclError rc = ACL_SUCCESS;
    const struct api_cap_task *t = task_of(fn, task, &rc);
    if (t)
        *type = t->type;
    return t ? ACL_SUCCESS : rc;
}

aclError api_impl_aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
    static const char fn[] = "aclmdlRITaskGetSeqId";
    if (!id)
        return api_err_null(fn, "id");
    aclError rc = ACL_SUCCESS;
    const struct api_cap_task *t = task_of(fn, task, &rc);
    if (t)
        *id = t->seq;
    return t ? ACL_SUCCESS : rc;
}

/* ---- Descriptions ---- */

static const char *type_name(aclmdlRITaskType t)
{
    static const char *const names[] = {"DEFAULT", "KERNEL", "EVENT_RECORD", "EVENT_WAIT",
                                        "EVENT_RESET", "VALUE_WRITE", "VALUE_WAIT"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "UNKNOWN";
}

struct json_walk {
    FILE *f;
    bool verbose;
    unsigned n;
};

static void json_task(const struct api_cap_task *t, void *u)
{
    struct json_walk *w = u;
    fprintf(w->f, "%s\n    {\"seq\": %u, \"type\": \"%s\", \"call\": \"%s\", \"stream\": %u",
            w->n++ ? "," : "", t->seq, type_name(t->type), t->what, api_cap_stream_id(t->stream));
    if (w->verbose) {
        fputs(", \"ranges\": [", w->f);
        for (int i = 0; i < t->n_r; i++)
            fprintf(w->f, "%s{\"addr\": \"%p\", \"bytes\": %zu}", i ? ", " : "", t->r[i].p,
                    t->r[i].n);
        fputc(']', w->f);
    }
    fputc('}', w->f);
}

aclError api_impl_aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    static const char fn[] = "aclmdlRIDebugJsonPrint";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!path)
        return api_err_null(fn, "path");
    if (flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY &&
        flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE) {
        char v[16];
        snprintf(v, sizeof v, "%u", flags);
        return api_rt_bad_value(fn, "Printing a model as JSON", v, "flags",
                                "ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY or _VERBOSE");
    }
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    FILE *f = fopen(path, "w");
    if (!f) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, path %s cannot be "
                   "written.", fn, path);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    fprintf(f, "{\n  \"modelRI\": %u,\n  \"name\": \"%s\",\n  \"device\": %d,\n  \"streams\": [",
            g->id, g->name ? g->name : "", g->device);
    for (unsigned i = 0; i < g->n_lanes; i++)
        fprintf(f, "%s%u", i ? ", " : "", api_cap_stream_id(g->lane[i]));
    fprintf(f, "],\n  \"launches\": %llu,\n  \"tasks\": [",
            (unsigned long long)atomic_load(&g->launches));
    struct json_walk w = {f, flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE, 0};
    api_graph_each_task(g, json_task, &w);
    fputs("\n  ]\n}\n", f);
    bool ok = fclose(f) == 0;
    if (!ok) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, path %s cannot be "
                   "written.", fn, path);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIDebugPrint(aclmdlRI modelRI)
{
    static const char fn[] = "aclmdlRIDebugPrint";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = graph_of(fn, modelRI, &rc);
    if (!g)
        return rc;
    fprintf(stderr, "aclsim: model runtime instance %u \"%s\": %zu tasks on %u streams, launched "
            "%llu times\n", g->id, g->name ? g->name : "", g->n_tasks, g->n_lanes,
            (unsigned long long)atomic_load(&g->launches));
    return ACL_SUCCESS;
}

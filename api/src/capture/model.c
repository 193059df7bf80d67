/*
 * model.c - model runtime instances (the MODELRI family): the graphs
 * stream captures make, run again (aclmdlRIExecuteAsync on any stream that
 * is not a model's own), aborted, named, looked into (their streams, a
 * JSON description) and destroyed with their destroy callbacks. Their
 * tasks and updates are task.c's, their conditions cond.c's.
 *
 * The checks are CANN's, each layer's in its order: the ACL layer's
 * (hicann/runtime src/acl/aclrt_impl/model_ri.cpp: NULL handles of the
 * calls that check them, 100000 EH0008), then the runtime's
 * (src/runtime/api/impl/api_error.cc: ModelExecute L3987-4028 (a model
 * stream, a capturing stream, a sub-graph), ModelExecuteSync L4030-4046
 * (ACL Graph mode is not supported), ModelDestroy L3877-3893, ModelAbort
 * L4264-4276, ModelGetStreams L7770-7790 with rtModelGetStreams
 * (api_c_standard_soc.cc L1843-1882) and Model::ModelGetStreams (model.cc:
 * a short array is 107039, the array left alone), the destroy callbacks
 * L7019-7048; capture_model.cc CheckExecuteReady L308-327: a capturing
 * model 107026, one being updated 507011).
 *
 * A replay runs the backend's record of the capture; before it, the
 * allocator sanitizer checks that the bytes the graph's tasks touch are
 * still allocated (alloc/graphcheck.c), and condition handles get their
 * default values (cond.c). A call that uses a graph holds it
 * (api_graph_get): aclmdlRIDestroy waits for launches under way on other
 * threads before it frees anything.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "alloc/alloc.h"
#include "backends/be.h"
#include "base/mem.h"

#define NAME_MAX_LEN 512 /* aclmdlRIGetName: at most 512 bytes */

static aclError not_live(const char *fn, aclmdlRI modelRI)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, modelRI %p is not a "
               "live model runtime instance.", fn, modelRI);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_ri_graph_mode(const char *desc)
{
    api_report(API_MSG_EE1016, "%s failed. Reason: ACL Graph mode is not supported.", desc);
    return ACL_ERROR_RT_PARAM_INVALID;
}

struct api_graph *api_ri_get(const char *fn, aclmdlRI modelRI, aclError *rc)
{
    struct api_graph *g = api_graph_get(modelRI);
    if (!g)
        *rc = not_live(fn, modelRI);
    return g;
}

/* The ended graph behind a user handle, or NULL with CANN's error. */
static struct api_graph *graph_of(const char *fn, aclmdlRI modelRI, aclError *rc)
{
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g) {
        *rc = not_live(fn, modelRI);
    } else if (g->status != API_GRAPH_ENDED) {
        api_report(API_MSG_EE1016, "%s failed. Reason: ModelRI (model_id=%u) is still being "
                   "captured; call aclmdlRICaptureEnd first.", fn, g->id);
        *rc = ACL_ERROR_RT_MODEL_CAPTURED;
        g = NULL;
    }
    return g;
}

static const char exec_desc[] = "Executing the model running instance";

/* The runtime's checks of a launch of g on stream s (backend handle), in
 * its order: not a model's own stream, not capturing, not a sub-graph,
 * and g ready (capture_model.cc CheckExecuteReady). */
static aclError launch_refused(struct api_graph *g, void *s)
{
    if (s && api_graph_bound(s, NULL)) {
        api_report(API_MSG_EE1017, "%s failed. Parameter stm is invalid. Reason: The current "
                   "stream cannot be the same as the model stream.", exec_desc);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    aclError rc = api_cap_check_stream(exec_desc, s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (g->parent)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    if (g->status == API_GRAPH_BUILDING) {
        api_report(API_MSG_EE1016, "%s failed. Reason: ModelRI (model_id=%u) is still being "
                   "built; call aclmdlRIBuildEnd first.", exec_desc, g->id);
        return ACL_ERROR_RT_MODEL_CAPTURED;
    }
    if (g->status != API_GRAPH_ENDED) {
        api_report(API_MSG_EE1017, "Checking whether the capture model is ready failed. "
                   "Parameter modelRI is invalid. Reason: ModelRI (model_id=%u) is in capturing "
                   "state, status=CAPTURING.", g->id);
        return ACL_ERROR_RT_MODEL_CAPTURED;
    }
    if (g->ri_status != API_RI_READY) {
        api_report(API_MSG_EE1017, "Checking whether the capture model is ready failed. "
                   "Parameter modelRI is invalid. Reason: ModelRI (model_id=%u) is not ready, "
                   "status=%s.", g->id, g->ri_status == API_RI_UPDATING ? "UPDATING(3)"
                                                                         : "FAULT(4)");
        return ACL_ERROR_RT_MODEL_EXECUTE;
    }
    return ACL_SUCCESS;
}

/* Launch g on the held stream s (backend handle). */
static aclError launch(const char *fn, struct api_graph *g, void *s)
{
    aclError rc = launch_refused(g, s);
    if (rc != ACL_SUCCESS)
        return rc;
    api_cond_defaults(g);
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
    struct api_graph *g = api_ri_get(fn, modelRI, &rc);
    if (!g)
        return rc;
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc == ACL_SUCCESS) {
        rc = launch(fn, g, s.stream);
        api_stream_put(&s);
    }
    api_graph_put(g);
    return rc;
}

aclError api_impl_aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    static const char fn[] = "aclmdlRIExecute";
    static const char desc[] = "Synchronously executing the model running instance";
    API_FAULT(ACL_MDLRI_EXECUTE, fn);
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (timeout == 0 || timeout < -1) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)timeout);
        return api_rt_bad_value(fn, desc, v, "timeout",
                                "greater than or equal to -1 and not equal to 0");
    }
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = api_ri_get(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (!g->built) { /* api_error.cc L4039-4041: a captured graph runs asynchronously only */
        api_graph_put(g);
        return api_ri_graph_mode(desc);
    }
    /* Synchronous: on the graph's context's default stream, then waited for. */
    struct api_stream_ref s;
    rc = api_stream_get(fn, NULL, &s);
    if (rc == ACL_SUCCESS) {
        rc = launch(fn, g, s.stream);
        if (rc == ACL_SUCCESS)
            rc = api_sync_failed(fn, be_get()->stream_sync(s.stream, timeout));
        api_stream_put(&s);
    }
    api_graph_put(g);
    return rc;
}

/* The device word of each condition handle goes with its graph. */
static void free_word(const struct api_cond *c, void *u)
{
    (void)u;
    if (c->graph && c->word)
        be_get()->mem_free(c->word);
}

void api_graph_free(struct api_graph *g)
{
    struct api_graph *sub;
    while ((sub = api_graph_sub_of(g)) != NULL) /* its parent's backend graph holds it */
        api_graph_free(sub);
    api_cap_updates_drop(g);
    api_cap_abandon(g);
    for (unsigned i = 0; i < g->n_cb; i++)
        g->cb[i].fn(g->cb[i].data);
    if (g->be_graph && !g->parent)
        be_get()->graph_destroy(g->be_graph);
    for (const struct api_cond *c = g->conds; c; c = c->next)
        free_word(c, NULL);
    api_graph_release(g);
}

aclError api_impl_aclmdlRIDestroy(aclmdlRI modelRI)
{
    static const char fn[] = "aclmdlRIDestroy";
    API_FAULT(ACL_MDLRI_DESTROY, fn);
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g)
        return not_live(fn, modelRI);
    if (g->parent) /* api_error.cc L3880-3885: a warning only */
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    if (g->status != API_GRAPH_ENDED && g->status != API_GRAPH_BUILDING) {
        api_report(API_MSG_EE1016, "%s failed. Reason: ModelRI (model_id=%u) is still being "
                   "captured; call aclmdlRICaptureEnd first.", fn, g->id);
        return ACL_ERROR_RT_MODEL_CAPTURED;
    }
    /* A build that never ended goes as well (CANN's ModelDestroy has no
     * check of it); launches under way on other threads finish first. */
    if (!api_graph_retire(g))
        return not_live(fn, modelRI);
    api_graph_free(g);
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIAbort(aclmdlRI modelRI)
{
    static const char fn[] = "aclmdlRIAbort";
    API_FAULT(ACL_MDLRI_EXECUTE, fn);
    if (!modelRI) /* no ACL layer check (model_ri.cpp L314-321): the runtime's */
        return api_rt_null("Aborting the model running instance", "mdl");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = api_ri_get(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (g->parent)
        rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    else if (g->be_graph && g->status == API_GRAPH_ENDED)
        rc = api_err_runtime(fn, be_get()->graph_abort(g->be_graph));
    api_graph_put(g);
    return rc;
}

void api_graphs_device_closing(int32_t dev, const char *where)
{
    (void)where;
    struct api_graph *g;
    while ((g = api_graph_on_device(dev)) != NULL) {
        while (g->parent)
            g = g->parent;
        api_graph_retire(g);
        api_graph_free(g);
    }
}

/* The runtime's checks of the destroy callback calls (api_error.cc
 * L7019-7048; no ACL layer check): NULLs 107000, a sub-graph 207000. */
static struct api_graph *callback_graph(const char *fn, const char *desc, aclmdlRI modelRI,
                                        aclrtCallback func, aclError *rc)
{
    if (!modelRI) {
        *rc = api_rt_null(desc, "mdl");
        return NULL;
    }
    if (!func) {
        *rc = api_rt_null(desc, "fn");
        return NULL;
    }
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g)
        *rc = not_live(fn, modelRI);
    else if (g->parent)
        *rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    return g && !g->parent ? g : NULL;
}

aclError api_impl_aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func,
                                                  void *userData)
{
    static const char fn[] = "aclmdlRIDestroyRegisterCallback";
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = callback_graph(fn, "Registering the callback function for model "
                                         "destruction", modelRI, func, &rc);
    if (!g)
        return rc;
    if (g->n_cb == sizeof g->cb / sizeof g->cb[0]) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, modelRI %u has %u "
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
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = callback_graph(fn, "Deregistering the callback function for model "
                                         "destruction", modelRI, func, &rc);
    if (!g)
        return rc;
    for (unsigned i = 0; i < g->n_cb; i++)
        if (g->cb[i].fn == func) {
            memmove(&g->cb[i], &g->cb[i + 1], (g->n_cb - i - 1) * sizeof g->cb[0]);
            g->n_cb--;
            return ACL_SUCCESS;
        }
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, func is not a "
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
    static const char desc[] = "Obtaining the stream associated with a model running instance";
    /* No ACL layer check (model_ri.cpp L323-331): rtModelGetStreams checks
     * numStreams (api_c_standard_soc.cc L1859), then the error decorator
     * the model (api_error.cc L7770-7773). */
    if (!numStreams)
        return api_rt_null("rtModelGetStreams", "numStreams");
    if (!modelRI)
        return api_rt_null(desc, "mdl");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = api_ri_get(fn, modelRI, &rc);
    if (!g)
        return rc;
    uint32_t n = g->n_lanes;
    if (g->parent) {
        rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    } else if (!streams) {
        *numStreams = n;
    } else if (*numStreams < n) {
        /* model.cc ModelGetStreams: the first ones go to the runtime's own
         * array, which rtModelGetStreams copies out only on success. */
        char v[16], why[160];
        snprintf(v, sizeof v, "%u", *numStreams);
        snprintf(why, sizeof why, "The array space is insufficient. The array size is less than "
                 "the total number of model streams %u", n);
        api_report(API_MSG_EE1011, "%s failed. Value %s for parameter numStreams is invalid. "
                   "Reason: %s.", desc, v, why);
        rc = ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY;
    } else {
        for (uint32_t i = 0; i < *numStreams; i++) /* the rest NULL */
            streams[i] = i < n ? g->lane[i] : NULL;
        *numStreams = n;
    }
    api_graph_put(g);
    return rc;
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
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, path %s cannot be "
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
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, path %s cannot be "
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

/*
 * capture.c - stream capture (the CAPTURE family): aclmdlRICaptureBegin,
 * aclmdlRICaptureGetInfo, aclmdlRICaptureEnd and
 * aclmdlRICaptureThreadExchangeMode, with the ACL layer's checks of
 * hicann/runtime src/acl/aclrt_impl/model_ri.cpp and the runtime's of
 * src/runtime/feature/aclgraph/api_error_aclgraph.cc and
 * context_aclgraph.cc (StreamBeginCapture, StreamEndCapture).
 *
 * Between Begin and End the work put on the stream, and on streams that
 * join through events recorded on it, is recorded by the backend and
 * noted in rt/capture.c, not run; End hands the graph to the program as
 * an aclmdlRI, which model.c runs, names and destroys.
 */
#include <pthread.h>
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

static const char *mode_text(int m, char buf[32])
{
    static const char *const names[] = {"GLOBAL(0)", "THREAD_LOCAL(1)", "RELAXED(2)"};
    if (m >= 0 && m < 3)
        return names[m];
    snprintf(buf, 32, "UNKNOWN(%d)", m);
    return buf;
}

aclError api_impl_aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    static const char fn[] = "aclmdlRICaptureBegin";
    static const char desc[] = "Starting capturing tasks delivered to a stream";
    API_FAULT(ACL_MDLRI_CAPTURE_BEGIN, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    char v[32];
    if ((int)mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
        (int)mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return api_rt_bad_value(fn, desc, mode_text((int)mode, v), "mode", "[0, 3)");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    int status = 0;
    struct api_graph *g = NULL;
    if (api_cap_status(s.stream, &status, &g)) {
        api_report(API_MSG_EE1016, "Stream begin capture failed. Reason: Stream is already in "
                   "capture status, device_id=%d, stream_id=%u, status=%s.", s.ctx->device,
                   api_cap_stream_id(s.stream),
                   status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE ? "active" : "invalidated");
        rc = ACL_ERROR_RT_STREAM_CAPTURED;
    } else {
        rc = api_cap_begin(s.stream, s.ctx, (int)mode, &g);
        if (rc == ACL_ERROR_RT_STREAM_CAPTURED) /* another thread began first */
            api_report(API_MSG_EE1016, "Stream begin capture failed. Reason: Stream is already in "
                       "capture status, stream_id=%u.", api_cap_stream_id(s.stream));
        else
            rc = api_err_runtime(fn, rc);
    }
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                         aclmdlRI *modelRI)
{
    static const char fn[] = "aclmdlRICaptureGetInfo";
    if (!stream)
        return api_err_null(fn, "stream");
    if (!status && !modelRI)
        return api_err_arg_value("status/modelRI", "nullptr/nullptr",
                                 "both cannot be nullptr at the same time");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    int st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    struct api_graph *g = NULL;
    api_cap_status(s.stream, &st, &g);
    api_stream_put(&s);
    if (st == API_GRAPH_BUILDING) { /* bound to a model being built: no capture */
        st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
        g = NULL;
    }
    if (status)
        *status = (aclmdlRICaptureStatus)st;
    if (modelRI)
        *modelRI = g;
    return ACL_SUCCESS;
}

/* End's refusals before the graph is touched: not capturing (107029),
 * not the stream that began it (107036), the wrong thread (107038). */
static aclError end_refused(void *stream, struct api_graph **out)
{
    int st = 0;
    struct api_graph *g = NULL;
    if (!api_cap_status(stream, &st, &g) || st == API_GRAPH_BUILDING) {
        api_report(API_MSG_EE1018, "Stream end capture failed. Reason: The stream (stream_id=%u) "
                   "is not in capture status, call aclmdlRICaptureBegin to capture the stream "
                   "first.", api_cap_stream_id(stream));
        return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    }
    if (g->lane[0] != stream) {
        api_report(API_MSG_EH9999, "aclmdlRICaptureEnd failed: the capture was not initiated in "
                   "this stream (stream_id=%u), runtime result = %d.", api_cap_stream_id(stream),
                   ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED);
        return ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED;
    }
    *out = g;
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    static const char fn[] = "aclmdlRICaptureEnd";
    API_FAULT(ACL_MDLRI_CAPTURE_END, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_graph *g = NULL;
    rc = end_refused(s.stream, &g);
    /* api_impl_aclgraph.cc StreamEndCapture L43-52: no ACL layer check of
     * modelRI; the runtime wants one for a graph of its own, not for a
     * sub-graph (its handle is its parent's). */
    if (rc == ACL_SUCCESS && !g->parent && !modelRI) {
        api_stream_put(&s);
        return api_rt_null("Ending the capture of a stream", "captureMdl");
    }
    if (modelRI && (!g || !g->parent))
        *modelRI = NULL;
    if (rc == ACL_SUCCESS && g->thread != (uint64_t)pthread_self() &&
        g->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
        /* CheckCaptureStreamThreadIsMatch: the capture ends, unmade. */
        api_cap_end(g, s.stream);
        if (!g->parent)
            api_graph_free(g);
        api_report(API_MSG_EH9999, "aclmdlRICaptureEnd failed: end capture in the wrong thread, "
                   "runtime result = %d.", ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
        rc = ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD;
    } else if (rc == ACL_SUCCESS) {
        rc = api_cap_end(g, s.stream);
        if (rc == ACL_SUCCESS && modelRI)
            *modelRI = g;
        else if (rc != ACL_SUCCESS && !g->parent)
            api_graph_free(g); /* CANN's ClearCaptureModel: the model goes (a sub-graph
                                  goes with its parent, context_aclgraph.cc L487-488) */
    }
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    static const char fn[] = "aclmdlRICaptureThreadExchangeMode";
    if (!mode)
        return api_err_null(fn, "mode");
    char v[32];
    if ((unsigned)*mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return api_rt_bad_value(fn, "Switching the capture mode of the current thread",
                                mode_text((int)*mode, v), "mode", "less than 3");
    *mode = (aclmdlRICaptureMode)api_cap_exchange_mode((int)*mode);
    return ACL_SUCCESS;
}

/* ---- Task groups and their updates ----
 *
 * hicann/runtime src/acl/aclrt_impl/model_ri.cpp L152-199: NULL stream or
 * handle 100000 (EH0008); the runtime's rules in rt/capgroup.c. */

aclError api_impl_aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    static const char fn[] = "aclmdlRICaptureTaskGrpBegin";
    API_FAULT(ACL_MDLRI_TASK_GROUP, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_grp_begin(s.stream);
    if (rc == ACL_ERROR_BAD_ALLOC || rc == ACL_ERROR_RT_INTERNAL_ERROR)
        rc = api_err_runtime(fn, rc);
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    static const char fn[] = "aclmdlRICaptureTaskGrpEnd";
    if (!stream)
        return api_err_null(fn, "stream");
    if (!handle)
        return api_err_null(fn, "handle");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_task_grp *t = NULL;
    rc = api_cap_grp_end(s.stream, &t);
    *handle = t;
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    static const char fn[] = "aclmdlRICaptureTaskUpdateBegin";
    API_FAULT(ACL_MDLRI_TASK_GROUP, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    if (!handle)
        return api_err_null(fn, "handle");
    struct api_task_grp *t = api_cap_grp_lookup(handle);
    if (!t) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, handle %p is not a "
                   "task group of a live model runtime instance (aclmdlRICaptureTaskGrpEnd makes "
                   "one).", fn, handle);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_update_begin(s.stream, t);
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    static const char fn[] = "aclmdlRICaptureTaskUpdateEnd";
    if (!stream)
        return api_err_null(fn, "stream");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_update_end(s.stream);
    api_stream_put(&s);
    return rc;
}

/* ---- Capture into a sub-graph of a conditional task ---- */

aclError api_impl_aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                                aclmdlRICaptureMode mode)
{
    static const char fn[] = "aclmdlRICaptureToModelRIBegin";
    static const char desc[] = "Starting capturing tasks delivered to a stream";
    API_FAULT(ACL_MDLRI_CAPTURE_BEGIN, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    char v[32];
    if ((int)mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
        (int)mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return api_rt_bad_value(fn, desc, mode_text((int)mode, v), "mode", "[0, 3)");
    aclError rc = ACL_SUCCESS;
    struct api_graph *sub = api_ri_get(fn, modelRI, &rc);
    if (!sub)
        return rc;
    if (!sub->parent) { /* api_error_aclgraph.cc L50-52, StreamBeginCaptureMdlCheck */
        api_report(API_MSG_EE1017, "Stream begin capture failed. Parameter modelRI is invalid. "
                   "Reason: The modelRI is not a sub ACL Graph.");
        api_graph_put(sub);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc == ACL_SUCCESS) {
        rc = api_cap_begin_into(s.stream, s.ctx, (int)mode, sub);
        if (rc == ACL_ERROR_RT_MODEL_CAPTURED) /* context_aclgraph.cc L261-273 */
            api_report(API_MSG_EE1017, "rtStreamBeginCaptureToModel failed. Parameter modelRI is "
                       "invalid. Reason: ModelRI (model_id=%u) is already captured.", sub->id);
        else if (rc == ACL_ERROR_RT_STREAM_CAPTURED) /* L292-296 */
            api_report(API_MSG_EE1016, "Stream begin capture failed. Reason: Stream is already in "
                       "capture status, device_id=%d, stream_id=%u, status=active.",
                       s.ctx->device, api_cap_stream_id(s.stream));
        else
            rc = api_err_runtime(fn, rc);
        api_stream_put(&s);
    }
    api_graph_put(sub);
    return rc;
}

/*
 * build.c - model runtime instances built explicitly (the MODELBUILD
 * family): aclmdlRIBuildBegin makes an empty one, aclmdlRIBindStream binds
 * streams whose work from then on is recorded into it (as a capture
 * records, but no call is refused for a capture mode), aclmdlRIEndTask
 * ends a bound stream's tasks, aclmdlRIBuildEnd completes it for
 * aclmdlRIExecuteAsync, aclmdlRIUnbindStream lets a stream go. Checks as
 * hicann/runtime src/acl/aclrt_impl/model_ri.cpp (NULL handles: 100000;
 * BuildEnd's reserved argument) and its runtime (a flag out of range:
 * 107000). CANN's label sample (example/2_advanced_features/label) builds
 * its model this way.
 */
#include <stdio.h>
#include "capture.h"

/* The graph being built behind a user handle, or NULL with CANN's error. */
static struct api_graph *building(const char *fn, aclmdlRI modelRI, aclError *rc)
{
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g || g->status != API_GRAPH_BUILDING) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, modelRI %p is not "
                   "a model runtime instance being built (aclmdlRIBuildBegin, before "
                   "aclmdlRIBuildEnd).", fn, modelRI);
        *rc = ACL_ERROR_RT_PARAM_INVALID;
        return NULL;
    }
    return g;
}

aclError api_impl_aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    static const char fn[] = "aclmdlRIBuildBegin";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (flag != 0) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_rt_bad_value(fn, "Creating a model", v, "flag", "0");
    }
    struct api_ctx *ctx;
    aclError rc = api_current_ctx(fn, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_graph *g;
    rc = api_cap_build_begin(ctx, &g);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    *modelRI = g;
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    static const char fn[] = "aclmdlRIBindStream";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_rt_bad_value(fn, "Binding a stream to a model", v, "flag",
                                "ACL_MODEL_STREAM_FLAG_HEAD or ACL_MODEL_STREAM_FLAG_DEFAULT");
    }
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = building(fn, modelRI, &rc);
    if (!g)
        return rc;
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_bind(g, s.stream);
    if (rc == ACL_ERROR_RT_STREAM_CAPTURED)
        api_cap_check_stream("Binding a stream to a model", s.stream); /* its message */
    else
        rc = api_err_runtime(fn, rc);
    api_stream_put(&s);
    return rc;
}

/* The bound stream behind a user handle of a graph being built. */
static aclError bound(const char *fn, const char *desc, struct api_graph *g, aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    bool is = api_cap_bound(g, s.stream);
    uint32_t id = api_cap_stream_id(s.stream);
    api_stream_put(&s);
    if (is)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1016, "%s failed. Reason: The stream (stream_id=%u) is not bound to the "
               "model (model_id=%u).", desc, id, g->id);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_impl_aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    static const char fn[] = "aclmdlRIEndTask";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = building(fn, modelRI, &rc);
    return g ? bound(fn, "Ending the tasks of a model stream", g, stream) : rc;
}

aclError api_impl_aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    static const char fn[] = "aclmdlRIBuildEnd";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (reserve)
        return api_err_arg_value("reserve", "not nullptr",
                                 "reserve is a reserved parameter and must be nullptr");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = building(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (g->n_lanes == 0) {
        api_report(API_MSG_EE1016, "Completing a model failed. Reason: No stream is bound to the "
                   "model (model_id=%u): call aclmdlRIBindStream first.", g->id);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return api_err_runtime(fn, api_cap_build_end(g));
}

aclError api_impl_aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    static const char fn[] = "aclmdlRIUnbindStream";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g) {
        api_report(API_MSG_EE1001, "The argument is invalid.Reason: %s failed, modelRI %p is not a "
                   "live model runtime instance.", fn, modelRI);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    /* The graph keeps its own record: the stream is free once the build ended. */
    return bound(fn, "Unbinding a stream from a model", g, stream);
}

/*
 * build.c - model runtime instances built explicitly (the MODELBUILD
 * family): aclmdlRIBuildBegin makes an empty one, aclmdlRIBindStream binds
 * streams whose work from then on is recorded into it (as a capture
 * records, but no call is refused for a capture mode), aclmdlRIEndTask
 * ends a bound stream's tasks, aclmdlRIBuildEnd completes it for
 * aclmdlRIExecuteAsync, aclmdlRIUnbindStream lets a stream go. Checks as
 * hicann/runtime src/acl/aclrt_impl/model_ri.cpp (NULL handles: 100000;
 * BuildEnd's reserved argument) and its runtime: rtsModelBindStream
 * (api_c_model.cc L72-97: a flag out of range, a non-persistent stream,
 * 107000; a stream bound to a model, 107005), the error decorator
 * (api_error.cc L3895-3985, L4229-4246: a captured graph is 107000 "ACL
 * Graph mode is not supported"), Model::UnbindStream (model.cc L597-628).
 * CANN's label sample (example/2_advanced_features/label) builds its model
 * this way.
 */
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

/* The live graph behind a user handle, or NULL with 107000. */
static struct api_graph *live(const char *fn, aclmdlRI modelRI, aclError *rc)
{
    struct api_graph *g = api_graph_lookup(modelRI);
    if (!g) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, modelRI %p is not a "
                   "live model runtime instance.", fn, modelRI);
        *rc = ACL_ERROR_RT_PARAM_INVALID;
    }
    return g;
}

/* g if it is being built, or NULL with 107000. */
static struct api_graph *building(const char *fn, struct api_graph *g, aclError *rc)
{
    if (g->status != API_GRAPH_BUILDING) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, modelRI %p is not "
                   "a model runtime instance being built (aclmdlRIBuildBegin, before "
                   "aclmdlRIBuildEnd).", fn, (void *)g);
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

static const char bind_desc[] = "Binding a model running instance to a stream";

/* The stream is bound to model `other` already: EE1007, 107005
 * (api_c_model.cc L85-94, model.cc CheckBindStream L398-412). */
static aclError bound_elsewhere(const void *stream, uint32_t other, const struct api_graph *g)
{
    api_report(API_MSG_EE1007, "Failed to bind stream (stream_id=%u). Reason: The current stream "
               "has been bound to a model (model_id=%u) and cannot be bound to the input model "
               "(model_id=%u).", api_cap_stream_id(stream), other, g->id);
    return ACL_ERROR_RT_STREAM_MODEL;
}

/* The runtime's checks of a bind of s (backend handle; user: the
 * caller's argument) to g, in its order: rtsModelBindStream's (a
 * non-persistent stream, one bound to a model: api_c_model.cc L82-94),
 * then the error decorator's (a captured graph: api_error.cc L3902-3904). */
static aclError bind_refused(const char *fn, struct api_graph *g, aclrtStream user, void *s)
{
    uint64_t flags = 0;
    uint32_t other = 0;
    if (user && be_get()->stream_prop(s, BE_SP_FLAGS, 0, &flags) == ACL_SUCCESS &&
        !(flags & ACL_STREAM_PERSISTENT)) {
        api_report(API_MSG_EE1017, "rtsModelBindStream failed. Parameter stm is invalid. Reason: "
                   "Non-persistent stream cannot be bound to a model.");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (user && api_graph_bound(s, &other))
        return bound_elsewhere(s, other, g);
    if (!g->built)
        return api_ri_graph_mode(bind_desc);
    aclError rc = ACL_SUCCESS;
    return building(fn, g, &rc) ? ACL_SUCCESS : rc;
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
    struct api_graph *g = live(fn, modelRI, &rc);
    if (!g)
        return rc;
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = bind_refused(fn, g, stream, s.stream);
    if (rc == ACL_SUCCESS) {
        uint32_t other = 0;
        rc = api_cap_bind(g, s.stream, &other);
        if (rc == ACL_ERROR_RT_STREAM_MODEL) /* the default stream, or bound meanwhile */
            bound_elsewhere(s.stream, other, g);
        else if (rc == ACL_ERROR_RT_STREAM_CAPTURED)
            api_cap_check_stream(bind_desc, s.stream); /* its message */
        else
            rc = api_err_runtime(fn, rc);
    }
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
    struct api_graph *g = live(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (!g->built) /* api_error.cc L4236-4238 */
        return api_ri_graph_mode("Delivering the EndGraph flag to the stream of a model");
    return building(fn, g, &rc) ? bound(fn, "Ending the tasks of a model stream", g, stream) : rc;
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
    struct api_graph *g = live(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (!g->built) /* api_error.cc L3978-3980 */
        return api_ri_graph_mode("Ending the build of a model running instance");
    if (!building(fn, g, &rc))
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
    static const char desc[] = "Unbinding a model running instance from a stream";
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = live(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (!g->built) /* api_error.cc L3958-3960 */
        return api_ri_graph_mode(desc);
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The graph keeps its record (the lane replays); the stream is an
     * ordinary one again (model.cc UnbindStream L597-628). Refused: a
     * capturing stream (api_error.cc L3961-3964; a stream bound to a model
     * being built is not one), then one not bound to g, EE4002, 107005
     * (model.cc L604-608). */
    if (!api_cap_unbind(g, s.stream)) {
        if (!api_graph_bound(s.stream, NULL))
            rc = api_cap_check_stream(desc, s.stream);
        if (rc == ACL_SUCCESS) {
            api_report(API_MSG_EE4002, "Failed to unbind the stream from the model. The "
                       "specified stream (stream_id=%u) is not bound to the current model "
                       "(model_id=%u).", api_cap_stream_id(s.stream), g->id);
            rc = ACL_ERROR_RT_STREAM_MODEL;
        }
    }
    api_stream_put(&s);
    return rc;
}

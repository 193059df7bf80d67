/*
 * cond.c - conditional tasks of model runtime instances (the MODELCOND
 * family): a condition handle (aclmdlRICondHandleCreate) is an 8-byte
 * device word the runtime owns (aclmdlRICondHandleGetCondPtr gives its
 * address; it goes with the graph); a conditional task (aclmdlRIAddCondTask)
 * on a capturing stream makes new sub-graphs, which streams then capture
 * into (aclmdlRICaptureToModelRIBegin, capture.c), and each replay that
 * reaches the task reads the word and runs one of them there: IF the first
 * when it is not 0, else the second (if any); SWITCH the one it indexes
 * (none past the end); WHILE the only one again and again while it is not
 * 0 (the simulator: sim/record.c). A handle made with
 * ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT gets its default value at every
 * launch of the graph, before the replay: a value the host wrote before
 * the launch does not count (hicann/runtime src/runtime/feature/aclgraph/
 * cond_handle.cc InitCondTaskByDefValue L128-150, called by
 * capture_model.cc PreModelExecute L341; docs/zh/api_ref/
 * 15_model_running_instance__management.md, aclmdlRICondHandleCreate).
 *
 * The checks are CANN's, in its order: the ACL layer's NULLs
 * (src/acl/aclrt_impl/model_ri.cpp L353-409, EH0008), the runtime's
 * (feature/aclgraph/api_error_aclgraph.cc L192-232, v100/
 * api_impl_aclgraph.cc ModelCondHandleCreate L197-224,
 * StreamAddCondTaskParasCheck L236-281; task_info/cond_op/
 * aclgraph_cond_task.cc CheckCondTaskParamsSize L255-280).
 */
#include <inttypes.h>
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

static aclError cond_not_live(const char *fn, const void *handle)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, handle %p is not a "
               "condition handle of a live model runtime instance.", fn, handle);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_impl_aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                           aclmdlRICondHandleFlag flag,
                                           aclmdlRICondHandle *handle)
{
    static const char fn[] = "aclmdlRICondHandleCreate";
    static const char desc[] = "Conditional handle creation";
    API_FAULT(ACL_MDLRI_COND, fn);
    if (!modelRI)
        return api_err_null(fn, "modelRI");
    if (!handle)
        return api_err_null(fn, "handle");
    char v[16];
    if ((uint32_t)flag > ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT) {
        snprintf(v, sizeof v, "%u", (uint32_t)flag);
        return api_rt_value(desc, v, "flag", "[0, 1]");
    }
    aclError rc = ACL_SUCCESS;
    struct api_graph *g = api_ri_get(fn, modelRI, &rc);
    if (!g)
        return rc;
    if (g->built) {
        api_report(API_MSG_EE1006, "%s failed. The modelRI create condition handle is not "
                   "supported. Reason: The modelRI is not a ACL Graph.", desc);
        rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    } else if (g->status != ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE) {
        api_report(API_MSG_EE1017, "%s failed. Parameter modelRI is invalid. Reason: ModelRI "
                   "(model_id=%u) is not in the capture stage.", desc, g->id);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    }
    /* cond_handle.cc Setup L86-95: 8 bytes of device memory, zeroed */
    void *word = NULL;
    if (rc == ACL_SUCCESS)
        rc = be_get()->mem_alloc(g->device, sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST,
                                 BE_ALLOC_NO_PAD, &word);
    if (rc == ACL_SUCCESS)
        rc = be_get()->memset(g->device, NULL, word, 1, 0, sizeof(uint64_t), 1);
    struct api_cond *c = NULL;
    if (rc == ACL_SUCCESS)
        rc = api_cap_cond_new(g, word, defaultLaunchValue, (int)flag, &c);
    if (rc != ACL_SUCCESS && word)
        be_get()->mem_free(word);
    if (rc == ACL_SUCCESS)
        *handle = c;
    else if (rc == ACL_ERROR_BAD_ALLOC || rc == ACL_ERROR_RT_MEMORY_ALLOCATION)
        rc = api_err_runtime(fn, rc);
    api_graph_put(g);
    return rc;
}

aclError api_impl_aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    static const char fn[] = "aclmdlRICondHandleGetCondPtr";
    if (!handle)
        return api_err_null(fn, "handle");
    if (!ptr)
        return api_err_null(fn, "ptr");
    const struct api_cond *c = api_cap_cond_lookup(handle);
    if (!c)
        return cond_not_live(fn, handle);
    *ptr = c->word;
    return ACL_SUCCESS;
}

/* The runtime's checks of the parameters (api_error_aclgraph.cc L216-231,
 * CheckCondTaskParamsSize for the size), before the handle's and the
 * stream's. */
static aclError params_refused(const aclmdlRICondTaskParams *p, uint32_t flags)
{
    static const char desc[] = "Adding a conditional task to a stream";
    char v[16];
    if ((uint32_t)p->type > ACL_MODEL_RI_COND_TYPE_SWITCH) {
        snprintf(v, sizeof v, "%u", (uint32_t)p->type);
        return api_rt_value(desc, v, "params.type", "[0, 2]");
    }
    if (flags != 0) {
        api_report(API_MSG_EE1017, "%s failed. Parameter flags is invalid. Reason: flags is "
                   "reserved parameter and must be 0.", desc);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!p->handle)
        return api_rt_null(desc, "params.handle");
    if (!p->modelRIArray)
        return api_rt_null(desc, "params.modelRIArray");
    return ACL_SUCCESS;
}

static aclError size_refused(const aclmdlRICondTaskParams *p)
{
    static const char desc[] = "Verifying the number of parameters of a conditional task";
    char v[16];
    snprintf(v, sizeof v, "%u", p->size);
    if (p->type == ACL_MODEL_RI_COND_TYPE_IF && p->size != 1 && p->size != 2)
        return api_rt_value(desc, v, "params.size", "1 or 2");
    if (p->type == ACL_MODEL_RI_COND_TYPE_WHILE && p->size != 1)
        return api_rt_value(desc, v, "params.size", "1");
    if (p->type == ACL_MODEL_RI_COND_TYPE_SWITCH && p->size == 0)
        return api_rt_value(desc, v, "params.size", "greater than 0");
    if (p->size > API_COND_SUBS) { /* aclsim's bound of sub-graphs per task */
        char most[16];
        snprintf(most, sizeof most, "at most %u", API_COND_SUBS);
        return api_rt_value(desc, v, "params.size", most);
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream,
                                      uint32_t flags)
{
    static const char fn[] = "aclmdlRIAddCondTask";
    static const char rt[] = "rtStreamAddCondTask";
    API_FAULT(ACL_MDLRI_COND, fn);
    if (!stream)
        return api_err_null(fn, "stream");
    aclError rc = params_refused(&params, flags);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_cond *c = api_cap_cond_lookup(params.handle);
    if (!c)
        return cond_not_live(fn, params.handle);
    if (c->n) {
        api_report(API_MSG_EE1017, "%s failed. Parameter params.handle is invalid. Reason: The "
                   "handle has been launched with condition task, create a new handle before "
                   "adding another condition task.", rt);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    int st = 0;
    struct api_graph *g = NULL;
    if (!api_cap_status(s.stream, &st, &g) || st == API_GRAPH_BUILDING) {
        api_report(API_MSG_EE1018, "%s failed. Reason: Stream (stream_id=%u) must be in the capture "
                   "stage before adding a condition task.", rt, api_cap_stream_id(s.stream));
        rc = ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    } else if (g != c->graph) {
        api_report(API_MSG_EH9999, "%s failed: model associated with the condition handle is "
                   "inconsistent with that associated with the stream, runtime result = %d.", fn,
                   ACL_ERROR_RT_PARAM_INVALID);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    } else if ((rc = size_refused(&params)) == ACL_SUCCESS) {
        rc = api_cap_admit(s.stream, ACL_MODEL_RI_TASK_DEFAULT, "CONDITION_OP", 0);
        if (rc == ACL_SUCCESS)
            rc = api_err_runtime(fn, api_cap_cond_task(s.stream, c, (int)params.type,
                                                       params.size, params.modelRIArray));
    }
    api_stream_put(&s);
    return rc;
}

/* ---- Default values at each launch ---- */

static void assign(const struct api_cond *c, void *u)
{
    (void)u;
    if (c->flag != ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
        return;
    uint64_t v = c->deflt;
    be_get()->memcpy(c->graph->device, NULL, c->word, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE,
                     BE_COPY_WAIT);
}

void api_cond_defaults(struct api_graph *g)
{
    api_cap_cond_words(g, assign, NULL);
}

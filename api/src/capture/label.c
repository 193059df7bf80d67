/*
 * label.c - labels (the LABEL family): aclrtCreateLabel, aclrtSetLabel,
 * aclrtCreateLabelList, aclrtSwitchLabelByIndex and their destroy calls.
 * A label marks a place in the work of a model's stream; a switch, when a
 * launch of the model reaches it, reads a uint32 index from device memory
 * and goes on from the label at that index of a list (past its end: the
 * last one), as hicann/runtime docs/zh/api_ref/10_label_management.md
 * describes. Labels are set and switched to on a stream bound to a model
 * being built (aclmdlRIBindStream) or a capturing one.
 *
 * Handles are the backend's; this file remembers which are live, so a
 * destroyed or foreign one is refused instead of followed. The ACL layer
 * refuses NULL arguments, the stream included (hicann/runtime
 * src/acl/aclrt_impl/label.cpp: 100000); a list's count is checked before
 * its array is read (rtsLabelSwitchListCreate, api_c_model.cc L176-178).
 */
#include <pthread.h>
#include <stdio.h>
#include "capture.h"
#include "backends/be.h"
#include "base/mem.h"

#define LIST_MAX 0xFFFFu /* labels one list may take */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const void **live;
static size_t n_live, cap_live;

static bool add_live(const void *h)
{
    pthread_mutex_lock(&lock);
    bool ok = true;
    if (n_live == cap_live) {
        size_t c = cap_live ? cap_live * 2 : 16;
        const void **v = base_realloc(live, c * sizeof *v);
        ok = v != NULL;
        if (ok) {
            live = v;
            cap_live = c;
        }
    }
    if (ok)
        live[n_live++] = h;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Whether h is live; with `take`, it no longer is. */
static bool is_live(const void *h, bool take)
{
    pthread_mutex_lock(&lock);
    bool found = false;
    for (size_t i = 0; i < n_live && !found; i++)
        if (live[i] == h) {
            found = true;
            if (take)
                live[i] = live[--n_live];
        }
    pthread_mutex_unlock(&lock);
    return found;
}

static aclError not_live(const char *fn, const char *param, const void *h)
{
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, %s %p is not a live "
               "one.", fn, param, h);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_impl_aclrtCreateLabel(aclrtLabel *label)
{
    static const char fn[] = "aclrtCreateLabel";
    if (!label)
        return api_err_null(fn, "label");
    void *h = NULL;
    aclError rc = be_get()->label_create(&h);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    if (!add_live(h)) {
        be_get()->label_destroy(h);
        return api_err_host_alloc(sizeof h);
    }
    *label = h;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtDestroyLabel(aclrtLabel label)
{
    static const char fn[] = "aclrtDestroyLabel";
    if (!label)
        return api_err_null(fn, "label");
    if (!is_live(label, true))
        return not_live(fn, "label", label);
    be_get()->label_destroy(label);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
    static const char fn[] = "aclrtCreateLabelList";
    if (!labels)
        return api_err_null(fn, "labels");
    if (!labelList)
        return api_err_null(fn, "labelList");
    /* The count before the array is read (api_c_model.cc L176-178,
     * MAX_UINT16_NUM base_info.hpp L49). */
    if (num == 0 || num > LIST_MAX) {
        char v[24];
        snprintf(v, sizeof v, "%zu", num);
        return api_rt_value("rtsLabelSwitchListCreate", v, "num", "(0, 65535]");
    }
    for (size_t i = 0; i < num; i++)
        if (!labels[i] || !is_live(labels[i], false))
            return not_live(fn, "label", labels[i]);
    void *h = NULL;
    aclError rc = be_get()->label_list_create((void *const *)labels, num, &h);
    if (rc != ACL_SUCCESS)
        return api_err_runtime(fn, rc);
    if (!add_live(h)) {
        be_get()->label_list_destroy(h);
        return api_err_host_alloc(sizeof h);
    }
    *labelList = h;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtDestroyLabelList(aclrtLabelList labelList)
{
    static const char fn[] = "aclrtDestroyLabelList";
    if (!labelList)
        return api_err_null(fn, "labelList");
    if (!is_live(labelList, true))
        return not_live(fn, "labelList", labelList);
    be_get()->label_list_destroy(labelList);
    return ACL_SUCCESS;
}

/* The held stream behind a user handle, which must record into a model. */
static aclError model_stream(const char *fn, const char *desc, aclrtStream stream,
                             struct api_stream_ref *s)
{
    aclError rc = api_stream_get(fn, stream, s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (api_cap_graph_of(s->stream))
        return ACL_SUCCESS;
    api_report(API_MSG_EE1016, "%s failed. Reason: The stream (stream_id=%u) is not bound to a "
               "model runtime instance: labels are set and switched to on a stream bound with "
               "aclmdlRIBindStream (or a capturing one).", desc, api_cap_stream_id(s->stream));
    api_stream_put(s);
    return ACL_ERROR_RT_PARAM_INVALID;
}

aclError api_impl_aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
    static const char fn[] = "aclrtSetLabel";
    if (!label) /* label.cpp L38-39 */
        return api_err_null(fn, "label");
    if (!stream)
        return api_err_null(fn, "stream");
    if (!is_live(label, false))
        return not_live(fn, "label", label);
    struct api_stream_ref s;
    aclError rc = model_stream(fn, "Setting a label", stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->label_set(label, s.stream));
    if (rc == ACL_SUCCESS)
        api_cap_note(s.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, NULL, 0);
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
                                          aclrtStream stream)
{
    static const char fn[] = "aclrtSwitchLabelByIndex";
    if (!ptr)
        return api_err_null(fn, "ptr");
    if (!labelList)
        return api_err_null(fn, "labelList");
    if (!stream) /* label.cpp L89-91 */
        return api_err_null(fn, "stream");
    if (!is_live(labelList, false))
        return not_live(fn, "labelList", labelList);
    if (maxValue == 0)
        return api_rt_bad_value(fn, "Switching to a label", "0", "maxValue", "greater than 0");
    struct be_ptr_info in;
    be_get()->lookup(ptr, &in);
    if (in.kind != BE_PTR_DEVICE ||
        (in.size && (size_t)((char *)ptr - (char *)in.start) + 4 > in.size)) {
        char v[32];
        snprintf(v, sizeof v, "%p", ptr);
        return api_rt_bad_value(fn, "Switching to a label", v, "ptr",
                                "4 bytes of live device memory (the uint32 index)");
    }
    struct api_stream_ref s;
    aclError rc = model_stream(fn, "Switching to a label", stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->label_switch(ptr, maxValue, labelList, s.stream));
    if (rc == ACL_SUCCESS) {
        struct api_cap_range r = {.p = ptr, .n = 4};
        api_cap_note(s.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, &r, 1);
    }
    api_stream_put(&s);
    return rc;
}

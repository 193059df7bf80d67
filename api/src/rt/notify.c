/*
 * notify.c - notifies and value writes/waits of the ACL layer (the NOTIFY
 * family).
 *
 * A notify handle is the backend's, published like an event (objects.c):
 * a destroyed or foreign handle is rejected with CANN's code for an invalid
 * handle (ACL_ERROR_RT_INTERNAL_ERROR, as the runtime maps an invalid
 * notify), never dereferenced. A record sets the notify when its stream
 * reaches it; a wait holds its stream until then and resets it; a value
 * wait holds its stream until 8 bytes of device memory meet a condition.
 * On the simulator a held stream keeps the work behind it and runs it in
 * simulated time once released (sim/queue.c). A wait without a timeout of
 * its own uses the device's op wait timeout (aclrtSetOpWaitTimeout).
 * Counting notifies (below) are handles of their own kind.
 */
#include <stdio.h>
#include "internal.h"
#include "backends/be.h"

/* The last reference to a notify went (objects.c). */
void api_notify_release(void *h, struct api_ctx *owner)
{
    (void)owner;
    be_get()->notify_destroy(h);
}

static aclError get_notify(const char *fn, aclrtNotify h, struct api_obj **out)
{
    if (!h)
        return api_err_null(fn, "notify");
    *out = api_obj_get(h, API_OBJ_NOTIFY);
    if (*out)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, notify %p is not a live "
               "notify.", fn, h);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

aclError api_impl_aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    static const char fn[] = "aclrtCreateNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY) {
        char v[32];
        snprintf(v, sizeof v, "%llu", (unsigned long long)flag);
        return api_err_value(fn, v, "flag", "ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY");
    }
    struct api_stream_ref ctx; /* the current context, held while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    void *n = NULL;
    rc = be_get()->notify_create(ctx.ctx->device, &n);
    rc = api_obj_publish(rc, n, API_OBJ_NOTIFY, ctx.ctx, api_notify_release,
                         be_get()->notify_destroy);
    api_stream_put(&ctx);
    if (api_err_create(fn, rc, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "notify") == ACL_SUCCESS)
        *notify = n;
    return rc;
}

aclError api_impl_aclrtDestroyNotify(aclrtNotify notify)
{
    static const char fn[] = "aclrtDestroyNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (api_obj_retire(notify, API_OBJ_NOTIFY) == 0)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, notify %p is not a live "
               "notify.", fn, notify);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

/* A notify and a stream (NULL: the default stream), both held. */
static aclError with_stream(const char *fn, aclrtNotify notify, aclrtStream stream,
                            struct api_obj **n, struct api_stream_ref *s)
{
    aclError rc = get_notify(fn, notify, n);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_stream_get(fn, stream, s);
    if (rc != ACL_SUCCESS) {
        api_obj_put(*n);
        return rc;
    }
    if (api_obj_device(*n) != s->ctx->device) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, notify %p belongs "
                   "to device %d, the stream to device %d.", fn, notify,
                   (int)api_obj_device(*n), (int)s->ctx->device);
        api_stream_put(s);
        api_obj_put(*n);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    static const char fn[] = "aclrtRecordNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    struct api_obj *n;
    struct api_stream_ref s;
    aclError rc = with_stream(fn, notify, stream, &n, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_cap_admit(s.stream, ACL_MODEL_RI_TASK_DEFAULT, "NOTIFY_RECORD", 15);
    if (rc == ACL_SUCCESS)
        rc = api_err_runtime(fn, be_get()->notify_record(notify, s.stream));
    if (rc == ACL_SUCCESS)
        api_cap_note(s.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, NULL, 0);
    api_stream_put(&s);
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    static const char fn[] = "aclrtWaitAndResetNotify";
    API_FAULT(ACL_RT_NOTIFY, fn);
    struct api_obj *n;
    struct api_stream_ref s;
    aclError rc = with_stream(fn, notify, stream, &n, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (timeout == 0)
        timeout = api_op_wait_timeout(s.ctx->device);
    rc = api_cap_admit(s.stream, ACL_MODEL_RI_TASK_DEFAULT, "NOTIFY_WAIT", 14);
    if (rc == ACL_SUCCESS)
        rc = api_err_runtime(fn, be_get()->notify_wait(notify, s.stream, timeout));
    if (rc == ACL_SUCCESS)
        api_cap_note(s.stream, ACL_MODEL_RI_TASK_DEFAULT, fn, NULL, 0);
    api_stream_put(&s);
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    static const char fn[] = "aclrtGetNotifyId";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notify)
        return api_err_null(fn, "notify");
    if (!notifyId)
        return api_err_null(fn, "notifyId");
    struct api_obj *n;
    aclError rc = get_notify(fn, notify, &n);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = api_err_runtime(fn, be_get()->notify_id(notify, notifyId));
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    static const char fn[] = "aclrtNotifyBatchReset";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!notifies)
        return api_err_null(fn, "notifies");
    if (num == 0) {
        return api_err_value(fn, "0", "num", "greater than 0");
    }
    /* Every handle is checked before any is reset. */
    for (size_t i = 0; i < num; i++) {
        struct api_obj *n;
        aclError rc = get_notify(fn, notifies[i], &n);
        if (rc != ACL_SUCCESS)
            return rc;
        api_obj_put(n);
    }
    for (size_t i = 0; i < num; i++) {
        struct api_obj *n = api_obj_get(notifies[i], API_OBJ_NOTIFY);
        if (!n)
            continue; /* destroyed meanwhile by another thread */
        aclError rc = be_get()->notify_reset(notifies[i]);
        api_obj_put(n);
        if (rc != ACL_SUCCESS)
            return api_err_runtime(fn, rc);
    }
    return ACL_SUCCESS;
}

/* ---- value writes and waits ---- */

/* devAddr must be 8 bytes of a live device block of the stream's device,
 * 8-byte aligned. */
static aclError value_addr(const char *fn, void *devAddr, int32_t dev)
{
    struct be_ptr_info in;
    be_get()->lookup(devAddr, &in);
    if ((uintptr_t)devAddr % 8 != 0) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, devAddr %p is not "
                   "8-byte aligned.", fn, devAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    bool inside = in.kind == BE_PTR_DEVICE &&
                  (in.size == 0 || (char *)devAddr + 8 <= (char *)in.start + in.size);
    if (!inside || in.device != dev) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, devAddr %p is not 8 "
                   "bytes of live device memory of the stream's device.", fn, devAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

/* aclrtValueWrite (wait false) and aclrtValueWait after their own
 * checks: on the held stream, devAddr checked against its device, then
 * the backend. */
static aclError value_task(const char *fn, void *devAddr, uint64_t value, uint32_t flag, bool wait,
                           aclrtStream stream)
{
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = value_addr(fn, devAddr, s.ctx->device);
    aclmdlRITaskType type = wait ? ACL_MODEL_RI_TASK_VALUE_WAIT : ACL_MODEL_RI_TASK_VALUE_WRITE;
    if (rc == ACL_SUCCESS)
        rc = api_cap_admit(s.stream, type, wait ? "MEM_WAIT_VALUE" : "MEM_WRITE_VALUE",
                           wait ? 114 : 113);
    if (rc == ACL_SUCCESS)
        rc = api_err_runtime(fn, wait ? be_get()->value_wait(s.stream, devAddr, value, flag)
                                      : be_get()->value_write(s.stream, devAddr, value));
    if (rc == ACL_SUCCESS) { /* a capture keeps what aclmdlRITaskGetParams answers */
        struct api_cap_range r = {.p = devAddr, .n = 8, .w = !wait};
        struct api_cap_params p = {.addr = devAddr, .value = value, .flag = flag};
        api_cap_note_ex(s.stream, type, fn, &r, 1, &p);
    }
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    static const char fn[] = "aclrtValueWrite";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!devAddr)
        return api_err_null(fn, "devAddr");
    if (flag != 0) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "0");
    }
    return value_task(fn, devAddr, value, 0, false, stream);
}

aclError api_impl_aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    static const char fn[] = "aclrtValueWait";
    API_FAULT(ACL_RT_NOTIFY, fn);
    if (!devAddr)
        return api_err_null(fn, "devAddr");
    if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
        char v[16];
        snprintf(v, sizeof v, "%u", flag);
        return api_err_value(fn, v, "flag", "ACL_STREAM_WAIT_VALUE_GEQ, _EQ, _AND or _NOR");
    }
    return value_task(fn, devAddr, value, flag, true, stream);
}

/* ---- counting notifies ----
 *
 * A counting notify keeps a 32-bit count on its device. A record changes
 * it when its stream reaches it (info->mode: store, add, set bits, clear
 * bits), a reset zeroes it so, and a wait holds its stream until the count
 * meets its mode's condition against info->value (less, equal, greater,
 * greater or equal, every bit of value set), then zeroes it when
 * info->isClear; it fails its stream after info->timeout seconds (0: the
 * device's op wait timeout). The ACL layer checks only `info` (hicann/
 * runtime src/acl/aclrt_impl/notify.cpp); the runtime the rest
 * (src/runtime/api/api_david.cc rtCntNotifyCreateServer and the rts*
 * entries, api/impl/api_error_standard_soc.cc CntNotifyCreate, -Record,
 * -WaitWithTimeout, -Reset, GetCntNotifyId), as 107000 with its texts. */

static aclError get_cnt(const char *fn, const char *desc, aclrtCntNotify h, struct api_obj **out)
{
    if (!h)
        return api_rt_null(desc, "inCntNotify");
    *out = api_obj_get(h, API_OBJ_CNT_NOTIFY);
    if (*out)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, cntNotify %p is not a "
               "live counting notify.", fn, h);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static void release_cnt(void *h, struct api_ctx *owner)
{
    (void)owner;
    be_get()->cnt_destroy(h);
}

aclError api_impl_aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
    static const char fn[] = "aclrtCntNotifyCreate";
    API_FAULT(ACL_RT_CNT_NOTIFY, fn);
    if (flag != 0) {
        char v[32];
        snprintf(v, sizeof v, "%llu", (unsigned long long)flag);
        return api_rt_value("rtCntNotifyCreateServer", v, "flags", "0");
    }
    struct api_stream_ref ctx;
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!cntNotify) {
        api_stream_put(&ctx);
        return api_rt_null("CntNotify creation", "retCntNotify");
    }
    void *n = NULL;
    rc = be_get()->cnt_create(ctx.ctx->device, &n);
    rc = api_obj_publish(rc, n, API_OBJ_CNT_NOTIFY, ctx.ctx, release_cnt, be_get()->cnt_destroy);
    api_stream_put(&ctx);
    if (rc == ACL_ERROR_RT_NO_NOTIFY_RESOURCE) { /* count_notify.cc Setup */
        api_report(API_MSG_EE1023, "Alloc CntNotify resource failed. Reason: Too many CntNotify "
                   "objects are created.");
        return rc;
    }
    if (api_err_create(fn, rc, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "notify") == ACL_SUCCESS)
        *cntNotify = n;
    return rc;
}

aclError api_impl_aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
    static const char fn[] = "aclrtCntNotifyDestroy";
    API_FAULT(ACL_RT_CNT_NOTIFY, fn);
    if (!cntNotify)
        return api_rt_null("CntNotify destruction", "inCntNotify");
    if (api_obj_retire(cntNotify, API_OBJ_CNT_NOTIFY) == 0)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, cntNotify %p is not a "
               "live counting notify.", fn, cntNotify);
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

/* A counting notify and a stream (NULL: the default stream), both held,
 * of one device: the handles validated first (the rts* entry), then the
 * NULL notify refused (the decorator's `desc`). */
static aclError cnt_with_stream(const char *fn, const char *desc, aclrtCntNotify cnt,
                                aclrtStream stream, struct api_obj **n, struct api_stream_ref *s)
{
    aclError rc;
    if (cnt && (rc = get_cnt(fn, desc, cnt, n)) != ACL_SUCCESS)
        return rc;
    rc = api_stream_get(fn, stream, s);
    if (rc != ACL_SUCCESS) {
        if (cnt)
            api_obj_put(*n);
        return rc;
    }
    if (!cnt) {
        api_stream_put(s);
        return api_rt_null(desc, "inCntNotify");
    }
    if (api_obj_device(*n) != s->ctx->device) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, cntNotify %p "
                   "belongs to device %d, the stream to device %d.", fn, cnt,
                   (int)api_obj_device(*n), (int)s->ctx->device);
        api_stream_put(s);
        api_obj_put(*n);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

/* The runtime's names of the record and wait modes (notify_enum_desc.hpp
 * RecordModeToString, WaitModeToString). */
static const char *const record_modes[] = {"RECORD_STORE_MODE(0)", "RECORD_ADD_MODE(1)",
                                           "RECORD_WRITE_BIT_MODE(2)", "RECORD_INVALID_MODE(3)",
                                           "RECORD_CLEAR_BIT_MODE(4)", "RECORD_MODE_MAX(5)"};
static const char *const wait_modes[] = {"WAIT_LESS_MODE(0)", "WAIT_EQUAL_MODE(1)",
                                         "WAIT_BIGGER_MODE(2)", "WAIT_BIGGER_OR_EQUAL_MODE(3)",
                                         "WAIT_BITMAP_MODE(4)", "WAIT_MODE_MAX(5)"};

static const char *mode_name(const char *const names[6], uint32_t m, char *buf, size_t len)
{
    if (m < 6)
        return names[m];
    snprintf(buf, len, "UNKNOWN(%d)", (int)m);
    return buf;
}

enum cnt_op { CNT_RECORD, CNT_WAIT, CNT_RESET };

/* A record, wait or reset on its stream: the handles, the mode the runtime
 * checks after them, then the backend. */
static aclError cnt_task(const char *fn, const char *desc, enum cnt_op op, aclrtCntNotify cnt,
                         aclrtStream stream, const void *info)
{
    struct api_obj *n;
    struct api_stream_ref s;
    aclError rc = cnt_with_stream(fn, desc, cnt, stream, &n, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    char buf[32];
    uint32_t mode = op == CNT_RECORD ? (uint32_t)((const aclrtCntNotifyRecordInfo *)info)->mode
                    : op == CNT_WAIT ? (uint32_t)((const aclrtCntNotifyWaitInfo *)info)->mode
                                     : 0;
    if (op == CNT_RECORD && (mode > 4 || mode == 3)) {
        rc = api_rt_value(desc, mode_name(record_modes, mode, buf, sizeof buf), "info->mode",
                          "RECORD_STORE_MODE(0), RECORD_ADD_MODE(1), RECORD_WRITE_BIT_MODE(2) or "
                          "RECORD_CLEAR_BIT_MODE(4)");
    } else if (op == CNT_WAIT && mode > 4) {
        rc = api_rt_value(desc, mode_name(wait_modes, mode, buf, sizeof buf), "info->mode", "[0, 5)");
    } else if ((rc = api_cap_admit(s.stream, ACL_MODEL_RI_TASK_DEFAULT, "NOTIFY_RECORD", 15)) !=
               ACL_SUCCESS) {
        /* a task group or its update takes no counting notify task */
    } else if (op == CNT_WAIT) {
        aclrtCntNotifyWaitInfo w = *(const aclrtCntNotifyWaitInfo *)info;
        if (w.timeout == 0) /* never a wait without end but the program's own choice */
            w.timeout = api_op_wait_timeout(s.ctx->device);
        rc = api_err_runtime(fn, be_get()->cnt_wait(cnt, s.stream, &w));
    } else {
        rc = api_err_runtime(fn, op == CNT_RECORD ? be_get()->cnt_record(cnt, s.stream, info)
                                                  : be_get()->cnt_reset(cnt, s.stream));
    }
    api_stream_put(&s);
    api_obj_put(n);
    return rc;
}

aclError api_impl_aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
                                       aclrtCntNotifyRecordInfo *info)
{
    static const char fn[] = "aclrtCntNotifyRecord";
    API_FAULT(ACL_RT_CNT_NOTIFY, fn);
    if (!info)
        return api_err_null(fn, "info");
    return cnt_task(fn, "CntNotify recording", CNT_RECORD, cntNotify, stream, info);
}

aclError api_impl_aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
                                                aclrtCntNotifyWaitInfo *info)
{
    static const char fn[] = "aclrtCntNotifyWaitWithTimeout";
    API_FAULT(ACL_RT_CNT_NOTIFY, fn);
    if (!info)
        return api_err_null(fn, "info");
    return cnt_task(fn, "Waiting for CntNotify", CNT_WAIT, cntNotify, stream, info);
}

aclError api_impl_aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
    static const char fn[] = "aclrtCntNotifyReset";
    API_FAULT(ACL_RT_CNT_NOTIFY, fn);
    return cnt_task(fn, "CntNotify reset", CNT_RESET, cntNotify, stream, NULL);
}

aclError api_impl_aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
    static const char fn[] = "aclrtCntNotifyGetId";
    static const char desc[] = "Obtaining the ID of a CntNotify object";
    API_FAULT(ACL_RT_CNT_NOTIFY, fn);
    struct api_obj *n = NULL;
    aclError rc;
    if (cntNotify && (rc = get_cnt(fn, desc, cntNotify, &n)) != ACL_SUCCESS)
        return rc;
    if (!cntNotify)
        return api_rt_null(desc, "inCntNotify");
    if (!notifyId)
        rc = api_rt_null(desc, "notifyId");
    else
        rc = api_err_runtime(fn, be_get()->cnt_id(cntNotify, notifyId));
    api_obj_put(n);
    return rc;
}

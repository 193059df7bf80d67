/*
 * memcopy.c - 2-D copies, batch copies and 32-bit fills (the MEMCOPY family).
 *
 * Checks run in CANN's order with its codes and texts: the ACL layer's
 * (hicann/runtime src/acl/aclrt_impl/memory.cpp: CheckMemcpy2dParam,
 * MemcpyBatchImpl and ValidateMemcpyBatchParams, aclrtMemsetD32Impl) give
 * ACL_ERROR_INVALID_PARAM with EH0007/EH0008/EH0009; the runtime's
 * (src/runtime/api/impl/api_error.cc: MemCopy2DCheckParam, MemCopy2DSync/
 * Async, MemcpyBatch/Async; api_impl.cc: CheckMemCpyAttr, LoopMemcpyAsync;
 * api_error_standard_soc.cc: MemsetD32) give ACL_ERROR_RT_PARAM_INVALID
 * with EE1003/EE1004/EE1016/EE1017. Then the checks every copy gets in
 * aclsim (memory.c, api_side_ok): each side of a 2-D copy, first row to
 * last, lies inside one live allocation on its device side; a batch entry
 * likewise, and a freed address is a use after free.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "memory.h"
#include "backends/be.h"

/* The runtime's limits of a 2-D copy (core/inc/common/internal_error_define.hpp). */
#define MAX_2D_HEIGHT 5242880u
#define MAX_2D_WIDTH 5000000u
/* Most entries of a synchronous batch (the driver's DEVMM_MEMCPY_BATCH_MAX_COUNT). */
#define MAX_BATCH 4096u

static const char check2d[] = "Checking the synchronous memory copy parameter validity";
static const char rt2d[] = "Checking the validity of 2D memory copy parameters";

/* The runtime's name of an aclrtMemcpyKind (rtMemcpyKind_t values:
 * DEFAULT is 8 there). */
static const char *rt_kind_name(int kind)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
        return "MEMCPY_HOST_TO_HOST(0)";
    case ACL_MEMCPY_HOST_TO_DEVICE:
        return "MEMCPY_HOST_TO_DEVICE(1)";
    case ACL_MEMCPY_DEVICE_TO_HOST:
        return "MEMCPY_DEVICE_TO_HOST(2)";
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
        return "MEMCPY_DEVICE_TO_DEVICE(3)";
    default:
        return "MEMCPY_DEFAULT(8)";
    }
}

static aclrtMemcpyKind kind_of(bool dst_dev, bool src_dev)
{
    if (dst_dev)
        return src_dev ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE;
    return src_dev ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST;
}

/* Bytes from the first row's start to the last row's end; SIZE_MAX when
 * that does not fit a size_t (no allocation holds it). */
static size_t span(size_t pitch, size_t width, size_t height)
{
    size_t n;
    if (__builtin_mul_overflow(height - 1, pitch, &n) || __builtin_add_overflow(n, width, &n))
        return SIZE_MAX;
    return n;
}


/* ---- 2-D copies ---- */

/* The ACL layer's checks of a 2-D copy, then the runtime's. */
static aclError check_2d(const void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, aclrtMemcpyKind kind)
{
    if (!dst)
        return api_err_null(check2d, "dst");
    if (!src)
        return api_err_null(check2d, "src");
    if (width > spitch || width > dpitch) {
        api_report(API_MSG_EH0009, "%s failed. Value %zu for parameter width is invalid. Reason: "
                   "must be less than spitch and dpitch, spitch=%zu, dpitch=%zu.", check2d, width,
                   spitch, dpitch); /* [fact] CheckMemcpy2dParam */
        return ACL_ERROR_INVALID_PARAM;
    }
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
        kind != ACL_MEMCPY_DEVICE_TO_DEVICE && kind != ACL_MEMCPY_DEFAULT) {
        char buf[64];
        return api_err_value(check2d, api_kind_name((int)kind, buf, sizeof buf), "kind",
                             "ACL_MEMCPY_HOST_TO_DEVICE or ACL_MEMCPY_DEVICE_TO_HOST or "
                             "ACL_MEMCPY_DEVICE_TO_DEVICE or ACL_MEMCPY_DEFAULT");
    }
    if (height > MAX_2D_HEIGHT) {
        api_report(API_MSG_EE1003, "%s failed because value %zu for parameter height is invalid. "
                   "Expected value: less than or equal to %u.", rt2d, height, MAX_2D_HEIGHT);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (width > MAX_2D_WIDTH) {
        api_report(API_MSG_EE1003, "%s failed because value %zu for parameter width is invalid. "
                   "Expected value: less than or equal to %u.", rt2d, width, MAX_2D_WIDTH);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

/* The work of a 2-D copy on a stream (or synchronously: stream NULL) of
 * the context's device, after the argument checks. */
static aclError run_2d(const char *fn, const char *what, struct api_ctx *c, void *stream,
                       void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind)
{
    bool async = stream != NULL;
    struct be_ptr_info di, si;
    be_get()->lookup(dst, &di);
    be_get()->lookup(src, &si);
    bool dst_dev, src_dev;
    api_copy_sides((int)kind, &di, &si, &dst_dev, &src_dev);
    aclrtMemcpyKind real = kind_of(dst_dev, src_dev);
    /* What the runtime resolves DEFAULT to must be a direction it copies:
     * H2D or D2H synchronously, D2D too asynchronously. */
    if (real == ACL_MEMCPY_HOST_TO_HOST || (!async && real == ACL_MEMCPY_DEVICE_TO_DEVICE)) {
        if (async)
            api_report(API_MSG_EE1017, "%s failed. Parameter kind or newKind is invalid. Reason: "
                       "Memcpy2dAsync supports only H2D, D2H, or D2D. Parameter kind is %s, and "
                       "reviseKind is %s.", what, rt_kind_name((int)kind), rt_kind_name((int)real));
        else
            api_report(API_MSG_EE1017, "%s failed. Parameter kind or newKind is invalid. Reason: "
                       "Memcpy2dSync supports only H2D or D2H. Parameter kind is %s, and newKind "
                       "is MEMCPY_KIND_MAX(8).", what, rt_kind_name((int)kind));
        return ACL_ERROR_RT_PARAM_INVALID; /* [fact] api_error.cc MemCopy2DSync/Async */
    }
    if (!api_side_ok(what, "dst", dst, span(dpitch, width, height), dst_dev, false, &di) ||
        !api_side_ok(what, "src", src, span(spitch, width, height), src_dev, false, &si))
        return ACL_ERROR_RT_PARAM_INVALID;
    if (dst_dev && src_dev && di.kind == BE_PTR_DEVICE && si.kind == BE_PTR_DEVICE) {
        aclError prc = api_peer_copy_check(fn, c->device, si.device, di.device);
        if (prc != ACL_SUCCESS)
            return prc;
    }
    bool staged = api_pageable(dst_dev, &di, dst, span(dpitch, width, height)) ||
                  api_pageable(src_dev, &si, src, span(spitch, width, height));
    int how = (!async || staged ? BE_COPY_WAIT : 0) | (staged ? BE_COPY_PAGEABLE : 0);
    /* managed memory is host memory to the simulator's engines */
    real = kind_of(dst_dev && api_in_device_memory(&di), src_dev && api_in_device_memory(&si));
    return api_engine_failed(fn, be_get()->memcpy2d(c->device, stream, dst, dpitch, src, spitch,
                                                    width, height, real, how));
}

/* aclrtMemcpy2d (synchronous, in the current context) and
 * aclrtMemcpy2dAsync (on the held stream): the same checks in CANN's order. */
static aclError copy_2d(const char *fn, bool async, aclrtStream stream, void *dst, size_t dpitch,
                        const void *src, size_t spitch, size_t width, size_t height,
                        aclrtMemcpyKind kind)
{
    API_FAULT(ACL_RT_MEMCPY2D, fn);
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    aclError rc = check_2d(dst, dpitch, src, spitch, width, height, kind);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The synchronous runtime copies only H2D and D2H (and DEFAULT, which
     * it resolves): an explicit D2D is refused before anything is looked
     * at, with a warning only in CANN's log. */
    if (!async && kind == ACL_MEMCPY_DEVICE_TO_DEVICE) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, this memcpy2d "
                   "feature supports only host2device or device2host kinds.", fn);
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    struct api_stream_ref ref;
    struct api_ctx *c;
    rc = api_work_get(fn, async, stream, &ref, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = run_2d(fn, async ? "Asynchronous 2D memory copy" : "Synchronous 2D memory copy task", c,
                ref.stream, dst, dpitch, src, spitch, width, height, kind);
    api_work_put(&ref);
    return rc;
}

aclError api_impl_aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, aclrtMemcpyKind kind)
{
    return copy_2d("aclrtMemcpy2d", false, NULL, dst, dpitch, src, spitch, width, height, kind);
}

aclError api_impl_aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, aclrtMemcpyKind kind,
                                     aclrtStream stream)
{
    return copy_2d("aclrtMemcpy2dAsync", true, stream, dst, dpitch, src, spitch, width, height,
                   kind);
}

/* ---- batch copies ---- */

static const char batch_acl[] = "Checking the batch memory copy parameter validity";

/* CANN's name of a memory location type (rtMemLocationType). */
static const char *loc_name(uint32_t type, char *buf, size_t len)
{
    static const char *const names[] = {"MEMORY_LOC_HOST(0)", "MEMORY_LOC_DEVICE(1)",
                                        "MEMORY_LOC_UNREGISTERED(2)", "MEMORY_LOC_MANAGED(3)",
                                        "MEMORY_LOC_HOST_NUMA(4)", "MEMORY_LOC_MAX(5)"};
    if (type < sizeof names / sizeof names[0])
        return names[type];
    snprintf(buf, len, "UNKNOWN(%d)", (int)type);
    return buf;
}

/* The location the runtime finds at an address (aclrtPointerGetAttributes'
 * answer): a freed device address still reads as device memory here, so
 * the bounds check names the use after free. */
static aclrtMemLocation actual_loc(const struct be_ptr_info *in)
{
    aclrtMemLocation l = {0, ACL_MEM_LOCATION_TYPE_UNREGISTERED};
    switch (in->kind) {
    case BE_PTR_DEVICE:
        l.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        l.id = (uint32_t)in->device;
        break;
    case BE_PTR_DEVICE_FREE:
        l.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        l.id = in->device >= 0 ? (uint32_t)in->device : 0;
        break;
    case BE_PTR_HOST_PINNED:
    case BE_PTR_HOST_REGISTERED:
        l.type = ACL_MEM_LOCATION_TYPE_HOST;
        break;
    case BE_PTR_MANAGED:
        l.type = ACL_MEM_LOCATION_TYPE_MANAGED;
        break;
    default:
        break;
    }
    return l;
}

/* One side of entry i against the location its attribute declares
 * (CheckMemCpyAttr): the types must match, host counting unregistered and
 * NUMA memory as host, and a device side the device. */
static bool attr_ok(const char *param, const aclrtMemLocation *want, const struct be_ptr_info *in)
{
    aclrtMemLocation got = actual_loc(in);
    uint32_t real = got.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED ? ACL_MEM_LOCATION_TYPE_HOST
                                                                  : (uint32_t)got.type;
    uint32_t asked = want->type == ACL_MEM_LOCATION_TYPE_HOST_NUMA ? ACL_MEM_LOCATION_TYPE_HOST
                                                                  : (uint32_t)want->type;
    if (real == asked && (real != ACL_MEM_LOCATION_TYPE_DEVICE || got.id == want->id))
        return true;
    char a[32], b[32];
    api_report(API_MSG_EE1017, "Checking memory copy attributes failed. Parameter %s is invalid. "
               "Reason: The input memory type %s and the actual memory type %s do not match, or "
               "the input device ID (device_id=%d) and the actual device ID (device_id=%d) do not "
               "match.", param, loc_name((uint32_t)want->type, a, sizeof a),
               loc_name((uint32_t)got.type, b, sizeof b), (int)want->id, (int)got.id);
    return false; /* [fact] api_impl.cc CheckMemCpyAttr */
}

/* The runtime's checks of the attribute indexes (api_error.cc MemcpyBatch/Async). */
static aclError check_attr_indexes(const char *what, size_t count, const size_t *idx,
                                   size_t num_attrs, bool sync)
{
    if (num_attrs == 0) {
        api_report(API_MSG_EE1003, "%s failed because value 0 for parameter numAttrs is invalid. "
                   "Expected value: not equal to 0.", what);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (num_attrs > count) {
        api_report(API_MSG_EE1017, "%s failed. Parameter numAttrs or count is invalid. Reason: "
                   "Parameter numAttrs %zu should be less than or equal to parameter count %zu.",
                   what, num_attrs, count);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (sync && count > MAX_BATCH) {
        api_report(API_MSG_EE1003, "%s failed because value %zu for parameter count is invalid. "
                   "Expected value: less than or equal to %u.", what, count, MAX_BATCH);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (idx[0] != 0) {
        api_report(API_MSG_EE1003, "%s failed because value %zu for parameter attrsIdxs[0] is "
                   "invalid. Expected value: 0.", what, idx[0]);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    for (size_t i = 1; i < num_attrs; i++) {
        if (idx[i] <= idx[i - 1]) {
            api_report(API_MSG_EE1017, "%s failed. Parameter attrsIdxs[%zu] or attrsIdxs[%zu] is "
                       "invalid. Reason: Each entry in attrsIdxs must be greater than the previous "
                       "entry. Parameter attrsIdxs[%zu] is %zu, and attrsIdxs[%zu] is %zu.", what,
                       i, i - 1, i, idx[i], i - 1, idx[i - 1]);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        if (idx[i] >= count) {
            api_report(API_MSG_EE1017, "%s failed. Parameter attrsIdxs[%zu] or count is invalid. "
                       "Reason: Each entry in attrsIdxs must be less than the parameter count. "
                       "Parameter attrsIdxs[%zu] is %zu, and count is %zu.", what, i, i, idx[i],
                       count);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
    }
    return ACL_SUCCESS;
}

/* Entry i of a batch, checked: its attribute, its direction (H2D or D2H
 * only), aclsim's bounds. *dst_dev says which way it goes. `params` names
 * the runtime's description of a per-entry failure. */
static aclError check_entry(const char *what, const char *params, void *dst, size_t dest_max,
                            void *src, size_t size, const aclrtMemcpyBatchAttr *attr, bool async,
                            bool *dst_dev, struct be_ptr_info *di, struct be_ptr_info *si)
{
    if (async && (size > dest_max || size == 0)) {
        api_report(API_MSG_EE1017, "%s failed. Parameter size is invalid. Reason: Parameter size "
                   "%zu should be greater than 0 and less than or equal to parameter destMax %zu.",
                   params, size, dest_max);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    /* (synchronously the driver's pointer query refuses a NULL one) */
    if (!src) {
        api_report(API_MSG_EE1004, "%s failed because src cannot be a NULL pointer.",
                   async ? params : what);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (!dst) {
        api_report(API_MSG_EE1004, "%s failed because dst cannot be a NULL pointer.",
                   async ? params : what);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    be_get()->lookup(dst, di);
    be_get()->lookup(src, si);
    if (!attr_ok("dst", &attr->dstLoc, di) || !attr_ok("src", &attr->srcLoc, si))
        return ACL_ERROR_RT_PARAM_INVALID;
    aclrtMemLocation d = actual_loc(di), s = actual_loc(si);
    bool d_dev = d.type == ACL_MEM_LOCATION_TYPE_DEVICE, s_dev = s.type == ACL_MEM_LOCATION_TYPE_DEVICE;
    if (d_dev == s_dev) {
        char a[32], b[32];
        uint32_t dt = d_dev ? ACL_MEM_LOCATION_TYPE_DEVICE : ACL_MEM_LOCATION_TYPE_HOST;
        api_report(API_MSG_EE1016, "%s failed. Reason: Only H2D and D2H copy directions are "
                   "supported. The destination location type is %s, and the source location type "
                   "is %s.", async ? params : what, loc_name(dt, a, sizeof a),
                   loc_name(dt, b, sizeof b)); /* [fact] api_impl.cc MemcpyBatch, LoopMemcpyAsync */
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    *dst_dev = d_dev;
    if (!api_side_ok(what, "dst", dst, size, d_dev, false, di) ||
        !api_side_ok(what, "src", src, size, s_dev, false, si))
        return ACL_ERROR_RT_PARAM_INVALID;
    return ACL_SUCCESS;
}

/* The attribute that applies to entry i (attrsIdxs marks where each starts). */
static const aclrtMemcpyBatchAttr *attr_of(size_t i, const aclrtMemcpyBatchAttr *attrs,
                                           const size_t *idx, size_t num_attrs, size_t *at)
{
    while (*at + 1 < num_attrs && i >= idx[*at + 1])
        (*at)++;
    return &attrs[*at];
}

/* Copy entry i (checked) on stream (NULL: synchronously). */
static aclError copy_entry(const char *fn, struct api_ctx *c, void *stream, void *dst,
                           const void *src, size_t size, bool dst_dev,
                           const struct be_ptr_info *di, const struct be_ptr_info *si)
{
    bool staged = api_pageable(dst_dev, di, dst, size) || api_pageable(!dst_dev, si, src, size);
    int how = (!stream || staged ? BE_COPY_WAIT : 0) | (staged ? BE_COPY_PAGEABLE : 0);
    aclrtMemcpyKind kind = dst_dev ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST;
    return api_engine_failed(fn, be_get()->memcpy(c->device, stream, dst, src, size, kind, how));
}

static void set_fail(size_t *fail, size_t i)
{
    if (fail)
        *fail = i;
}

/* The four batch calls: CANN's checks in its order, then each entry;
 * fail_index NULL for the V2 calls; async: stream given. */
static aclError batch(const char *fn, void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                      size_t n, aclrtMemcpyBatchAttr *attrs, size_t *idx, size_t num_attrs,
                      size_t *fail_index, bool async, aclrtStream stream)
{
    if (!sizes)
        return api_err_null("Batch memory copy", "sizes");
    if (n == 0)
        return api_err_value("Batch memory copy", "0", "numBatches", "must be greater than 0");
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++)
        nonzero += sizes[i] != 0;
    if (nonzero == 0) {
        set_fail(fail_index, SIZE_MAX);
        return ACL_SUCCESS;
    }
    if (!dsts)
        return api_err_null(batch_acl, "dsts");
    if (!destMaxs)
        return api_err_null(batch_acl, "destMaxs");
    if (!srcs)
        return api_err_null(batch_acl, "srcs");
    if (!attrs)
        return api_err_null(batch_acl, "attrs");
    if (!idx)
        return api_err_null(batch_acl, "attrsIndexes");
    for (size_t i = 0; i < n; i++)
        if (destMaxs[i] < sizes[i]) {
            api_report(API_MSG_EH0009, "%s failed. Value %zu for parameter destMaxs is invalid. "
                       "Reason: The memory copy size %zu at index %zu exceeds the size %zu of the "
                       "destination buffer.", batch_acl, destMaxs[i], sizes[i], i, destMaxs[i]);
            return ACL_ERROR_INVALID_PARAM; /* [fact] ValidateMemcpyBatchParams */
        }
    for (size_t a = 0; a < num_attrs; a++)
        for (size_t b = 0; b < sizeof attrs[a].rsv; b++)
            if (attrs[a].rsv[b] != 0) {
                char v[8];
                snprintf(v, sizeof v, "%u", (unsigned)attrs[a].rsv[b]);
                return api_err_value(batch_acl, v, "attrs.rsv", "0");
            }
    set_fail(fail_index, SIZE_MAX);
    const char *what = async ? "Batch asynchronous memory copy" : "Batch synchronous memory copy";
    aclError rc = check_attr_indexes(what, n, idx, num_attrs, !async);
    if (rc != ACL_SUCCESS)
        return rc;
    struct api_stream_ref ref;
    struct api_ctx *c;
    rc = api_work_get(fn, async, stream, &ref, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t at = 0;
    struct be_ptr_info di, si;
    bool dst_dev;
    if (!async) {
        /* The driver's batch: every entry is checked before any moves. */
        for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
            rc = check_entry(what, what, dsts[i], destMaxs[i], srcs[i], sizes[i],
                             attr_of(i, attrs, idx, num_attrs, &at), false, &dst_dev, &di, &si);
            if (rc != ACL_SUCCESS)
                set_fail(fail_index, i);
        }
        at = 0;
    }
    /* Asynchronously each entry is checked and enqueued in turn: an entry
     * that fails leaves the ones before it queued. */
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
        const aclrtMemcpyBatchAttr *attr = attr_of(i, attrs, idx, num_attrs, &at);
        if (!async && sizes[i] == 0)
            continue;
        rc = check_entry(what, "Checking memory copy params", dsts[i], destMaxs[i], srcs[i],
                         sizes[i], attr, async, &dst_dev, &di, &si);
        if (rc == ACL_SUCCESS)
            rc = copy_entry(fn, c, ref.stream, dsts[i], srcs[i], sizes[i], dst_dev, &di, &si);
        if (rc != ACL_SUCCESS)
            set_fail(fail_index, i);
    }
    if (rc == ACL_SUCCESS)
        set_fail(fail_index, SIZE_MAX);
    api_work_put(&ref);
    return rc;
}

aclError api_impl_aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                   size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                   size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)
{
    static const char fn[] = "aclrtMemcpyBatch";
    API_FAULT(ACL_RT_MEMCPY2D, fn);
    if (!failIndex)
        return api_err_null(fn, "failIndex");
    return batch(fn, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                 failIndex, false, NULL);
}

aclError api_impl_aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                     size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                     size_t *attrsIndexes, size_t numAttrs)
{
    API_FAULT(ACL_RT_MEMCPY2D, "aclrtMemcpyBatchV2");
    return batch("aclrtMemcpyBatchV2", dsts, destMaxs, srcs, sizes, numBatches, attrs,
                 attrsIndexes, numAttrs, NULL, false, NULL);
}

aclError api_impl_aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs,
                                        size_t *sizes, size_t numBatches,
                                        aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                        size_t numAttrs, size_t *failIndex, aclrtStream stream)
{
    static const char fn[] = "aclrtMemcpyBatchAsync";
    API_FAULT(ACL_RT_MEMCPY2D, fn);
    if (!failIndex)
        return api_err_null(fn, "failIndex");
    return batch(fn, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                 failIndex, true, stream);
}

aclError api_impl_aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs,
                                          size_t *sizes, size_t numBatches,
                                          aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                          size_t numAttrs, aclrtStream stream)
{
    API_FAULT(ACL_RT_MEMCPY2D, "aclrtMemcpyBatchAsyncV2");
    return batch("aclrtMemcpyBatchAsyncV2", dsts, destMaxs, srcs, sizes, numBatches, attrs,
                 attrsIndexes, numAttrs, NULL, true, stream);
}

/* ---- 32-bit fills ---- */

static aclError fill_d32(const char *fn, const char *what, void *ptr, size_t memSize,
                         uint32_t value, size_t n, bool async, aclrtStream stream)
{
    API_FAULT(ACL_RT_MEMSET_D32, fn);
    if (n == 0)
        return ACL_SUCCESS;
    if (!ptr)
        return api_err_null(fn, "ptr");
    if ((uintptr_t)ptr & 3u) {
        char v[32];
        snprintf(v, sizeof v, "%p", ptr);
        return api_err_value(fn, v, "ptr", "a 4-byte aligned address");
    }
    size_t need;
    if (__builtin_mul_overflow(n, (size_t)4, &need) || memSize < need) {
        api_report(API_MSG_EH0009, "%s failed. Value %zu for parameter N is invalid. Reason: "
                   "N \u00d7 4 (%zu) is greater than memSize (%zu), which does not meet the "
                   "requirement.", fn, n, n * 4, memSize); /* [fact] aclrtMemsetD32Impl */
        return ACL_ERROR_INVALID_PARAM;
    }
    struct be_ptr_info in;
    be_get()->lookup(ptr, &in);
    aclrtMemLocation loc = actual_loc(&in);
    if (in.kind == BE_PTR_DEVICE_FREE || loc.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED) {
        if (in.kind == BE_PTR_DEVICE_FREE && API_TOOL(audit))
            API_TOOL(audit)(ptr, need); /* use after free: memcheck names the block */
        api_report(API_MSG_EH9999, "Only memory allocated by aclrtMalloc or aclrtMallocHost is "
                   "supported."); /* [fact] aclrtMemsetD32Impl */
        return ACL_ERROR_INVALID_PARAM;
    }
    struct api_stream_ref ref;
    struct api_ctx *c;
    aclError rc = api_work_get(fn, async, stream, &ref, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    bool device = loc.type == ACL_MEM_LOCATION_TYPE_DEVICE;
    if (!api_side_ok(what, "ptr", ptr, need, device, true, &in))
        rc = ACL_ERROR_RT_PARAM_INVALID;
    else
        rc = api_engine_failed(fn, be_get()->memset_d32(c->device, ref.stream, ptr, device, value,
                                                        n, !async));
    api_work_put(&ref);
    return rc;
}

aclError api_impl_aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    return fill_d32("aclrtMemsetD32",
                    "Setting the memory content to a specified 32-bit unsigned integer value "
                    "synchronously", ptr, memSize, value, N, false, NULL);
}

aclError api_impl_aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                                      aclrtStream stream)
{
    return fill_d32("aclrtMemsetD32Async",
                    "Setting the memory content to a specified 32-bit unsigned integer value "
                    "asynchronously", ptr, memSize, value, N, true, stream);
}

/* ---- copies through descriptors and at device-held addresses ----
 *
 * A descriptor is 32 bytes of device memory that name a copy between two
 * ranges of one device's memory (aclrtSetMemcpyDesc writes it with a
 * synchronous copy); aclrtMemcpyAsyncWithDesc enqueues the copy it names,
 * and aclrtMemcpyAsyncWithOffset the copy between the addresses two
 * pointers in device memory hold, plus offsets. Only the kind
 * ACL_MEMCPY_INNER_DEVICE_TO_DEVICE is supported (207000 otherwise, with a
 * warning only). The ACL layer's checks: src/acl/aclrt_impl/memory.cpp
 * aclrtGetMemcpyDescSizeImpl, aclrtSetMemcpyDescImpl,
 * aclrtMemcpyAsyncWithDescImpl, aclrtMemcpyAsyncWithOffsetImpl; the
 * runtime's: src/runtime/api/api_c_memory.cc rtsGetMemcpyDescSize,
 * api/impl/api_error.cc SetMemcpyDesc, MemcpyAsyncWithDesc,
 * api_c_standard_soc.cc rtMemcpyAsyncWithOffset. */

static const char set_desc[] = "Setting the memory copy descriptor";
static const char with_desc[] =
    "Performing asynchronous memory copy using the memory copy descriptor";
/* The runtime's bound of one device-to-device copy (base_info.hpp
 * MAX_MEMCPY_SIZE_OF_D2D: 4 GiB). */
#define MAX_D2D ((uint64_t)4 << 30)

/* The ACL layer's checks of a descriptor and a kind (below
 * RT_MEMCPY_KIND_MAX, 8). */
static aclError desc_kind(const char *fn, const void *desc, aclrtMemcpyKind kind)
{
    if (!desc)
        return api_err_null(fn, "desc");
    if ((unsigned)kind < 8u)
        return ACL_SUCCESS;
    char buf[64];
    return api_err_value(fn, api_kind_name((int)kind, buf, sizeof buf), "kind",
                         "[RT_MEMCPY_KIND_HOST_TO_HOST, RT_MEMCPY_KIND_MAX)");
}

aclError api_impl_aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
    static const char fn[] = "aclrtGetMemcpyDescSize";
    API_FAULT(ACL_RT_MEMCPY_DESC, fn);
    if (!descSize)
        return api_err_null(fn, "descSize");
    aclError rc = desc_kind(fn, descSize, kind);
    if (rc != ACL_SUCCESS)
        return rc;
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    return api_err_runtime(fn, be_get()->desc_size(BE_DESC_MEMCPY, descSize));
}

/* The runtime's EE1017 "<desc> failed. Parameter <param> is invalid.
 * Reason: <reason>."; returns ACL_ERROR_RT_PARAM_INVALID. */
static aclError bad_param(const char *desc, const char *param, const char *reason)
{
    api_report(API_MSG_EE1017, "%s failed. Parameter %s is invalid. Reason: %s.", desc, param,
               reason);
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* The descriptor: 64-byte aligned device memory of the current device,
 * room for `bytes`. */
static aclError desc_place(const char *what, void *desc, size_t bytes, int32_t dev)
{
    if ((uintptr_t)desc % 64 != 0) {
        api_report(API_MSG_EE1011, "%s failed. Value %p for parameter desc is invalid. Reason: "
                   "desc is not 64-byte aligned.", what, desc);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    struct be_ptr_info in;
    be_get()->lookup(desc, &in);
    if (!api_side_ok(what, "desc", desc, bytes, true, true, &in))
        return ACL_ERROR_RT_PARAM_INVALID;
    if (in.kind == BE_PTR_DEVICE && in.device != dev)
        return bad_param(what, "desc", "it is memory of another device than the current one");
    return ACL_SUCCESS;
}

/* The runtime's checks of aclrtSetMemcpyDesc after the ACL layer's. */
static aclError set_desc_checks(void *desc, void *src, void *dst, size_t count, int32_t dev)
{
    if ((uint64_t)count > MAX_D2D) {
        char v[32];
        snprintf(v, sizeof v, "%zu", count);
        return api_rt_value(set_desc, v, "count", "(0, 4294967296]");
    }
    size_t bytes = 0;
    aclError rc = be_get()->desc_size(BE_DESC_MEMCPY, &bytes);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = desc_place(set_desc, desc, bytes, dev);
    if (rc != ACL_SUCCESS)
        return rc;
    struct be_ptr_info di, si;
    be_get()->lookup(dst, &di);
    be_get()->lookup(src, &si);
    bool d_dev = api_in_device_memory(&di), s_dev = api_in_device_memory(&si);
    if (!d_dev || !s_dev || di.device != si.device) {
        char why[320];
        snprintf(why, sizeof why, "DstAddr and srcAddr do not match with the kind "
                 "RT_MEMCPY_KIND_INNER_DEVICE_TO_DEVICE, dstAddr DeviceId=%d, srcAddr "
                 "DeviceId=%d, dstAddr type=%s, srcAddr type=%s", d_dev ? (int)di.device : 0,
                 s_dev ? (int)si.device : 0, d_dev ? "device" : "host",
                 s_dev ? "device" : "host");
        return bad_param(set_desc, "dstAddr or srcAddr", why);
    }
    if (!api_side_ok(set_desc, "srcAddr", src, count, true, true, &si) ||
        !api_side_ok(set_desc, "dstAddr", dst, count, true, true, &di))
        return ACL_ERROR_RT_PARAM_INVALID;
    return ACL_SUCCESS;
}

aclError api_impl_aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr,
                                     void *dstAddr, size_t count, void *config)
{
    static const char fn[] = "aclrtSetMemcpyDesc";
    API_FAULT(ACL_RT_MEMCPY_DESC, fn);
    aclError rc = desc_kind(fn, desc, kind);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!srcAddr)
        return api_err_null(fn, "srcAddr");
    if (!dstAddr)
        return api_err_null(fn, "dstAddr");
    if (count == 0)
        return api_err_value(fn, "0", "count", "must be greater than 0");
    if (config) {
        api_report(API_MSG_EH0012, "%s failed. Parameter reserve is invalid. Reason: config is a "
                   "reserved parameter and must be nullptr.", fn);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    struct api_ctx *c;
    rc = api_current_ctx(fn, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = set_desc_checks(desc, srcAddr, dstAddr, count, c->device);
    if (rc != ACL_SUCCESS)
        return rc == ACL_ERROR_RT_PARAM_INVALID ? rc : api_err_runtime(fn, rc);
    return api_err_runtime(fn, be_get()->desc_set(BE_DESC_MEMCPY, desc, srcAddr, dstAddr, count));
}

/* After a descriptor copy or an offset copy was enqueued: the backend's
 * answer, a refusal of the memory the device found named (`what`). */
static aclError launched(const char *fn, const char *what, const char *param, aclError rc)
{
    if (rc == ACL_ERROR_RT_PARAM_INVALID)
        return bad_param(what, param, "the copy it names is not inside live allocations of the "
                         "stream's device");
    return api_err_runtime(fn, rc);
}

aclError api_impl_aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
    static const char fn[] = "aclrtMemcpyAsyncWithDesc";
    API_FAULT(ACL_RT_MEMCPY_DESC, fn);
    aclError rc = desc_kind(fn, desc, kind);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!stream)
        return api_err_null(fn, "stream");
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a warning only */
    struct api_stream_ref s;
    rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t bytes = 0;
    rc = be_get()->desc_size(BE_DESC_MEMCPY, &bytes);
    if (rc == ACL_SUCCESS)
        rc = desc_place(with_desc, desc, bytes, s.ctx->device);
    if (rc == ACL_SUCCESS)
        rc = launched(fn, with_desc, "desc",
                      be_get()->desc_launch(BE_DESC_MEMCPY, s.stream, desc, 0));
    api_stream_put(&s);
    return rc;
}

aclError api_impl_aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
                                             const void **src, size_t count,
                                             size_t srcDataOffset, aclrtMemcpyKind kind,
                                             aclrtStream stream)
{
    static const char fn[] = "aclrtMemcpyAsyncWithOffset";
    static const char what[] = "Asynchronous memory copy";
    API_FAULT(ACL_RT_MEMCPY_DESC, fn);
    if (count == 0)
        return ACL_SUCCESS;
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE) {
        char buf[64];
        api_kind_name((int)kind, buf, sizeof buf);
        char v[80];
        snprintf(v, sizeof v, "MEMCPY_KIND_%s", strncmp(buf, "MEMCPY_", 7) == 0 ? buf + 7 : buf);
        return api_rt_value("rtMemcpyAsyncWithOffset", v, "kind",
                            "MEMCPY_KIND_INNER_DEVICE_TO_DEVICE(6)");
    }
    if (!dst)
        return api_rt_null(what, "dst");
    if (!src)
        return api_rt_null(what, "src");
    struct api_stream_ref s;
    aclError rc = api_stream_get(fn, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The two pointers are read from device memory when the copy runs. */
    struct be_ptr_info di, si;
    be_get()->lookup(dst, &di);
    be_get()->lookup(src, &si);
    if (!api_side_ok(what, "dst", dst, 8, true, true, &di) ||
        !api_side_ok(what, "src", src, 8, true, true, &si))
        rc = ACL_ERROR_RT_PARAM_INVALID;
    else
        rc = launched(fn, what, "dst or src",
                      be_get()->memcpy_at(s.stream, dst, destMax, dstDataOffset, src, count,
                                          srcDataOffset));
    api_stream_put(&s);
    return rc;
}

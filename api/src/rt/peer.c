/*
 * peer.c - peer access between devices and their topology (the PEER family).
 *
 * CANN lets a device reach another's memory once the program enabled peer
 * access from the current device (aclrtDeviceEnablePeerAccess); a copy
 * between two devices' memory without it fails. The ACL layer keeps which
 * pairs are enabled and checks every device-to-device copy against it.
 * Enabling is the driver's setting of the device that enables
 * (halDeviceEnableP2P on the current device): it goes when that device
 * closes, not when its peer does. CANN's own P2P sample and FAQ
 * (docs/zh/FAQ, "跨Device P2P数据交互配置失败") reset device 1 and then
 * disable device 0's access to it. The simulator
 * times a peer copy on the issuing device's HBM link (an assumption until
 * an HCCS link is calibrated).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "backends/be.h"


static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t enabled[BE_MAX_DEVICES]; /* bit p of [d]: d may reach p */

static bool is_enabled(int32_t dev, int32_t peer)
{
    pthread_mutex_lock(&lock);
    bool on = (enabled[dev] >> peer) & 1u;
    pthread_mutex_unlock(&lock);
    return on;
}

void api_peer_forget(int32_t dev)
{
    pthread_mutex_lock(&lock);
    enabled[dev] = 0; /* what dev enabled; its peers keep their access to it */
    pthread_mutex_unlock(&lock);
}

/* A device id in [0, count): else ACL_ERROR_RT_INVALID_DEVICEID. */
static aclError valid(const char *fn, const char *param, int32_t id)
{
    uint32_t n = 0;
    be_get()->device_count(&n);
    if (id >= 0 && (uint32_t)id < n && id < BE_MAX_DEVICES)
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, invalid %s %d, valid "
               "range is [0, %u).", fn, param, (int)id, n);
    return ACL_ERROR_RT_INVALID_DEVICEID;
}

/* CANN's ACL-layer check (EH0009): a device is not its own peer. */
static aclError same(const char *fn, int32_t id)
{
    char v[16], why[96];
    snprintf(v, sizeof v, "%d", (int)id);
    snprintf(why, sizeof why, "deviceId %d cannot be equal to peerDeviceId %d", (int)id, (int)id);
    api_report(API_MSG_EH0009, "%s failed. Value %s for parameter deviceId is invalid. Reason: %s.",
               fn, v, why); /* [fact] aclrt_impl/memory.cpp, INVALID_PARAM_REASON_MSG */
    return ACL_ERROR_INVALID_PARAM;
}

aclError api_impl_aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
                                           int32_t peerDeviceId)
{
    static const char fn[] = "aclrtDeviceCanAccessPeer";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    if (deviceId == peerDeviceId)
        return same(fn, deviceId);
    aclError rc = valid(fn, "peerDeviceId", peerDeviceId);
    if (rc == ACL_SUCCESS)
        rc = valid(fn, "deviceId", deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!canAccessPeer)
        return api_err_null(fn, "canAccessPeer");
    return api_err_runtime(fn, be_get()->peer_can_access(deviceId, peerDeviceId, canAccessPeer));
}

static aclError set_access(const char *fn, int32_t peer, int enable)
{
    struct api_stream_ref ctx; /* the current device, kept open while we work */
    aclError rc = api_stream_get(fn, NULL, &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    int32_t dev = ctx.ctx->device;
    if (dev == peer)
        rc = same(fn, dev);
    else
        rc = valid(fn, "peerDeviceId", peer);
    if (rc == ACL_SUCCESS && enable) {
        int32_t can = 0;
        rc = api_err_runtime(fn, be_get()->peer_can_access(dev, peer, &can));
        if (rc == ACL_SUCCESS && !can) {
            api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, device %d "
                       "cannot reach device %d.", fn, (int)dev, (int)peer);
            rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        }
    }
    if (rc == ACL_SUCCESS && !enable && !is_enabled(dev, peer)) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, peer access from "
                   "device %d to device %d is not enabled.", fn, (int)dev, (int)peer);
        rc = ACL_ERROR_RT_PARAM_INVALID;
    }
    if (rc == ACL_SUCCESS)
        rc = api_err_runtime(fn, be_get()->peer_enable(dev, peer, enable));
    if (rc == ACL_SUCCESS) {
        pthread_mutex_lock(&lock);
        if (enable)
            enabled[dev] |= UINT64_C(1) << peer;
        else
            enabled[dev] &= ~(UINT64_C(1) << peer);
        pthread_mutex_unlock(&lock);
    }
    api_stream_put(&ctx);
    return rc;
}

aclError api_impl_aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    static const char fn[] = "aclrtDeviceEnablePeerAccess";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    if (flags != 0) { /* a reserved parameter: CANN's ACL_ERROR_FEATURE_UNSUPPORTED */
        char v[16];
        snprintf(v, sizeof v, "%u", flags);
        api_err_value(fn, v, "flags", "0");
        return ACL_ERROR_FEATURE_UNSUPPORTED;
    }
    return set_access(fn, peerDeviceId, 1);
}

aclError api_impl_aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    static const char fn[] = "aclrtDeviceDisablePeerAccess";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    return set_access(fn, peerDeviceId, 0);
}

aclError api_impl_aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId,
                                              int32_t *status)
{
    static const char fn[] = "aclrtDevicePeerAccessStatus";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    if (!status)
        return api_err_null(fn, "status");
    aclError rc = valid(fn, "deviceId", deviceId);
    if (rc == ACL_SUCCESS)
        rc = valid(fn, "peerDeviceId", peerDeviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    *status = deviceId != peerDeviceId && is_enabled(deviceId, peerDeviceId);
    return ACL_SUCCESS;
}

aclError api_impl_aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    static const char fn[] = "aclrtGetDevicesTopo";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    if (!value)
        return api_err_null(fn, "value");
    aclError rc = valid(fn, "deviceId", (int32_t)(deviceId > INT32_MAX ? -1 : (int32_t)deviceId));
    if (rc == ACL_SUCCESS)
        rc = valid(fn, "otherDeviceId",
                   (int32_t)(otherDeviceId > INT32_MAX ? -1 : (int32_t)otherDeviceId));
    if (rc != ACL_SUCCESS)
        return rc;
    if (deviceId == otherDeviceId) {
        *value = 0; /* a device and itself: no link between them */
        return ACL_SUCCESS;
    }
    return api_err_runtime(fn, be_get()->devices_topo((int32_t)deviceId, (int32_t)otherDeviceId,
                                                      value));
}

aclError api_peer_copy_check(const char *func, int32_t dev, int32_t src_dev, int32_t dst_dev)
{
    if (src_dev < 0 || dst_dev < 0 || src_dev == dst_dev)
        return ACL_SUCCESS;
    /* Each side on another device needs the current device's access. */
    if ((src_dev == dev || is_enabled(dev, src_dev)) && (dst_dev == dev || is_enabled(dev, dst_dev)))
        return ACL_SUCCESS;
    api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, the copy is between "
               "device %d and device %d; enable peer access first (aclrtDeviceEnablePeerAccess on "
               "device %d).", func, (int)src_dev, (int)dst_dev, (int)dev);
    return ACL_ERROR_RT_PARAM_INVALID;
}

/* ---- Atomics between devices, P2P mappings ---- */

/* The capabilities of one operation between two devices that a link joins
 * (the chip tables: config/910_B_93/dev_info_reg.cc:137-146, the DMA
 * operations only; config/950/dev_info_reg.cc:136-172, every one). */
static uint32_t p2p_caps(const char *soc, int op)
{
    enum {
        SIGNED = ACL_RT_ATOMIC_CAPABILITY_SIGNED, UNSIGNED = ACL_RT_ATOMIC_CAPABILITY_UNSIGNED,
        S8 = ACL_RT_ATOMIC_CAPABILITY_SCALAR8, S16 = ACL_RT_ATOMIC_CAPABILITY_SCALAR16,
        S32 = ACL_RT_ATOMIC_CAPABILITY_SCALAR32, S64 = ACL_RT_ATOMIC_CAPABILITY_SCALAR64,
        DMA = SIGNED | S8 | S16 | S32, TYPE1 = SIGNED | UNSIGNED | S32 | S64,
        TYPE2 = UNSIGNED | S32 | S64, TYPE3 = S16 | S32
    };
    bool dma = op == ACL_RT_ATOMIC_OPERATION_DMA_ADD || op == ACL_RT_ATOMIC_OPERATION_DMA_MIN ||
               op == ACL_RT_ATOMIC_OPERATION_DMA_MAX;
    if (strncmp(soc, "Ascend950", 9) != 0)
        return dma ? DMA : 0;
    if (dma)
        return DMA;
    switch (op) {
    case ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT:
    case ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT:
    case ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS:
    case ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH:
        return TYPE2;
    case ACL_RT_ATOMIC_OPERATION_FLOAT_ADD:
    case ACL_RT_ATOMIC_OPERATION_FLOAT_MIN:
    case ACL_RT_ATOMIC_OPERATION_FLOAT_MAX:
        return TYPE3;
    default:
        return op <= ACL_RT_ATOMIC_OPERATION_CAS || (op >= ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD &&
                                                     op <= ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX)
                   ? TYPE1 : 0;
    }
}

aclError api_impl_aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities,
                                                      const aclrtAtomicOperation *operations,
                                                      const uint32_t count, int32_t srcDeviceId,
                                                      int32_t dstDeviceId)
{
    static const char fn[] = "aclrtDeviceGetP2PAtomicCapabilities";
    static const char what[] = "Querying details about the atomic operations supported between "
                               "devices";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    API_FORWARD_RT(fn, aclrtDeviceGetP2PAtomicCapabilities,
                   (capabilities, operations, count, srcDeviceId, dstDeviceId));
    /* api_error.cc:7865-7910: outputs, count, distinct devices, each id,
     * each operation. */
    aclError rc = api_atomic_query_check(what, capabilities, operations, count);
    if (rc != ACL_SUCCESS)
        return rc;
    if (srcDeviceId == dstDeviceId) {
        char v[16];
        snprintf(v, sizeof v, "%d", (int)srcDeviceId);
        api_rt_bad_value(fn, what, v, "srcDeviceId", "srcDeviceId must be different from "
                         "dstDeviceId");
        return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    rc = api_device_id_check("Verifying the device ID validity", "devId", srcDeviceId);
    if (rc == ACL_SUCCESS)
        rc = api_device_id_check("Verifying the device ID validity", "devId", dstDeviceId);
    if (rc == ACL_SUCCESS)
        rc = api_atomic_ops_check(operations, count);
    if (rc != ACL_SUCCESS)
        return rc;
    /* A link of the HCCS kinds carries atomics (api_impl.cc:9846-9872). */
    uint64_t topo = 0;
    rc = api_err_runtime(fn, be_get()->devices_topo(srcDeviceId, dstDeviceId, &topo));
    if (rc != ACL_SUCCESS)
        return rc;
    if (topo & (ACL_RT_DEVS_TOPOLOGY_HCCS | ACL_RT_DEVS_TOPOLOGY_SIO | ACL_RT_DEVS_TOPOLOGY_HCCS_SW)) {
        const char *soc = be_get()->soc_name(srcDeviceId);
        for (uint32_t i = 0; i < count; i++)
            capabilities[i] = p2p_caps(soc ? soc : "", (int)operations[i]);
    }
    return ACL_SUCCESS;
}

aclError api_impl_aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)
{
    static const char fn[] = "aclrtMemP2PMap";
    API_FAULT(ACL_RT_PEER_ACCESS, fn);
    /* memory.cpp:2067-2079: the ACL layer's checks, then the destination's
     * physical id and a prefetch of the range to it. */
    if (!devPtr)
        return api_err_null(fn, "devPtr");
    if (size == 0)
        return api_err_zero(fn, "size");
    if (flags != 0)
        return api_err_reserved(fn, "flags", flags);
    API_FORWARD_RT(fn, aclrtMemP2PMap, (devPtr, size, dstDevId, flags));
    aclError rc = valid(fn, "dstDevId", dstDevId);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The simulated devices share one address space: the range only has to
     * be memory the runtime knows, whole. */
    void *base = NULL;
    size_t len = 0;
    if (be_get()->mem_range(devPtr, &base, &len) != ACL_SUCCESS ||
        (char *)devPtr + size > (char *)base + len || (char *)devPtr + size < (char *)devPtr) {
        api_report(API_MSG_EE1001, "The argument is invalid. Reason: %s failed, [%p, %p) is not "
                   "inside one allocation.", fn, devPtr, (void *)((char *)devPtr + size));
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

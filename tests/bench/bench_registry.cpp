/*
 * bench_registry.cpp - aclrtAllocatorGetByStream against a replica of
 * CANN's registry, in one process.
 *
 * The replica is CANN's mechanism (hicann/runtime
 * src/acl/aclrt_impl/allocator.cpp): a std::map keyed by stream pointer
 * under one global std::mutex, taken for every lookup. Both
 * hold 1000 registered streams and are probed in the same pseudo-random
 * order. Prints "name value" lines:
 *   registry_speedup_1t  replica ns per lookup / aclsim ns per lookup
 *   registry_scaling_2t  aclsim lookups/s with 2 threads / with 1 thread
 * Each figure is the best of several runs, to shed scheduler noise.
 */
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"

namespace {

constexpr int kStreams = 1000;
constexpr int kLookups = 4000000;
constexpr size_t kOrder = 8192; // a power of two: the harness indexes with a mask

struct Snapshot {
    void *obj, *alloc, *free, *advise, *get_addr;
};

// CANN's mechanism: ordered map + one global mutex.
std::map<aclrtStream, std::pair<aclrtAllocatorDesc, Snapshot>> g_map;
std::mutex g_mutex;

aclError replica_get(aclrtStream s, aclrtAllocatorDesc *desc, aclrtAllocator *obj)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_map.find(s);
    if (it == g_map.end())
        return ACL_ERROR_INVALID_PARAM;
    *desc = it->second.first;
    if (obj)
        *obj = it->second.second.obj;
    return ACL_SUCCESS;
}

void *alloc_cb(aclrtAllocator, size_t) { return nullptr; }
void free_cb(aclrtAllocator, aclrtAllocatorBlock) {}
void *addr_cb(aclrtAllocatorBlock b) { return b; }

std::vector<aclrtStream> g_order;

template <class F> double seconds(F f)
{
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One thread's share of lookups through `get`; returns a checksum so the
// work cannot be optimised away.
template <class G> uintptr_t lookups(G get, int n, int offset)
{
    uintptr_t sum = 0;
    for (int i = 0; i < n; i++) {
        aclrtAllocatorDesc d = nullptr;
        aclrtAllocator o = nullptr;
        get(g_order[(size_t)(i + offset) & (kOrder - 1)], &d, &o);
        sum += (uintptr_t)d + (uintptr_t)o;
    }
    return sum;
}

aclError ours(aclrtStream s, aclrtAllocatorDesc *d, aclrtAllocator *o)
{
    return aclrtAllocatorGetByStream(s, d, o, nullptr, nullptr, nullptr, nullptr);
}

double best_of(int runs, double (*f)())
{
    double best = 1e30;
    for (int i = 0; i < runs; i++) {
        double t = f();
        if (t < best)
            best = t;
    }
    return best;
}

volatile uintptr_t g_sink;

}  // namespace

int main()
{
    int obj = 0;
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    aclrtAllocatorSetObjToDesc(desc, &obj);
    aclrtAllocatorSetAllocFuncToDesc(desc, alloc_cb);
    aclrtAllocatorSetFreeFuncToDesc(desc, free_cb);
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, addr_cb);
    std::vector<char> keys(kStreams * 64);
    for (int i = 0; i < kStreams; i++) {
        aclrtStream s = &keys[(size_t)i * 64];
        if (aclrtAllocatorRegister(s, desc) != ACL_SUCCESS)
            return 1;
        g_map[s] = {desc, Snapshot{&obj, (void *)alloc_cb, (void *)free_cb, nullptr,
                                   (void *)addr_cb}};
    }
    uint32_t x = 12345;
    for (size_t i = 0; i < kOrder; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        g_order.push_back(&keys[(size_t)(x % kStreams) * 64]);
    }

    double t_replica = best_of(5, [] { return seconds([] { g_sink = lookups(replica_get, kLookups, 0); }); });
    double t_ours = best_of(5, [] { return seconds([] { g_sink = lookups(ours, kLookups, 0); }); });
    // Two threads, each doing the full count: ideal scaling doubles lookups/s.
    double t_ours2 = best_of(5, [] {
        return seconds([] {
            uintptr_t a = 0, b = 0;
            std::thread t1([&] { a = lookups(ours, kLookups, 0); });
            std::thread t2([&] { b = lookups(ours, kLookups, 4096); });
            t1.join();
            t2.join();
            g_sink = a + b;
        });
    });
    std::printf("registry_replica_ns %.3f\n", t_replica / kLookups * 1e9);
    std::printf("registry_aclsim_ns %.3f\n", t_ours / kLookups * 1e9);
    std::printf("registry_speedup_1t %.3f\n", t_replica / t_ours);
    std::printf("registry_scaling_2t %.3f\n", (2.0 * kLookups / t_ours2) / (kLookups / t_ours));
    for (int i = 0; i < kStreams; i++)
        aclrtAllocatorUnregister(&keys[(size_t)i * 64]);
    aclrtAllocatorDestroyDesc(desc);
    return 0;
}

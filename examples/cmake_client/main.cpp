// main.cpp - a C++17 client of the AscendCL runtime, built with CANN's own
// recipe (CMakeLists.txt): it hands a pool allocator to a stream through
// the custom-allocator API, looks it up as a runtime consumer would, and
// moves data through device memory. It prints "cmake-client ok" and exits
// 0 when every check holds; otherwise an error line and exit 1.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"

namespace {

struct Pool {
    unsigned live = 0;
};

void *PoolAlloc(aclrtAllocator allocator, size_t size)
{
    void *block = std::malloc(size);
    if (block != nullptr)
        static_cast<Pool *>(allocator)->live++;
    return block;
}

void PoolFree(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    std::free(block);
    static_cast<Pool *>(allocator)->live--;
}

void *PoolAddr(aclrtAllocatorBlock block)
{
    return block;
}

bool Check(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return true;
    const char *msg = aclGetRecentErrMsg();
    std::fprintf(stderr, "[ERROR] %s returned %d\n%s\n", what, rc, msg ? msg : "");
    return false;
}

int Run()
{
    Pool pool;
    aclrtStream stream = nullptr;
    if (!Check(aclrtCreateStream(&stream), "aclrtCreateStream"))
        return 1;
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    bool ok = desc != nullptr && Check(aclrtAllocatorSetObjToDesc(desc, &pool), "SetObj") &&
              Check(aclrtAllocatorSetAllocFuncToDesc(desc, PoolAlloc), "SetAlloc") &&
              Check(aclrtAllocatorSetFreeFuncToDesc(desc, PoolFree), "SetFree") &&
              Check(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, PoolAddr), "SetGetAddr") &&
              Check(aclrtAllocatorRegister(stream, desc), "Register");

    // A consumer on the stream finds the allocator and uses it.
    aclrtAllocatorDesc found = nullptr;
    aclrtAllocator obj = nullptr;
    aclrtAllocatorAllocFunc alloc = nullptr;
    aclrtAllocatorFreeFunc release = nullptr;
    ok = ok && Check(aclrtAllocatorGetByStream(stream, &found, &obj, &alloc, &release, nullptr,
                                               nullptr), "GetByStream");
    ok = ok && found == desc && obj == &pool;
    if (ok) {
        aclrtAllocatorBlock block = alloc(obj, 128);
        ok = block != nullptr && pool.live == 1;
        release(obj, block);
        ok = ok && pool.live == 0;
    }

    // Data through device memory, on the stream.
    std::vector<uint8_t> host(1 << 16), back(1 << 16);
    for (size_t i = 0; i < host.size(); i++)
        host[i] = static_cast<uint8_t>(i * 13 + 1);
    void *dev = nullptr;
    ok = ok && Check(aclrtMalloc(&dev, host.size(), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc") &&
         Check(aclrtMemcpyAsync(dev, host.size(), host.data(), host.size(),
                                ACL_MEMCPY_HOST_TO_DEVICE, stream), "aclrtMemcpyAsync") &&
         Check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream") &&
         Check(aclrtMemcpy(back.data(), back.size(), dev, back.size(),
                           ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
    ok = ok && std::memcmp(host.data(), back.data(), host.size()) == 0;

    if (dev != nullptr)
        aclrtFree(dev);
    aclrtAllocatorUnregister(stream);
    if (desc != nullptr)
        aclrtAllocatorDestroyDesc(desc);
    aclrtDestroyStream(stream);
    return ok ? 0 : 1;
}

}  // namespace

int main()
{
    if (!Check(aclInit(nullptr), "aclInit"))
        return 1;
    int rc = Check(aclrtSetDevice(0), "aclrtSetDevice") ? Run() : 1;
    aclrtResetDeviceForce(0);
    aclFinalize();
    std::puts(rc == 0 ? "cmake-client ok" : "[ERROR] cmake-client failed");
    return rc;
}

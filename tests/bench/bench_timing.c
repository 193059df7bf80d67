/*
 * bench_timing.c - how many small asynchronous copies the simulator
 * enqueues and times per second of wall-clock time, on one stream.
 *
 * Each op is a 64-byte aclrtMemcpyAsync from page-locked host memory to the
 * device: checked, its bytes moved, its time taken on the stream, the host
 * link and a copy engine. Prints "async_ops_per_s <n>" (best of 5 runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"
#include "bench.h"

#define OPS 1000000

int main(void)
{
    aclrtStream s;
    void *dev, *pin;
    if (aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&s) ||
        aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMallocHost(&pin, 4096)) {
        fprintf(stderr, "bench_timing: setup failed\n");
        return 1;
    }
    double best = 0;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        for (int i = 0; i < OPS; i++) {
            if (aclrtMemcpyAsync((char *)dev + (i & 63) * 64, 64, pin, 64,
                                 ACL_MEMCPY_HOST_TO_DEVICE, s) != ACL_SUCCESS) {
                fprintf(stderr, "bench_timing: aclrtMemcpyAsync failed\n");
                return 1;
            }
        }
        t = now() - t;
        if (aclrtSynchronizeStream(s) != ACL_SUCCESS)
            return 1;
        double rate = OPS / t;
        best = rate > best ? rate : best;
    }
    printf("async_ops_per_s %.0f\n", best);
    aclrtFree(dev);
    aclrtFreeHost(pin);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

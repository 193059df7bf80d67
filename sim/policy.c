/*
 * policy.c - CANN's rules for how much device memory a request takes and
 * on which pages (hicann/runtime docs/zh/api_ref/
 * 11-01_device_memory_malloc_and_free.md, aclrtMalloc and
 * aclrtMallocAlign32; the policies in 25-02_Enumerations.md): aclrtMalloc
 * rounds to 32 bytes and adds the profile's padding (none for
 * aclrtMallocAlign32 or 1 GB pages); 2 MB pages round to 2 MB, 1 GB pages
 * to 1 GB and exist only where the profile has them; HUGE_FIRST takes
 * normal pages up to 1 MB, an out-of-range policy huge pages from 2 MB, and
 * both fall back to normal pages. The block itself comes from blocks.c. Of
 * a device's HBM the driver and runtime keep a reserve that no allocation
 * gets and aclrtGetMemInfo does not count: what the real part reports
 * (profile.c) at the profile's full capacity; on a smaller device
 * (ACLSIM_HBM_BYTES, a test's) the 8 MiB RESERVED_MEM of CANN's cmodel
 * driver (hicann/runtime src/cmodel_driver/driver_mem.h), which the suites'
 * accounting counts on.
 */
#include "heap.h"
#include "internal.h"

#define CMODEL_RESERVE (8ull << 20)

uint64_t sim_reserve_bytes(const struct sim_profile *p, uint64_t capacity)
{
    uint64_t r = capacity == p->hbm_bytes ? p->reserved_bytes : CMODEL_RESERVE;
    if (r > capacity / 2)
        r = capacity / 2;
    return r & ~(uint64_t)(SIM_HEAP_GRANULE - 1);
}

/* n rounded up to a power of two; the largest sizes, which would wrap around
 * to 0, stay the largest multiple (more than any device has). */
static uint64_t round_up(uint64_t n, uint64_t unit)
{
    return n > UINT64_MAX - (unit - 1) ? UINT64_MAX & ~(unit - 1) : (n + unit - 1) & ~(unit - 1);
}

/* Huge pages: the size rounded to the page. */
static enum sim_rc alloc_huge(struct sim_dev *d, uint64_t size, uint64_t usable,
                              enum sim_page page, void **ptr)
{
    return sim_block_alloc(d, round_up(size, sim_page_bytes(page)), usable, page, ptr);
}

/* Normal pages: the size in the device's granules, the driver's 4 KiB
 * pages (ACLSIM_MALLOC_ALIGN for a test of less). The driver keeps device
 * memory on normal pages in 4 KiB units (hicann/driver
 * src/ascend_hal/svm/v2/devmm/devmm_virt_interface.c:1212-1214,
 * DEVMM_DEV_PAGE_SIZE at v2/common/devmm_svm.h:43) and rounds every block
 * to its unit (devmm_virt_com_heap.c:1527): a block starts on a page. */
static inline __attribute__((always_inline)) enum sim_rc
alloc_normal(struct sim_dev *d, uint64_t size, uint64_t usable, void **ptr)
{
    return sim_block_alloc(d, round_up(size, d->granule), usable, SIM_PAGE_NORMAL, ptr);
}

/* Every request that is not a small one on normal pages. */
static enum sim_rc __attribute__((noinline))
alloc_by_policy(struct sim_dev *d, uint64_t usable, uint64_t padded, enum sim_policy policy,
                void **ptr)
{
    switch (policy) {
    case SIM_POLICY_HUGE1G_ONLY:
        if (!sim_device_profile(sim_dev_id(d))->huge1g)
            return SIM_EUNSUPPORTED;
        return alloc_huge(d, usable, usable, SIM_PAGE_HUGE1G, ptr);
    case SIM_POLICY_HUGE_ONLY:
        return alloc_huge(d, padded, usable, SIM_PAGE_HUGE, ptr);
    case SIM_POLICY_NORMAL_ONLY:
        return alloc_normal(d, padded, usable, ptr);
    case SIM_POLICY_HUGE_FIRST:
    case SIM_POLICY_DEFAULT:
    default: {
        /* HUGE_FIRST: normal pages up to 1 MB; an out-of-range policy: huge
         * pages from 2 MB. Either falls back to normal pages. */
        uint64_t threshold = policy == SIM_POLICY_HUGE_FIRST ? (1u << 20) : (2u << 20) - 1;
        if (padded > threshold) {
            enum sim_rc rc = alloc_huge(d, padded, usable, SIM_PAGE_HUGE, ptr);
            if (rc != SIM_ENOMEM)
                return rc;
        }
        return alloc_normal(d, padded, usable, ptr);
    }
    }
}

/* Inlined into its caller in another file (link-time optimisation): a
 * level of the aclrtMalloc/aclrtFree pair's path (scons bench). */
__attribute__((always_inline)) inline enum sim_rc
sim_mem_alloc(int32_t id, uint64_t size, enum sim_policy policy, bool no_pad, void **ptr)
{
    struct sim_dev *d = sim_dev_get(id);
    uint64_t usable = round_up(size, 32);
    /* 1 GB pages never pad. */
    uint64_t padded = usable + (no_pad || policy == SIM_POLICY_HUGE1G_ONLY ? 0 : d->padding);
    /* Up to 1 MB every policy but the huge-only ones takes normal pages: the
     * common case, decided here in a few instructions. */
    if (padded <= (1u << 20) && policy != SIM_POLICY_HUGE_ONLY &&
        policy != SIM_POLICY_HUGE1G_ONLY)
        return alloc_normal(d, padded, usable, ptr);
    return alloc_by_policy(d, usable, padded, policy, ptr);
}

/* DVPP memory (acldvppMalloc): the size rounded up to 32 bytes plus 32
 * (CANN's documentation of acldvppMalloc, hiascend.com/document/detail/zh/
 * canncommercial/800/apiref/appdevgapi/aclcppdevg_03_0323.html; the
 * runtime's own rounding to 32: hicann/runtime
 * src/runtime/api/impl/api_impl.cc:2388-2394), in the DVPP heap's 4 KiB
 * units (hicann/driver src/ascend_hal/svm/v2/devmm/devmm_virt_dvpp_heap.c:
 * 25; 128 bytes at the least, the documented start alignment, under
 * ACLSIM_MALLOC_ALIGN=64). Out of line: aclrtMalloc's path, which shares
 * the backend's entry, stays small enough to inline its quick pop. */
__attribute__((noinline)) enum sim_rc sim_dvpp_alloc(int32_t id, uint64_t size, void **ptr)
{
    struct sim_dev *d = sim_dev_get(id);
    uint64_t usable = round_up(size, 32), unit = sim_dvpp_granule(d->granule);
    return sim_dvpp_block(d, round_up(usable + 32, unit), usable, ptr);
}

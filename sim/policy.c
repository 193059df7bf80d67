/*
 * policy.c - CANN's rules for how much device memory a request takes and
 * on which pages (fact sheet 3.1): aclrtMalloc rounds to 32 bytes and adds
 * the profile's padding (none for aclrtMallocAlign32 or 1 GB pages); 2 MB
 * pages round to 2 MB, 1 GB pages to 1 GB and exist only where the profile
 * has them; HUGE_FIRST takes normal pages up to 1 MB, an out-of-range
 * policy huge pages from 2 MB, and both fall back to normal pages. The
 * block itself comes from blocks.c. Of a device's HBM the driver keeps a
 * reserve (RESERVED_MEM of CANN's cmodel driver, fact sheet 6.1) that no
 * allocation gets and aclrtGetMemInfo does not count.
 */
#include "heap.h"
#include "internal.h"

uint64_t sim_reserve_bytes(const struct sim_profile *p, uint64_t capacity)
{
    uint64_t r = p->reserved_bytes < capacity / 2 ? p->reserved_bytes : capacity / 2;
    return r & ~(uint64_t)(SIM_HEAP_GRANULE - 1);
}

uint32_t sim_page_bytes(enum sim_page page)
{
    return page == SIM_PAGE_HUGE1G ? 1u << 30 : page == SIM_PAGE_HUGE ? 2u << 20 : 4096u;
}

enum sim_rc sim_mem_alloc(int32_t id, uint64_t size, enum sim_policy policy, bool no_pad,
                          void **ptr)
{
    struct sim_dev *d = sim_dev_get(id);
    const struct sim_profile *p = sim_device_profile(id);
    uint64_t usable = (size + 31) & ~(uint64_t)31;
    if (policy == SIM_POLICY_HUGE1G_ONLY) {
        if (!p->huge1g)
            return SIM_EUNSUPPORTED;
        return sim_block_alloc(d, usable, usable, SIM_PAGE_HUGE1G, ptr);
    }
    uint64_t padded = usable + (no_pad ? 0 : p->malloc_padding);
    switch (policy) {
    case SIM_POLICY_HUGE_ONLY:
        return sim_block_alloc(d, padded, usable, SIM_PAGE_HUGE, ptr);
    case SIM_POLICY_NORMAL_ONLY:
        return sim_block_alloc(d, padded, usable, SIM_PAGE_NORMAL, ptr);
    case SIM_POLICY_HUGE_FIRST:
    case SIM_POLICY_DEFAULT:
    default: {
        /* HUGE_FIRST: normal pages up to 1 MB; an out-of-range policy: huge
         * pages from 2 MB. Either falls back to normal pages. */
        uint64_t threshold = policy == SIM_POLICY_HUGE_FIRST ? (1u << 20) : (2u << 20) - 1;
        if (padded > threshold) {
            enum sim_rc rc = sim_block_alloc(d, padded, usable, SIM_PAGE_HUGE, ptr);
            if (rc != SIM_ENOMEM)
                return rc;
        }
        return sim_block_alloc(d, padded, usable, SIM_PAGE_NORMAL, ptr);
    }
    }
}

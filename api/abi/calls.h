/*
 * calls.h - the call catalogue (calls.def) as C: an id per call and per
 * family, for every layer that speaks CANN's ABI (the ACL layer's exports
 * and the ascend backend's table of real entry points).
 *
 * Like the public headers in api/include, calls.def describes the ABI, not
 * the ACL layer's workings, so lower layers may include it.
 */
#ifndef ACLSIM_API_ABI_CALLS_H_
#define ACLSIM_API_ABI_CALLS_H_

enum api_family {
#define FAMILY(id, title, file, why) API_FAM_##id,
#define CALL(fam, st, ret, name, params, args, fail)
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
    API_FAM_COUNT
};

enum api_call {
#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) API_CALL_##name,
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL
    API_CALL_COUNT
};

#endif /* ACLSIM_API_ABI_CALLS_H_ */

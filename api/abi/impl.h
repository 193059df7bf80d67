/*
 * impl.h - the catalogue (calls.def) as prototypes: api_impl_<name> for
 * every call the ACL layer implements (SIM, SIMV, DIFF and HOOK lines).
 *
 * The generated exports (api/src/exports.c) call them; each is defined in
 * the implementation file its FAMILY line names. Declaring them here, from
 * the catalogue, lets every family's folder include its own prototypes
 * without including a header of the folders above it.
 */
#ifndef ACLSIM_API_ABI_IMPL_H_
#define ACLSIM_API_ABI_IMPL_H_

#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_dump.h"
#include "acl/ops/acl_cblas.h"
#include "acl/ops/acl_dvpp.h"
#include "aclnn/aclnn_base.h"
#include "api/abi/nnheaders.h"
#include "aclsim/aclsim.h"
#include "aclsim/fault.h"

#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) API_DECLARE_##st(ret, name, params)
#define API_DECLARE_SIM(ret, name, params) ret api_impl_##name params;
#define API_DECLARE_SIMV API_DECLARE_SIM
#define API_DECLARE_DIFF API_DECLARE_SIM
#define API_DECLARE_HOOK API_DECLARE_SIM
#define API_DECLARE_NOSIM(ret, name, params)
#define API_DECLARE_NOSIMV API_DECLARE_NOSIM
#define API_DECLARE_OWN API_DECLARE_NOSIM
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL

#endif /* ACLSIM_API_ABI_IMPL_H_ */

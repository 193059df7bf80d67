/*
 * acl/acl_base_mdl.h - model-side base types of AscendCL.
 *
 * aclsim simulates the runtime and memory API only; no model (aclmdl*)
 * type is provided. The file exists because acl/acl_base.h includes it.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_MDL_H_
#define INC_EXTERNAL_ACL_ACL_BASE_MDL_H_

#include "acl_base_rt.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_MDL_H_ */

/*
 * acl/acl_base.h - umbrella for AscendCL base types and error codes, laid out
 * as CANN lays it out (include root <pkg>/include): runtime base types, tensor
 * descriptions, runtime and graph-engine error codes.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */

/*
 * acl/acl_base.h - umbrella for AscendCL base types and error codes,
 * laid out as CANN lays it out (include root <pkg>/include).
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "acl/error_codes/rt_error_codes.h"
#include "acl/error_codes/ge_error_codes.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */

/*
 * acl/acl_mdl.h - model API of AscendCL.
 *
 * aclsim does not load or execute models; the header exists because
 * acl/acl.h includes it, so programs written for CANN compile unchanged.
 */
#ifndef INC_EXTERNAL_ACL_ACL_MODEL_H_
#define INC_EXTERNAL_ACL_ACL_MODEL_H_

#include "acl_base.h"
#include "acl_rt.h"

#endif /* INC_EXTERNAL_ACL_ACL_MODEL_H_ */

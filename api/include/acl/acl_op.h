/*
 * acl/acl_op.h - single-operator API of AscendCL.
 *
 * aclsim does not execute operators; the header exists because acl/acl.h
 * includes it, so programs written for CANN compile unchanged.
 */
#ifndef INC_EXTERNAL_ACL_ACL_OP_H_
#define INC_EXTERNAL_ACL_ACL_OP_H_

#include "acl_base.h"
#include "acl_rt.h"

#endif /* INC_EXTERNAL_ACL_ACL_OP_H_ */

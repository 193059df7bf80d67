/*
 * acl/acl.h - the AscendCL umbrella header, as CANN ships it: the runtime
 * (acl_rt.h), single-operator (acl_op.h) and offline-model (acl_mdl.h) APIs.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */

/*
 * acl/error_codes/ge_error_codes.h - graph-engine error codes.
 *
 * aclsim has no graph engine, so no GE code is ever returned and none is
 * defined here; the file exists because acl/acl_base.h includes it.
 */
#ifndef INC_EXTERNAL_GE_GE_ERROR_CODES_H_
#define INC_EXTERNAL_GE_GE_ERROR_CODES_H_

#include <stddef.h>

#endif /* INC_EXTERNAL_GE_GE_ERROR_CODES_H_ */

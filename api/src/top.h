/*
 * top.h - what the cross-cutting files at the top of api/src share: the
 * generated exports (exports.c), the differential mode (diff.c), aclsim's
 * leak report (leaks.c), the table of watchers (watchers.c) and the
 * aclsim_* additions (aclsim.c). They stand above every family folder and
 * may include any family's contract; no family includes this header.
 */
#ifndef ACLSIM_API_TOP_H_
#define ACLSIM_API_TOP_H_

#include "alloc/alloc.h"
#include "diag/diag.h"
#include "mem/memory.h"
#include "capture/capture.h"
#include "op/op.h"
#include "rt/rt.h"

/* ---- diff.c: differential mode (ACLSIM_DIFF=1 on a backend with a real
 * runtime) ---- */

/* A HOOK call of the catalogue has api_diff_<name>, which its export calls
 * instead of api_impl_<name> in differential mode. */
#define FAMILY(id, title, file, why)
#define CALL(fam, st, ret, name, params, args, fail) API_DECLARE_DIFF_##st(ret, name, params)
#define API_DECLARE_DIFF_HOOK(ret, name, params) ret api_diff_##name params;
#define API_DECLARE_DIFF_SIM(ret, name, params)
#define API_DECLARE_DIFF_SIMV API_DECLARE_DIFF_SIM
#define API_DECLARE_DIFF_DIFF API_DECLARE_DIFF_SIM
#define API_DECLARE_DIFF_NOSIM API_DECLARE_DIFF_SIM
#define API_DECLARE_DIFF_NOSIMV API_DECLARE_DIFF_SIM
#define API_DECLARE_DIFF_OWN API_DECLARE_DIFF_SIM
#include "api/abi/calls.def"
#undef FAMILY
#undef CALL

/* Compare a call aclsim rejected with rc against the real runtime's answer
 * `theirs` to the same arguments (DIFF calls). */
void api_diff_verdict(const char *call, aclError rc, aclError theirs);

/* ---- leaks.c: aclsim's own leak report (ACLSIM_LEAK_CHECK), as a watcher ---- */

/* Report what device `dev` still holds as it is about to close (blocks,
 * streams and contexts the program never released); `where` names the
 * call (NULL: no report). pre: nothing of the device released yet. */
void api_leaks_device(int32_t dev, const char *where);

/* Warn, as aclFinalize returns, of what each device still holds (a count
 * per device, one line each): not yet a leak, as CANN's aclFinalize resets
 * no device and the program may still release it. */
void api_leaks_finalized(const char *where);

/* Report registrations left at the runtime's end: allocators still registered on
 * streams that no longer exist, and descs destroyed while registered. */
void api_leaks_registry(const char *where);

#endif /* ACLSIM_API_TOP_H_ */

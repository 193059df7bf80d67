/*
 * internal.h - what the files of api/src/capture/ share among themselves:
 * a model runtime instance behind a user handle, held while a call uses it
 * (model.c), and the default values condition handles get at each launch
 * (cond.c).
 *
 * Included only by capture/'s own files (ci/check-layers).
 */
#ifndef ACLSIM_API_CAPTURE_INTERNAL_H_
#define ACLSIM_API_CAPTURE_INTERNAL_H_

#include "capture.h"

/* The live graph behind modelRI, held (api_graph_put when done), or NULL
 * with CANN's error in *rc: 107000 and a message for a handle that names
 * no live model runtime instance. pre: modelRI not NULL. */
struct api_graph *api_ri_get(const char *fn, aclmdlRI modelRI, aclError *rc);

/* The runtime's refusal of a model call on a captured graph (desc: its
 * name for the operation): 107000, "ACL Graph mode is not supported"
 * (api_error.cc L3904, L3960, L3980, L4041, L4238). */
aclError api_ri_graph_mode(const char *desc);

/* Before a launch of g: each condition handle of g and of the sub-graphs
 * under it made with ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT gets its
 * default value (cond_handle.cc InitCondTaskByDefValue, at every
 * execution, by the host). */
void api_cond_defaults(struct api_graph *g);

#endif /* ACLSIM_API_CAPTURE_INTERNAL_H_ */

/*
 * capture.h - the contract of api/src/capture/, the capture family: stream
 * capture (capture.c) and the model runtime instances captures make
 * (model.c). The state the lower folders consult lives in rt/capture.c;
 * this folder holds the calls.
 *
 * capture/ includes the contracts of every folder below it; only the files
 * at the top of api/src include this one.
 */
#ifndef ACLSIM_API_CAPTURE_CAPTURE_H_
#define ACLSIM_API_CAPTURE_CAPTURE_H_

#include "rt/rt.h"

/* Device dev is closing (a watcher; `where` names the call): its graphs
 * go, their streams and backend graphs with them, their destroy callbacks
 * called. */
void api_graphs_device_closing(int32_t dev, const char *where);

/* Free graph g: its destroy callbacks, the backend's graph, its record. */
void api_graph_free(struct api_graph *g);

#endif /* ACLSIM_API_CAPTURE_CAPTURE_H_ */

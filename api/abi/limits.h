/*
 * limits.h - the bounds every layer sizes its per-device tables by, defined
 * once: the ACL layer (BE_MAX_DEVICES, backends/be.h) and the simulator
 * (SIM_MAX_DEVICES, sim/sim.h) take them from here, so no two copies can
 * drift apart.
 */
#ifndef ACLSIM_API_ABI_LIMITS_H_
#define ACLSIM_API_ABI_LIMITS_H_

/* The most devices any backend offers: device ids are below it. */
#define ACLSIM_MAX_DEVICES 64

#endif /* ACLSIM_API_ABI_LIMITS_H_ */

/*
 * stream.c - simulated streams and contexts.
 *
 * A stream is an in-order queue of device work. Every operation the
 * simulator runs today completes before its call returns, so a stream is
 * only its device and a place in the per-device stream count (the profile
 * caps it as the device does); synchronising one has nothing to wait for.
 */
#include <pthread.h>
#include <stdlib.h>
#include "fault/fault.h"
#include "sim.h"

struct sim_stream {
    int32_t dev;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned live[SIM_MAX_DEVICES];

enum sim_rc sim_stream_create(int32_t dev, struct sim_stream **out)
{
    const struct sim_profile *p = sim_device_profile(dev);
    if (FLT_HIT(SIM_STREAM_RESOURCE))
        return SIM_ENOMEM;
    pthread_mutex_lock(&lock);
    if (live[dev] >= p->max_streams) {
        pthread_mutex_unlock(&lock);
        return SIM_ENOMEM;
    }
    struct sim_stream *s = malloc(sizeof *s);
    if (s) {
        s->dev = dev;
        live[dev]++;
    }
    pthread_mutex_unlock(&lock);
    if (!s)
        return SIM_EHOSTMEM;
    *out = s;
    return SIM_OK;
}

void sim_stream_destroy(struct sim_stream *s)
{
    pthread_mutex_lock(&lock);
    live[s->dev]--;
    pthread_mutex_unlock(&lock);
    free(s);
}

enum sim_rc sim_stream_sync(struct sim_stream *s)
{
    (void)s;
    if (FLT_HIT(SIM_STREAM_HANG))
        return SIM_ETIMEOUT;
    return SIM_OK;
}

unsigned sim_stream_count(int32_t dev)
{
    pthread_mutex_lock(&lock);
    unsigned n = live[dev];
    pthread_mutex_unlock(&lock);
    return n;
}

/*
 * watchers.c - the table of who is told when a stream, context or device
 * goes, or the runtime ends (rt/rt.h, struct api_watcher), installed in
 * rt/ as the library loads. rt/ walks it in this order and knows none of
 * the watchers by name.
 *
 * The order is what teardown needs: a closing device's graphs go first,
 * with the streams they keep (a stream going ends the capture it is in);
 * callbacks drop what they queued for a stream before the executor
 * releases its state of that stream; when a device closes, the executor
 * releases its own allocators first, so that the leak report, after it,
 * counts only what the program left.
 */
#include "top.h"

static const struct api_watcher watchers[] = {
    {.name = "graphs", .device_closing = api_graphs_device_closing,
     .stream_gone = api_cap_stream_gone},
    {.name = "callbacks", .stream_gone = api_cb_stream_gone, .ctx_gone = api_cb_ctx_gone},
    {.name = "executor", .stream_gone = api_op_stream_released,
     .device_closing = api_op_device_closing},
    {.name = "leak report", .device_closing = api_leaks_device,
     .finalized = api_leaks_finalized, .finalizing = api_leaks_registry},
};

__attribute__((constructor)) static void watchers_install(void)
{
    api_watchers_install(watchers, sizeof watchers / sizeof watchers[0]);
}

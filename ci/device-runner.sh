#!/bin/sh
# ci/device-runner.sh - what a runner with an Ascend NPU executes: set up,
# build against the machine's CANN install with the ascend backend, run the
# conformance suites and the leak gate on the real device, then the
# differential report (every allocator and memory call also checked against
# the real runtime; any mismatch fails the job).
#
# Needs ASCEND_INSTALL_PATH (default /usr/local/Ascend/cann, CANN's default
# install root). Writes build/ascend/diff-report.txt.
set -eu
cd "$(dirname "$0")/.."
: "${ASCEND_INSTALL_PATH:=/usr/local/Ascend/cann}"
export ASCEND_INSTALL_PATH
if [ ! -f "$ASCEND_INSTALL_PATH/lib64/libascendcl.so" ]; then
    echo "device-runner: no CANN at ASCEND_INSTALL_PATH=$ASCEND_INSTALL_PATH" >&2
    exit 2
fi
ci/setup
# CANN's own environment, as its samples use it.
if [ -f "$ASCEND_INSTALL_PATH/set_env.sh" ]; then
    # shellcheck disable=SC1091
    . "$ASCEND_INSTALL_PATH/set_env.sh"
fi
scons -Q -j"$(nproc)" hw=ascend ASCEND_INSTALL_PATH="$ASCEND_INSTALL_PATH" test
scons -Q -j"$(nproc)" hw=ascend ASCEND_INSTALL_PATH="$ASCEND_INSTALL_PATH" leakcheck
report=build/ascend/diff-report.txt
: >"$report"
status=0
for prog in build/ascend/tests/conformance/conformance build/ascend/tests/api/test_allocator \
            build/ascend/examples/custom_allocator; do
    echo "== $prog" >>"$report"
    ACLSIM_DIFF=1 "$prog" >>"$report" 2>&1 || status=1
done
grep -E '^aclsim diff' "$report" || true
exit $status

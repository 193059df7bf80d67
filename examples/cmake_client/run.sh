#!/bin/bash
# run.sh - build and run the client as CANN's samples do:
#   source <tree>/set_env.sh; export ASCEND_INSTALL_PATH=<tree>; bash run.sh
# (ASCEND_CANN_PACKAGE_PATH, if set, wins over ASCEND_INSTALL_PATH.)
set -e
_ROOT=${ASCEND_CANN_PACKAGE_PATH:-$ASCEND_INSTALL_PATH}
[ -n "$_ROOT" ] || { echo "set ASCEND_INSTALL_PATH to a CANN install or aclsim tree"; exit 1; }
source "$_ROOT/bin/setenv.bash"
cd "$(dirname "$0")"
BUILD=${BUILD_DIR:-build}
rm -rf "$BUILD"
mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -DASCEND_CANN_PACKAGE_PATH="$_ROOT" >/dev/null
make -C "$BUILD" -j"$(nproc)" >/dev/null
"$BUILD/main"

#!/usr/bin/env bash
# The folders of the device-profile run at 3168434, rebuilt from its calls' tarballs, for
#   bash compat_matrix/raw/device-profile-3168434/assemble.sh DIR
#   python3 compat_matrix/generate.py --from-device DIR/*
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/../../assemble_run.sh" "$here" "${1:?usage: assemble.sh DIR}"

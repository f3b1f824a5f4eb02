#!/usr/bin/env bash
# A device run's folders rebuilt from its calls' tarballs (compat_matrix/raw/<run>/*.tar.gz: one
# folder each, named after the tarball) for generate.py --from-device:
#   bash compat_matrix/assemble_run.sh compat_matrix/raw/<run> DEST
set -eu
src=${1:?usage: assemble_run.sh RUN_DIR DEST}
dest=${2:?usage: assemble_run.sh RUN_DIR DEST}
for t in "$src"/*.tar.gz; do
  n=$(basename "$t" .tar.gz)
  rm -rf "${dest:?}/$n" && mkdir -p "$dest/$n" && tar -xzf "$t" -C "$dest/$n"
done

#!/usr/bin/env bash
# Ninth device call of the eleventh session (issue 42): det_vote_ab.py, the lines detector's
# shared-memory voting grid (auto = 3 angles x 2 slices at 1 degree, against 3x4, 2x2, 4x4, 3x3).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_9.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
T=compat_matrix/raw/session-2026-11-28-eleventh
( VOTE_ARMS=${VOTE_ARMS:-auto,3x4,2x2,4x4,3x3} CVGPU_ENGINE=cuda timeout 200 python3 $T/det_vote_ab.py \
    > "$OUT/det-vote-ab.jsonl" 2>> "$OUT/err.txt"; echo "vote-ab rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; cat "$OUT/det-vote-ab.jsonl"; tail -n 5 "$OUT/err.txt"

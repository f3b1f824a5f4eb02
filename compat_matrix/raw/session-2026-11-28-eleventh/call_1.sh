#!/usr/bin/env bash
# First device call of the eleventh session: the GPU suites (ci profile) on hp-staging2's fatbin
# (phase C staging with two block barriers fewer, on main 88fd4f3); HoughLinesP's GPU tests on
# main's kernel source (.dev/hp_base.cu through NVRTC: ac413b8 / 5d2e2c6 never ran on a GPU);
# ab_arms.py base (main) against cur (staging); seg_profile.py (where the segment detector's time goes).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_1.sh      (carry .dev .ocv)
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/pip.log" 2>&1
S=compat_matrix/raw
T=$S/session-2026-11-28-eleventh
( timeout 150 python3 -m pytest -q -m gpu tests/hough tests/cuda tests/test_engine.py tests/test_no_jit.py \
    tests/test_device_ops.py -n 14 -p no:cacheprovider > "$OUT/pytest-gpu.log" 2>&1; echo "pytest rc $?" >> "$OUT/rc.txt" )
( cp kernels/hough/probabilistic.cu /tmp/hp_cur.cu && cp .dev/hp_base.cu kernels/hough/probabilistic.cu \
  && CVGPU_KERNELS=nvrtc timeout 120 python3 -m pytest -q -m gpu tests/hough/test_hough_lines_p.py \
    tests/hough/test_hough_lines_p_hardening.py -n 14 -p no:cacheprovider > "$OUT/pytest-main-hp.log" 2>&1
  echo "pytest-main-hp rc $?" >> "$OUT/rc.txt"; cp /tmp/hp_cur.cu kernels/hough/probabilistic.cu )
( HP_ARMS=${HP_ARMS:-base,cur} HP_BASE=.dev/hp_base.cu CVGPU_ENGINE=cuda timeout ${AB_TIMEOUT:-200} \
    python3 $S/session-2026-11-28-tenth/ab_arms.py > "$OUT/ab.jsonl" 2>> "$OUT/err.txt"; echo "ab rc $?" >> "$OUT/rc.txt" )
( CVGPU_ENGINE=cuda timeout 120 python3 $T/seg_profile.py > "$OUT/seg.jsonl" 2>> "$OUT/err.txt"; echo "seg rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; cat "$OUT/seg.jsonl"

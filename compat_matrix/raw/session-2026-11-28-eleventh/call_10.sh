#!/usr/bin/env bash
# Tenth device call of the eleventh session: HoughLinesP's property files at the device profile
# for P_TIMEOUT seconds (eb12db2's phase C staging has two block barriers fewer: a race would show
# as a line differing from cv2's), and the host-built kernel's 10k-example property.
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-28-eleventh/call_10.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
( HYPOTHESIS_PROFILE=device CVGPU_PROPERTY_SHARDS=32 timeout ${P_TIMEOUT:-200} python3 -m pytest -q -m gpu -rfE \
    tests/hough/test_hough_lines_p.py tests/hough/test_hough_lines_p_hardening.py -n 15 -p no:cacheprovider \
    > "$OUT/pytest-hough-p-device.log" 2>&1; echo "pytest-device rc $?" >> "$OUT/rc.txt" )
cat "$OUT/rc.txt"; grep -c "F" "$OUT/pytest-hough-p-device.log"; tail -c 400 "$OUT/pytest-hough-p-device.log"

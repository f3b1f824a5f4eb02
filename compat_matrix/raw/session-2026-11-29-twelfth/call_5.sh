#!/usr/bin/env bash
# Fifth device call of the twelfth session (issue 40): where a short script whose calls all stay on
# cv2 loses time under cvgpu. `import cvgpu`'s import time by module, the walls of bare imports in
# alternation, and `cvgpu compare --repeat 5` on three short examples (this machine is warm: its
# caches hold earlier calls' kernels, which a script whose GPU never starts does not load).
#   OUT=$OUT bash compat_matrix/raw/session-2026-11-29-twelfth/call_5.sh
set -u
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/pip.log 2>&1
python3 -X importtime -c "import cvgpu" 2> /tmp/it.txt
sort -t'|' -k2 -n /tmp/it.txt | tail -n 40 > "$OUT/importtime.txt"
python3 -c "import sys, cvgpu; print('cupy imported by import cvgpu:', 'cupy' in sys.modules)" >> "$OUT/importtime.txt"
for i in 1 2 3 4 5 6; do
  for m in cv2 cvgpu numpy; do
    s=$(date +%s%N); python3 -c "import $m"; e=$(date +%s%N)
    echo "$m $(( (e - s) / 1000000 )) ms" >> "$OUT/import-walls.txt"
  done
done
for ex in "detect_lines.py --pages 20" "count_objects.py --frames 20" "document_scanner.py"; do
  timeout 120 python3 -m cvgpu compare --repeat 5 --markdown "$OUT/compare.md" examples/$ex > /dev/null 2>> "$OUT/compare.err"
  echo "compare $ex rc $?" >> "$OUT/rc.txt"
done
cat "$OUT/rc.txt"; sort "$OUT/import-walls.txt" | awk '{a[$1]=a[$1]" "$2} END {for (k in a) print k, a[k]}'
tail -n 12 "$OUT/importtime.txt"; grep -E "^- (cv2|cvgpu) +run|median of" "$OUT/compare.md"

# The device-profile run of 93edb37 (source digest of 81abf61) on one H200, one call a line,
# launched back to back on one warm machine (thirteenth session). Carry in brackets.
# 1 [.whla]  COMMIT=93edb37 OUT=$OUT bash compat_matrix/run_profile.sh part 16:32
# 2 [.whlb]  COMMIT=93edb37 OUT=$OUT bash compat_matrix/run_profile.sh part 0:16   (contrib joined here)
# 3 []       COMMIT=93edb37 OUT=$OUT bash compat_matrix/run_profile.sh part 32:48
# 4 []       COMMIT=93edb37 OUT=$OUT bash compat_matrix/run_profile.sh part 48:64
# 5 [.ocv]   COMMIT=93edb37 OUT=$OUT bash compat_matrix/run_profile.sh rest
# bench and compare (run_profile.sh bench, [.ocv]) in a later session at the same tree.

"""cv2's scalar integer conversions and the integer helpers every family uses, written once.

OpenCV converts with the x86 SSE instructions: cvRound is cvtsd2si / cvtss2si (round half to even),
cvFloor and cvCeil build on it; all three give INT_MIN for NaN and for a result outside int, which
is what the argument checks and the size computations of cv2 then see. What happens out of range
is release-dependent (``_versions``, ``cvround.out_of_range``): INT_MIN; a wrap modulo 2**32 in
the 4.7 and 4.8 wheels (a 64-bit lrint truncated to int: NaN and inf give 0); saturation from 5.1
(cvRound(float) at 2147483520, the largest float below 2**31).
"""
import math

from . import _versions

INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1


def wrap_int32(v):
    """``v`` as C's int arithmetic leaves it (two's complement wrap-around)."""
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def cdiv(a, b):
    """Ceiling division of non-negative ints: the blocks of ``b`` that cover ``a`` items."""
    return -(-a // b)


RULE = _versions.behaviour("cvround.out_of_range")
_FLOAT_BELOW_2_31 = 2147483520


def cv_round(x, rule=None, single=False):
    """cvRound (of a float32 when ``single``): half to even; out of range by ``rule`` (default:
    the installed cv2's)."""
    rule = rule or RULE
    x = float(x)
    if math.isnan(x):
        return 0 if rule == "wrap" else INT_MIN
    if rule == "saturate":
        high = _FLOAT_BELOW_2_31 if single else INT_MAX
        if x >= high:
            return high
        return max(round(x), INT_MIN)
    if math.isinf(x):
        return 0 if rule == "wrap" else INT_MIN
    r = round(x)
    if INT_MIN <= r <= INT_MAX:
        return r
    if rule == "wrap":
        return wrap_int32(r) if abs(r) < (1 << 63) else 0
    return INT_MIN


def cv_floor(x, rule=None):
    """cvFloor(double), (int)floor(x): INT_MIN for NaN and for a floor outside int (cvttsd2si;
    seen on the -4 message's size for -inf, -2**31 - 0.5 and 3e9); saturated from 5.1."""
    rule = rule or RULE
    x = float(x)
    if math.isnan(x):
        return INT_MIN
    if rule == "saturate":
        if x >= INT_MAX:
            return INT_MAX
        return max(math.floor(x), INT_MIN)
    if not math.isfinite(x):
        return INT_MIN
    f = math.floor(x)
    return f if INT_MIN <= f <= INT_MAX else INT_MIN


def cv_ceil(x, rule=None):
    """cvCeil built on cvRound, as OpenCV's SSE path does: INT_MIN where cvRound gives it."""
    i = cv_round(x, rule)
    if i == INT_MIN or (rule or RULE) == "saturate" and i == INT_MAX:
        return i
    return i + (1 if i < float(x) else 0)

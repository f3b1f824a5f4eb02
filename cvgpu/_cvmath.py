"""cv2's scalar integer conversions and the integer helpers every family uses, written once.

OpenCV converts with the x86 SSE instructions: cvRound is cvtsd2si / cvtss2si (round half to even),
cvFloor and cvCeil build on it; all three give INT_MIN for NaN and for a result outside int, which
is what the argument checks and the size computations of cv2 then see.
"""
import math

INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1


def wrap_int32(v):
    """``v`` as C's int arithmetic leaves it (two's complement wrap-around)."""
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def cdiv(a, b):
    """Ceiling division of non-negative ints: the blocks of ``b`` that cover ``a`` items."""
    return -(-a // b)


def cv_round(x):
    """cvRound: half to even; INT_MIN for NaN and out-of-range values."""
    x = float(x)
    if not math.isfinite(x):
        return INT_MIN
    r = round(x)
    return r if INT_MIN <= r <= INT_MAX else INT_MIN


def cv_floor(x):
    """cvFloor(double) as this build computes it, (int)floor(x): INT_MIN for NaN and for a floor
    outside int (cvttsd2si; seen on the -4 message's size for -inf, -2**31 - 0.5 and 3e9)."""
    x = float(x)
    if not math.isfinite(x):
        return INT_MIN
    f = math.floor(x)
    return f if INT_MIN <= f <= INT_MAX else INT_MIN


def cv_ceil(x):
    """cvCeil built on cvRound, as OpenCV's SSE path does: INT_MIN where cvRound gives it."""
    i = cv_round(x)
    if i == INT_MIN:
        return INT_MIN
    return i + (1 if i < float(x) else 0)

"""Display formatting: SI floats in, the units a reader expects out. Used by every renderer
(and mirrored by the widget's JS helpers, checked against the same case file)."""

from __future__ import annotations

import math

_DECIMAL = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]


def sig(x: float, digits: int = 3) -> float:
    """Round to `digits` significant figures."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, -int(math.floor(math.log10(abs(x)))) + digits - 1)


def num(x: float, digits: int = 3) -> str:
    """A number with thousands separators and at most `digits` significant figures."""
    if not math.isfinite(x):
        return "∞" if x > 0 else "—"
    v = sig(x, digits)
    if abs(v) >= 10 ** (digits - 1) or float(v).is_integer():
        return f"{v:,.0f}"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(v)))))
    return f"{v:,.{decimals}f}".rstrip("0").rstrip(".")


def approx(x: float) -> str:
    """The lesson's 'call it' rounding: one significant figure, e.g. 295 -> '300'."""
    return num(sig(x, 1), 1)


def si(x: float, unit: str, digits: int = 3) -> str:
    """Decimal-prefixed value: si(3.35e12, 'B/s') -> '3.35 TB/s'."""
    if x == 0:
        return f"0 {unit}"
    for scale, prefix in _DECIMAL:
        if abs(x) >= scale:
            return f"{num(x / scale, digits)} {prefix}{unit}"
    return f"{num(x, digits)} {unit}"


def tflops(x: float, digits: int = 3) -> str:
    return f"{num(x / 1e12, digits)} TFLOP/s"


def bandwidth(x: float, digits: int = 3) -> str:
    return si(x, "B/s", digits)


def capacity(x: float, digits: int = 3) -> str:
    return si(x, "B", digits)


_BINARY = [(2 ** 40, "Ti"), (2 ** 30, "Gi"), (2 ** 20, "Mi"), (2 ** 10, "Ki")]


def memory(x: float, digits: int = 3) -> str:
    """A capacity as the hardware has it: binary prefixes when the figure is a whole number of
    hundredths of KiB, MiB, GiB or TiB (DRAM and SRAM are built in powers of two: 80 GiB, 256
    KiB), decimal otherwise (a vendor's figure recorded as given: 50 MB of L2)."""
    scale, prefix = next(((s, p) for s, p in _BINARY if x >= s), (0, ""))
    if scale and float(x).is_integer():
        hundredths = x * 100 / scale
        if abs(hundredths - round(hundredths)) < 1e-6:
            return f"{num(x / scale, max(digits, len(str(int(x // scale)))))} {prefix}B"
    return capacity(x, digits)


def memory_and_bytes(x: float) -> str:
    """A chip's memory where a text compares decimal bytes with it: as the hardware is built
    and, when that is binary, in decimal bytes too ("80 GiB (85.9 GB)"), so "82.2 GB of 80 GiB
    (85.9 GB)" reads as the fit it is; a decimal figure once ("50 MB")."""
    built, decimal = memory(x), capacity(x)
    return built if built == decimal else f"{built} ({decimal})"


def seconds(x: float, digits: int = 3) -> str:
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if x >= scale:
            return f"{num(x / scale, digits)} {unit}"
    return f"{num(x / 1e-9, digits)} ns"


def percent(fraction: float, digits: int = 2) -> str:
    p = fraction * 100
    if p >= 99.95:
        return "100%"
    return f"{num(p, digits)}%"


def count(x: float) -> str:
    """FLOPs or bytes: 1.48e12 -> '1.48 T'."""
    return si(x, "", 3).strip()

"""Figures the departure boxes argue from that no other marker prints: a thread's share of the
register file (data/execution.toml with the catalog's register tier), the op zoo's range of
shares of peak and its compute-bound rows, and the sparse low-precision peak against the dense
bf16 one."""

from __future__ import annotations

from dataclasses import dataclass

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model import datafile as _toml
from roofline.model.datafile import Fields
from lesson_site import DATA_DIR
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.numbers import number

EXECUTION_PATH = DATA_DIR / "execution.toml"


@dataclass(frozen=True)
class ThreadLimits:
    compute_capability: str
    max_registers_per_thread: int
    bytes_per_register: int
    max_resident_threads_per_unit: int


def thread_limits(hw: str, path=None) -> ThreadLimits:
    """The execution-model limits of one chip, validated (every field, no unknown one)."""
    path = path or EXECUTION_PATH
    data = _toml.load(path)
    table = data.get("limits", {})
    if hw not in table:
        raise RooflineError(f"no execution limits for {hw!r}", where=str(path),
                            field="limits", valid=sorted(table))
    f = Fields(table[hw], where=str(path), entry=f"limits.{hw}")
    out = ThreadLimits(f.get("compute_capability", str),
                       *(int(f.positive(k, minimum=1)) for k in (
                           "max_registers_per_thread", "bytes_per_register",
                           "max_resident_threads_per_unit")))
    f.finish()
    return out


@marker("registers")
def registers(ctx: Context, *, field: str = "max_bytes", hw: str = LESSON_HW) -> str:
    """One thread's registers: max_registers (the most one thread may use), register_bytes
    (the size of one), max_bytes (those
    in bytes), max_kib (in KiB, rounded), file_kib (the SM's register file), max_threads (the
    most threads an SM holds), full_bytes and full_registers (the file split over them: what
    each thread gets at full occupancy), capability (the compute capability)."""
    lim = thread_limits(hw)
    tier = ctx.hw(hw).tier("registers")
    if tier is None or tier.per_unit_capacity_bytes is None:
        raise RooflineError(f"hardware '{hw}' has no register file per unit",
                            field="tiers.registers.per_unit_capacity_bytes")
    file_bytes = tier.per_unit_capacity_bytes
    full = file_bytes / lim.max_resident_threads_per_unit
    values = {"max_registers": f"{lim.max_registers_per_thread:,}",
              "register_bytes": f"{lim.bytes_per_register:,}",
              "max_bytes": f"{lim.max_registers_per_thread * lim.bytes_per_register:,}",
              "max_kib": fmt.approx(lim.max_registers_per_thread * lim.bytes_per_register
                                    / 2 ** 10),
              "file_kib": fmt.num(file_bytes / 2 ** 10),
              "max_threads": f"{lim.max_resident_threads_per_unit:,}",
              "full_bytes": fmt.num(full),
              "full_registers": fmt.num(full / lim.bytes_per_register),
              "capability": lim.compute_capability}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]


def _zoo(ctx: Context, hw: str, precision: str, bound: str):
    points = [p for p in ctx.points(hw, precision) if p.bound == bound]
    if not points:
        raise RooflineError(f"no {bound}-bound op in the op zoo", field="bound")
    return points


@marker("zoo_range")
def zoo_range(ctx: Context, *, field: str = "min_percent", bound: str = "memory",
              hw: str = LESSON_HW, precision: str = LESSON_PRECISION) -> str:
    """The op zoo's spread of shares of peak over its rows of one bound: min_percent,
    max_percent, or the op at either end (min_op, max_op, by label)."""
    points = sorted(_zoo(ctx, hw, precision, bound), key=lambda p: p.fraction_of_peak)
    lo, hi = points[0], points[-1]
    values = {"min_percent": fmt.percent(lo.fraction_of_peak),
              "max_percent": fmt.percent(hi.fraction_of_peak),
              "min_op": ctx.zoo.presets[lo.name].label,
              "max_op": ctx.zoo.presets[hi.name].label}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]


@marker("zoo_bound")
def zoo_bound(ctx: Context, *, bound: str = "compute", field: str = "count",
              hw: str = LESSON_HW, precision: str = LESSON_PRECISION) -> str:
    """The op zoo's rows of one bound: how many (count) or their labels (labels, joined)."""
    points = _zoo(ctx, hw, precision, bound)
    labels = [ctx.zoo.presets[p.name].label for p in points]
    if field == "count":
        return f"{len(points):,}"
    if field == "labels":
        return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
    raise RooflineError(f"unknown field {field!r}", field="field", valid=["count", "labels"])


@marker("sparse_ratio")
def sparse_ratio(ctx: Context, *, hw: str = LESSON_HW, a: str = "fp8",
                 b: str = LESSON_PRECISION, digits: str = "approx") -> str:
    """The sparse peak of precision `a` (2:4 sparsity doubles the dense figure) over the dense
    peak of `b`: what "fp8 with sparsity" is against dense bf16."""
    acc = ctx.hw(hw)
    return number(2 * acc.peak_flops_per_s(a) / acc.peak_flops_per_s(b), digits)

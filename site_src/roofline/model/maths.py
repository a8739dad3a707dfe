"""Roofline maths. Scalar or numpy arrays in, same shape out; SI units throughout.

numpy is imported by the array paths only: plain floats skip its overhead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike

from roofline.model.ops import Op


class Chip(Protocol):
    """What placing an op needs of a chip (roofline.model.catalog.Accelerator has it); the
    catalog imports this module for its ridges, so nothing here imports the catalog."""

    @property
    def hbm_bandwidth_bytes_per_s(self) -> float: ...

    def peak_flops_per_s(self, precision: str) -> float: ...


def _scalars(*values: object) -> bool:
    for v in values:  # a loop, not all(genexpr): this runs ~10^5 times a build
        if type(v) is not float and type(v) is not int:
            return False
    return True


def intensity(flops: ArrayLike, bytes_: ArrayLike) -> np.ndarray | float:
    """Arithmetic intensity = FLOPs / bytes moved (FLOP/byte)."""
    if _scalars(flops, bytes_):  # plain floats stay plain floats
        return flops / bytes_
    import numpy as np
    return np.divide(flops, bytes_)


def ridge(peak_flops_per_s: ArrayLike, bandwidth_bytes_per_s: ArrayLike) -> np.ndarray | float:
    """The intensity where the bandwidth slope meets the compute roof: peak / BW."""
    if _scalars(peak_flops_per_s, bandwidth_bytes_per_s):  # plain floats stay plain floats
        return peak_flops_per_s / bandwidth_bytes_per_s
    import numpy as np
    return np.divide(peak_flops_per_s, bandwidth_bytes_per_s)


def attainable(ai: ArrayLike, peak_flops_per_s: ArrayLike,
               bandwidth_bytes_per_s: ArrayLike) -> np.ndarray | float:
    """Best achievable FLOP/s at intensity `ai`: min(peak, AI × BW)."""
    if _scalars(ai, peak_flops_per_s, bandwidth_bytes_per_s):  # plain floats: skip numpy's overhead
        return min(peak_flops_per_s, ai * bandwidth_bytes_per_s)
    import numpy as np
    return np.minimum(peak_flops_per_s, np.multiply(ai, bandwidth_bytes_per_s))


def time_lower_bound(flops: ArrayLike, bytes_: ArrayLike, peak_flops_per_s: ArrayLike,
                     bandwidth_bytes_per_s: ArrayLike) -> np.ndarray | float:
    """No kernel beats max(FLOPs / peak, bytes / BW) seconds."""
    if _scalars(flops, bytes_, peak_flops_per_s, bandwidth_bytes_per_s):
        return max(flops / peak_flops_per_s, bytes_ / bandwidth_bytes_per_s)
    import numpy as np
    return np.maximum(np.divide(flops, peak_flops_per_s), np.divide(bytes_, bandwidth_bytes_per_s))


def bound(ai: float, ridge_flops_per_byte: float) -> str:
    """'memory' strictly below the ridge, 'compute' at or above it."""
    return "memory" if ai < ridge_flops_per_byte else "compute"


@dataclass(frozen=True)
class OpPoint:
    """One op placed on one chip's roofline at one precision."""
    op: Op
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def intensity_flops_per_byte(self) -> float:
        return self.op.intensity_flops_per_byte

    @property
    def ridge_flops_per_byte(self) -> float:
        return float(ridge(self.peak_flops_per_s, self.bandwidth_bytes_per_s))

    @property
    def bound(self) -> str:
        return bound(self.intensity_flops_per_byte, self.ridge_flops_per_byte)

    @property
    def attainable_flops_per_s(self) -> float:
        return float(attainable(self.intensity_flops_per_byte, self.peak_flops_per_s,
                                self.bandwidth_bytes_per_s))

    @property
    def fraction_of_peak(self) -> float:
        return self.attainable_flops_per_s / self.peak_flops_per_s

    @property
    def time_s(self) -> float:
        return float(time_lower_bound(self.op.total_flops, self.op.total_bytes,
                                      self.peak_flops_per_s, self.bandwidth_bytes_per_s))

    def as_dict(self) -> dict:
        return {
            "name": self.op.name, "kind": self.op.kind, "class": self.op.op_class,
            "shape": self.op.shape, "count": self.op.count,
            "bytes_per_element": self.op.bytes_per_element,
            "flops": self.op.total_flops, "bytes": self.op.total_bytes,
            "intensity_flops_per_byte": self.intensity_flops_per_byte,
            "bound": self.bound, "attainable_flops_per_s": self.attainable_flops_per_s,
            "fraction_of_peak": self.fraction_of_peak, "time_s": self.time_s,
        }


def place(op: Op, hw: Chip, precision: str) -> OpPoint:
    """Evaluate against the precision's roof and HBM, as the lesson does for every op."""
    return OpPoint(op, hw.peak_flops_per_s(precision), hw.hbm_bandwidth_bytes_per_s)

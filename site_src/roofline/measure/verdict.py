"""The lesson's claim, checked: each measured op against the model's lower bound, with the
measured ceilings as the roofline. Numbers only; tables.py turns them into tables."""

from __future__ import annotations

from dataclasses import dataclass

from roofline.model.maths import bound, ridge, time_lower_bound


def memory_bandwidth(doc: dict) -> float:
    """The memory roof the model uses: the measured bandwidth of DRAM (CPU) or HBM (GPU)."""
    level = doc["ceilings"]["memory_level"]
    return next(b["bandwidth_bytes_per_s"] for b in doc["ceilings"]["bandwidth"]
                if b["level"] == level)


def compute_peak(doc: dict, precision: str) -> float:
    return next(c["flops_per_s"] for c in doc["ceilings"]["compute"]
                if c["precision"] == precision)


@dataclass(frozen=True)
class OpCheck:
    id: str
    label: str
    kind: str
    shape: dict
    flops: float
    bytes: float
    implementation_bytes: float | None
    implementation: str
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float
    measured_s: float
    measured_min_s: float
    measured_max_s: float

    @property
    def intensity_flops_per_byte(self) -> float:
        return self.flops / self.bytes

    @property
    def bound(self) -> str:
        return bound(self.intensity_flops_per_byte,
                     float(ridge(self.peak_flops_per_s, self.bandwidth_bytes_per_s)))

    @property
    def predicted_s(self) -> float:
        return float(time_lower_bound(self.flops, self.bytes, self.peak_flops_per_s,
                                      self.bandwidth_bytes_per_s))

    @property
    def ratio(self) -> float:
        """Measured ÷ lower bound: 1 is the roof; above 1 is time the model does not explain."""
        return self.measured_s / self.predicted_s

    @property
    def traffic_factor(self) -> float | None:
        """Bytes the numpy code streams ÷ bytes the model counts (unfused passes)."""
        return self.implementation_bytes / self.bytes if self.implementation_bytes else None

    @property
    def achieved_flops_per_s(self) -> float:
        return self.flops / self.measured_s

    @property
    def achieved_bandwidth_bytes_per_s(self) -> float:
        return self.bytes / self.measured_s

    def as_dict(self) -> dict:
        return {"id": self.id, "label": self.label, "kind": self.kind, "shape": self.shape,
                "flops": self.flops, "bytes": self.bytes,
                "intensity_flops_per_byte": self.intensity_flops_per_byte,
                "bound": self.bound, "predicted_s": self.predicted_s,
                "measured_s": self.measured_s, "measured_min_s": self.measured_min_s,
                "measured_max_s": self.measured_max_s, "ratio": self.ratio,
                "traffic_factor": self.traffic_factor,
                "achieved_flops_per_s": self.achieved_flops_per_s,
                "achieved_bandwidth_bytes_per_s": self.achieved_bandwidth_bytes_per_s,
                "implementation": self.implementation}


def op_checks(doc: dict) -> list[OpCheck]:
    bw = memory_bandwidth(doc)
    out = []
    for op in doc["ops"]:
        t = op["time_s"]
        out.append(OpCheck(op["id"], op["label"], op["kind"], op["shape"], op["flops"],
                           op["bytes"], op.get("implementation_bytes"),
                           op.get("implementation", ""), compute_peak(doc, op["precision"]),
                           bw, t["median"], t["min"], t["max"]))
    return out


@dataclass(frozen=True)
class Verdict:
    """What the op table says, in numbers: how far above its bound each group of ops lands."""
    total: int
    beaten: tuple[str, ...]            # ops measured faster than their lower bound
    exact: tuple[float, float] | None  # memory-bound ops whose code moves the model's bytes
    unfused: tuple[float, float] | None  # memory-bound ops that make extra passes
    unfused_traffic: tuple[float, float] | None  # their numpy bytes ÷ model bytes
    compute: tuple[float, float] | None  # compute-bound ops


def _span(values: list[float]) -> tuple[float, float] | None:
    return (min(values), max(values)) if values else None


def verdict(doc: dict) -> Verdict:
    checks = op_checks(doc)
    memory = [c for c in checks if c.bound == "memory"]
    exact = [c for c in memory if c.traffic_factor is not None and c.traffic_factor <= 1.01]
    unfused = [c for c in memory if c.traffic_factor is not None and c.traffic_factor > 1.01]
    return Verdict(len(checks), tuple(c.id for c in checks if c.ratio < 1),
                   _span([c.ratio for c in exact]), _span([c.ratio for c in unfused]),
                   _span([c.traffic_factor for c in unfused]),
                   _span([c.ratio for c in checks if c.bound == "compute"]))

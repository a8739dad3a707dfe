"""The hardware catalog and the precisions: validated once, at load, into frozen dataclasses."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from roofline.model import datafile as _toml
from roofline.model.datafile import Fields
from roofline.errors import RooflineError, unknown_id
from roofline.model.maths import ridge

UNITS = ("tensor", "vector")
BASES = ("datasheet", "derived", "estimate", "third-party", "measurement")
TIER_KINDS = ("registers", "sram", "l2", "hbm", "host", "scaleup")
TIER_ROLES = {
    "registers": "operands the ALUs read every cycle; private to a thread",
    "sram": "staging tile, shared within a thread block",
    "l2": "shared by all SMs; catches reuse between blocks",
    "hbm": "everything you allocate lives here; the slow tier",
    "host": "off-GPU; keep it out of the hot loop",
    "scaleup": "GPU to GPU inside a node: collectives, tensor parallelism",
}
# Below these a figure was almost surely written in TB/s, TFLOP/s or GB instead of SI units.
MIN_BANDWIDTH = 1e6
MIN_FLOPS = 1e9
MIN_CAPACITY = 1e3
GIB = 2 ** 30
# DRAM is built from power-of-two dies: a part sold as "80 GB" holds 80 GiB. A decimal figure
# here (80e9) is the marketing number typed as bytes, 6.9 % short of what the chip holds.
BINARY_TIERS = ("hbm",)


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    url: str
    third_party: bool = False
    """A page that is not the vendor's own (a blog's table, a book, a repository): figures
    taken from it cannot claim basis "datasheet"."""


@dataclass(frozen=True)
class Precision:
    id: str
    label: str
    bytes_per_element: float
    unit: str
    source: str


@dataclass(frozen=True)
class Peak:
    precision: str
    flops_per_s: float
    unit: str
    source: str
    basis: str = "datasheet"
    note: str = ""


@dataclass(frozen=True)
class Tier:
    kind: str
    name: str
    source: str
    capacity_bytes: float | None = None
    per_unit_capacity_bytes: float | None = None
    bandwidth_bytes_per_s: float | None = None
    basis: str = "datasheet"
    note: str = ""
    max_shared_per_unit_bytes: float | None = None
    """SRAM: the most of per_unit_capacity_bytes one unit can give as shared memory."""
    visible_capacity_bytes: float | None = None
    """HBM: what the driver leaves visible to programs (nvidia-smi's total), where known."""

    @property
    def role(self) -> str:
        return TIER_ROLES[self.kind]


@dataclass(frozen=True)
class Accelerator:
    id: str
    name: str
    vendor: str
    compute_unit_name: str
    compute_units: int
    peaks: dict[str, Peak]
    tiers: tuple[Tier, ...]
    facts: dict[str, tuple[float, str, str, str]] = field(default_factory=dict)
    """Scalar figures (compute_units, tdp_w, boost_clock_hz) as (value, source, basis, note)."""
    vector_peaks: dict[str, Peak] = field(default_factory=dict)
    """Non-tensor (CUDA-core / vector unit) peaks for precisions whose main peak is the tensor
    one, e.g. packed bf16x2 math: elementwise math in that dtype runs under this roof."""

    @property
    def tdp_w(self) -> float | None:
        return self.facts["tdp_w"][0] if "tdp_w" in self.facts else None

    def peak(self, precision: str) -> Peak:
        try:
            return self.peaks[precision]
        except KeyError:
            raise unknown_id("precision", precision, list(self.peaks),
                             where=f"hardware '{self.id}'") from None

    def peak_flops_per_s(self, precision: str) -> float:
        return self.peak(precision).flops_per_s

    def tier(self, kind: str) -> Tier | None:
        return next((t for t in self.tiers if t.kind == kind), None)

    @property
    def hbm(self) -> Tier:
        tier = self.tier("hbm")
        assert tier is not None  # guaranteed by the loader
        return tier

    @property
    def hbm_bandwidth_bytes_per_s(self) -> float:
        bw = self.hbm.bandwidth_bytes_per_s
        assert bw is not None
        return bw

    def ridge_flops_per_byte(self, precision: str) -> float:
        return ridge(self.peak_flops_per_s(precision), self.hbm_bandwidth_bytes_per_s)

    @property
    def vector_peak(self) -> Peak | None:
        """The fp32 (or first) vector roof: CUDA-core math in fp32. fp32 first, because a chip
        without FP64 tensor cores (V100) has a vector fp64 peak too, listed before fp32."""
        fp32 = self.peaks.get("fp32")
        if fp32 is not None and fp32.unit == "vector":
            return fp32
        return next((p for p in self.peaks.values() if p.unit == "vector"), None)

    def vector_peak_for(self, precision: str) -> Peak | None:
        """The vector roof for elementwise math that runs in `precision`: packed bf16x2 on
        the CUDA cores for bf16, the fp32 roof for fp32; None where the chip publishes none."""
        if precision in self.vector_peaks:
            return self.vector_peaks[precision]
        peak = self.peaks.get(precision)
        return peak if peak is not None and peak.unit == "vector" else None


@dataclass(frozen=True)
class Catalog:
    path: Path
    accelerators: dict[str, Accelerator]
    precisions: dict[str, Precision]
    sources: dict[str, Source]

    def __getitem__(self, hardware_id: str) -> Accelerator:
        try:
            return self.accelerators[hardware_id]
        except KeyError:
            raise unknown_id("hardware", hardware_id, list(self.accelerators)) from None

    def precision(self, precision_id: str) -> Precision:
        try:
            return self.precisions[precision_id]
        except KeyError:
            raise unknown_id("precision", precision_id, list(self.precisions)) from None

    def __iter__(self):
        return iter(self.accelerators.values())


def _source(f: Fields, key: str, sources: dict[str, Source]) -> str:
    value = f.get(key, str)
    if value not in sources:
        raise RooflineError(f"source {value!r} is not defined in [sources]", where=f.where,
                            entry=f.entry, field=f.prefix + key, valid=list(sources))
    return value


def _basis(f: Fields, key: str = "basis") -> str:
    value = f.get(key, str, required=False, default="datasheet")
    if value not in BASES:
        raise RooflineError(f"unknown basis {value!r}", where=f.where, entry=f.entry,
                            field=f.prefix + key, valid=list(BASES))
    return value


def _check_third_party(f: Fields, source: str, basis: str, sources: dict[str, Source],
                       key: str) -> None:
    if basis == "datasheet" and sources[source].third_party:
        raise RooflineError(f"source {source!r} is a third-party page; a figure taken from it "
                            "has basis \"third-party\" (or derived/estimate), not "
                            "\"datasheet\"", where=f.where, entry=f.entry, field=f.prefix + key)


def _load_precisions(path: Path) -> dict[str, Precision]:
    data = _toml.load(path)
    where = str(path)
    table = data.get("precision")
    if not isinstance(table, dict) or not table:
        raise RooflineError("no [precision.*] tables", where=where, field="precision")
    out = {}
    for pid, raw in table.items():
        f = Fields(raw, where=where, entry=pid)
        unit = f.get("unit", str)
        if unit not in UNITS:
            raise RooflineError(f"unknown unit {unit!r}", where=where, entry=pid, field="unit",
                                valid=list(UNITS))
        out[pid] = Precision(pid, f.get("label", str), f.positive("bytes_per_element"), unit,
                             f.get("source", str))
        f.finish()
    return out


def _load_tier(raw: object, index: int, acc: Fields, sources: dict[str, Source]) -> Tier:
    f = Fields(raw, where=acc.where, entry=acc.entry, prefix=f"tiers[{index}].")
    kind = f.get("kind", str)
    if kind not in TIER_KINDS:
        raise RooflineError(f"unknown tier kind {kind!r}", where=f.where, entry=f.entry,
                            field=f.prefix + "kind", valid=list(TIER_KINDS))
    tier = Tier(
        kind=kind, name=f.get("name", str), source=_source(f, "source", sources),
        capacity_bytes=f.positive("capacity_bytes", required=False, minimum=MIN_CAPACITY,
                                  unit_hint=" (bytes)"),
        per_unit_capacity_bytes=f.positive("per_unit_capacity_bytes", required=False,
                                           minimum=MIN_CAPACITY, unit_hint=" (bytes)"),
        bandwidth_bytes_per_s=f.positive("bandwidth_bytes_per_s", required=False,
                                         minimum=MIN_BANDWIDTH, unit_hint=" (bytes/s)"),
        basis=_basis(f), note=f.get("note", str, required=False, default=""),
        max_shared_per_unit_bytes=f.positive("max_shared_per_unit_bytes", required=False,
                                             minimum=MIN_CAPACITY, unit_hint=" (bytes)"),
        visible_capacity_bytes=f.positive("visible_capacity_bytes", required=False,
                                          minimum=MIN_CAPACITY, unit_hint=" (bytes)"),
    )
    _check_third_party(f, tier.source, tier.basis, sources, "basis")
    if kind in BINARY_TIERS and tier.capacity_bytes is not None and tier.capacity_bytes % GIB:
        raise RooflineError(
            f"capacity {tier.capacity_bytes:,.0f} bytes is not a whole number of GiB: DRAM is "
            f"binary, so a part sold as {tier.capacity_bytes / 1e9:.0f} GB holds "
            f"{tier.capacity_bytes / 1e9:.0f} GiB = {round(tier.capacity_bytes / 1e9) * GIB:,} "
            "bytes", where=f.where, entry=f.entry, field=f.prefix + "capacity_bytes")
    for key in ("max_shared_per_unit_bytes",):
        v = getattr(tier, key)
        if v is not None and (tier.per_unit_capacity_bytes is None
                              or v > tier.per_unit_capacity_bytes):
            raise RooflineError("must not exceed per_unit_capacity_bytes", where=f.where,
                                entry=f.entry, field=f.prefix + key)
    if (tier.visible_capacity_bytes is not None and tier.capacity_bytes is not None
            and tier.visible_capacity_bytes > tier.capacity_bytes):
        raise RooflineError("must not exceed capacity_bytes", where=f.where, entry=f.entry,
                            field=f.prefix + "visible_capacity_bytes")
    f.finish()
    if tier.capacity_bytes is None and tier.bandwidth_bytes_per_s is None:
        raise RooflineError("a tier needs capacity_bytes or bandwidth_bytes_per_s",
                            where=f.where, entry=f.entry, field=f.prefix.rstrip("."))
    return tier


def _load_accelerator(raw: object, index: int, where: str, sources: dict[str, Source],
                      precisions: dict[str, Precision]) -> Accelerator:
    entry = raw.get("id", f"#{index}") if isinstance(raw, dict) else f"#{index}"
    f = Fields(raw, where=where, entry=str(entry))
    acc_id = f.get("id", str)
    facts: dict[str, tuple[float, str, str, str]] = {}
    # Each scalar figure carries its own `<stem>_source`, optional `<stem>_basis`/`<stem>_note`.
    for key, stem, minimum in (("compute_units", "compute_units", 1.0), ("tdp_w", "tdp", 1.0),
                               ("boost_clock_hz", "boost_clock", 1e6)):
        value = f.positive(key, required=key == "compute_units", minimum=minimum)
        if value is not None:
            facts[key] = (value, _source(f, f"{stem}_source", sources), _basis(f, f"{stem}_basis"),
                          f.get(f"{stem}_note", str, required=False, default=""))
            _check_third_party(f, facts[key][1], facts[key][2], sources, f"{stem}_basis")
    peaks = _load_peaks(f.sub("peaks"), "peaks", where, acc_id, sources, precisions)
    vector_peaks = (_load_peaks(f.sub("vector_peaks"), "vector_peaks", where, acc_id, sources,
                                precisions) if "vector_peaks" in f.table else {})
    for pid, vp in vector_peaks.items():
        if vp.unit != "vector":
            raise RooflineError("a vector_peaks entry must have unit \"vector\"", where=where,
                                entry=acc_id, field=f"vector_peaks.{pid}.unit")
    if not peaks:
        raise RooflineError("no peaks", where=where, entry=acc_id, field="peaks")
    tiers_raw = f.get("tiers", list)
    tiers = tuple(_load_tier(t, i, f, sources) for i, t in enumerate(tiers_raw))
    hbm = [t for t in tiers if t.kind == "hbm"]
    if len(hbm) != 1 or hbm[0].bandwidth_bytes_per_s is None:
        raise RooflineError("exactly one 'hbm' tier with bandwidth_bytes_per_s is required",
                            where=where, entry=acc_id, field="tiers")
    acc = Accelerator(acc_id, f.get("name", str), f.get("vendor", str),
                      f.get("compute_unit_name", str), int(facts["compute_units"][0]),
                      peaks, tiers, facts, vector_peaks)
    f.finish()
    return acc


def _load_peaks(peaks_f: Fields, table: str, where: str, acc_id: str,
                sources: dict[str, Source], precisions: dict[str, Precision]) -> dict[str, Peak]:
    peaks = {}
    for pid in list(peaks_f.table):
        if pid not in precisions:
            raise unknown_id("precision", pid, list(precisions), where=where,
                             field=f"{table}.{pid}")
        p = peaks_f.sub(pid)
        unit = p.get("unit", str)
        if unit not in UNITS:
            raise RooflineError(f"unknown unit {unit!r}", where=where, entry=acc_id,
                                field=f"{table}.{pid}.unit", valid=list(UNITS))
        peaks[pid] = Peak(pid, p.positive("flops_per_s", minimum=MIN_FLOPS,
                                          unit_hint=" (FLOP/s)"),
                          unit, _source(p, "source", sources), _basis(p),
                          p.get("note", str, required=False, default=""))
        _check_third_party(p, peaks[pid].source, peaks[pid].basis, sources, "basis")
        p.finish()
    return peaks


def load_catalog(hardware_path: Path | str | None = None,
                 precisions_path: Path | str | None = None) -> Catalog:
    """Load and validate the catalog; any defect raises RooflineError naming file and field."""
    hw_path = Path(hardware_path) if hardware_path else _toml.DATA_DIR / "hardware.toml"
    pr_path = Path(precisions_path) if precisions_path else _toml.DATA_DIR / "precisions.toml"
    precisions = _load_precisions(pr_path)
    data = _toml.load(hw_path)
    where = str(hw_path)
    raw_sources = data.get("sources")
    if not isinstance(raw_sources, dict) or not raw_sources:
        raise RooflineError("no [sources] table", where=where, field="sources")
    sources = {}
    for key, raw in raw_sources.items():
        f = Fields(raw, where=where, entry=f"sources.{key}")
        sources[key] = Source(key, f.get("title", str), f.get("url", str),
                              bool(f.get("third_party", bool, required=False, default=False)))
        f.finish()
    accs: dict[str, Accelerator] = {}
    raw_accs = data.get("accelerator")
    if not isinstance(raw_accs, list) or not raw_accs:
        raise RooflineError("no [[accelerator]] entries", where=where, field="accelerator")
    for i, raw in enumerate(raw_accs):
        acc = _load_accelerator(raw, i, where, sources, precisions)
        if acc.id in accs:
            raise RooflineError("duplicate id", where=where, entry=acc.id, field="id")
        accs[acc.id] = acc
    return Catalog(hw_path, accs, precisions, sources)


@functools.lru_cache(maxsize=8)
def _cached(hw: tuple[str, int, int], pr: tuple[str, int, int]) -> Catalog:
    return load_catalog(hw[0], pr[0])


def default_catalog(hardware_path: Path | str | None = None) -> Catalog:
    """The catalog, cached per (path, mtime_ns, size) of its two files (so `mkdocs serve`
    sees edits, even two within one mtime tick). ROOFLINE_CATALOG names another
    hardware.toml, so a build (and every consumer in it: hooks, fences, plots) can be pointed
    at an edited copy without touching the package."""
    override = os.environ.get("ROOFLINE_CATALOG")
    hw = Path(hardware_path or override or _toml.DATA_DIR / "hardware.toml")
    pr = hw.parent / "precisions.toml"
    if not pr.exists():
        pr = _toml.DATA_DIR / "precisions.toml"
    return _cached(_toml.file_key(hw), _toml.file_key(pr))

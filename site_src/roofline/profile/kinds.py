"""The data a GPU trace's analysis needs besides the trace (gpu.mjs gets them as JSON): the kernel
families and their name rules (data/kernels.toml), the device rules that name the chip a trace
ran on (data/devices.toml), and a catalog chip's roofline. Bad data is one RooflineError naming
the file, entry and field."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from roofline.errors import RooflineError
from roofline.model import datafile as _toml

KERNELS = "kernels.toml"
DEVICES = "devices.toml"


def _pattern(f: _toml.Fields, key: str, required: bool = True) -> str | None:
    value = f.get(key, str, required=required)
    if value is None:
        return None
    try:
        re.compile(value)
    except re.error as exc:
        raise f.error(key, f"not a regular expression: {exc}") from None
    return value


@functools.lru_cache(maxsize=4)
def _kernel_kinds(key: tuple) -> dict:
    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    families = []
    for i, raw in enumerate(data.get("family", [])):
        f = _toml.Fields(raw, where=where, entry=f"family #{i + 1}")
        families.append({"id": f.get("id", str), "label": f.get("label", str)})
    ids = {f["id"] for f in families}
    if "other" not in ids:
        raise RooflineError("no family 'other' (where a kernel no rule matches goes)",
                            where=where, field="family")
    traces = data.get("traces", {})
    rules = []
    for i, raw in enumerate(data.get("rule", [])):
        f = _toml.Fields(raw, where=where, entry=f"rule #{i + 1}")
        family = f.get("family", str)
        if family not in ids:
            raise f.error("family", f"unknown family {family!r} (valid: {', '.join(sorted(ids))})")
        rule = {"family": family, "example": f.get("example", str)}
        cats = f.get("categories", list, required=False)
        if cats is not None:
            rule["categories"] = [str(c) for c in cats]
        pattern = _pattern(f, "pattern", required=cats is None)
        if pattern is not None:
            rule["pattern"] = pattern
        seen = f.get("seen_in", str)
        if seen not in traces:
            raise f.error("seen_in", f"no trace {seen!r} in [traces]")
        rules.append(rule)
    tf32 = _toml.Fields(data.get("tf32"), where=where, entry="tf32")
    return {"families": families, "rules": rules,
            "tf32": {"pattern": _pattern(tf32, "pattern"), "example": tf32.get("example", str)}}


def kernel_kinds(path: Path | None = None) -> dict:
    """{"families": [{id, label}], "rules": [{family, pattern?, categories?, example}],
    "tf32": {pattern, example}}."""
    return _kernel_kinds(_toml.file_key(path or _toml.DATA_DIR / KERNELS))


@functools.lru_cache(maxsize=4)
def _device_rules(key: tuple, catalog_key: tuple) -> list:
    from roofline.model.catalog import default_catalog
    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    chips = default_catalog().accelerators
    out = []
    for i, raw in enumerate(data.get("device", [])):
        f = _toml.Fields(raw, where=where, entry=f"device #{i + 1}")
        chip = f.get("chip", str)
        if chip not in chips:
            raise f.error("chip", f"no chip {chip!r} in the hardware catalog")
        rule = {"chip": chip, "name": _pattern(f, "name"), "why": f.get("why", str),
                "example": f.get("example", str)}
        cu = f.get("compute_units", int, required=False)
        if cu is not None:
            rule["compute_units"] = cu
        cc = f.get("compute_capability", str, required=False)
        if cc is not None:
            rule["compute_capability"] = cc
        mem = f.get("memory_bytes", list, required=False)
        if mem is not None:
            if len(mem) != 2 or not all(isinstance(m, (int, float)) for m in mem):
                raise f.error("memory_bytes", "expected [low, high] in bytes")
            rule["memory_bytes"] = [float(mem[0]), float(mem[1])]
        out.append(rule)
    return out


def device_rules(path: Path | None = None) -> list:
    """The devices.toml rules, each chip checked against the catalog."""
    from roofline.model.catalog import default_catalog
    return _device_rules(_toml.file_key(path or _toml.DATA_DIR / DEVICES),
                         _toml.file_key(default_catalog().path))


def chip_roof(chip_id: str, source: str) -> dict:
    """A catalog chip as gpu.mjs takes it: its dense peak at each precision and its HBM
    bandwidth; `source`: how the chip was chosen (the device rule, or --hardware)."""
    from roofline.model.catalog import default_catalog
    acc = default_catalog()[chip_id]
    return {"id": acc.id, "label": acc.name, "source": source,
            "peaks": {p: peak.flops_per_s for p, peak in acc.peaks.items()},
            "bandwidth_bytes_per_s": acc.hbm_bandwidth_bytes_per_s,
            "basis": "the catalog's dense peaks and HBM bandwidth (roofline hardware "
                     f"--hardware {acc.id})"}


def chip_roofs() -> dict:
    """Every chip a device rule names, by id: what the drop page needs to place a trace."""
    return {r["chip"]: chip_roof(r["chip"], "") for r in device_rules()}

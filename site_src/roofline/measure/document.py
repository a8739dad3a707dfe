"""The measurement document: each timed kernel's record, the measured roofs and the whole
document (see schema.py), as the CPU runner and the GPU path both assemble it."""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from roofline.measure import checks
from roofline.measure.plan import Plan
from roofline.measure.schema import FORMAT, SCHEMA_VERSION

# STREAM's four kernels set roofs; `read` is shown beside them (it stores nothing, so
# STREAM's byte count would flatter it). The GPU path runs only these four.
ROOF_KERNELS = ("copy", "scale", "add", "triad")


def _finish(group: str, record: dict, timing: dict) -> dict:
    # A ceiling is the best the machine did: like STREAM's "best rate", from the fastest
    # sample. Ops keep their median: that is the time a reader should expect.
    out = {**record, "time_s": timing}
    if group == "stream":
        out["bandwidth_bytes_per_s"] = record["bytes"] / timing["min"]
    elif group == "matmul":
        out["flops_per_s"] = record["flops"] / timing["min"]
    return out


def ceilings(stream: list[dict], matmul: list[dict], memory_level: str) -> dict:
    """The measured roofs, each the best a dedicated kernel did (a roof is what the machine can
    reach, so the best run, not the mean). Per memory level: the fastest of STREAM's four
    kernels (cpu.ROOF_KERNELS) at that level; for the memory level itself only the runs on
    the most threads. Per precision: the fastest dedicated matrix multiply. The lesson's ops
    never set a roof: each is judged against the roofs, and an op that set its own would pass
    by construction."""
    bandwidth: dict[str, dict] = {}
    runs = [s for s in stream if s["level"] != "between" and s["kernel"] in ROOF_KERNELS]
    most = max((s["threads"] for s in runs if s["level"] == memory_level), default=1)
    for s in runs:
        if s["level"] == memory_level and s["threads"] < most:
            continue
        best = bandwidth.get(s["level"])
        if best is None or s["bandwidth_bytes_per_s"] > best["bandwidth_bytes_per_s"]:
            bandwidth[s["level"]] = {
                "level": s["level"], "kernel": s["kernel"], "threads": s["threads"],
                "working_set_bytes": s["working_set_bytes"], "array_bytes": s["array_bytes"],
                "bandwidth_bytes_per_s": s["bandwidth_bytes_per_s"]}
    compute: dict[str, dict] = {}
    for m in matmul:
        best = compute.get(m["precision"])
        if best is None or m["flops_per_s"] > best["flops_per_s"]:
            compute[m["precision"]] = {"precision": m["precision"],
                                       "flops_per_s": m["flops_per_s"],
                                       "from": f"matmul n={m['n']}"}
    return {"memory_level": memory_level,
            "bandwidth": sorted(bandwidth.values(), key=lambda b: b["level"]),
            "compute": list(compute.values())}


def document(*, device: str, plan: Plan, machine_desc: dict, versions: dict,
             results: dict[str, list[dict]], memory_level: str, label: str | None,
             now: Callable[[], _dt.datetime] | None, notes: list[str],
             last_level_cache_bytes: float) -> dict:
    """The whole document; `last_level_cache_bytes` is the cache the memory roof must be
    measured past (the CPU's last level, or a GPU's L2)."""
    stamp = (now or (lambda: _dt.datetime.now(_dt.timezone.utc)))()
    doc = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION,
        "label": label or f"{machine_desc['description']} ({stamp:%Y-%m-%d})",
        "created_utc": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": device, "mode": plan.name, "machine": machine_desc, "versions": versions,
        "method": {**plan.method.as_dict(), "notes": notes},
        "stream": results["stream"], "matmul": results["matmul"],
        "ceilings": ceilings(results["stream"], results["matmul"], memory_level),
        "ops": results["ops"],
    }
    doc["checks"] = checks.run(doc, last_level_cache_bytes)
    return doc

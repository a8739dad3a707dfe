"""The measurement document: each timed kernel's record, the measured roofs and the whole
document (see schema.py), as the CPU runner and the GPU path both assemble it."""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from roofline.measure.plan import Plan
from roofline.measure.schema import FORMAT, SCHEMA_VERSION


def _finish(group: str, record: dict, timing: dict) -> dict:
    # A ceiling is the best the machine did: like STREAM's "best rate", from the fastest
    # sample. Ops keep their median: that is the time a reader should expect.
    out = {**record, "time_s": timing}
    if group == "stream":
        out["bandwidth_bytes_per_s"] = record["bytes"] / timing["min"]
    elif group == "matmul":
        out["flops_per_s"] = record["flops"] / timing["min"]
    return out


def ceilings(stream: list[dict], matmul: list[dict], memory_level: str,
             ops: list[dict] = (), cache_bytes: dict[str, int] | None = None) -> dict:
    """The measured roofs, each the best the machine did (a roof is what it can reach, so the
    best kernel, not the mean). Per memory level: the fastest STREAM kernel, and for the
    memory level also any GEMV op whose matrix is far past the last-level cache (BLAS streams
    it on every core with loads only, which numpy's kernels cannot match). Per precision: the
    fastest matrix multiply in the run, op GEMMs included. Without this, an op could sit above
    a roof that a busy machine's dedicated run happened to under-measure."""
    bandwidth: dict[str, dict] = {}
    runs = [(s["level"], s["bandwidth_bytes_per_s"],
             {"kernel": s["kernel"], "threads": s["threads"]}) for s in stream
            if s["level"] != "between"]
    if cache_bytes:
        runs += [(memory_level, o["bytes"] / o["time_s"]["min"],
                  {"kernel": "gemv", "from": f"op {o['id']} (BLAS)"}) for o in ops
                 if o["kind"] == "gemv" and o["bytes"] >= 2 * max(cache_bytes.values())]
    for level, rate, how in runs:
        best = bandwidth.get(level)
        if best is None or rate > best["bandwidth_bytes_per_s"]:
            bandwidth[level] = {"level": level, **how, "bandwidth_bytes_per_s": rate}
    compute: dict[str, dict] = {}
    flops = [(m["precision"], m["flops_per_s"], f"matmul n={m['n']}") for m in matmul]
    flops += [(o["precision"], o["flops"] / o["time_s"]["min"], f"op {o['id']}")
              for o in ops if o["kind"] == "gemm"]
    for precision, flops_per_s, where in flops:
        best = compute.get(precision)
        if best is None or flops_per_s > best["flops_per_s"]:
            compute[precision] = {"precision": precision, "flops_per_s": flops_per_s,
                                  "from": where}
    return {"memory_level": memory_level,
            "bandwidth": sorted(bandwidth.values(), key=lambda b: b["level"]),
            "compute": list(compute.values())}


def document(*, device: str, plan: Plan, machine_desc: dict, versions: dict,
             results: dict[str, list[dict]], memory_level: str, label: str | None,
             now: Callable[[], _dt.datetime] | None, notes: list[str],
             cache_bytes: dict[str, int] | None = None) -> dict:
    stamp = (now or (lambda: _dt.datetime.now(_dt.timezone.utc)))()
    return {
        "format": FORMAT, "schema_version": SCHEMA_VERSION,
        "label": label or f"{machine_desc['description']} ({stamp:%Y-%m-%d})",
        "created_utc": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": device, "mode": plan.name, "machine": machine_desc, "versions": versions,
        "method": {**plan.method.as_dict(), "notes": notes},
        "stream": results["stream"], "matmul": results["matmul"],
        "ceilings": ceilings(results["stream"], results["matmul"], memory_level,
                             results["ops"], cache_bytes),
        "ops": results["ops"],
    }

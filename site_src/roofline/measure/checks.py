"""Checks a measurement records about itself, so a reader (and a test) can see whether its
memory roof is what it claims to be.

`triad_vs_roof`: the memory roof must have been measured past the caches (each array at least
DRAM_ARRAY_MULTIPLE × the last-level cache) and must agree, within TOLERANCE, with STREAM's
triad measured in the same run at that size on as many threads. A roof taken from a working
set that a cache still holds, or from anything much faster than a plain triad (an op, an
L3-assisted GEMV), fails it and says why. Numbers only; tables.py words them."""

from __future__ import annotations

# Each array of the run that sets the memory roof: at least this many × the last-level cache.
# (cpu.py sizes its DRAM arrays by the same figure; STREAM itself asks 4× all caches.)
DRAM_ARRAY_MULTIPLE = 8
TOLERANCE = 0.2  # |triad ÷ roof − 1| allowed


def triad_vs_roof(doc: dict, last_level_cache_bytes: float) -> dict:
    """The check's record: the roof and the triad it is held to, their ratio, and `passed`
    with a list of `problems` (empty when it passed)."""
    c = doc["ceilings"]
    level = c["memory_level"]
    roof = next((b for b in c["bandwidth"] if b["level"] == level), None)
    need = DRAM_ARRAY_MULTIPLE * last_level_cache_bytes
    triads = [s for s in doc["stream"] if s["kernel"] == "triad" and s["level"] == level
              and s.get("array_bytes", 0) >= need]
    most = max((s["threads"] for s in triads), default=0)
    triad = max((s for s in triads if s["threads"] == most),
                key=lambda s: s["bandwidth_bytes_per_s"], default=None)
    problems = []
    roof_array = roof.get("array_bytes") if roof else None
    if roof is None:
        problems.append(f"no {level} roof")
    elif roof_array is None or roof_array < need:
        problems.append(f"the {level} roof's arrays are "
                        f"{'of unknown size' if roof_array is None else f'{roof_array:.0f} B'}, "
                        f"under {DRAM_ARRAY_MULTIPLE} × the last-level cache ({need:.0f} B)")
    if triad is None:
        problems.append(f"no triad with arrays of at least {DRAM_ARRAY_MULTIPLE} × the "
                        f"last-level cache")
    elif roof is not None and roof.get("threads", 1) < triad["threads"]:
        problems.append(f"the roof used {roof.get('threads', 1)} thread(s), the triad "
                        f"{triad['threads']}")
    ratio = (triad["bandwidth_bytes_per_s"] / roof["bandwidth_bytes_per_s"]
             if roof is not None and triad is not None else None)
    if ratio is not None and abs(ratio - 1) > TOLERANCE:
        problems.append(f"triad ÷ roof is {ratio:.2f}, outside 1 ± {TOLERANCE}")
    return {
        "passed": not problems, "problems": problems, "ratio": ratio, "tolerance": TOLERANCE,
        "roof_bandwidth_bytes_per_s": roof["bandwidth_bytes_per_s"] if roof else None,
        "roof_kernel": roof.get("kernel") if roof else None,
        "roof_array_bytes": roof_array,
        "triad_bandwidth_bytes_per_s": triad["bandwidth_bytes_per_s"] if triad else None,
        "triad_array_bytes": triad["array_bytes"] if triad else None,
        "triad_working_set_bytes": triad["working_set_bytes"] if triad else None,
        "threads": triad["threads"] if triad else None,
        "last_level_cache_bytes": float(last_level_cache_bytes),
        "array_multiple_required": DRAM_ARRAY_MULTIPLE,
    }


def run(doc: dict, last_level_cache_bytes: float) -> dict:
    """Every check, by name."""
    return {"triad_vs_roof": triad_vs_roof(doc, last_level_cache_bytes)}

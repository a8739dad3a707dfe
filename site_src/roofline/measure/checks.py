"""Checks a measurement records about itself, so a reader (and a test) can see whether its
memory roof is what it claims to be.

`triad_vs_roof`: the memory roof must have been measured past the caches (each array at least
DRAM_ARRAY_MULTIPLE × the last-level cache) and must agree, within TOLERANCE, with STREAM's
triad measured in the same run at that size on as many threads. A roof taken from a working
set that a cache still holds, or from anything much faster than a plain triad (an op, an
L3-assisted GEMV), fails it and says why. Numbers only; tables.py words them."""

from __future__ import annotations

# Each array of the run that sets the memory roof: at least this many × the last-level cache,
# STREAM's own rule (4× the caches). cpu.py sizes its DRAM arrays by the same figure. (It was
# 8×: twice STREAM's ask, and twice the time, which kept `--quick` from being quick.)
DRAM_ARRAY_MULTIPLE = 4
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
    # The four STREAM kernels at the roof's level and thread count, best rate and spread (the
    # slowest sample's time ÷ the fastest's), so a disagreement is explained, not just failed.
    kernels = {s["kernel"]: s for s in doc["stream"] if s["kernel"] in STREAM_KERNELS
               and roof is not None and s["level"] == level
               and s["threads"] == roof.get("threads", 1)
               and s.get("array_bytes") == roof_array}
    spread = {k: s["time_s"]["max"] / s["time_s"]["min"] for k, s in kernels.items()
              if s.get("time_s") and s["time_s"]["min"] > 0}
    return {
        "kernels_bandwidth_bytes_per_s": {k: s["bandwidth_bytes_per_s"]
                                          for k, s in kernels.items()},
        "spread": spread,
        "explanation": explain(ratio, roof.get("kernel") if roof else None, spread),
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


STREAM_KERNELS = ("copy", "scale", "add", "triad")
# Samples this far apart (slowest ÷ fastest) mean something else was running.
NOISY_SPREAD = 1.5


def explain(ratio: float | None, roof_kernel: str | None, spread: dict[str, float]) -> str:
    """Why the triad and the roof disagree by more than TOLERANCE, from the run's own figures;
    empty when they agree."""
    if ratio is None or abs(ratio - 1) <= TOLERANCE:
        return ""
    noisy = sorted(k for k, v in spread.items() if v > NOISY_SPREAD)
    why = [f"The roof is the best of STREAM's four kernels ({roof_kernel}), as STREAM reports "
           f"its best rate; the triad is held to it."]
    if ratio < 1:
        why.append("numpy cannot fuse a = b + s·c: the triad runs as two ufunc passes per "
                   "L2-sized block (s·c into a temporary, then b + it) with a Python call "
                   "per block, where copy, scale and add are one pass each, so on this "
                   "machine the triad measures numpy's overhead as well as memory.")
    if noisy:
        why.append(f"The samples of {', '.join(noisy)} spread more than "
                   f"{NOISY_SPREAD:g}× (slowest ÷ fastest): the machine was busy; measure "
                   f"again on a quiet machine before trusting either figure.")
    return " ".join(why)


def run(doc: dict, last_level_cache_bytes: float) -> dict:
    """Every check, by name."""
    return {"triad_vs_roof": triad_vs_roof(doc, last_level_cache_bytes)}

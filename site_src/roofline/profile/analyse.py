"""One profiled step on the roofline: every op family at its achieved FLOP/s, its share of the
bound, its verdict, the step's measured MFU, a waterfall of where its wall time went and the
top three leaks, from a torch.profiler Chrome trace (trace.py) priced by costs.py.

The trace is read twice, in bounded memory: once for its steps (the ProfilerStep#N annotations)
and what it recorded, then for the chosen step's ops only.

Conventions (stated once):
- An op's time is its own span on the step's thread. Ops nest (aten::linear runs aten::mm;
  an autograd node runs its backward ops): the outermost op the cost model prices takes the
  whole span; an op it does not price is looked into, its own time outside its children
  counted as dispatch; an op with nothing priced inside it is *unmodelled*, listed with its
  time and count, never dropped and never guessed.
- The step's wall time is exactly: useful matrix math at the roof's peak + matrix ops' time
  beyond that + memory-bound ops' time + dispatch (views, wrappers' own time, the gaps between
  ops) + communication + unmodelled. The parts are computed separately and their sum is checked
  against the step's span.
- A CPU trace (no GPU kernels) ran on the CPU: it is placed on a measured CPU roofline
  (`roofline measure`; the bundled one is this site's build machine), never on a GPU's.
- Verdicts: *launch-bound* when an op's roofline time is shorter than the trace's own dispatch
  cost per op (the median span of its view ops, which do no work); else *compute-bound* at or
  past the ridge and *memory-bound* below it.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from roofline.profile.costs import FAMILIES, USEFUL, cost
from roofline.profile.trace import TraceError, stream

STEP = re.compile(r"ProfilerStep#(\d+)$")
ADVICE = {
    "matmul": "Matrix math below its roof: larger or better-shaped matmuls, a tensor-core dtype "
              "(bf16, fp8) on a GPU, and fewer small GEMMs (§2–3).",
    "memory": "Memory-bound ops: fuse them into their neighbours so intermediates stay on chip "
              "(torch.compile, fused norms and FlashAttention; §4 and lesson 07).",
    "dispatch": "Dispatch and gaps: each op pays a launch; fewer, larger ops or a captured graph "
                "(CUDA graphs, torch.compile) remove it (§5).",
    "communication": "Communication: overlap it with compute, or move less (§5).",
    "unmodelled": "Ops the roofline model does not know: look at them in the trace; the model "
                  "cannot say what they should cost.",
}


@dataclass
class Node:
    name: str
    ts: float
    dur: float
    args: dict
    children: list["Node"] = field(default_factory=list)


@dataclass(frozen=True)
class Roof:
    label: str
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float
    basis: str

    @property
    def ridge(self) -> float:
        return self.peak_flops_per_s / self.bandwidth_bytes_per_s


def survey(path: Path) -> dict:
    """First pass: the steps, what the trace recorded and on which device."""
    steps: dict[int, dict] = {}
    events = ops = shaped = kernels = 0
    meta: dict = {}
    span = [float("inf"), float("-inf")]
    for kind, value in stream(path):
        if kind == "meta":
            k, v = value
            if k in ("roofline_recorded", "deviceProperties", "record_shapes", "with_flops"):
                meta[k] = v
            continue
        events += 1
        e = value
        cat, ph = e.get("cat"), e.get("ph")
        if ph != "X":
            continue
        ts, dur = float(e.get("ts", 0)), float(e.get("dur", 0))
        if cat == "cpu_op":
            ops += 1
            shaped += bool((e.get("args") or {}).get("Input Dims"))
            span = [min(span[0], ts), max(span[1], ts + dur)]
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            kernels += 1
        elif cat == "user_annotation":
            m = STEP.match(str(e.get("name", "")))
            if m:
                steps[int(m.group(1))] = {"ts": ts, "dur": dur, "tid": e.get("tid")}
    if not events:
        raise TraceError("no events: the trace's traceEvents array is empty", where=str(path))
    if not ops:
        raise TraceError("no CPU ops (cat \"cpu_op\"): not a PyTorch profiler trace",
                         where=str(path))
    if not shaped:
        raise TraceError("no shapes recorded: profile with record_shapes=True, so each op's "
                         "FLOPs and bytes can be computed", where=str(path))
    return {"steps": steps, "events": events, "ops": ops, "kernels": kernels, "meta": meta,
            "span": span}


def pick_step(info: dict, step: int | None, where: str) -> tuple[str, dict]:
    steps = info["steps"]
    if not steps:
        if step is not None:
            raise TraceError(f"no ProfilerStep#{step}: the trace has no ProfilerStep "
                             "annotations (profile with a schedule and call prof.step())",
                             where=where)
        lo, hi = info["span"]
        return "the whole trace", {"ts": lo, "dur": hi - lo, "tid": None}
    if step is None:
        step = max(steps)
    if step not in steps:
        raise TraceError(f"no ProfilerStep#{step}; the trace has steps "
                         f"{', '.join(map(str, sorted(steps)))}", where=where, field="step")
    return f"ProfilerStep#{step}", steps[step]


def step_tree(path: Path, window: dict) -> list[Node]:
    """Second pass: the step's ops on its thread, nested by their spans."""
    lo, hi, tid = window["ts"], window["ts"] + window["dur"], window["tid"]
    found = []
    for kind, e in stream(path):
        if kind != "event" or e.get("ph") != "X" or e.get("cat") not in ("cpu_op",
                                                                           "user_annotation"):
            continue
        if tid is not None and e.get("tid") != tid:
            continue
        ts, dur = float(e.get("ts", 0)), float(e.get("dur", 0))
        if ts < lo or ts + dur > hi + 1e-3 or STEP.match(str(e.get("name", ""))):
            continue
        found.append(Node(str(e.get("name")), ts, dur, e.get("args") or {}))
    found.sort(key=lambda n: (n.ts, -n.dur))
    roots: list[Node] = []
    stack: list[Node] = []
    for n in found:
        while stack and n.ts >= stack[-1].ts + stack[-1].dur - 1e-6:
            stack.pop()
        (stack[-1].children if stack else roots).append(n)
        stack.append(n)
    return roots


def _priced(n: Node) -> bool:
    return cost(n.name, n.args, bool(n.children)) is not None or any(_priced(c)
                                                                      for c in n.children)


def attribute(roots: list[Node]) -> dict:
    """Each op's span to a family, to unmodelled, or (a wrapper's own time) to dispatch."""
    fam = {f: {"count": 0, "time_us": 0.0, "flops": 0.0, "bytes": 0.0, "useful_flops": 0.0,
               "calls": []} for f in FAMILIES}
    unmodelled: dict[str, dict] = {}
    wrapper_us = 0.0

    def walk(n: Node) -> None:
        nonlocal wrapper_us
        c = cost(n.name, n.args, bool(n.children))
        if c is not None:
            f = fam[c.family]
            f["count"] += 1
            f["time_us"] += n.dur
            f["flops"] += c.flops
            f["bytes"] += c.bytes
            f["useful_flops"] += c.useful_flops
            f["calls"].append((n.dur, c.flops, c.bytes))
            return
        if not any(_priced(ch) for ch in n.children):
            u = unmodelled.setdefault(n.name, {"count": 0, "time_us": 0.0})
            u["count"] += 1
            u["time_us"] += n.dur
            return
        wrapper_us += n.dur - sum(ch.dur for ch in n.children)
        for ch in n.children:
            walk(ch)
    for r in roots:
        walk(r)
    return {"families": fam, "unmodelled": unmodelled, "wrapper_us": wrapper_us,
            "covered_us": sum(r.dur for r in roots)}


def analyse(path: Path | str, roof: Roof, step: int | None = None,
            info: dict | None = None) -> dict:
    """The report of one step (the last by default) on `roof`; `info`: survey()'s, if taken."""
    path = Path(path)
    info = survey(path) if info is None else info
    name, window = pick_step(info, step, str(path))
    roots = step_tree(path, window)
    a = attribute(roots)
    wall_s = window["dur"] * 1e-6
    fam = a["families"]
    views = [d for d, _, _ in fam["views"]["calls"]]
    dispatch_us = statistics.median(views) if views else 0.0
    peak, bw = roof.peak_flops_per_s, roof.bandwidth_bytes_per_s
    families = {}
    for f, v in fam.items():
        if not v["count"]:
            continue
        t = v["time_us"] * 1e-6
        roof_s = sum(max(fl / peak, by / bw) for _, fl, by in v["calls"])
        ai = v["flops"] / v["bytes"] if v["bytes"] else None
        bound = min(peak, ai * bw) if ai is not None else None
        achieved = v["flops"] / t if t else 0.0
        per_call_roof_us = roof_s / v["count"] * 1e6
        verdict = ("dispatch (no work)" if f == "views" else
                   "launch-bound" if per_call_roof_us < dispatch_us else
                   "compute-bound" if ai is not None and ai >= roof.ridge else "memory-bound")
        families[f] = {"count": v["count"], "time_s": t, "share_of_step": t / wall_s,
                       "flops": v["flops"], "bytes": v["bytes"],
                       "useful_flops": v["useful_flops"], "intensity_flops_per_byte": ai,
                       "achieved_flops_per_s": achieved, "bound_flops_per_s": bound,
                       "share_of_bound": achieved / bound if bound else None,
                       "roofline_time_s": roof_s, "verdict": verdict,
                       "note": (f"above the DRAM roof: its {v['bytes'] / v['count'] / 1e6:.3g} MB "
                                "per op fit in the caches, whose roofs are higher (roofline "
                                "measure's in-cache figures)")
                       if bound and achieved > bound else ""}
    useful = sum(families[f]["useful_flops"] for f in USEFUL if f in families)
    matrix_s = sum(families[f]["time_s"] for f in USEFUL if f in families)
    memory_s = sum(v["time_s"] for f, v in families.items() if f not in USEFUL and f != "views")
    views_s = families["views"]["time_s"] if "views" in families else 0.0
    gaps_s = wall_s - a["covered_us"] * 1e-6
    unmodelled_s = sum(u["time_us"] for u in a["unmodelled"].values()) * 1e-6
    ideal_s = useful / peak
    parts = [("useful matrix math at peak", ideal_s),
             ("matrix ops below their roof", matrix_s - ideal_s),
             ("memory-bound ops", memory_s),
             ("dispatch and gaps", views_s + a["wrapper_us"] * 1e-6 + gaps_s),
             ("communication", 0.0),
             ("unmodelled", unmodelled_s)]
    total = sum(s for _, s in parts)
    if abs(total - wall_s) > 0.01 * wall_s:
        raise AssertionError(f"the waterfall sums to {total!r} s, the step is {wall_s!r} s")
    leaks = sorted([("matmul", matrix_s - ideal_s), ("memory", memory_s),
                    ("dispatch", parts[3][1]), ("unmodelled", unmodelled_s)],
                   key=lambda kv: -kv[1])[:3]
    return {
        "trace": str(path), "step": name, "wall_s": wall_s,
        "device": "cpu" if not info["kernels"] else "cuda",
        "recorded": info["meta"].get("roofline_recorded"),
        "roof": {"label": roof.label, "peak_flops_per_s": peak, "bandwidth_bytes_per_s": bw,
                 "ridge_flops_per_byte": roof.ridge, "basis": roof.basis},
        "steps": sorted(info["steps"]), "dispatch_per_op_s": dispatch_us * 1e-6,
        "families": families,
        "unmodelled": [{"name": k, **{"count": v["count"], "time_s": v["time_us"] * 1e-6}}
                       for k, v in sorted(a["unmodelled"].items(),
                                          key=lambda kv: -kv[1]["time_us"])],
        "mfu": useful / (wall_s * peak), "useful_flops": useful,
        "waterfall": [{"part": p, "time_s": s, "share": s / wall_s} for p, s in parts],
        "waterfall_sum_s": total,
        "leaks": [{"leak": k, "time_s": s, "share": s / wall_s, "advice": ADVICE[k]}
                  for k, s in leaks],
    }


def cpu_roof(measurement: dict) -> Roof:
    """The measured CPU roofline: the DRAM bandwidth roof and the fp32 matmul roof."""
    c = measurement["ceilings"]
    bw = next(b["bandwidth_bytes_per_s"] for b in c["bandwidth"] if b["level"] == "DRAM")
    peak = next(p["flops_per_s"] for p in c["compute"] if p["precision"] == "fp32")
    return Roof(measurement.get("label", "measured CPU"), peak, bw,
                "measured (roofline measure): fp32 matmul roof and DRAM STREAM roof")


BUILD_MACHINE = "measurement-build-machine.json"


def report(path: Path | str, step: int | None = None, *, measurement: Path | None = None,
           hardware: str | None = None) -> dict:
    """The one way a host gets a trace's report (the CLI, the fence): the trace surveyed once,
    placed on the roofline of the machine it ran on. A CPU trace goes on a measured CPU
    roofline (`measurement`, default the build machine's); a chip named for it is an error,
    and so, for now, is a trace with GPU kernels (no GPU trace has been recorded to test it)."""
    from roofline.measure.schema import load
    from roofline.model import datafile as _toml
    path = Path(path)
    info = survey(path)
    if info["kernels"]:
        raise TraceError("GPU kernels found: placing a GPU trace on a chip's roofline is not "
                         "supported yet (no GPU trace has been recorded to test it against)",
                         where=str(path))
    if hardware:
        raise TraceError(f"a CPU-only trace (no GPU kernels): its ops ran on the CPU, not on "
                         f"{hardware}; drop --hardware to place it on the measured CPU roofline",
                         where="--hardware")
    doc = load(measurement or _toml.DATA_DIR / BUILD_MACHINE)
    return analyse(path, cpu_roof(doc), step, info)

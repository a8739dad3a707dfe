"""The budget widget's data, without Bokeh: the payload the page embeds and the arithmetic its
JavaScript mirrors (widgets/budget/budget_view.mjs), checked against tests/cases/budget_cases.json. Its
settings object is roofline.widgets.budget.settings.BudgetSettings.

Python precomputes every model/phase/batch × the 16 fusion combinations (roofline.model.budget); the
page's JS selects one, adds the overheads the roofline cannot see, and checks memory against the
chip's HBM (roofline.model.memory) for the ZeRO stage and recomputation chosen. A configuration that
does not fit says so and shows no time.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

from roofline import fmt
from roofline.model.budget import CLASSES, FUSIONS, Assumptions, Budget, budget, waterfall_terms
from roofline.model.catalog import default_catalog
from roofline.model.memory import (ADAM_STATE_BYTES_PER_PARAM, GRAD_BYTES_PER_PARAM,
    KORTHIKANTI_CONST, KORTHIKANTI_SCORES, RECOMPUTE, ZERO_STAGES, Sharding, step_memory)
from roofline.model.transformer import PHASES, default_models

BATCHES = {"train": (1, 4, 16), "prefill": (1, 8), "decode": (1, 32, 256)}
SEQ = {"train": 4096, "prefill": 4096, "decode": 4096}
CLASS_COLORS = {"gemm": "#0072b2", "attention": "#cc79a7", "norm": "#e69f00",
                "elementwise": "#d55e00", "softmax": "#009e73", "embedding": "#7a8290",
                "optimizer": "#56b4e9"}
WATERFALL_ROWS = ("peak", "memory", "attention", "gemm", "efficiency", "launch",
                  "communication", "recompute", "mfu")
WATERFALL_SHORT = {"peak": "100 % of peak", "memory": "memory-bound ops",
                   "attention": "attention", "gemm": "GEMMs off the roof",
                   "efficiency": "kernels below roof", "launch": "launch overhead",
                   "communication": "exposed all-reduce", "recompute": "recomputation",
                   "mfu": "= MFU estimate"}
LIMITS = {"efficiency": (0.3, 1.0), "launch_us": (0.0, 50.0), "dp": (1, 1024),
          "overlap": (0.0, 1.0)}
DP_OPTIONS = tuple(2 ** i for i in range(11))  # 1 … 1,024 GPUs
CONTROLS_HEIGHT_PX = 600  # selects, checkboxes, knobs (two rows on a phone), readout, text
STATED_RUN = Sharding(1, "full")
"""How the page's training run is sharded: the least (roofline.model.memory.what_fits) that fits
Llama 2 7B at 4 × 4,096 per GPU on an 80 GiB part, 8-way data parallel."""


def mask_of(fusions) -> int:
    """Fusion set -> index 0..15 of the precomputed combinations (bit i = FUSIONS[i])."""
    return sum(1 << i for i, f in enumerate(FUSIONS) if f in fusions)


def fusions_of(mask: int) -> frozenset[str]:
    return frozenset(f for i, f in enumerate(FUSIONS) if mask >> i & 1)


# ---------------------------------------------------------------- the embedded data

def stack_offsets(xs: list[float]) -> list[int]:
    """Label rows: points within ×3 of a cluster's first one stack downwards (op names are
    long, so a wider cluster than the widget's keeps them apart)."""
    order = sorted(range(len(xs)), key=lambda i: (xs[i], i))
    rows = [0] * len(xs)
    prev, level = None, 0
    for i in order:
        level = level + 1 if prev is not None and xs[i] < prev * 3 else 0
        rows[i] = level
        prev = xs[i] if level == 0 else prev
    return rows


def entry(bg: Budget) -> dict:
    """What the page needs of one budget: full precision for the waterfall's inputs."""
    terms = {t.key: t.time_s for t in bg.waterfall()[:3]}
    classes = bg.by_class()
    xs = [k.intensity_flops_per_byte for _, _, k in bg.layer_map]
    fwd = [k for k in bg.kernels if k.pass_ == "forward"]
    return {
        "ideal": bg.ideal_time_s, "step": bg.step_time_s, "launches": bg.launches,
        "roof": [terms["memory"], terms["attention"], terms["gemm"]],
        # Roofline time recomputation re-runs: the whole forward, or the attention scores.
        "fwd": [sum(bg.kernel_time_s(k) for k in fwd),
                sum(bg.kernel_time_s(k) for k in fwd
                    if k.parts and set(k.parts) <= {"attn_qk", "attn_softmax"})],
        # Display-only figures need no more than 6 significant digits.
        "classes": [fmt.sig(classes[c]["time_s"], 6) for c in CLASSES],
        "bytes": fmt.sig(bg.bytes, 6),
        "saved": [fmt.sig(bg.bytes_saved().get(f, 0.0), 6) for f in FUSIONS],
        "x": [fmt.sig(x, 5) for x in xs], "dy": [-10 - 12 * r for r in stack_offsets(xs)],
    }


def payload(hardware: str, precision: str, url_state: bool = True) -> dict:
    """Every combination the page can show, for one chip and precision. Cached per version
    of the data files it reads (catalog, precisions, models), so `mkdocs serve` recomputes it
    when one changes."""
    from roofline.model import datafile as _toml
    path = default_catalog().path
    files = (path, path.parent / "precisions.toml", _toml.DATA_DIR / "precisions.toml",
             _toml.DATA_DIR / "models.toml")
    return _payload(hardware, precision, url_state, tuple(_toml.file_key(f) for f in files))


@functools.lru_cache(maxsize=4)
def _payload(hardware: str, precision: str, url_state: bool,
             data_version: tuple[tuple[str, int, int], ...]) -> dict:
    catalog = default_catalog()
    hw = catalog[hardware]
    b = catalog.precision(precision).bytes_per_element
    models = default_models()
    defaults = Assumptions()
    combos: dict[str, list[dict]] = {}
    layer_ops: list[tuple[str, str]] = []
    for mid, cfg in models.items():
        for phase in PHASES:
            for batch in BATCHES[phase]:
                row = []
                for mask in range(1 << len(FUSIONS)):
                    bg = budget(cfg, phase, batch, SEQ[phase], hw, precision, b,
                                fusions_of(mask), defaults)
                    row.append(entry(bg))
                    layer_ops = [(n, c) for n, c, _ in bg.layer_map]
                combos[f"{mid}|{phase}|{batch}"] = row
    probe = budget(next(iter(models.values())), "train", 1, 1, hw, precision, b)
    link = probe.link
    return {
        "hardware": hw.name, "precision": precision,
        "precision_label": catalog.precision(precision).label,
        "peak": hw.peak_flops_per_s(precision), "bw": hw.hbm_bandwidth_bytes_per_s,
        "hbm": hw.hbm.capacity_bytes, "hbm_label": fmt.memory_and_bytes(hw.hbm.capacity_bytes),
        "b": b,
        "link": ({"name": link.name, "bw": link.bandwidth_bytes_per_s}
                 if link and link.bandwidth_bytes_per_s else None),
        "models": {mid: {"name": cfg.name, "params": cfg.params, "layers": cfg.layers,
                         "d": cfg.d_model, "heads": cfg.heads, "kv_heads": cfg.kv_heads,
                         "head_dim": cfg.head_dim} for mid, cfg in models.items()},
        "memory": {"grad": GRAD_BYTES_PER_PARAM, "adam": ADAM_STATE_BYTES_PER_PARAM,
                   "k": KORTHIKANTI_CONST, "scores": KORTHIKANTI_SCORES},
        "phases": list(PHASES), "batches": {p: list(v) for p, v in BATCHES.items()},
        "seq": SEQ, "fusions": list(FUSIONS), "classes": list(CLASSES),
        "ops": [n for n, _ in layer_ops], "op_classes": [c for _, c in layer_ops],
        "colors": CLASS_COLORS, "rows": list(WATERFALL_ROWS), "labels": WATERFALL_SHORT,
        "grad_bytes_per_element": defaults.grad_bytes_per_element,
        "recompute": list(RECOMPUTE), "zero": list(ZERO_STAGES),
        "limits": LIMITS, "dp_options": list(DP_OPTIONS), "url": url_state, "combos": combos,
    }


# ---------------------------------------------------------------- the maths both sides share

def allreduce_time(params: float, grad_bytes_per_element: float, dp: int,
                   link_bw: float | None) -> float:
    if dp <= 1 or not link_bw:
        return 0.0
    return 2 * (dp - 1) / dp * params * grad_bytes_per_element / link_bw


def memory_of(data: dict, st: dict, zero: int, recompute: str) -> dict:
    """Bytes per GPU for one state (roofline.model.memory.step_memory; budget_view.mjs mirrors it)."""
    cfg = default_models()[st["model"]]
    train = st["phase"] == "train"
    m = step_memory(cfg, st["phase"], st["batch"], data["seq"][st["phase"]], data["b"],
                    data["hbm"], flash=bool(st["mask"] >> FUSIONS.index("flash") & 1),
                    dp_degree=st["dp"] if train else 1,
                    sharding=Sharding(zero, recompute) if train else Sharding())
    return m.as_dict()


def fitting(data: dict, st: dict) -> dict | None:
    """The least intrusive sharding that fits a training step (as roofline.model.memory.what_fits)."""
    if st["phase"] != "train":
        return None
    for recompute in RECOMPUTE:
        for zero in ZERO_STAGES:
            if memory_of(data, st, zero, recompute)["fits"]:
                return {"zero": zero, "recompute": recompute}
    return None


def view(data: dict, e: dict, st: dict) -> dict:
    """The numbers one state of the page shows (mirrors budgetView in budget_view.mjs). st: model,
    phase, batch, mask, efficiency, launch_s, dp, overlap, zero, recompute."""
    train = st["phase"] == "train"
    link_bw = data["link"]["bw"] if data["link"] else None
    ar = (allreduce_time(data["models"][st["model"]]["params"], data["grad_bytes_per_element"],
                         st["dp"], link_bw) if train else 0.0)
    recompute = st["recompute"] if train else "none"
    rec = {"none": 0.0, "full": e["fwd"][0], "selective": e["fwd"][1]}[recompute]
    times = [("memory", e["roof"][0]), ("attention", e["roof"][1]), ("gemm", e["roof"][2]),
             ("efficiency", e["step"] * (1 / st["efficiency"] - 1)),
             ("launch", e["launches"] * st["launch_s"]),
             ("communication", (1 - st["overlap"]) * ar),
             ("recompute", rec / st["efficiency"])]
    terms = waterfall_terms(e["ideal"], times)
    mem = memory_of(data, st, st["zero"] if train else 0, recompute)
    return {"terms": [{"key": t.key, "time": t.time_s, "before": t.level_before,
                       "after": t.level_after} for t in terms],
            "bound": e["ideal"] / e["step"], "mfu": terms[-1].level_after, "allreduce": ar,
            "memory": mem, "fits": mem["fits"],
            "fix": None if mem["fits"] else fitting(data, st)}


WATERFALL_LABEL_ROOM = 28
"""Room (in % of peak, of the waterfall axis's 0-119) a "−22.7 pt" label needs in a phone's
~240 px frame; a label given less would be cut by the frame (the layout gate's live check)."""
WATERFALL_END = 119
"""The waterfall axis's end: room right of 100 % for the peak row's "100%" in a phone's 227 px
frame (the budget's plots share their frames' edges, and the roofline's keeps 32 px right of
its frame for its last tick); its ticks still end at 100."""


def waterfall_label_at(drop: bool, lo: float, hi: float) -> tuple[float, str, int]:
    """(x, align, dx) of a waterfall row's label: a drop's left of it, or right where the
    left has no room on a phone, or inside a bar too wide for either; a level's right of it."""
    if not drop:
        return hi, "left", 4
    if lo >= WATERFALL_LABEL_ROOM:
        return lo, "right", -4
    if WATERFALL_END - hi >= WATERFALL_LABEL_ROOM:
        return hi, "left", 4
    return (lo + hi) / 2, "center", 0


def waterfall_bars(v: dict) -> dict:
    """Horizontal waterfall rows in percent: peak, each cause's loss, the final MFU; a step
    that does not fit in memory gets empty bars and says so."""
    terms = {t["key"]: t for t in v["terms"]}
    left, right, color, text, tx, align, dx = [], [], [], [], [], [], []
    for key in WATERFALL_ROWS:
        if not v["fits"]:
            lo, hi, c, label = 0.0, 0.0, PEAK_COLOR, "does not fit" if key == "mfu" else ""
        elif key == "peak":
            lo, hi, c, label = 0.0, 100.0, PEAK_COLOR, "100%"
        elif key == "mfu":
            lo, hi, c, label = 0.0, v["mfu"] * 100, FINAL_COLOR, fmt.percent(v["mfu"], 3)
        else:
            t = terms[key]
            lo, hi, c = t["after"] * 100, t["before"] * 100, LOSS_COLOR
            drop = (t["before"] - t["after"]) * 100
            label = f"−{fmt.num(drop, 3)} pt" if drop else "0 pt"
        left.append(lo)
        right.append(hi)
        color.append(c)
        text.append(label)
        x, a, d = waterfall_label_at(c == LOSS_COLOR, lo, hi)
        tx.append(x)
        align.append(a)
        dx.append(d)
    return {"row": [WATERFALL_SHORT[k] for k in WATERFALL_ROWS], "left": left, "right": right,
            "color": color, "text": text, "tx": tx, "align": align, "dx": dx}


LOSS_COLOR, FINAL_COLOR, PEAK_COLOR = "#d1352b", "#2e9e48", "#7a8290"
RECOMPUTE_WORDS = {"none": "no recomputation", "selective": "selective recomputation",
                   "full": "full recomputation"}


def fix_text(v: dict, data: dict, phase: str) -> str:
    m = v["memory"]
    if phase != "train":
        if m["weights"] > m["capacity"]:
            return (f"The weights alone are {fmt.capacity(m['weights'])}: they need tensor "
                    "parallelism over more GPUs.")
        return (f"The KV cache is {fmt.capacity(m['kv_cache'])}: a smaller batch or a shorter "
                "context would fit.")
    if v["fix"] is None:
        return ("No ZeRO stage or recomputation fits it on these GPUs: it needs more GPUs or "
                "model parallelism.")
    z = v["fix"]["zero"]
    return (f"ZeRO-{z} with {RECOMPUTE_WORDS[v['fix']['recompute']]} would fit." if z else
            f"{RECOMPUTE_WORDS[v['fix']['recompute']].capitalize()} would fit.")


def readout_text(data: dict, e: dict, v: dict, model: str, phase: str, batch: int) -> str:
    m = v["memory"]
    what = (f"{data['models'][model]['name']}, {phase}, batch {batch} × {data['seq'][phase]} "
            f"on {data['hardware']} ({data['precision_label']})")
    if not v["fits"]:
        return (f"Does not fit: {what} needs {fmt.capacity(m['total'])} per GPU, "
                f"{fmt.capacity(m['overflow'])} more than its {data['hbm_label']} of HBM. "
                f"{fix_text(v, data, phase)} No time is shown for a step that cannot run.")
    saved = sum(e["saved"])
    return (f"{what}: MFU upper bound {fmt.percent(v['bound'], 3)}, after overheads "
            f"{fmt.percent(v['mfu'], 3)}. Step {fmt.seconds(e['step'])} at the roofline; "
            f"fusions keep {fmt.capacity(saved)} off HBM per step. Memory "
            f"{fmt.capacity(m['total'])} per GPU of {data['hbm_label']}.")


def waterfall_text(v: dict) -> str:
    if not v["fits"]:
        return "Does not fit in memory: no time budget."
    lines = ["From 100% of peak:"]
    for t in v["terms"]:
        lines.append(f"{WATERFALL_SHORT[t['key']]}: −{fmt.num((t['before'] - t['after']) * 100, 3)}"
                     f" pt ({fmt.seconds(t['time'])})")
    lines.append(f"MFU estimate: {fmt.percent(v['mfu'], 3)}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the shared case file

def cases(n_random: int = 40) -> dict:
    """Inputs and Python results for budget.mjs's helpers (tests/cases/budget_cases.json)."""
    data = payload("h100-sxm", "bf16")
    lean = {k: v for k, v in data.items() if k != "combos"}
    # Through JSON, as the file holds it (tuples become lists).
    return json.loads(json.dumps({"payload": lean, "views": _view_cases(data, n_random),
                                  "reachable": _reachable_cases(data),
                                  "format": _format_cases()}))


def reachable_states():
    """Every state of the widget's controls that changes what a step holds: model, phase,
    batch, FlashAttention on/off and, for training, data-parallel GPUs, ZeRO stage and
    recomputation (the other fusions and the time knobs do not change memory)."""
    for model in default_models():
        for phase, batches in BATCHES.items():
            for batch in batches:
                for flash in (False, True):
                    if phase != "train":
                        yield {"model": model, "phase": phase, "batch": batch, "flash": flash,
                               "dp": 8, "zero": 0, "recompute": "none"}
                        continue
                    for dp in DP_OPTIONS:
                        for zero in ZERO_STAGES:
                            for recompute in RECOMPUTE:
                                yield {"model": model, "phase": phase, "batch": batch,
                                       "flash": flash, "dp": dp, "zero": zero,
                                       "recompute": recompute}


def _reachable_cases(data: dict) -> list[list]:
    """[model, phase, batch, flash, dp, zero, recompute, total bytes, fits] for every
    reachable state: budget_view.mjs must give every one the verdict roofline.model.memory gives."""
    out = []
    for s in reachable_states():
        st = {**s, "mask": mask_of({"flash"} if s["flash"] else ())}
        m = memory_of(data, st, s["zero"], s["recompute"])
        out.append([s["model"], s["phase"], s["batch"], s["flash"], s["dp"], s["zero"],
                    s["recompute"], m["total"], m["fits"]])
    return out


def _format_cases() -> list[dict]:
    values = [0.0, 3e-10, 4.2e-7, 5.02e-3, 0.0160259, 0.99, 1.0, 1.19, 12.5, 655.55, 1234.5,
              6.06664e10, 1.906636e12, 9.99e14, 2.5e15]
    fractions = [0.0, 0.001234, 0.0199715, 0.4466855, 0.643966, 0.9, 0.99949, 0.9996, 1.0]
    out = []
    for x in values:
        out.append({"fn": "seconds", "args": [x], "out": fmt.seconds(x)})
        out.append({"fn": "capacity", "args": [x], "out": fmt.capacity(x)})
        out.append({"fn": "num", "args": [x, 3], "out": fmt.num(x, 3)})
    for f in fractions:
        out.append({"fn": "percent", "args": [f, 3], "out": fmt.percent(f, 3)})
    return out


def _view_cases(data: dict, n_random: int) -> list[dict]:
    rng = random.Random(6)
    keys = sorted(data["combos"])
    d = Assumptions()
    states = [("llama-2-7b|train|4", 0, d.kernel_efficiency, d.launch_overhead_s, d.dp_degree,
               d.overlap_fraction, 0, "none"),
              ("llama-2-7b|train|4", 15, d.kernel_efficiency, d.launch_overhead_s, d.dp_degree,
               d.overlap_fraction, 1, "full"),
              ("llama-2-7b|train|1", 8, d.kernel_efficiency, d.launch_overhead_s, d.dp_degree,
               d.overlap_fraction, 3, "selective"),
              ("llama-2-7b|decode|32", 0, 1.0, 0.0, 1, 1.0, 0, "none")]
    for _ in range(n_random):
        states.append((rng.choice(keys), rng.randrange(16), round(rng.uniform(0.3, 1), 2),
                       round(rng.uniform(0, 50), 1) * 1e-6, rng.choice([1, 2, 8, 64, 512]),
                       round(rng.uniform(0, 1), 2), rng.choice(ZERO_STAGES),
                       rng.choice(RECOMPUTE)))
    out = []
    for key, mask, eff, launch_s, dp, overlap, zero, rec in states:
        mid, phase, batch = key.split("|")
        st = {"model": mid, "phase": phase, "batch": int(batch), "mask": mask,
              "efficiency": eff, "launch_s": launch_s, "dp": dp, "overlap": overlap,
              "zero": zero, "recompute": rec}
        e = data["combos"][key][mask]
        v = view(data, e, st)
        out.append({"state": st, "fusions": sorted(fusions_of(mask)),
                    "entry": {k: e[k] for k in ("ideal", "step", "launches", "roof", "fwd",
                                                 "saved")},
                    "expected": {**v, "bars": waterfall_bars(v), "text": waterfall_text(v),
                                 "readout": readout_text(data, e, v, mid, phase, int(batch))}})
    return out


def write_cases(path) -> None:
    """Regenerate the case file: python -c "from roofline.widgets.budget.payload import write_cases;
    write_cases('tests/cases/budget_cases.json')"."""
    Path(path).write_text(json.dumps(cases(), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")

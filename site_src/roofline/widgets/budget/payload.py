"""The budget widget's data, without Bokeh: every figure the page shows, computed here by the
model and sent precomputed; the JS (budget_view.mjs) only selects one setting's components and
sums them. Keys: `combos` (model|phase|batch × 16 fusion sets: ideal time, the components
WATERFALL_TERMS multiplies, class times, the layer's points), `shard` and `state` (model|phase
× data-parallel degree × ZeRO stage: what sharding changes, and {weights, gradients, optimizer}
bytes per GPU), `acts`, `kv` and `fix` (activations, KV cache, and what would make a step fit),
`knobs` (each slider position's factors) and `texts` (templates the JS fills). An inference
step is not sharded: its tables hold one degree, one stage and one recomputation choice.
"""

from __future__ import annotations

import functools

from roofline import fmt
from roofline.model.budget import CLASSES, FUSIONS, Assumptions, Budget, budget
from roofline.model.catalog import default_catalog
from roofline.model.example import EXAMPLE
from roofline.model.kernels import step_kernels
from roofline.model.memory import RECOMPUTE, ZERO_STAGES, Sharding
from roofline.model.transformer import PHASES, default_models
from roofline.model.waterfall import WATERFALL_TERMS

X_RANGE = (0.1, 10_000.0)
"""The roofline chart's AI range (FLOP/byte), live and static."""
# Plot titles as [does not fit, fits]: a step that does not fit says so over its empty plots.
TITLES = {"waterfall": ["Does not fit in memory: no time budget", "Share of step time, peak to MFU"],
          "classes": ["Does not fit in memory: no step time",
                      "Where the step's time goes, by op class"]}

BATCHES = {"train": (1, EXAMPLE.batch, 16), "prefill": (1, 8), "decode": (1, 32, 256)}
SEQ = {phase: EXAMPLE.seq for phase in PHASES}
CLASS_COLORS = {"gemm": "#0072b2", "attention": "#cc79a7", "norm": "#e69f00",
                "elementwise": "#d55e00", "softmax": "#009e73", "embedding": "#7a8290",
                "optimizer": "#56b4e9"}
WATERFALL_ROWS = ("peak", *(key for key, _ in WATERFALL_TERMS), "mfu")
WATERFALL_SHORT = {"peak": "100 % of peak", "memory": "memory-bound ops",
                   "attention": "attention", "gemm": "GEMMs off the roof",
                   "recompute": "recomputation", "efficiency": "GEMMs at ceiling",
                   "launch": "launch overhead", "communication": "exposed all-reduce",
                   "mfu": "= MFU estimate"}
KNOBS = {"efficiency": (0.3, 1.0, 0.05), "launch_us": (0.0, 50.0, 0.5), "overlap": (0.0, 1.0, 0.05)}
"""(lowest, highest, step) of each slider: the JS snaps a value to a step and looks it up."""
LIMITS = {**{k: (lo, hi) for k, (lo, hi, _) in KNOBS.items()}, "dp": (1, 1024)}
DP_OPTIONS = tuple(2 ** i for i in range(11))  # 1 … 1,024 GPUs
CONTROLS_HEIGHT_PX = 600  # selects, checkboxes, knobs (two rows on a phone), readout, text
SHARD_KEYS = ("optimizer", "communication")
"""The components of WATERFALL_TERMS that the data-parallel degree and the ZeRO stage set."""
STEP_PARTS = ("pass", "optimizer", "recompute")
"""The components that add up to the step's roofline time (Budget.step_time_s): the MFU
bound is the ideal time over their sum."""
CLASS_PARTS = {"optimizer": "optimizer"}
"""A class whose time per step is a sharded component (ZeRO shards the optimizer's work)."""
LOSS_COLOR, FINAL_COLOR, PEAK_COLOR = "#d1352b", "#2e9e48", "#7a8290"
WATERFALL_LABEL_ROOM = 28
"""Room (in % of peak, of the waterfall axis's 0-119) a "−22.7 pt" label needs in a phone's
~240 px frame; a label given less would be cut by the frame (the layout gate's live check).
budget_view.mjs places the labels (the one copy of that rule) from this and WATERFALL_END."""
WATERFALL_END = 119
"""The waterfall axis's end: room right of 100 % for the peak row's "100%" in a phone's 227 px
frame (the budget's plots share their frames' edges, and the roofline's keeps 32 px right of
its frame for its last tick); its ticks still end at 100."""
TEXTS = {
    # {name:format}: format.mjs's percent (3 digits), seconds, capacity, num (3 digits), or text.
    # One line each (the readout keeps line breaks): the setting, the MFU, the time, memory.
    "fits": "{what}\nMFU upper bound {bound:percent}, after overheads {mfu:percent}\n"
            "Step {step:seconds} at the roofline; fusions keep {saved:capacity} off HBM per "
            "step\nMemory {total:capacity} per GPU of {hbm:text}",
    "misfit": "Does not fit: {what:text} needs {total:capacity} per GPU, {overflow:capacity} "
              "more than its {hbm:text}. {fix:text} No time is shown for a step that cannot "
              "run.",
    # Each bar is a leak's share of step time (its seconds ÷ the step's), in points of peak;
    # not the points of MFU removing it would recover (roofline.model.leaks names both).
    "wf_head": "From 100% of peak, each cause's share of step time:",
    "wf_line": "{label:text}: {drop:num}% of step time ({time:seconds})",
    "wf_foot": "MFU estimate: {mfu:percent}",
    "wf_misfit": "Does not fit in memory: no time budget.",
    "bar_drop": "−{drop:num} pt", "bar_none": "0 pt", "bar_peak": "100%",
    "bar_mfu": "{mfu:percent}", "bar_misfit": "the step does not fit: {overflow:capacity} over",
    "class_none": "—",
    "class_misfit": "no step time: it cannot run",
}
RECOMPUTE_WORDS = {"none": "no recomputation", "selective": "selective recomputation",
                   "full": "full recomputation"}


def mask_of(fusions) -> int:
    """Fusion set -> index 0..15 of the precomputed combinations (bit i = FUSIONS[i])."""
    return sum(1 << i for i, f in enumerate(FUSIONS) if f in fusions)


def fusions_of(mask: int) -> frozenset[str]:
    return frozenset(f for i, f in enumerate(FUSIONS) if mask >> i & 1)


def knob_values(name: str, extra: float | None = None) -> list[float]:
    """A slider's positions: its steps, and `extra` (the chip's measured GEMM efficiency, the
    slider's first value, which need not fall on a step) in order among them."""
    lo, hi, step = KNOBS[name]
    values = [round(lo + i * step, 10) for i in range(round((hi - lo) / step) + 1)]
    return sorted({*values, extra}) if extra is not None else values


def knob_tables(efficiency: float | None = None) -> dict:
    """Each slider's factors of WATERFALL_TERMS, per slider position (model.waterfall's
    knob_factors, evaluated at each); `efficiency`: the chip's measured GEMM efficiency, a
    position of its own so that the opening view is the model's figure, not the nearest step."""
    from roofline.model.waterfall import knob_factors
    factors = {"efficiency": ("waste", lambda v: Assumptions(kernel_efficiency=v)),
               "launch_us": ("launch_s", lambda v: Assumptions(launch_overhead_s=v * 1e-6)),
               "overlap": ("exposed", lambda v: Assumptions(overlap_fraction=v))}
    out = {}
    for name, (factor, make) in factors.items():
        values = knob_values(name, efficiency if name == "efficiency" else None)
        out[name] = {"values": values, "factor": factor,
                     "table": [knob_factors(make(v))[factor] for v in values]}
    return out


# ---------------------------------------------------------------- the embedded data

def fix_sentence(bg: Budget) -> str:
    """What would make a step that does not fit fit, in the readout's words."""
    m = bg.memory
    if bg.phase != "train":
        if m.weights > m.capacity:
            return (f"The weights alone are {fmt.capacity(m.weights)}: they need tensor "
                    "parallelism over more GPUs.")
        return (f"The KV cache is {fmt.capacity(m.kv_cache)}: a smaller batch or a shorter "
                "context would fit.")
    fix = bg.fitting_sharding()
    if fix is None:
        return ("No ZeRO stage or recomputation fits it on these GPUs: it needs more GPUs or "
                "model parallelism.")
    words = RECOMPUTE_WORDS[fix.recompute]
    return (f"ZeRO-{fix.zero_stage} with {words} would fit." if fix.zero_stage else
            f"{words[0].upper()}{words[1:]} would fit.")


def _choices(phase: str):
    """The (degrees, stages, recomputations) a phase's step is priced for."""
    if phase == "train":
        return DP_OPTIONS, ZERO_STAGES, RECOMPUTE
    return (1,), (0,), ("none",)


def entry(runs: list[Budget]) -> dict:
    """One model|phase|batch × fusion set, from its budgets per recomputation choice: the
    components WATERFALL_TERMS takes (recomputation's per choice; the sharded ones are in
    `shard`), and display figures to 6 significant digits."""
    bg = runs[0]
    # The runs share their kernels: only recomputation differs between them.
    comps = [bg.components()] + [{k: r.components()[k] for k in
                                  ("recompute", "recompute_gemm", "recompute_launches")}
                                 for r in runs[1:]]
    c = {k: fmt.sig(v, 12) for k, v in comps[0].items()}
    classes = bg.by_class()
    # The optimizer's time is sharded: the JS adds CLASS_PARTS' component to its bar.
    classes["optimizer"]["time_s"] = 0.0
    xs = [k.intensity_flops_per_byte for _, _, k in bg.layer_map]
    peak, bw = bg.peak_flops_per_s, bg.bandwidth_bytes_per_s
    return {
        "ideal": fmt.sig(bg.ideal_time_s, 12),
        "c": {**{k: c[k] for k in ("memory", "attention", "gemm", "pass", "gemm_pass",
                                   "launches")},
              "recompute": [fmt.sig(x["recompute"], 12) for x in comps],
              "recompute_gemm": [fmt.sig(x["recompute_gemm"], 12) for x in comps],
              "recompute_launches": [x["recompute_launches"] for x in comps]},
        "classes": [fmt.sig(classes[cl]["time_s"], 6) for cl in CLASSES],
        "saved": fmt.sig(sum(bg.bytes_saved().values()), 6),
        "x": [fmt.sig(x, 5) for x in xs],
        "y": [fmt.sig(min(peak, x * bw) / 1e12, 5) for x in xs],
    }


def payload(hardware: str, precision: str, url_state: bool = True,
            only: tuple[str, str, int] | None = None) -> dict:
    """Every setting the page can show, for one chip and precision; `only` (model, phase,
    batch): that one's figures alone, in the same places (what the static first frame draws:
    the live widget's payload has them all). Cached per version of the data files it reads
    (catalog, precisions, models, overhead), so `mkdocs serve` recomputes it when one
    changes."""
    from roofline.model import datafile as _toml, launch
    from roofline.model.ceilings import ceilings_path
    path = default_catalog().path
    files = (path, path.parent / "precisions.toml", _toml.DATA_DIR / "precisions.toml",
             _toml.DATA_DIR / "models.toml", launch.OVERHEAD_PATH, ceilings_path())
    return _payload(hardware, precision, url_state, tuple(_toml.file_key(f) for f in files),
                    only)


@functools.lru_cache(maxsize=4)
def _payload(hardware: str, precision: str, url_state: bool,
             data_version: tuple[tuple[str, int, int], ...],
             only: tuple[str, str, int] | None = None) -> dict:
    catalog = default_catalog()
    hw = catalog[hardware]
    bytes_per_element = catalog.precision(precision).bytes_per_element
    models = default_models()
    label = catalog.precision(precision).label

    # Memos for this payload only: the memory and fix sentences ask for steps the rows made,
    # and a step's kernels do not depend on the recomputation choice (kernels are frozen).
    made: dict[tuple, Budget] = {}
    kernels = functools.lru_cache(maxsize=None)(functools.partial(step_kernels, memo={}))

    def run(cfg, phase, batch, mask=0, dp=EXAMPLE.dp_degree, zero=0, recompute="none"):
        key = (cfg.name, phase, batch, mask, dp, zero, recompute)
        if key not in made:
            made[key] = budget(cfg, phase, batch, SEQ[phase], hw, precision, bytes_per_element,
                               fusions_of(mask), Assumptions(dp_degree=dp),
                               Sharding(zero, recompute), kernels_of=kernels)
        return made[key]

    combos, acts, kv, fix, what, shard, state = {}, {}, {}, {}, {}, {}, {}
    sentences: list[str] = []

    def sentence(text: str) -> int:
        """Index of a fix sentence in `fix_texts` (many settings share one)."""
        if text not in sentences:
            sentences.append(text)
        return sentences.index(text)

    layer_ops: list[tuple[str, str]] = []
    for mid, cfg in models.items():
        for phase in PHASES:
            if only is not None and (mid, phase) != only[:2]:
                continue
            dps, zeros, recomputes = _choices(phase)
            sharded = [[run(cfg, phase, 1, dp=dp, zero=z) for z in zeros] for dp in dps]
            shard[f"{mid}|{phase}"] = [[[fmt.sig(r.components()[k], 12) for k in SHARD_KEYS]
                                        for r in row] for row in sharded]
            state[f"{mid}|{phase}"] = [[{"weights": r.memory.weights,
                                         "gradients": r.memory.gradients,
                                         "optimizer": r.memory.optimizer} for r in row]
                                       for row in sharded]
            for batch in BATCHES[phase]:
                if only is not None and batch != only[2]:
                    continue
                key = f"{mid}|{phase}|{batch}"
                rows = []
                for mask in range(1 << len(FUSIONS)):
                    runs = [run(cfg, phase, batch, mask, recompute=r) for r in recomputes]
                    rows.append(entry(runs))
                    layer_ops = [(n, c) for n, c, _ in runs[0].layer_map]
                combos[key] = rows
                flash = (0, mask_of({"flash"}))
                acts[key] = [[run(cfg, phase, batch, m, recompute=r).memory.activations
                              for r in recomputes] for m in flash]
                kv[key] = run(cfg, phase, batch).memory.kv_cache
                fix[key] = [[sentence(fix_sentence(run(cfg, phase, batch, m, dp=dp)))
                             for dp in dps] for m in flash]
                what[key] = (f"{cfg.name}, {phase}, batch {batch} × {SEQ[phase]} on {hw.name} "
                             f"({label})")
    probe = run(next(iter(models.values())), "train", 1)  # the chip's figures, any step
    capacity = probe.capacity_bytes
    built = hw.hbm.capacity_bytes
    return {
        "hardware": hw.name, "precision": precision, "precision_label": label,
        "peak": hw.peak_flops_per_s(precision), "bw": hw.hbm_bandwidth_bytes_per_s,
        "hbm": capacity, "efficiency": probe.gemm_efficiency,
        "hbm_label": (f"{fmt.memory_and_bytes(built)} HBM" if capacity == built else
                      f"{fmt.capacity(capacity)} usable ({fmt.memory(built)} HBM)"),
        "models": {mid: {"name": cfg.name} for mid, cfg in models.items()},
        "phases": list(PHASES), "sharded": {p: p == "train" for p in PHASES},
        "batches": {p: list(v) for p, v in BATCHES.items()},
        "seq": SEQ, "fusions": list(FUSIONS), "classes": list(CLASSES),
        "ops": [n for n, _ in layer_ops], "op_classes": [c for _, c in layer_ops],
        "colors": CLASS_COLORS, "rows": list(WATERFALL_ROWS), "labels": WATERFALL_SHORT,
        "bar_colors": {"loss": LOSS_COLOR, "mfu": FINAL_COLOR, "peak": PEAK_COLOR},
        "wf_end": WATERFALL_END, "label_room": WATERFALL_LABEL_ROOM,
        "recompute": list(RECOMPUTE), "zero": list(ZERO_STAGES),
        "limits": LIMITS, "dp_options": list(DP_OPTIONS), "url": url_state,
        "terms": [[key, [list(p) for p in parts]] for key, parts in WATERFALL_TERMS],
        "knobs": knob_tables(probe.gemm_efficiency), "shard_keys": list(SHARD_KEYS), "texts": TEXTS,
        "combos": combos, "shard": shard, "state": state, "acts": acts, "kv": kv,
        "fix": fix, "fix_texts": sentences, "what": what, "class_parts": CLASS_PARTS,
        "step_parts": list(STEP_PARTS),
    }

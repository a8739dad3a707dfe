""""Where the 50 % goes": the step time budget as an interactive Bokeh layout.

Python computes every model/phase/batch × the 16 fusion combinations (roofline.budget) and
embeds them; plot/js/budget.mjs only selects one and does the small overhead arithmetic
(kernel efficiency, launch overhead, exposed all-reduce) and the waterfall, the same arithmetic
as roofline.budget, checked against tests/cases/budget_cases.json.

Bokeh model names (for a host page or a test): `budget-model`, `budget-phase`, `budget-batch`,
`budget-fusions` (CheckboxGroup, bit i = roofline.budget.FUSIONS[i]), `budget-efficiency`,
`budget-launch` (µs), `budget-dp`, `budget-overlap`, `budget-readout`, `budget-waterfall-text`,
figures `budget-classes`, `budget-waterfall`, `budget-roofline`, sources `budget-class-bars`,
`budget-waterfall-bars`, `budget-points`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import (CheckboxGroup, ColumnDataSource, CustomJS, Div, FactorRange,
                          InlineStyleSheet, LabelSet, NumeralTickFormatter, Range1d, Select,
                          Slider)
from bokeh.plotting import figure as bokeh_figure

from .. import fmt
from ..budget import (CLASSES, FUSION_LABELS, FUSIONS, Assumptions, Budget, budget,
                      waterfall_terms)
from ..catalog import Catalog, default_catalog
from ..errors import RooflineError, unknown_id
from ..transformer import PHASES, default_models

JS = Path(__file__).parent / "js" / "budget.mjs"
BATCHES = {"train": (1, 4, 16), "prefill": (1, 8), "decode": (1, 32, 256)}
SEQ = {"train": 4096, "prefill": 4096, "decode": 4096}
CLASS_COLORS = {"gemm": "#0072b2", "attention": "#cc79a7", "norm": "#e69f00",
                "elementwise": "#d55e00", "softmax": "#009e73", "embedding": "#7a8290",
                "optimizer": "#56b4e9"}
LOSS_COLOR, BOUND_COLOR, FINAL_COLOR, PEAK_COLOR = "#d1352b", "#2f7fd8", "#2e9e48", "#7a8290"
WATERFALL_ROWS = ("peak", "memory", "attention", "gemm", "bound", "efficiency", "launch",
                  "communication", "mfu")
WATERFALL_SHORT = {"peak": "100 % of peak", "memory": "memory-bound ops",
                   "attention": "attention", "gemm": "GEMMs off the roof",
                   "bound": "= roofline MFU bound", "efficiency": "kernels below roof",
                   "launch": "launch overhead", "communication": "exposed all-reduce",
                   "mfu": "= MFU estimate"}
X_RANGE = (0.1, 10_000.0)
LIMITS = {"efficiency": (0.3, 1.0), "launch_us": (0.0, 50.0), "dp": (1, 1024),
          "overlap": (0.0, 1.0)}
DP_OPTIONS = tuple(2 ** i for i in range(11))  # 1 … 1,024 GPUs

_WIDGET_CSS_TEXT = """
:host { --background-color: var(--md-default-bg-color, #fff);
        color: var(--md-default-fg-color, inherit); }
.bk-input { color: inherit; background-color: var(--md-default-bg-color, #fff);
            border-color: var(--md-default-fg-color--lighter, #bbb); }
"""


@dataclass(frozen=True)
class Options:
    """Validated options (the ```roofline-budget fence's keys)."""
    model: str = "llama-2-7b"
    phase: str = "train"
    batch: int = 4
    fusions: tuple[str, ...] = ()
    hardware: str = "h100-sxm"
    precision: str = "bf16"
    height: int = 300
    url_state: bool = True


def validate(opts: Options, catalog: Catalog) -> Options:
    models = default_models()
    if opts.model not in models:
        raise unknown_id("model", opts.model, list(models))
    if opts.phase not in PHASES:
        raise unknown_id("phase", opts.phase, list(PHASES))
    if opts.batch not in BATCHES[opts.phase]:
        raise RooflineError(f"batch for {opts.phase} must be one of "
                            f"{', '.join(map(str, BATCHES[opts.phase]))}, got {opts.batch!r}",
                            field="batch")
    for f in opts.fusions:
        if f not in FUSIONS:
            raise unknown_id("fusion", f, list(FUSIONS), field="fusions")
    catalog[opts.hardware].peak(opts.precision)
    if not (isinstance(opts.height, int) and 200 <= opts.height <= 800):
        raise RooflineError(f"height must be an integer from 200 to 800 (pixels), "
                            f"got {opts.height!r}", field="height")
    return opts


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
    return {
        "ideal": bg.ideal_time_s, "step": bg.step_time_s, "launches": bg.launches,
        "roof": [terms["memory"], terms["attention"], terms["gemm"]],
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
    from .. import _toml
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
        "link": ({"name": link.name, "bw": link.bandwidth_bytes_per_s}
                 if link and link.bandwidth_bytes_per_s else None),
        "models": {mid: {"name": cfg.name, "params": cfg.params} for mid, cfg in models.items()},
        "phases": list(PHASES), "batches": {p: list(v) for p, v in BATCHES.items()},
        "seq": SEQ, "fusions": list(FUSIONS), "classes": list(CLASSES),
        "ops": [n for n, _ in layer_ops], "op_classes": [c for _, c in layer_ops],
        "colors": CLASS_COLORS, "rows": list(WATERFALL_ROWS), "labels": WATERFALL_SHORT,
        "grad_bytes_per_element": defaults.grad_bytes_per_element,
        "limits": LIMITS, "dp_options": list(DP_OPTIONS), "url": url_state, "combos": combos,
    }


# ---------------------------------------------------------------- the maths both sides share

def allreduce_time(params: float, grad_bytes_per_element: float, dp: int,
                   link_bw: float | None) -> float:
    if dp <= 1 or not link_bw:
        return 0.0
    return 2 * (dp - 1) / dp * params * grad_bytes_per_element / link_bw


def view(data: dict, e: dict, model: str, phase: str, efficiency: float, launch_s: float,
         dp: int, overlap: float) -> dict:
    """The numbers one state of the page shows (mirrors budgetView in budget.mjs)."""
    link_bw = data["link"]["bw"] if data["link"] else None
    ar = (allreduce_time(data["models"][model]["params"], data["grad_bytes_per_element"], dp,
                         link_bw) if phase == "train" else 0.0)
    times = [("memory", e["roof"][0]), ("attention", e["roof"][1]), ("gemm", e["roof"][2]),
             ("efficiency", e["step"] * (1 / efficiency - 1)),
             ("launch", e["launches"] * launch_s), ("communication", (1 - overlap) * ar)]
    terms = waterfall_terms(e["ideal"], times)
    return {"terms": [{"key": t.key, "time": t.time_s, "before": t.level_before,
                       "after": t.level_after} for t in terms],
            "bound": terms[2].level_after, "mfu": terms[-1].level_after, "allreduce": ar}


def waterfall_bars(v: dict) -> dict:
    """Horizontal waterfall rows in percent: peak, each drop, the bound, the final MFU."""
    terms = {t["key"]: t for t in v["terms"]}
    left, right, color, text, tx, align, dx = [], [], [], [], [], [], []
    for key in WATERFALL_ROWS:
        if key == "peak":
            lo, hi, c, label = 0.0, 100.0, PEAK_COLOR, "100%"
        elif key == "bound":
            lo, hi, c, label = 0.0, v["bound"] * 100, BOUND_COLOR, fmt.percent(v["bound"], 3)
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
        # A drop's label sits left of it (there is room there even on a phone); a level's
        # label sits right of its bar.
        drop = c == LOSS_COLOR
        tx.append(lo if drop else hi)
        align.append("right" if drop else "left")
        dx.append(-4 if drop else 4)
    return {"row": [WATERFALL_SHORT[k] for k in WATERFALL_ROWS], "left": left, "right": right,
            "color": color, "text": text, "tx": tx, "align": align, "dx": dx}


def readout_text(data: dict, e: dict, v: dict, model: str, phase: str, batch: int) -> str:
    saved = sum(e["saved"])
    return (f"{data['models'][model]['name']}, {phase}, batch {batch} × {data['seq'][phase]} "
            f"on {data['hardware']} ({data['precision_label']}): MFU upper bound "
            f"{fmt.percent(v['bound'], 3)}, after overheads {fmt.percent(v['mfu'], 3)}. "
            f"Step {fmt.seconds(e['step'])} at the roofline; fusions keep "
            f"{fmt.capacity(saved)} off HBM per step.")


def waterfall_text(v: dict) -> str:
    lines = ["From 100% of peak:"]
    for t in v["terms"]:
        lines.append(f"{WATERFALL_SHORT[t['key']]}: −{fmt.num((t['before'] - t['after']) * 100, 3)}"
                     f" pt ({fmt.seconds(t['time'])})")
    lines.append(f"MFU estimate: {fmt.percent(v['mfu'], 3)}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the layout

def figure(*, model: str = "llama-2-7b", phase: str = "train", batch: int = 4,
           fusions: list[str] | tuple[str, ...] = (), hardware: str = "h100-sxm",
           precision: str = "bf16", height: int = 300, url_state: bool = True,
           catalog: Catalog | None = None):
    """The interactive budget as a Bokeh layout (`bokeh.io.show(figure())` works)."""
    catalog = catalog or default_catalog()
    opts = validate(Options(model, phase, batch, tuple(fusions), hardware, precision, height,
                            url_state), catalog)
    data = payload(opts.hardware, opts.precision, opts.url_state)
    return _build(opts, data)


def _build(opts: Options, data: dict):
    # Style sheets are models too: a fresh one per layout, as a model joins only one document.
    css = InlineStyleSheet(css=_WIDGET_CSS_TEXT)
    defaults = Assumptions()
    key = f"{opts.model}|{opts.phase}|{opts.batch}"
    mask = mask_of(opts.fusions)
    e, base = data["combos"][key][mask], data["combos"][key][0]
    v = view(data, e, opts.model, opts.phase, defaults.kernel_efficiency,
             defaults.launch_overhead_s, defaults.dp_degree, defaults.overlap_fraction)

    model = Select(name="budget-model", title="Model", value=opts.model,
                   options=[(k, m["name"]) for k, m in data["models"].items()], width=170,
                   stylesheets=[css])
    phase = Select(name="budget-phase", title="Phase", value=opts.phase,
                   options=[("train", "training step"), ("prefill", "prefill"),
                            ("decode", "decode (one token)")], width=170,
                   stylesheets=[css])
    batch = Select(name="budget-batch", title=f"Batch (× {SEQ[opts.phase]:,} tokens)",
                   value=str(opts.batch), options=[str(b) for b in BATCHES[opts.phase]],
                   width=170, stylesheets=[css])
    fusion_box = CheckboxGroup(name="budget-fusions",
                               labels=[FUSION_LABELS[f] for f in FUSIONS],
                               active=[i for i, f in enumerate(FUSIONS) if f in opts.fusions],
                               stylesheets=[css])
    # Sliders and a select: keyboard-operable, and named for assistive technology (the
    # loader names slider handles after their titles); a spinner's buttons have no names.
    efficiency = Slider(name="budget-efficiency", title="Kernel efficiency",
                        start=LIMITS["efficiency"][0], end=LIMITS["efficiency"][1], step=0.05,
                        value=defaults.kernel_efficiency, format="0%", width=170,
                        stylesheets=[css])
    launch = Slider(name="budget-launch", title="Launch overhead (µs)",
                    start=LIMITS["launch_us"][0], end=LIMITS["launch_us"][1], step=0.5,
                    value=defaults.launch_overhead_s * 1e6, format="0.0", width=170,
                    stylesheets=[css])
    dp = Select(name="budget-dp", title="Data-parallel GPUs", value=str(defaults.dp_degree),
                options=[str(n) for n in DP_OPTIONS], width=140, stylesheets=[css])
    overlap = Slider(name="budget-overlap", title="All-reduce overlap",
                     start=0, end=1, step=0.05, value=defaults.overlap_fraction,
                     format="0%", width=170, stylesheets=[css])

    readout = Div(name="budget-readout", text=readout_text(data, e, v, opts.model, opts.phase,
                                                           opts.batch),
                  render_as_text=True, sizing_mode="stretch_width",
                  html_attributes={"aria-live": "polite", "role": "status"})
    wf_text = Div(name="budget-waterfall-text", text=waterfall_text(v), render_as_text=True,
                  sizing_mode="stretch_width", stylesheets=[InlineStyleSheet(css=":host { white-space: pre-line; }")])

    # -- per-class time bars: now (solid) over unfused (ghost)
    class_src = ColumnDataSource(name="budget-class-bars", data=_class_bars(data, e, base))
    classes = bokeh_figure(name="budget-classes", y_range=FactorRange(*reversed(CLASSES)),
                           height=opts.height - 40, sizing_mode="stretch_width", min_width=280,
                           toolbar_location=None, tools="", x_axis_label="time per step (ms)",
                           title="Where the step's time goes, by op class")
    classes.hbar(y="cls", right="ghost", height=0.7, source=class_src, fill_color="color",
                 fill_alpha=0.22, line_color="color", line_alpha=0.5)
    classes.hbar(y="cls", right="ms", height=0.45, source=class_src, fill_color="color",
                 line_color=None)
    classes.add_layout(LabelSet(x="tx", y="cls", text="text", source=class_src, x_offset=4,
                                text_font_size="11px", text_baseline="middle", tags=["ink"]))
    classes.x_range.start = 0
    classes.x_range.range_padding = 0.4
    classes.xaxis.formatter = NumeralTickFormatter(format="0,0.[0]")
    classes.ygrid.grid_line_color = None

    # -- the waterfall
    wf_src = ColumnDataSource(name="budget-waterfall-bars", data=waterfall_bars(v))
    rows = [WATERFALL_SHORT[k] for k in WATERFALL_ROWS]
    wf = bokeh_figure(name="budget-waterfall", y_range=FactorRange(*reversed(rows)),
                      x_range=Range1d(0, 116), height=opts.height, sizing_mode="stretch_width",
                      min_width=280, toolbar_location=None, tools="",
                      x_axis_label="% of peak FLOP/s", title="From 100 % of peak to MFU")
    wf.hbar(y="row", left="left", right="right", height=0.6, source=wf_src, fill_color="color",
            line_color=None)
    wf.add_layout(LabelSet(x="tx", y="row", text="text", source=wf_src, x_offset="dx",
                           text_align="align", text_font_size="11px", text_baseline="middle",
                           tags=["ink"]))
    wf.ygrid.grid_line_color = None

    # -- the layer's ops on the roofline
    pts_src = ColumnDataSource(name="budget-points", data=_points(data, e))
    peak, bw = data["peak"], data["bw"]
    x0, x1 = X_RANGE
    rf = bokeh_figure(name="budget-roofline", x_axis_type="log", y_axis_type="log",
                      x_range=Range1d(x0, x1), y_range=Range1d(x0 * bw / 1e12 / 2,
                                                               peak / 1e12 * 3),
                      height=opts.height + 60, sizing_mode="stretch_width", min_width=280,
                      toolbar_location=None, tools="", x_axis_label="arithmetic intensity "
                      "of the kernel each op runs in (FLOP/byte)",
                      y_axis_label="attainable (TFLOP/s)",
                      title="One layer's forward ops on the roofline")
    r = peak / bw
    rf.line([x0, r, x1], [x0 * bw / 1e12, peak / 1e12, peak / 1e12], line_color=BOUND_COLOR,
            line_width=3)
    rf.scatter("x", "y", source=pts_src, size=9, fill_color="color", line_color="#ffffff",
               line_width=1)
    rf.add_layout(LabelSet(x="x", y="y", text="text", source=pts_src, x_offset="dx",
                           y_offset="dy", text_align="align", text_font_size="10px",
                           text_baseline="middle", tags=["ink-muted"]))
    rf.xaxis.formatter = NumeralTickFormatter(format="0,0.[0]")
    rf.yaxis.formatter = NumeralTickFormatter(format="0,0.[0]")

    callback = CustomJS.from_file(
        JS, payload=data, model=model, phase=phase, batch=batch, fusions=fusion_box,
        efficiency=efficiency, launch=launch, dp=dp, overlap=overlap, readout=readout,
        wf_text=wf_text, classes=class_src, waterfall=wf_src, points=pts_src,
        axes=[wf.yaxis[0], classes.yaxis[0]])
    for w in (model, phase, batch, efficiency, launch, dp, overlap):
        w.js_on_change("value", callback)
    fusion_box.js_on_change("active", callback)

    flex = {"flex-wrap": "wrap", "gap": "0 12px"}
    selects = row(model, phase, batch, sizing_mode="stretch_width", styles=flex)
    knobs = row(efficiency, launch, dp, overlap, sizing_mode="stretch_width", styles=flex)
    fusion_title = Div(text="Fuse:", styles={"font-weight": "600"})
    layout = column(selects, fusion_title, fusion_box, knobs, readout, wf, classes, rf, wf_text,
                    sizing_mode="stretch_width", name="budget-widget")
    doc = Document()
    doc.add_root(layout)
    doc.js_on_event("document_ready", callback)
    return layout


def _class_bars(data: dict, e: dict, base: dict) -> dict:
    ms = [t * 1e3 for t in e["classes"]]
    ghost = [t * 1e3 for t in base["classes"]]
    return {"cls": data["classes"], "ms": ms, "ghost": ghost,
            "color": [CLASS_COLORS[c] for c in data["classes"]],
            "tx": [max(a, b) for a, b in zip(ms, ghost)],
            "text": [fmt.seconds(t) if t else "—" for t in e["classes"]]}


def _points(data: dict, e: dict) -> dict:
    peak, bw = data["peak"], data["bw"]
    # Points right of the ridge label leftwards, so the names stay inside a narrow plot.
    right = [x > peak / bw for x in e["x"]]
    return {"x": e["x"], "y": [min(peak, x * bw) / 1e12 for x in e["x"]], "dy": e["dy"],
            "text": data["ops"], "color": [CLASS_COLORS[c] for c in data["op_classes"]],
            "align": ["right" if r else "left" for r in right],
            "dx": [-7 if r else 7 for r in right]}


# ---------------------------------------------------------------- the shared case file

def cases(n_random: int = 40) -> dict:
    """Inputs and Python results for budget.mjs's helpers (tests/cases/budget_cases.json)."""
    return {"views": _view_cases(n_random), "format": _format_cases()}


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


def _view_cases(n_random: int) -> list[dict]:
    import random
    rng = random.Random(6)
    data = payload("h100-sxm", "bf16")
    out = []
    keys = sorted(data["combos"])
    states = [("llama-2-7b|train|4", 0, 0.7, 4e-6, 8, 0.8),
              ("llama-2-7b|train|4", 15, 0.7, 4e-6, 8, 0.8),
              ("llama-2-7b|decode|32", 0, 1.0, 0.0, 1, 1.0)]
    for _ in range(n_random):
        states.append((rng.choice(keys), rng.randrange(16), round(rng.uniform(0.3, 1), 2),
                       round(rng.uniform(0, 50), 1) * 1e-6, rng.choice([1, 2, 8, 64, 512]),
                       round(rng.uniform(0, 1), 2)))
    for key, mask, eff, launch_s, dp, overlap in states:
        mid, phase, batch = key.split("|")
        e = data["combos"][key][mask]
        v = view(data, e, mid, phase, eff, launch_s, dp, overlap)
        out.append({"model": mid, "phase": phase, "batch": int(batch),
                    "fusions": sorted(fusions_of(mask)), "mask": mask,
                    "assumptions": {"kernel_efficiency": eff, "launch_overhead_s": launch_s,
                                    "dp_degree": dp, "overlap_fraction": overlap},
                    "params": data["models"][mid]["params"],
                    "grad_bytes_per_element": data["grad_bytes_per_element"],
                    "link_bw": data["link"]["bw"],
                    "entry": {k: e[k] for k in ("ideal", "step", "launches", "roof")},
                    "expected": {"terms": v["terms"], "bound": v["bound"], "mfu": v["mfu"],
                                 "allreduce": v["allreduce"],
                                 "bars": waterfall_bars(v), "text": waterfall_text(v)}})
    return out


def write_cases(path) -> None:
    """Regenerate the case file: python -c "from roofline.plot.budget import write_cases;
    write_cases('tests/cases/budget_cases.json')"."""
    import json
    Path(path).write_text(json.dumps(cases(), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")


# ---------------------------------------------------------------- the fences

FENCE_OPTIONS = {"model": str, "phase": str, "batch": int, "fuse": list, "hardware": str,
                 "precision": str, "height": int, "url": bool}
TABLE_OPTIONS = {"table": str, "model": str, "batch": int, "hardware": str, "precision": str}
CONTROLS_HEIGHT_PX = 560  # selects, checkboxes, knobs (two rows on a phone), readout, text


def _fence_error(fences, language: str, source: str, opts: dict, exc: RooflineError):
    key = exc.field.split(".")[0] if exc.field else None
    key = {"fusions": "fuse", "fusion": "fuse"}.get(key, key)
    message = exc.detail + (f" (valid: {', '.join(exc.valid)})" if exc.valid else "")
    return fences.fail(language, source, message, key if key in opts else None)


def budget_fence(source: str, language: str, class_name: str, options_: dict, md,
                 **kwargs) -> str:
    """```roofline-budget: the interactive time budget (options: FENCE_OPTIONS)."""
    from .. import fences
    from .embed import block

    language = language or "roofline-budget"
    opts = fences.options(source, fence=language, allowed=FENCE_OPTIONS)
    if "fuse" in opts and not all(isinstance(v, str) for v in opts["fuse"]):
        raise fences.fail(language, source, f"expected a list of fusions, got {opts['fuse']!r}",
                          "fuse")
    kw = {k: v for k, v in opts.items() if k not in ("fuse", "url")}
    kw["fusions"] = opts.get("fuse", [])
    kw["url_state"] = opts.get("url", True)
    try:
        layout = figure(**kw)
    except RooflineError as exc:
        raise _fence_error(fences, language, source, opts, exc) from None
    height = opts.get("height", Options.height)
    return block(layout, height_px=3 * height + CONTROLS_HEIGHT_PX,
                 label="Where the step's time goes: interactive time budget and MFU waterfall")


def budget_table_fence(source: str, language: str, class_name: str, options_: dict, md,
                       **kwargs) -> str:
    """```roofline-budget-table: a static table of budget figures (the text alternative).
    table: configs (train/prefill/decode, unfused, FlashAttention only, all fused), fusions
    (bytes each fusion keeps off HBM in a training step) or ceilings (the chip's roofs and
    diagonals with their sources)."""
    import markdown as _markdown

    from .. import fences
    language = language or "roofline-budget-table"
    opts = fences.options(source, fence=language, allowed=TABLE_OPTIONS)
    try:
        table = summary_table(opts.get("table", "configs"), model=opts.get("model", "llama-2-7b"),
                              batch=opts.get("batch", 4), hardware=opts.get("hardware", "h100-sxm"),
                              precision=opts.get("precision", "bf16"))
    except RooflineError as exc:
        raise _fence_error(fences, language, source, opts, exc) from None
    return _markdown.markdown(table.as_markdown(), extensions=["tables"])


def summary_table(kind: str, *, model: str = "llama-2-7b", batch: int = 4,
                  hardware: str = "h100-sxm", precision: str = "bf16"):
    """The budget's headline figures as a Table value (Markdown/CSV/JSON alike)."""
    from ..render.table import Column, Table
    from ..transformer import get_model

    catalog = default_catalog()
    hw = catalog[hardware]
    b = catalog.precision(precision).bytes_per_element
    cfg = get_model(model)
    if not (isinstance(batch, int) and batch > 0):
        raise RooflineError(f"must be a positive integer, got {batch!r}", field="batch")
    if kind == "configs":
        rows = []
        for phase in PHASES:
            n = batch if phase == "train" else BATCHES[phase][-2 if phase == "decode" else 0]
            for label, fz in (("none", ()), ("FlashAttention", ("flash",)), ("all four", FUSIONS)):
                bg = budget(cfg, phase, n, SEQ[phase], hw, precision, b, frozenset(fz))
                rows.append({"phase": phase, "batch": f"{n} × {SEQ[phase]:,}", "fused": label,
                             "step_time_s": bg.step_time_s, "bytes": bg.bytes,
                             "bound": bg.mfu_upper_bound, "estimate": bg.mfu_estimate})
        cols = (Column("phase", "Phase"), Column("batch", "Batch × tokens"),
                Column("fused", "Fused"),
                Column("step_time_s", "Step at the roofline", fmt.seconds, "right"),
                Column("bytes", "HBM traffic", fmt.capacity, "right"),
                Column("bound", "MFU upper bound", lambda x: fmt.percent(x, 3), "right"),
                Column("estimate", "After overheads", lambda x: fmt.percent(x, 3), "right"))
        return Table(cols, tuple(rows))
    if kind == "fusions":
        base = budget(cfg, "train", batch, SEQ["train"], hw, precision, b)
        rows = []
        for f in FUSIONS:
            bg = budget(cfg, "train", batch, SEQ["train"], hw, precision, b, frozenset({f}))
            rows.append({"fusion": FUSION_LABELS[f], "saved": bg.bytes_saved()[f],
                         "share": bg.bytes_saved()[f] / base.bytes,
                         "kernels": base.launches - bg.launches,
                         "bound": bg.mfu_upper_bound - base.mfu_upper_bound})
        cols = (Column("fusion", "Fusion (alone)"),
                Column("saved", "Bytes kept off HBM per step", fmt.capacity, "right"),
                Column("share", "of all traffic", fmt.percent, "right"),
                Column("kernels", "Kernels fewer", lambda x: f"{x:,}", "right"),
                Column("bound", "MFU bound gain", lambda x: f"+{fmt.num(x * 100, 3)} pt",
                       "right"))
        return Table(cols, tuple(rows))
    if kind == "ceilings":
        return ceilings_table(hw, catalog)
    raise unknown_id("table", kind, ["configs", "fusions", "ceilings"], field="table")


def ceilings_table(hw, catalog: Catalog):
    """Every roof and diagonal of one chip with its figure's source (for the hierarchy plot)."""
    from ..render.table import Column, Table

    rows = []
    for p, peak in hw.peaks.items():
        label = catalog.precision(p).label
        rows.append({"ceiling": f"{label} roof" if peak.unit in label.lower()
                     else f"{label} {peak.unit} roof",
                     "value": fmt.tflops(peak.flops_per_s), "basis": peak.basis,
                     "source": catalog.sources[peak.source].title})
    for t in hw.tiers:
        if t.kind == "registers":
            continue
        rows.append({"ceiling": f"{t.name} diagonal",
                     "value": (fmt.bandwidth(t.bandwidth_bytes_per_s)
                               if t.bandwidth_bytes_per_s else "not published: no diagonal"),
                     "basis": t.basis, "source": catalog.sources[t.source].title})
    cols = (Column("ceiling", "Ceiling"), Column("value", "Figure", align="right"),
            Column("basis", "Basis"), Column("source", "Source"))
    return Table(cols, tuple(rows))

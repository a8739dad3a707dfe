"""```roofline: the interactive roofline's settings (see widgets/base.py for the pattern).

`RooflineSettings` is the only copy of the widget's defaults, options, validation, reserved
height and payload; widgets/roofline/layout.py turns it into the (empty) Bokeh layout that
roofline.mjs draws every frame of, from `payload()`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from roofline.errors import RooflineError
from roofline.model.maths import intensity
from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings

if TYPE_CHECKING:
    from roofline.model.catalog import Accelerator, Catalog
    from roofline.model.ops import OpZoo

AI_MIN, AI_MAX = 0.01, 10_000.0
CEILINGS = ("sram", "l2", "hbm", "host", "scaleup", "vector")
HEIGHT_MIN, HEIGHT_MAX = 240, 1200
CONTROLS_HEIGHT_PX = 250
"""Selects, slider, verdict and readout under the plot."""
TOKENS_MAX = 2 ** 20
TOKENS_CONTROLS_PX = 64
"""The tokens-per-step slider and its marks, when the widget has them."""
DECODE_BATCHES = (1, 64, 256)  # the decode marks: batch 1 to 256
TOKENS_MODEL = "llama-2-7b"
PROJECTION_COLOR = "#b5651d"
CEILING_COLORS = {"sram": "#8e6bd8", "l2": "#2a9d8f", "hbm": "#2f7fd8", "host": "#c98a12",
                  "scaleup": "#d0508f", "vector": "#7a8290"}
# Short names keep the slope labels clear of the next line down (the tier's full name is in the
# catalog tables).
CEILING_NAMES = {"sram": "SRAM", "l2": "L2", "host": "Host link", "scaleup": "GPU-GPU"}
ROOF_COLOR = "#2f7fd8"
MEMORY_COLOR, COMPUTE_COLOR = "#d1352b", "#2e9e48"
OVERHEAD_COLOR = "#8a5a00"  # the launch binds (the verdict's badge too)
MEASURED_COLOR = "#d9480f"  # a measurement drawn over the roofline
FRAME_MARGIN_PX = (12, 36, 52, 78)
"""top, right, bottom, left: the plot frame's place in the figure, the live figure's borders
(layout.py) and the static drawing's (static.mjs) alike; room for the y axis's "10,000" and its
title, and right of the frame for half the last x tick."""


@dataclass(frozen=True)
class RooflineSettings(WidgetSettings):
    """Validated options of the interactive roofline (the ```roofline fence's keys)."""
    hardware: str = DEFAULT_HARDWARE
    precision: str = DEFAULT_PRECISION
    ops: tuple[str, ...] | None = None  # None: the whole op zoo
    ai: float | None = None  # None: the selected op's AI, else 10
    op: str | None = None
    ceilings: tuple[str, ...] = ()
    height: int = 400
    url_state: bool = True
    measurement: str | None = None  # a measurement JSON: package data name or a path
    catalog: str | None = None  # another hardware.toml (CLI --catalog); None: the default
    tokens: int | None = None  # None: no tokens-per-step slider
    tokens_model: str = TOKENS_MODEL  # whose projection GEMMs the tokens slider moves

    KIND: ClassVar[str] = "roofline"
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("hardware", str, "a catalog id (`roofline hardware` lists them)"),
        Option("precision", str, "a precision the chip has"),
        Option("ops", (list, tuple), "op-zoo ids drawn as points and offered as presets "
               "(`roofline ops` lists them)", items=str, default_text="every op of the zoo"),
        Option("ai", (int, float), f"initial arithmetic intensity, FLOP/byte, {AI_MIN:g}–"
               f"{AI_MAX:,g}", default_text="the selected op's, else 10"),
        Option("op", str, "the preset selected at first", default_text="none"),
        Option("ceilings", (list, tuple), "extra roofs from the chip's memory tiers and its "
               "vector units: " + ", ".join(CEILINGS) + " (a tier the chip has no figure for "
               "is a warning)", items=str, default_text="none"),
        Option("height", int, f"plot height in pixels, {HEIGHT_MIN}–{HEIGHT_MAX}"),
        Option("url", bool, "read and write the view in the page URL",
               field="url_state"),
        Option("measurement", str, "a measurement JSON drawn over the roofline (package data "
               "name, or a path under docs/)", default_text="none"),
        Option("tokens", int, f"tokens per step at first (1–{TOKENS_MAX:,}); adds a slider that "
               "moves the model's projection GEMMs along the roofline",
               default_text="none: no slider"),
        Option("model", str, "the transformer whose projection GEMMs the tokens slider "
               "moves: a bundled model (`roofline models` lists them) or a Hugging Face "
               "config.json, its path relative to the docs folder", field="tokens_model"),
    )
    FIELD_OPTIONS: ClassVar[dict[str, str]] = {"ceiling": "ceilings", "url_state": "url",
                                               "tokens_model": "model"}

    def check(self) -> None:
        catalog, zoo = self.model()
        try:
            hw = catalog[self.hardware]
        except RooflineError as exc:
            raise self.fail("hardware", exc.detail, exc.valid) from None
        try:
            hw.peak(self.precision)
        except RooflineError as exc:
            raise self.fail("precision", f"{exc.detail} on {self.hardware}", exc.valid) from None
        for op_id in self.ops or ():
            if op_id not in zoo.presets:
                raise self.fail("ops", f"unknown op {op_id!r}", list(zoo.presets))
        if self.tokens is None and self.tokens_model != TOKENS_MODEL:
            raise self.fail("model", "model only applies with tokens (it names whose ops the "
                            "tokens slider moves)")
        if self.tokens is not None:
            if not (isinstance(self.tokens, int) and not isinstance(self.tokens, bool)
                    and 1 <= self.tokens <= TOKENS_MAX):
                raise self.fail("tokens", f"tokens must be an integer from 1 to "
                                f"{TOKENS_MAX:,}, got {self.tokens!r}")
            from roofline.widgets.model_option import model_config
            try:
                model_config(self.tokens_model)
            except RooflineError as exc:
                # A config file's error names the file and its field; a name, the valid ones.
                raise self.fail("model", str(exc) if exc.where else exc.detail,
                                None if exc.where else exc.valid) from None
        if self.op is not None:
            shown = self.ops if self.ops is not None else tuple(zoo.presets)
            if self.tokens is not None:
                shown = (*shown, *(p["id"] for p in tokens_ops(self.tokens_model, catalog)))
            if self.op not in shown:
                raise self.fail("op", f"unknown op {self.op!r}", list(shown))
        if self.ai is not None and not (isinstance(self.ai, (int, float))
                                        and not isinstance(self.ai, bool)
                                        and AI_MIN <= self.ai <= AI_MAX):
            raise self.fail("ai", f"ai must be a number from {AI_MIN:g} to {AI_MAX:g}, "
                            f"got {self.ai!r}")
        for kind in self.ceilings:
            if kind not in CEILINGS:
                raise self.fail("ceilings", f"unknown ceiling {kind!r}", list(CEILINGS))
        if self.ceilings and not any(missing(h, k) is None for h in catalog
                                     for k in self.ceilings):
            # No chip the reader could pick draws any of them: the option would do nothing.
            raise self.fail("ceilings", "nothing to draw: no chip in the catalog has "
                            + " or ".join(dict.fromkeys(missing(hw, k) for k in self.ceilings)))
        if not (isinstance(self.height, int) and not isinstance(self.height, bool)
                and HEIGHT_MIN <= self.height <= HEIGHT_MAX):
            raise self.fail("height", f"height must be an integer from {HEIGHT_MIN} to "
                            f"{HEIGHT_MAX} (pixels), got {self.height!r}")
        if self.measurement is not None:
            self.overlay().check()

    def warnings(self) -> list[tuple[str, str]]:
        """Each requested ceiling the first chip has no figure for (drawn for the chips that
        have one, when the reader picks them)."""
        catalog, _ = self.model()
        hw = catalog[self.hardware]
        out = []
        for kind in dict.fromkeys(self.ceilings):
            lacks = missing(hw, kind)
            if lacks is None:
                continue
            others = sum(missing(h, kind) is None for h in catalog)
            what = _WHAT[kind].split(" ", 1)[1]
            out.append(("ceilings", f"{kind!r} is not drawn for {self.hardware}: the catalog "
                        f"has no {what} for it ({others} other chips have one)" if others else
                        f"{kind!r} is not drawn: no chip in the catalog has {lacks}"))
        return out

    def data_files(self) -> list[str]:
        from roofline.widgets.model_option import model_file
        config = model_file(self.tokens_model) if self.tokens is not None else None
        files = [str(config)] if config is not None else []
        if self.catalog:
            files += [self.catalog, str(Path(self.catalog).parent / "precisions.toml")]
        overlay = self.overlay()
        return files + (overlay.data_files() if overlay else [])

    def model(self) -> tuple[Catalog, OpZoo]:
        from roofline.model.catalog import default_catalog
        from roofline.model.ops import default_zoo
        return default_catalog(self.catalog), default_zoo()

    def overlay(self):
        """The measurement overlay's settings (None without a measurement)."""
        from roofline.widgets.measurement.settings import OverlaySettings
        return OverlaySettings(self.measurement) if self.measurement is not None else None

    @property
    def height_px(self) -> int:
        """Plot, controls and (with a measurement) the file picker and its status line."""
        overlay = self.overlay()
        return (self.height + CONTROLS_HEIGHT_PX + (overlay.height_px if overlay else 0)
                + (TOKENS_CONTROLS_PX if self.tokens is not None else 0))

    @property
    def label(self) -> str:
        return f"Interactive roofline: {self.hardware}, {self.precision}"

    def payload(self, catalog: Catalog | None = None, zoo: OpZoo | None = None) -> dict:
        """What roofline.mjs draws every frame from (JSON-able)."""
        if catalog is None or zoo is None:
            model_catalog, model_zoo = self.model()
            catalog, zoo = catalog or model_catalog, zoo or model_zoo
        return payload(self, catalog, zoo)


# What a chip needs for each extra roof to be drawn (scene.mjs draws a tier's diagonal only
# with a bandwidth, the vector roof only with a vector peak; the HBM roof is always drawn).
_WHAT = {"sram": "an SRAM bandwidth", "l2": "an L2 bandwidth", "host": "a host-link bandwidth",
         "scaleup": "a GPU-to-GPU (scale-up) bandwidth", "vector": "a vector (non-tensor) peak"}


def missing(hw: Accelerator, kind: str) -> str | None:
    """What chip `hw` lacks for ceiling `kind` to be drawn ("an L2 bandwidth"), or None when
    it is drawn."""
    if kind == "hbm":
        return None
    if kind == "vector":
        drawn = hw.vector_peak is not None or any(hw.vector_peak_for(p) for p in hw.peaks)
    else:
        tier = hw.tier(kind)
        drawn = tier is not None and bool(tier.bandwidth_bytes_per_s)
    return None if drawn else _WHAT[kind]


# ---------------------------------------------------------------- the payload the JS reads

def _hw_payload(hw: Accelerator, catalog: Catalog) -> dict:
    vec = hw.vector_peak
    return {
        "name": hw.name,
        "bw": hw.hbm_bandwidth_bytes_per_s,
        "hbm": hw.hbm.name,
        "precisions": [p for p in catalog.precisions if p in hw.peaks],
        "peaks": {p: hw.peak_flops_per_s(p) for p in catalog.precisions if p in hw.peaks},
        "units": {p: hw.peaks[p].unit for p in catalog.precisions if p in hw.peaks},
        "vector": ({"precision": vec.precision, "peak": vec.flops_per_s,
                    "label": catalog.precision(vec.precision).label.split(" ")[0]}
                   if vec else None),
        # The vector roof of the dtype the elementwise math runs in (packed bf16 on the H100
        # is twice the fp32 roof); the scene falls back to "vector" for other precisions.
        "vectors": {p: {"precision": v.precision, "peak": v.flops_per_s,
                        "label": catalog.precision(v.precision).label.split(" ")[0]}
                    for p in catalog.precisions if p in hw.peaks
                    for v in [hw.vector_peak_for(p)] if v is not None},
        "tiers": {t.kind: {"name": t.name, "bw": t.bandwidth_bytes_per_s}
                  for t in hw.tiers if t.bandwidth_bytes_per_s and t.kind != "hbm"},
    }


def payload(opts: RooflineSettings, catalog: Catalog, zoo: OpZoo) -> dict:
    op_ids = list(opts.ops) if opts.ops is not None else list(zoo.presets)
    costs: dict[str, dict[str, list[float]]] = {op_id: {} for op_id in op_ids}
    for pid, prec in catalog.precisions.items():
        for op in zoo.ops(prec.bytes_per_element, op_ids):
            costs[op.name][pid] = [op.total_flops, op.total_bytes]
    return {
        "hardware": {hw.id: _hw_payload(hw, catalog) for hw in catalog},
        "precisions": {pid: {"label": p.label, "unit": p.unit, "bytes": p.bytes_per_element}
                       for pid, p in catalog.precisions.items()},
        "ops": {op_id: {"label": zoo.preset(op_id).label, "cost": costs[op_id],
                        "short": _point_label(zoo.preset(op_id).label)} for op_id in op_ids},
        "ceilings": list(opts.ceilings),
        "colors": {**CEILING_COLORS, "roof": ROOF_COLOR, "memory": MEMORY_COLOR,
                   "compute": COMPUTE_COLOR, "overhead": OVERHEAD_COLOR,
                   "projection": PROJECTION_COLOR, "measured": MEASURED_COLOR},
        "margin": list(FRAME_MARGIN_PX),
        "names": dict(CEILING_NAMES),
        "x": [AI_MIN, AI_MAX],
        "url": opts.url_state,
        "launch": launch_payload(),
        "tokens": tokens_payload(opts, catalog, zoo),
        "state": initial_state(opts, catalog, zoo),
    }


# ---------------------------------------------------------------- tokens per step, the launch

def tokens_ops(model: str, catalog: Catalog) -> list[dict]:
    """The ops of one layer of `model` that the tokens slider moves: its projection GEMMs and
    its RMSNorm, one entry per cost (q/k/v/o share one on Llama 2 7B; up and down cost the
    same). Each cost is affine in the tokens T of a step, as transformer.layer_ops builds it:
    cost[prec] = [f0, f1, b0, b1] with FLOPs = f0 + f1·T and bytes = b0 + b1·T (a GEMM
    [T × k] · [k × n]: 2·n·k·T FLOPs, (k·n + (k + n)·T) elements). A routed experts' GEMM
    adds the weights of the experts T tokens touch: [f0, f1, b0, b1, w, E, k]
    (roofline.model.moe.expert_cost_coefficients; scene_tokens.mjs tokensCost)."""
    from roofline.model.moe import expert_cost_coefficients
    from roofline.model.transformer import layer_ops
    from roofline.widgets.model_option import model_config
    cfg = model_config(model)
    groups: dict[tuple, list[str]] = {}
    for pid, prec in catalog.precisions.items():
        b = prec.bytes_per_element
        one, two = (layer_ops(cfg, "decode", t, 1, b) for t in (1, 2))
        for a, c in zip(one, two):
            if not (a.name.endswith("_proj") or a.name.endswith("layernorm")):
                continue
            if "experts" in a.shape:
                groups.setdefault(a.name, {})[pid] = expert_cost_coefficients(a)
                continue
            f1, b1 = c.total_flops - a.total_flops, c.total_bytes - a.total_bytes
            groups.setdefault(a.name, {})[pid] = [a.total_flops - f1, f1, a.total_bytes - b1, b1]
    merged: dict[str, list[str]] = {}
    for name, cost in groups.items():
        key = repr(sorted(cost.items()))
        merged.setdefault(key, []).append(name)
    out = []
    for key, names in merged.items():
        label = ("input/post norm" if names[0].endswith("layernorm") else
                 "/".join(n.removesuffix("_proj") for n in names) + "_proj")
        out.append({"id": names[0], "label": label, "names": names, "cost": groups[names[0]]})
    return out


def tokens_marks(zoo: OpZoo) -> list[dict]:
    """Decode at batch 1–256, a prefill (the op zoo's attention-train prompt) and a training
    step (the op zoo's training GEMM's rows)."""
    prefill = int(zoo.preset("attention-train").shape["q_len"])
    train = int(zoo.preset("gemm-train").shape["m"])
    return ([{"label": f"Decode {t:,}", "tokens": t} for t in DECODE_BATCHES]
            + [{"label": f"Prefill {prefill:,}", "tokens": prefill},
               {"label": f"Training {train:,}", "tokens": train}])


def tokens_payload(opts: RooflineSettings, catalog: Catalog, zoo: OpZoo) -> dict | None:
    if opts.tokens is None:
        return None
    from roofline.widgets.model_option import model_config
    marks = tokens_marks(zoo)
    top = max(opts.tokens, *(m["tokens"] for m in marks))
    return {"model": model_config(opts.tokens_model).name,
            "ops": tokens_ops(opts.tokens_model, catalog), "marks": marks,
            "max": 2 ** math.ceil(math.log2(top))}


def launch_payload() -> dict:
    """The launch overhead (roofline.model.launch, data/overhead.toml): a gap added to every
    kernel, t = max(FLOPs / peak, bytes / BW) + seconds, so a kernel reaches at most
    FLOPs / (its roofline time + seconds) FLOP/s, under both the roofline and the launch
    ceiling FLOPs / seconds. `low` and `high` are the ends of its source's range."""
    from roofline.model.launch import load_launch
    overhead = load_launch()
    return {"seconds": overhead.seconds, "basis": overhead.basis,
            "source": overhead.source_title, "model": "gap",
            "low": overhead.overlapped_s, "high": overhead.synchronised_s}


def _point_label(label: str) -> str:
    """The op's name as a point label: 'Attention (training, fused)' -> 'Attention (training)'."""
    return re.sub(r",[^)]*\)", ")", label)


def initial_state(opts: RooflineSettings, catalog: Catalog, zoo: OpZoo) -> dict:
    """The view the widget opens on: the AI is the option's, else the selected op's, else 10."""
    if opts.ai is not None:
        ai = float(opts.ai)
    elif opts.op is not None and opts.op not in zoo.presets:  # one of the tokens ops
        p = next(p for p in tokens_ops(opts.tokens_model, catalog) if p["id"] == opts.op)
        ai = intensity(*tokens_cost(p["cost"][opts.precision], opts.tokens))
    elif opts.op is not None:
        op = zoo.ops(catalog.precision(opts.precision).bytes_per_element, [opts.op])[0]
        ai = intensity(op.total_flops, op.total_bytes)
    else:
        ai = 10.0
    return {"hardware": opts.hardware, "precision": opts.precision, "op": opts.op,
            "ai": min(max(ai, AI_MIN), AI_MAX), "vector": "vector" in opts.ceilings,
            "tokens": opts.tokens}


def tokens_cost(coeffs: list[float], tokens: float) -> list[float]:
    """[FLOPs, bytes] of a tokens op at `tokens` per step: scene_tokens.mjs's tokensCost (the
    one copy, which the slider runs on every tick), run by the build's JS engine."""
    from roofline.render.jsengine import call
    return call(Path(__file__).with_name("scene_tokens.mjs"), "tokensCost", coeffs, tokens)

"""The interactive roofline's payload: what roofline.mjs draws every frame from (JSON-able),
built from a RooflineSettings (widgets/roofline/settings.py), the catalog and the op zoo; and
the constants the JS is sent with it (the x range, the colours, the frame's margin)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from roofline.model.maths import intensity

if TYPE_CHECKING:
    from roofline.model.catalog import Accelerator, Catalog
    from roofline.model.ops import OpZoo
    from roofline.widgets.roofline.settings import RooflineSettings

AI_MIN, AI_MAX = 0.01, 10_000.0
"""The x axis's range (FLOP/byte), and so the range of the `ai` option."""
DECODE_BATCHES = (1, 64, 256)  # the decode marks: batch 1 to 256
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


def drawing_payload(settings: RooflineSettings, catalog: Catalog | None = None,
                    zoo: OpZoo | None = None, measurement: dict | str | None = None) -> dict:
    """The payload the scene is drawn from (live and static): with a measurement, its y extent
    joins the plot's range, so the first frame already has room for the overlay."""
    data = settings.payload(catalog, zoo)
    if measurement is None:
        measurement = settings.measurement
    if measurement is not None:
        from roofline.render.jsengine import call
        from roofline.widgets.measurement.settings import load_measurement
        # the TFLOP/s range the overlay needs (static_measured.mjs overlayExtent)
        data["y_extra"] = call(Path(__file__).with_name("static_measured.mjs"), "overlayExtent",
                               data, load_measurement(measurement))
    return data


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
        one, two = (layer_ops(cfg, "decode", t, 1, prec.bytes_per_element) for t in (1, 2))
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

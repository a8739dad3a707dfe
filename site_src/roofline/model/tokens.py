"""Tokens per step, the rule the roofline implies for a whole model, mirrored by the roofline
widget's tokens slider (widgets/roofline/scene_tokens.mjs) and checked against the one case file
tests/cases/tokens_cases.json.

A matmul of T tokens against a d × f weight matrix does 2·T·d·f FLOPs and moves d·f weights
plus T·(d + f) activations. Counting the weights only, its AI is 2·T / (bytes per weight), so it
reaches the ridge (peak / BW) once T ≥ peak × bytes per weight ÷ (2 × BW): the scaling book's
critical batch. Counting the activations too, T must be a little larger. A threshold on a count
rounds up: min_compute_bound_tokens is the smallest whole T that is compute-bound.

Below a few tokens a kernel is overhead-bound instead: the third regime is
roofline.model.launch's, the one launch model the whole site uses.

    python -m roofline.model.tokens > tests/cases/tokens_cases.json
"""

from __future__ import annotations

import json
import math
import sys


# ---------------------------------------------------------------- tokens per step

def critical_tokens(peak_flops_per_s: float, bandwidth_bytes_per_s: float,
                    bytes_per_weight: float) -> float:
    """Tokens per step at which a weight matmul reaches the ridge, weights' bytes only:
    peak × bytes per weight / (2 × BW)."""
    return peak_flops_per_s * bytes_per_weight / (2 * bandwidth_bytes_per_s)


def matmul_cost(tokens: float, d: float, f: float, bytes_per_weight: float,
                bytes_per_activation: float) -> tuple[float, float]:
    """[T × d] · [d × f]: 2·T·d·f FLOPs; reads d·f weights and T·d inputs, writes T·f outputs."""
    return (2 * tokens * d * f,
            d * f * bytes_per_weight + tokens * (d + f) * bytes_per_activation)


def matmul_intensity(tokens: float, d: float, f: float, bytes_per_weight: float,
                     bytes_per_activation: float) -> float:
    flops, bytes_ = matmul_cost(tokens, d, f, bytes_per_weight, bytes_per_activation)
    return flops / bytes_


def critical_tokens_with_activations(peak_flops_per_s: float, bandwidth_bytes_per_s: float,
                                     d: float, f: float, bytes_per_weight: float,
                                     bytes_per_activation: float) -> float:
    """T where 2·T·d·f / (d·f·bw + T·(d + f)·ba) = ridge; infinite when even T → ∞ stays
    below the ridge (the activations alone cap the AI at 2·d·f / ((d + f)·ba))."""
    r = peak_flops_per_s / bandwidth_bytes_per_s
    denom = 2 * d * f - r * (d + f) * bytes_per_activation
    if denom <= 0:
        return math.inf
    return r * d * f * bytes_per_weight / denom


def min_compute_bound_tokens(peak_flops_per_s: float, bandwidth_bytes_per_s: float, d: float,
                             f: float, bytes_per_weight: float,
                             bytes_per_activation: float) -> int | None:
    """The smallest whole number of tokens whose matmul is compute-bound (AI at or above the
    ridge, as maths.bound decides); None when no batch gets there."""
    t = critical_tokens_with_activations(peak_flops_per_s, bandwidth_bytes_per_s, d, f,
                                         bytes_per_weight, bytes_per_activation)
    if math.isinf(t):
        return None
    r = peak_flops_per_s / bandwidth_bytes_per_s
    n = max(1, math.ceil(t))
    # Float rounding at the boundary: settle on the model's own comparison.
    while n > 1 and matmul_intensity(n - 1, d, f, bytes_per_weight, bytes_per_activation) >= r:
        n -= 1
    while matmul_intensity(n, d, f, bytes_per_weight, bytes_per_activation) < r:
        n += 1
    return n


def projection_points(tokens: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float,
                      shapes: list[tuple[float, float]], bytes_per_weight: float,
                      bytes_per_activation: float) -> list[dict]:
    """Each weight shape d × f at `tokens` per step: AI, attainable FLOP/s, share of peak,
    bound, and the smallest compute-bound batch (what the tokens explorer draws)."""
    out = []
    for d, f in shapes:
        ai = matmul_intensity(tokens, d, f, bytes_per_weight, bytes_per_activation)
        att = min(peak_flops_per_s, ai * bandwidth_bytes_per_s)
        out.append({"ai": ai, "attainable": att, "fraction": att / peak_flops_per_s,
                    "bound": "memory" if ai < peak_flops_per_s / bandwidth_bytes_per_s
                    else "compute",
                    "min_tokens": min_compute_bound_tokens(
                        peak_flops_per_s, bandwidth_bytes_per_s, d, f, bytes_per_weight,
                        bytes_per_activation)})
    return out


# ---------------------------------------------------------------- the shared case file

# (label, compute precision, bytes per weight, bytes per activation)
MODES = (("bf16", "bf16", 2.0, 2.0), ("fp8", "fp8", 1.0, 1.0),
         ("w8-bf16", "bf16", 1.0, 2.0))


def _finite_or_none(x: float) -> float | None:
    """Infinity (a threshold never reached) as None, which JSON can carry."""
    return None if math.isinf(x) else x


def build_cases() -> dict:
    from roofline.model.catalog import default_catalog
    from roofline.model.transformer import default_models
    catalog = default_catalog()
    models = default_models()
    shapes = {m: (cfg.d_model, cfg.ffn) for m, cfg in models.items()}
    tokens_cases = []
    for acc in catalog:
        bw = acc.hbm_bandwidth_bytes_per_s
        for label, prec, bpw, bpa in MODES:
            if prec not in acc.peaks:
                continue
            peak = acc.peak_flops_per_s(prec)
            for model, (d, f) in shapes.items():
                tokens_cases.append({
                    "hardware": acc.id, "mode": label, "model": model, "peak": peak, "bw": bw,
                    "d": d, "f": f, "bytes_per_weight": bpw, "bytes_per_activation": bpa,
                    "critical": critical_tokens(peak, bw, bpw),
                    "critical_with_activations": _finite_or_none(critical_tokens_with_activations(
                        peak, bw, d, f, bpw, bpa)),
                    "min_tokens": min_compute_bound_tokens(peak, bw, d, f, bpw, bpa)})
    intensity_cases = [
        {"tokens": t, "d": d, "f": f, "bytes_per_weight": bpw, "bytes_per_activation": bpa,
         "cost": list(matmul_cost(t, d, f, bpw, bpa)),
         "ai": matmul_intensity(t, d, f, bpw, bpa)}
        for t in (1, 8, 64, 256, 295, 328, 512, 4096, 32768)
        for d, f in ((4096, 11008), (8192, 28672), (64, 64))
        for bpw, bpa in ((2.0, 2.0), (1.0, 1.0), (1.0, 2.0), (0.5, 2.0))]
    shapes = [(4096, 4096), (4096, 11008), (8192, 1024), (64, 64)]
    projection_cases = [
        {"tokens": t, "peak": acc.peak_flops_per_s("bf16"), "bw": acc.hbm_bandwidth_bytes_per_s,
         "shapes": shapes, "points": projection_points(t, acc.peak_flops_per_s("bf16"),
                                                        acc.hbm_bandwidth_bytes_per_s, shapes,
                                                        2.0, 2.0)}
        for acc in (catalog["h100-sxm"], catalog["a100-sxm-80gb"])
        for t in (1, 8, 64, 256, 328, 4096, 32768)]
    return {"tokens": tokens_cases, "intensity": intensity_cases,
            "projections": projection_cases}


def dumps(cases: dict) -> str:
    """One case per line: readable diffs without a 10,000-line file."""
    parts = []
    for key, value in cases.items():
        if isinstance(value, list):
            rows = ",\n  ".join(json.dumps(v, ensure_ascii=False) for v in value)
            parts.append(f"{json.dumps(key)}: [\n  {rows}\n ]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(parts) + "\n}\n"


def main() -> None:
    sys.stdout.write(dumps(build_cases()))


if __name__ == "__main__":
    main()

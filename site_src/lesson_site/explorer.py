"""§3's tokens explorer: a slider for tokens per step that moves the model's projection GEMMs
along a static roofline (tokens.mjs, inlined)."""

from __future__ import annotations

import html
import json
import math

from roofline.render.jsmodule import bundle
from roofline.model.tokens import matmul_cost
from roofline.model.transformer import get_model
from lesson_site.context import LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.teachkit import JS_DIR, PREDICT_HW, TOKENS_MODEL, _n


# ---------------------------------------------------------------- the tokens explorer

TOKENS_JS = JS_DIR / "tokens.mjs"
DECODE_BATCHES = (1, 64, 256)  # the decode marks: batch 1 to 256


@marker("tokens_explorer", block=True)
def tokens_explorer(ctx: Context, *, model: str = TOKENS_MODEL,
                    precision: str = LESSON_PRECISION) -> str:
    """A slider for tokens per step that moves the model's projection GEMMs along a static
    roofline (tokens.mjs, inlined: no request, no Bokeh); its text is announced politely."""
    from roofline.render import svgchart
    cfg = get_model(model)
    b = ctx.catalog.precision(precision).bytes_per_element
    hws = [ctx.hw(h) for h in PREDICT_HW if precision in ctx.hw(h).peaks]
    train = ctx.zoo.preset("gemm-train").shape["m"]
    prefill = ctx.zoo.preset("attention-train").shape["q_len"]
    families = [{"label": f"q/k/v/o ({_n(cfg.d_model)} × {_n(cfg.d_model)})", "short": "q/k/v/o",
                 "shape": [cfg.d_model, cfg.d_model]},
                {"label": f"gate/up/down ({_n(cfg.d_model)} × {_n(cfg.ffn)})", "short": "MLP",
                 "shape": [cfg.d_model, cfg.ffn]}]
    peaks = [a.peak_flops_per_s(precision) / 1e12 for a in hws]
    bws = [a.hbm_bandwidth_bytes_per_s / 1e12 for a in hws]
    top_ai = max(matmul_cost(train, d, f, b, b)[0] / matmul_cost(train, d, f, b, b)[1]
                 for d, f in (fam["shape"] for fam in families))
    x_lo, x_hi = 0.1, 10 ** math.ceil(math.log10(top_ai))
    y_lo = 10 ** math.floor(math.log10(x_lo * min(bws)))
    y_hi = 10 ** math.ceil(math.log10(max(peaks) * 1.5))
    lead = hws[0]
    roof = [(x_lo, x_lo * bws[0]), (lead.ridge_flops_per_byte(precision), peaks[0]),
            (x_hi, peaks[0])]
    geometry = {}
    drawn = {}
    for key, (w, h, font) in {"wide": (640, 340, 13), "narrow": (380, 340, 11)}.items():
        ch = svgchart.LogLogChart(w, h, (x_lo, x_hi), (y_lo, y_hi),
                                  "Arithmetic intensity (FLOP/byte, log)",
                                  "Attainable TFLOP/s (log)", font=font,
                                  lines=[svgchart.Line(roof, "rl-chart-roof", "")])
        f = ch.frame
        geometry[key] = {"x": [x_lo, x_hi], "y": [y_lo, y_hi], "frame": [f.x0, f.y0, f.x1, f.y1],
                         "font": font}
        drawn[key] = ch.svg(title=f"{cfg.name}'s projection GEMMs on the roofline",
                            desc=f"The {precision} roofline of the chosen chip; the slider "
                            "moves the two families of projection GEMMs along it.",
                            uid=f"rl-tokens-{key}")
    data = {"bytes": b, "families": families, "charts": geometry,
            "hardware": [{"id": a.id, "name": a.name, "peak": a.peak_flops_per_s(precision),
                          "bw": a.hbm_bandwidth_bytes_per_s} for a in hws]}
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = bundle(TOKENS_JS).replace("</", "<\\/")
    top = math.log2(train)
    marks = [*(math.log2(t) for t in DECODE_BATCHES), math.log2(prefill), top]
    presets = ([(f"Decode, batch {t:,}", t) for t in DECODE_BATCHES]
               + [(f"Prefill, {_n(prefill)}", prefill), (f"Training, {_n(train)}", train)])
    buttons = "".join(f'<button type="button" class="rl-tokens-preset" data-tokens="{int(t)}">'
                      f"{html.escape(lab)}</button> " for lab, t in presets)
    chips = "".join(f'<option value="{a.id}">{html.escape(a.name)}</option>' for a in hws)
    fig = svgchart.figure(drawn["wide"], drawn["narrow"],
                          f"{html.escape(cfg.name)}'s projection GEMMs at the tokens per step "
                          "you choose: orange on the bandwidth slope, green under the roof.")
    return (
        '\n<div class="rl-tokens" data-rl-tokens>\n'
        f'<script type="application/json" class="rl-tokens-data">{payload}</script>\n'
        '<p class="rl-tokens-nojs"><em>With JavaScript on, a slider here moves the projection '
        "GEMMs along the roofline as the tokens per step grow; the table above gives the "
        "crossing points.</em></p>\n"
        '<form class="rl-tokens-form" hidden>\n'
        '<span class="rl-field"><label for="rl-tokens-t">Tokens per step</label> '
        f'<input type="range" id="rl-tokens-t" min="0" max="{top:g}" step="0.25" value="0" '
        'list="rl-tokens-marks" aria-describedby="rl-tokens-help"> '
        '<output for="rl-tokens-t">1</output></span>\n'
        '<datalist id="rl-tokens-marks">' + "".join(f'<option value="{m:g}"></option>'
                                                   for m in marks) + "</datalist>\n"
        f'<p id="rl-tokens-help" class="rl-tokens-help">Marks: decode at batch '
        f"{', '.join(f'{t:,}' for t in DECODE_BATCHES)}; prefill of {_n(prefill)} tokens; "
        f"training at {_n(train)} tokens per step.</p>\n"
        f'<p class="rl-tokens-presets">{buttons}</p>\n'
        f'<span class="rl-field"><label for="rl-tokens-hw">Chip ({precision})</label> '
        f'<select id="rl-tokens-hw">{chips}</select></span>\n'
        "</form>\n" + fig + "\n"
        '<p class="rl-tokens-result" role="status" aria-live="polite"></p>\n'
        f'<script type="module">\n{script}\nenhanceAllTokens(document);\n</script>\n'
        "</div>\n")

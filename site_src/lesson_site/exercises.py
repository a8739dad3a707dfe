"""The Checkpoint's exercises: figures the back-of-envelope problems need, predict-then-reveal
(its answers and shared cases), the worked problems, and the glossary page."""

from __future__ import annotations

import html
import json
import re

from roofline import fmt
from roofline.errors import RooflineError
from roofline.render.jsmodule import bundle
from roofline.model.transformer import get_model
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker
from lesson_site.numbers import number
from lesson_site.teachkit import JS_DIR, PREDICT_HW, _float_arg


# ---------------------------------------------------------------- problem figures

@marker("decode_tokens_per_s")
def decode_tokens_per_s(ctx: Context, *, model: str = "llama-2-7b", hw: str = LESSON_HW,
                        weight_bytes: str = "2", field: str = "rate", digits: str = "3") -> str:
    """Best-case batch-1 decode: every weight read once per token, nothing else. field rate
    (tokens/s), gb (weight bytes in GB), params (billions), ms (per token)."""
    cfg = get_model(model)
    wb = _float_arg(weight_bytes, "weight_bytes")
    total = cfg.params * wb
    bw = ctx.hw(hw).hbm_bandwidth_bytes_per_s
    values = {"rate": bw / total, "gb": total / 1e9, "params": cfg.params / 1e9,
              "ms": total / bw * 1e3}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return number(values[field], digits)


@marker("decode_attention_ai")
def decode_attention_ai(ctx: Context, *, model: str = "llama-2-7b", kv_heads: int = 0,
                        seq: int = 4096, precision: str = LESSON_PRECISION,
                        digits: str = "3") -> str:
    """AI of one decode step's attention (batch 1, q_len 1) for a model, with its own KV heads
    or kv_heads given (grouped-query attention shares each K/V head across heads ÷ kv_heads)."""
    from roofline.model.ops import attention_fused
    cfg = get_model(model)
    kv = kv_heads or cfg.kv_heads
    b = ctx.catalog.precision(precision).bytes_per_element
    op = attention_fused(1, cfg.heads, kv, cfg.head_dim, 1, seq, b, conv=ctx.zoo.conventions)
    return number(op.intensity_flops_per_byte, digits)


@marker("model_fact")
def model_fact(ctx: Context, *, model: str = "llama-2-7b", field: str = "kv_heads") -> str:
    cfg = get_model(model)
    values = {"kv_heads": cfg.kv_heads, "heads": cfg.heads, "d_model": cfg.d_model,
              "ffn": cfg.ffn, "layers": cfg.layers, "group": cfg.heads // cfg.kv_heads}
    if field == "name":
        return cfg.name
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=["name", *values])
    return f"{values[field]:,}"


# ---------------------------------------------------------------- predict, then reveal

PREDICT_JS = JS_DIR / "predict.mjs"


def predict_answers(ctx: Context, precision: str = LESSON_PRECISION) -> dict:
    """What the Checkpoint's guess form reveals, per (op, chip): bound, % of peak, and the
    derivation as HTML, all from the model at build time."""
    ops = [(pid, ctx.zoo.presets[pid].label) for pid in ctx.zoo.presets]
    hws = [(h, ctx.hw(h).name) for h in PREDICT_HW if h in {a.id for a in ctx.catalog}
           and precision in ctx.hw(h).peaks]
    answers = {}
    for h, name in hws:
        acc = ctx.hw(h)
        peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
        for p in ctx.points(h, precision):
            ai = p.intensity_flops_per_byte
            answers[f"{p.name}|{h}"] = {
                "bound": p.bound, "percent": p.fraction_of_peak * 100,
                "html": (f"<strong>{html.escape(ctx.zoo.presets[p.name].label)} on the "
                         f"{html.escape(name)}, {precision}.</strong> AI = "
                         f"{fmt.count(p.op.total_flops)} FLOPs ÷ {fmt.capacity(p.op.total_bytes)}"
                         f" = {fmt.num(ai)} FLOP/byte against a ridge of "
                         f"{fmt.num(p.ridge_flops_per_byte)}: <strong>{p.bound}-bound</strong>. "
                         f"Attainable = min(peak, AI × BW) = min({fmt.tflops(peak)}, "
                         f"{fmt.num(ai)} × {fmt.bandwidth(bw)}) = "
                         f"{fmt.tflops(p.attainable_flops_per_s)}, "
                         f"<strong>{fmt.percent(p.fraction_of_peak)}</strong> of peak; "
                         f"time ≥ {fmt.seconds(p.time_s)}.")}
    return {"precision": precision, "ops": ops, "hardware": hws, "answers": answers}


@marker("predict", block=True)
def predict(ctx: Context, *, precision: str = LESSON_PRECISION) -> str:
    """The guess form: native controls, hidden until predict.mjs (inlined, no request) runs;
    the answers as JSON computed here."""
    data = predict_answers(ctx, precision)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = bundle(PREDICT_JS).replace("</", "<\\/")
    uid = "rl-predict"
    opts = lambda pairs: "".join(  # noqa: E731
        f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in pairs)
    return (
        f'\n<div class="rl-predict" data-rl-predict>\n'
        f'<script type="application/json" class="rl-predict-data">{payload}</script>\n'
        '<p class="rl-predict-nojs"><em>With JavaScript on, a form here lets you commit a '
        "guess for any op and chip before seeing the model's answer; the questions below "
        "work without it.</em></p>\n"
        f'<form class="rl-predict-form" hidden aria-describedby="{uid}-help">\n'
        f'<p id="{uid}-help">A new op or chip hides the answer until you commit a new '
        "guess.</p>\n"
        '<fieldset class="rl-predict-pick"><legend>1 · The question</legend>\n'
        f'<span class="rl-field"><label for="{uid}-op">Op</label> '
        f'<select id="{uid}-op" name="op">{opts(data["ops"])}</select></span>\n'
        f'<span class="rl-field"><label for="{uid}-hw">Chip ({precision})</label> '
        f'<select id="{uid}-hw" name="hw">{opts(data["hardware"])}</select></span>\n'
        "</fieldset>\n"
        '<fieldset class="rl-predict-guess"><legend>2 · Your guess</legend>\n'
        '<fieldset class="rl-predict-bound"><legend>Which roof limits it?</legend>\n'
        f'<span class="rl-field"><input type="radio" id="{uid}-mem" name="bound" '
        f'value="memory"> <label for="{uid}-mem">memory-bound</label></span>\n'
        f'<span class="rl-field"><input type="radio" id="{uid}-cmp" name="bound" '
        f'value="compute"> <label for="{uid}-cmp">compute-bound</label></span>\n</fieldset>\n'
        f'<span class="rl-field"><label for="{uid}-pct">Best share of peak it can reach, in %'
        f'</label> <input type="text" id="{uid}-pct" name="percent" inputmode="decimal" '
        'autocomplete="off" size="6"></span>\n</fieldset>\n'
        '<button type="submit" class="md-button md-button--primary">Commit and reveal</button>\n'
        "</form>\n"
        '<p class="rl-predict-result" role="status" aria-live="polite"></p>\n'
        '<div class="rl-predict-answer" hidden></div>\n'
        f'<script type="module">\n{script}\nenhanceAll(document);\n</script>\n'
        "</div>\n")


@marker("problems", block=True)
def problems(ctx: Context) -> str:
    """Back-of-envelope problems (data/problems.toml), each worked answer collapsed."""
    from lesson_site.entries import entry_text as _text, indent as _indent, load_entries
    path, entries = load_entries("problems", "problem", ("title", "question", "answer"))
    blocks = []
    for i, e in enumerate(entries, 1):
        blocks.append(f'<div class="rl-problem" id="problem-{e.id}" markdown="1">\n\n'
                      f"**P{i}. {_text(ctx, path, e, 'title')}.** "
                      f"{_text(ctx, path, e, 'question')}\n\n"
                      f'??? success "Worked answer"\n\n{_indent(_text(ctx, path, e, "answer"))}'
                      "\n\n</div>")
    return "\n" + "\n\n".join(blocks) + "\n"


# ---------------------------------------------------------------- the glossary page

@marker("glossary", block=True)
def glossary(ctx: Context) -> str:
    """Every term of data/glossary.md once (plural and capitalised variants folded)."""
    from lesson_site.glossary import load_glossary
    terms = load_glossary()
    names = {t.term for t in terms}
    items = []
    for t in terms:
        lower = t.term[0].lower() + t.term[1:]
        if (t.term != lower and lower in names) or (t.term.endswith("s") and t.term[:-1] in names):
            continue
        slug = re.sub(r"[^a-z0-9]+", "-", t.term.lower()).strip("-")
        items.append(f'<dt id="term-{slug}">{html.escape(t.term)}</dt>'
                     f"<dd>{html.escape(t.definition)}</dd>")
    return '\n<dl class="rl-glossary">\n' + "\n".join(items) + "\n</dl>\n"


def predict_cases(ctx: Context | None = None) -> dict:
    """tests/cases/predict_cases.json: roofline.fmt's outputs for the numbers predict.mjs
    formats, and some of the page's answers, for node to check the module against.

        python -c "from lesson_site.teach import predict_cases, json; ..."  (see the test)
    """
    from lesson_site.context import load_context
    ctx = ctx or load_context()
    data = predict_answers(ctx)
    xs = (0.0034, 0.01, 0.125, 0.3385838774850021, 0.5, 1, 1.25, 2.5, 7.4, 9.95, 10, 29.5,
          33.333, 99.94, 99.95, 100, 123.456, 1375, 2740.3)
    fmt_cases = ([{"fn": "num", "x": x, "digits": d, "expected": fmt.num(x, d)}
                  for x in xs for d in (2, 3)]
                 + [{"fn": "percent", "x": x / 100, "digits": 2,
                     "expected": fmt.percent(x / 100)} for x in xs])
    keys = sorted(data["answers"])[:: max(1, len(data["answers"]) // 12)]
    return {"format": fmt_cases,
            "answers": {k: {"bound": data["answers"][k]["bound"],
                            "percent": data["answers"][k]["percent"]} for k in keys}}


@marker("op_term")
def op_term(ctx: Context, *, op: str, term: str = "elements") -> str:
    """One term of a preset's cost, as a count: elements (rows × d or n), or a GEMM's mk, kn,
    mn, or a GEMV's nk (the weights)."""
    s = ctx.zoo.preset(op).shape
    terms = {"elements": s.get("rows", 0) * s.get("d", s.get("cols", 0)) or s.get("n", 0),
             "mk": s.get("m", 0) * s.get("k", 0), "kn": s.get("k", 0) * s.get("n", 0),
             "mn": s.get("m", 0) * s.get("n", 0),
             "nk": s.get("n", 0) * s.get("k", 0) if "m" not in s else 0}
    if term not in terms:
        raise RooflineError(f"unknown term {term!r}", field="term", valid=list(terms))
    if not terms[term]:
        raise RooflineError(f"op {op!r} has no term {term!r}", field="term")
    return fmt.count(terms[term])

"""The Checkpoint's exercises: figures the back-of-envelope problems need, the worked problems,
and the glossary page (predict-then-reveal is predict.py)."""

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
              "ffn": cfg.ffn, "layers": cfg.layers, "group": cfg.heads // cfg.kv_heads,
              "head_dim": cfg.head_dim}
    if field == "name":
        return cfg.name
    if field == "params":  # a count of billions, as a question's givens state it
        return f"{fmt.num(cfg.params / 1e9, 3)} G"
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field",
                            valid=["name", "params", *values])
    return f"{values[field]:,}"


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

"""Predict, then reveal: the Checkpoint's guess form (issue #27). Each case of data/predict.toml
is an op that is not a row of the op zoo; the build draws its shapes and chips (seeded by the
case's id: every build draws the same), and the model answers each draw: its FLOPs and bytes
(roofline.model.ops, roofline.model.tokens), the chip's peak and bandwidth (the catalog), the
launch (data/overhead.toml, a gap added to every kernel), hence time ≥ max(FLOPs ÷ peak,
bytes ÷ BW) + launch, and which of the three binds. The page shows the givens first;
predict.mjs grades the reader's guess within the file's tolerance and reveals the derivation
built here."""

from __future__ import annotations

import html
import json
import random
from dataclasses import dataclass
from pathlib import Path

from roofline import fmt
from roofline.errors import RooflineError
from roofline.model import datafile as _toml
from roofline.model import ops
from roofline.model import tokens as tk
from roofline.model.launch import kernel_time, load_launch, regime
from roofline.model.datafile import Fields
from roofline.render.jsmodule import bundle
from lesson_site import DATA_DIR
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import expand, marker
from lesson_site.teachkit import JS_DIR, _n

PREDICT_JS = JS_DIR / "predict.mjs"
PREDICT_PATH = DATA_DIR / "predict.toml"
# Each kind's dimensions, in the order a reader meets them, and the letter the text uses.
KINDS = {"residual_add": ("tokens", "d"), "swiglu": ("tokens", "ffn"),
         "cross_entropy": ("tokens", "vocab"), "gemm": ("m", "k", "n"),
         "rmsnorm": ("tokens", "d"), "w8_matmul": ("tokens", "d", "ffn")}
SYMBOLS = {"tokens": "T", "d": "d", "ffn": "f", "vocab": "V", "m": "m", "k": "k", "n": "n"}
WEIGHT_8BIT = "fp8"  # the catalog's 8-bit precision: its bytes per element are an int8's too
REGIMES = ("memory", "compute", "overhead")


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    kind: str
    what: str
    rule: str
    shape: dict[str, tuple[int, ...]]


@dataclass(frozen=True)
class Settings:
    draws: int
    tolerance: float
    hardware: tuple[str, ...]


def load_cases(path: Path | None = None) -> tuple[Path, Settings, list[Case]]:
    """data/predict.toml, validated: known kinds, every dimension of a kind given as a list of
    positive whole numbers, unique ids, no unknown field."""
    path = path or PREDICT_PATH
    where = str(path)
    data = _toml.load(path)
    top = Fields(data, where=where, entry="predict")
    top.get("schema_version", int)
    top.get("source", str)
    settings = Settings(int(top.positive("draws", minimum=1)), top.positive("tolerance"),
                        tuple(top.get("hardware", list)))
    raw = top.get("case", list)
    top.finish()
    cases, seen = [], set()
    for i, item in enumerate(raw):
        f = Fields(item, where=where, entry=str(item.get("id", f"#{i}"))
                   if isinstance(item, dict) else f"#{i}")
        kind = f.get("kind", str)
        if kind not in KINDS:
            raise RooflineError(f"unknown kind {kind!r}", where=where, entry=f.entry,
                                field="kind", valid=list(KINDS))
        sf = f.sub("shape")
        shape = {}
        for dim in KINDS[kind]:
            values = sf.get(dim, list)
            if not values or not all(isinstance(v, int) and v > 0 for v in values):
                raise RooflineError("expected a list of positive whole numbers", where=where,
                                    entry=f.entry, field=f"shape.{dim}")
            shape[dim] = tuple(values)
        sf.finish()
        case = Case(f.get("id", str), f.get("title", str), kind, f.get("what", str),
                    f.get("rule", str), shape)
        f.finish()
        if case.id in seen:
            raise RooflineError("duplicate id", where=where, entry=case.id, field="id")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise RooflineError("no [[case]] entries", where=where, field="case")
    return path, settings, cases


# ---------------------------------------------------------------- the model's answer

def build_op(ctx: Context, kind: str, dims: dict[str, float],
             precision: str = LESSON_PRECISION) -> ops.Op:
    """One op of a kind at the given dimensions, costed by the model's own functions."""
    if kind not in KINDS:
        raise RooflineError(f"unknown kind {kind!r}", field="kind", valid=list(KINDS))
    missing = [d for d in KINDS[kind] if d not in dims]
    if missing:
        raise RooflineError(f"missing dimension {missing[0]!r}", field="shape",
                            valid=list(KINDS[kind]))
    b = ctx.catalog.precision(precision).bytes_per_element
    conv = ctx.zoo.conventions
    g = dims.get
    if kind == "residual_add":
        return ops.residual_add(g("tokens") * g("d"), b)
    if kind == "swiglu":
        return ops.activation(g("tokens") * g("ffn"), b, "silu_mul", conv=conv)
    if kind == "cross_entropy":
        return ops.softmax(g("tokens"), g("vocab"), b, name="cross_entropy", conv=conv)
    if kind == "gemm":
        return ops.gemm(g("m"), g("n"), g("k"), b)
    if kind == "rmsnorm":
        return ops.rmsnorm(g("tokens"), g("d"), b, conv=conv)
    wb = ctx.catalog.precision(WEIGHT_8BIT).bytes_per_element
    flops, bytes_ = tk.matmul_cost(g("tokens"), g("d"), g("ffn"), wb, b)
    return ops.Op("w8_matmul", "w8_matmul", ops.GEMM, flops, bytes_, dict(dims), b)


@dataclass(frozen=True)
class Verdict:
    flops: float
    bytes: float
    peak: float
    bandwidth: float
    t_compute: float
    t_memory: float
    t_launch: float
    time: float
    regime: str

    @property
    def ai(self) -> float:
        return self.flops / self.bytes

    @property
    def ridge(self) -> float:
        return self.peak / self.bandwidth

    @property
    def fraction(self) -> float:
        """Share of peak it reaches at best: its FLOPs over its time floor, against peak."""
        return self.flops / self.time / self.peak


def launch_s() -> float:
    """The launch the form states and the model charges (data/overhead.toml)."""
    return load_launch().seconds


def judge(ctx: Context, op: ops.Op, hw: str, precision: str = LESSON_PRECISION) -> Verdict:
    """The model's answer: its time for the kernel with the launch, and which limit binds.
    The rule is the model's (the lesson's §5 formula), never restated here."""
    acc = ctx.hw(hw)
    peak, bw = acc.peak_flops_per_s(precision), acc.hbm_bandwidth_bytes_per_s
    launch = launch_s()
    f, b = op.total_flops, op.total_bytes
    return Verdict(f, b, peak, bw, f / peak, b / bw, launch,
                   kernel_time(f, b, peak, bw, launch), regime(f, b, peak, bw, launch))


@marker("op_at")
def op_at(ctx: Context, *, kind: str, shape: str, field: str = "time", hw: str = LESSON_HW,
          precision: str = LESSON_PRECISION) -> str:
    """An op that is not a zoo row, e.g. kind=rmsnorm shape=tokens=1,d=4096, judged with the
    launch: flops, bytes, ai, t_compute, t_memory, t_launch, bound_time (the roofline's
    alone, as the op zoo's time column), time (roofline + launch), regime
    (memory-, compute- or overhead-bound), percent (of peak), launch_ratio (launch ÷ the
    longer roofline time)."""
    dims = {}
    for part in shape.split(","):
        key, eq, value = part.partition("=")
        try:
            dims[key.strip()] = float(value)
        except ValueError:
            raise RooflineError(f"expected dim=number, got {part!r}", field="shape") from None
        if not eq:
            raise RooflineError(f"expected dim=number, got {part!r}", field="shape")
    v = judge(ctx, build_op(ctx, kind, dims, precision), hw, precision)
    values = {"flops": fmt.count(v.flops), "bytes": fmt.capacity(v.bytes),
              "ai": fmt.num(v.ai), "t_compute": fmt.seconds(v.t_compute),
              "t_memory": fmt.seconds(v.t_memory), "t_launch": fmt.seconds(v.t_launch),
              "bound_time": fmt.seconds(max(v.t_compute, v.t_memory)),
              "time": fmt.seconds(v.time), "regime": f"{v.regime}-bound",
              "percent": fmt.percent(v.fraction),
              "launch_ratio": fmt.approx(v.t_launch / max(v.t_compute, v.t_memory))}
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=list(values))
    return values[field]


# ---------------------------------------------------------------- the draws

def draws(case: Case, settings: Settings) -> list[tuple[dict[str, int], str]]:
    """`settings.draws` distinct (dimensions, chip) pairs, the same on every build: the
    generator is seeded by the case's id (a string seed is hashed with SHA-512, not with the
    process's hash seed)."""
    rng = random.Random(f"predict:{case.id}")
    out: list[tuple[dict[str, int], str]] = []
    for _ in range(100 * settings.draws):
        pick = ({d: rng.choice(case.shape[d]) for d in KINDS[case.kind]},
                rng.choice(settings.hardware))
        if pick not in out:
            out.append(pick)
        if len(out) == settings.draws:
            return out
    raise RooflineError(f"fewer than {settings.draws} distinct draws", entry=case.id,
                        field="shape")


def _givens(ctx: Context, case: Case, rule: str, dims: dict[str, int], hw: str,
            precision: str) -> str:
    acc = ctx.hw(hw)
    b = ctx.catalog.precision(precision).bytes_per_element
    shape = ", ".join(f"{SYMBOLS[d]} = {_n(v)}" for d, v in dims.items())
    return ('<dl class="rl-givens">'
            f"<dt>What</dt><dd>{html.escape(case.title)}: {html.escape(case.what)}; "
            f"<strong>{shape}</strong>, in {precision} ({fmt.num(b)} bytes per element).</dd>"
            f"<dt>Count</dt><dd>{rule}.</dd>"
            f"<dt>Chip</dt><dd>{html.escape(acc.name)}: peak "
            f"<strong>{fmt.tflops(acc.peak_flops_per_s(precision))}</strong> in {precision}, "
            f"HBM <strong>{fmt.bandwidth(acc.hbm_bandwidth_bytes_per_s)}</strong>; a kernel "
            f"launch costs <strong>{fmt.seconds(launch_s())}</strong> (§5's formula says "
            "how it counts).</dd></dl>")


LONGEST = {"memory": "the memory time", "compute": "the compute time", "overhead": "the launch"}
"""The longest of the three times names the regime (roofline.model.tokens.regime)."""


def _reveal(v: Verdict) -> str:
    return (f"FLOPs <strong>{fmt.count(v.flops)}</strong>, bytes "
            f"<strong>{fmt.capacity(v.bytes)}</strong>: AI = {fmt.num(v.ai)} FLOP/byte against "
            f"a ridge of {fmt.num(v.ridge)}. Compute takes {fmt.seconds(v.t_compute)} "
            f"(FLOPs ÷ peak), memory {fmt.seconds(v.t_memory)} (bytes ÷ bandwidth), the launch "
            f"{fmt.seconds(v.t_launch)}. The longest of the three is {LONGEST[v.regime]}: "
            f"<strong>{v.regime}-bound</strong>. By §5's formula the kernel takes at least "
            f"<strong>{fmt.seconds(v.time)}</strong>, {fmt.percent(v.fraction)} of peak "
            "(FLOPs ÷ time ÷ peak).")


def predict_data(ctx: Context, precision: str = LESSON_PRECISION) -> dict:
    """What the form shows and grades, per case and draw: the givens (HTML), the answer
    (regime, time floor in seconds, share of peak) and the derivation (HTML)."""
    path, settings, cases = load_cases()
    out = []
    for case in cases:
        rule = expand(case.rule, ctx, f"{path} [{case.id}].rule").strip()
        items = []
        for dims, hw in draws(case, settings):
            v = judge(ctx, build_op(ctx, case.kind, dims, precision), hw, precision)
            items.append({"hw": hw, "dims": dims, "givens": _givens(ctx, case, rule, dims, hw,
                                                                   precision),
                          "answer": {"regime": v.regime, "time_s": v.time,
                                     "percent": v.fraction * 100},
                          "reveal": _reveal(v)})
        out.append({"id": case.id, "title": case.title, "draws": items})
    return {"precision": precision, "tolerance": settings.tolerance, "cases": out}


@marker("predict_tolerance")
def predict_tolerance(ctx: Context) -> str:
    """The relative distance within which a time guess counts as right, in percent."""
    return fmt.percent(load_cases()[1].tolerance)


@marker("predict", block=True)
def predict(ctx: Context, *, precision: str = LESSON_PRECISION) -> str:
    """The guess form: native controls, hidden until predict.mjs (inlined, no request) runs;
    the givens shown before the guess, the answers as JSON computed here."""
    data = predict_data(ctx, precision)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = bundle(PREDICT_JS).replace("</", "<\\/")
    uid = "rl-predict"
    first = data["cases"][0]
    cases = "".join(f'<option value="{html.escape(c["id"])}">{html.escape(c["title"])}</option>'
                    for c in data["cases"])
    # Each answer a chip: the radio inside its label, so the whole chip is the target.
    radios = "".join(
        f'<label class="rl-choice"><input type="radio" id="{uid}-{r}" name="bound" '
        f'value="{r}"> {label}</label>\n'
        for r, label in (("memory", "memory-bound"), ("compute", "compute-bound"),
                         ("overhead", "overhead-bound (the launch)")))
    return (
        f'\n<div class="rl-predict" data-rl-predict>\n'
        f'<script type="application/json" class="rl-predict-data">{payload}</script>\n'
        '<p class="rl-predict-nojs"><em>This exercise needs JavaScript; the questions below '
        "do not.</em></p>\n"
        f'<form class="rl-predict-form" hidden aria-describedby="{uid}-help">\n'
        f'<p id="{uid}-help">A new op or new numbers hide the answer until you commit a new '
        "guess.</p>\n"
        '<fieldset class="rl-predict-pick"><legend>1 · The givens</legend>\n'
        f'<span class="rl-field"><label for="{uid}-case">Op</label> '
        f'<select id="{uid}-case" name="case">{cases}</select></span>\n'
        f'<button type="button" class="rl-predict-draw" aria-describedby="{uid}-draw-n">'
        f'New numbers</button> <span id="{uid}-draw-n" class="rl-predict-draw-n">draw 1 of '
        f'{len(first["draws"])}</span>\n'
        f'<div class="rl-predict-givens">{first["draws"][0]["givens"]}</div>\n'
        "</fieldset>\n"
        '<fieldset class="rl-predict-guess"><legend>2 · Your guess</legend>\n'
        f'<fieldset class="rl-predict-bound"><legend>What limits it?</legend>\n{radios}'
        "</fieldset>\n"
        f'<span class="rl-field"><label for="{uid}-time">The least time it takes, in µs'
        f'</label> <input type="text" id="{uid}-time" name="time" inputmode="decimal" '
        'autocomplete="off" size="8"></span>\n</fieldset>\n'
        '<button type="submit" class="md-button md-button--primary">Commit and reveal</button>\n'
        "</form>\n"
        '<p class="rl-predict-result" role="status" aria-live="polite"></p>\n'
        '<div class="rl-predict-answer" hidden></div>\n'
        f'<script type="module">\n{script}\nenhanceAll(document);\n</script>\n'
        "</div>\n")


def predict_cases(ctx: Context | None = None) -> list[dict]:
    """tests/cases/predict_cases.jsonl, one record a line: roofline.fmt's outputs for the
    numbers predict.mjs formats, and every draw's answer, for node to check the module against.

        PYTHONPATH=site_src python -c "from lesson_site import teach, predict; import sys; \\
            sys.stdout.write(predict.dumps(predict.predict_cases()))" \\
            > tests/cases/predict_cases.jsonl
    """
    from lesson_site.context import load_context
    ctx = ctx or load_context()
    data = predict_data(ctx)
    xs = (0.0034, 0.01, 0.125, 0.3385838774850021, 0.5, 1, 1.25, 2.5, 7.4, 9.95, 10, 29.5,
          33.333, 99.94, 99.95, 100, 123.456, 1375, 2740.3)
    out = [{"fn": "num", "x": x, "digits": d, "expected": fmt.num(x, d)}
           for x in xs for d in (2, 3)]
    out += [{"fn": "percent", "x": x / 100, "digits": 2, "expected": fmt.percent(x / 100)}
            for x in xs]
    out += [{"fn": "seconds", "x": x, "digits": 3, "expected": fmt.seconds(x)}
            for x in (4e-6, 3.76e-6, 1.234e-3, 2.5e-9, 0.5)]
    out += [{"case": c["id"], "draw": i, "hw": d["hw"], "tolerance": data["tolerance"],
             **d["answer"]} for c in data["cases"] for i, d in enumerate(c["draws"])]
    return out


def dumps(records: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in records)

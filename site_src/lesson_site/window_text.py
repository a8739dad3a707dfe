"""Markers for the serving window's prose, checkpoint and interview prompts: each figure is the
window's own (roofline.widgets.window.figures: window.mjs run by the build's JS engine), for the
widget's defaults or a variant of them, so the text and the figure beside it cannot disagree.

    <!-- rl:window field=wall -->                       33
    <!-- rl:window model=qwen3-30b-a3b field=best_price -->   $0.395
"""

from __future__ import annotations

from roofline import fmt
from roofline.errors import RooflineError
from lesson_site.context import Context
from lesson_site.markers import marker

FIELDS = {
    "wall": lambda W, P: f"{W['wall']:,}",
    "ai_limit": lambda W, P: fmt.num(W["crossover"].get("ai_limit") or 0, 3),
    "crossover": lambda W, P: ("never" if W["crossover"]["batch"] is None
                               else f"{W['crossover']['batch']:,}"),
    "ridge": lambda W, P: fmt.num(_chip(W, P)["peaks"][W["state"]["precision"]]
                                  / _chip(W, P)["bandwidth"], 3),
    "latency_limit": lambda W, P: f"{W['latency_limit']:,}",
    "best_batch": lambda W, P: f"{W['best']['batch']:,}",
    "best_price": lambda W, P: f"${fmt.num(W['best']['price_per_million'], 3)}",
    "best_tokens_per_s": lambda W, P: f"{fmt.num(W['best']['tokens_per_s'], 3)}",
    "best_mfu": lambda W, P: fmt.percent(W["best"]["mfu"], 3),
    "best_mbu": lambda W, P: fmt.percent(W["best"]["mbu"], 3),
    "best_tokens_per_s_replica": lambda W, P: fmt.num(W["best"]["tokens_per_s_replica"], 3),
    "best_comm_share": lambda W, P: fmt.percent(W["best"]["comm_share"], 3),
    "smallest_tp": lambda W, P: f"{W['smallest_tp']}",
    "one_mbu": lambda W, P: fmt.percent(W["batch_one"]["mbu"], 3),
    "best_step_ms": lambda W, P: fmt.num(W["best"]["step_s"] * 1e3, 3),
    "one_step_ms": lambda W, P: fmt.num(W["batch_one"]["step_s"] * 1e3, 3),
    "one_tokens_per_s": lambda W, P: fmt.num(W["batch_one"]["tokens_per_s"], 3),
    "one_price": lambda W, P: f"${fmt.num(W['series'][0]['price_per_million'], 3)}",
    "one_launch_share": lambda W, P: fmt.percent(W["batch_one"]["launch_share"], 3),
    "one_regime": lambda W, P: f"{W['batch_one']['regime']}-bound",
    "launch_us": lambda W, P: fmt.num(W["launch_s"] * 1e6, 3),
    "launch_until": lambda W, P: f"{_band(W, 'launch')['to']:,}",
    "price": lambda W, P: f"${W['state']['price']:.2f}",
    "memory_share": lambda W, P: fmt.percent(W["capacity"]["share"], 3),
    "visible": lambda W, P: f"{fmt.num(W['capacity']['visible'] / 2 ** 30, 3)} GiB",
    "context": lambda W, P: f"{W['state']['context']:,}",
    "model": lambda W, P: P["models"][W["state"]["model"]]["label"],
    "chip": lambda W, P: _chip(W, P)["label"],
}


def _chip(W, P):
    return P["chips"][W["state"]["hardware"]]


def _band(W, regime):
    found = [b for b in W["bands"] if b["regime"] == regime]
    if not found:
        raise RooflineError(f"no {regime}-bound batches in this window", field="field")
    return found[0]


@marker("window")
def window(ctx: Context, *, field: str, model: str = "", hardware: str = "", context: int = 0,
           precision: str = "", kv_precision: str = "", launch: str = "", tp: int = 0,
           latency: str = "", price: str = "") -> str:
    """One figure of the serving window (FIELDS), at the widget's defaults or with `model`,
    `hardware`, `context`, `precision`, `kv_precision`, `launch` (graphs or eager), `tp`, `latency` (ms per token, or
    "none") or `price` changed."""
    if field not in FIELDS:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=sorted(FIELDS))
    options: dict = {k: v for k, v in (("model", model), ("hardware", hardware),
                                       ("precision", precision),
                                       ("kv_precision", kv_precision),
                                       ("launch", launch)) if v}
    if context:
        options["context"] = context
    if tp:
        options["tp"] = tp
    if latency and latency != "none":
        options["latency"] = float(latency)
    if price:
        options["price"] = float(price)
    key = ("window", latency == "none", tuple(sorted(options.items())))

    def compute():
        from roofline.hosts import door
        from roofline.widgets.window.figures import figures
        from roofline.widgets.window.settings import WindowSettings
        # a sentence needs one model on one chip: the payload carries only those
        settings = door.settings("roofline-window", {
            **options, "models": [options.get("model", WindowSettings.model)],
            "chips": [options.get("hardware", WindowSettings.hardware)],
            "controls": False}, where="rl:window")
        return figures(settings.replace(latency_ms=None) if latency == "none" else settings)
    out = ctx.once(key, compute)
    return FIELDS[field](out["figures"], out["payload"])


@marker("crossover_context")
def crossover_context(ctx: Context, *, field: str = "context") -> str:
    """Halving the serving window's default context, the first context at which its default
    model and chip turn compute-bound inside the window (context), and from which batch
    (batch): what "shorten the context" buys, computed, not claimed (#46)."""
    from roofline.widgets.window.settings import WindowSettings
    if field not in ("context", "batch"):
        raise RooflineError(f"unknown field {field!r}", field="field", valid=["context", "batch"])
    c = WindowSettings.context
    while c >= 1 and window(ctx, field="crossover", context=c) == "never":
        c //= 2
    if c < 1:
        raise RooflineError("no context crosses", field="context")
    return f"{c:,}" if field == "context" else window(ctx, field="crossover", context=c)


@marker("measured")
def measured(ctx: Context, *, field: str) -> str:
    """The serving window against data/measured_servers.toml's published runs: `low` and
    `high`, the least and greatest share of a run's measured time per token that the window's
    step is; `floor`, the least share the test accepts; `count`, the runs; `servers`, the server
    releases; `chips`, their chips' names."""
    from roofline.widgets.window.measured import FLOOR, comparisons
    rows = ctx.once(("measured",), comparisons)
    ratios = [r for _, _, r in rows]
    values = {
        "low": lambda: fmt.percent(min(ratios), 3),
        "high": lambda: fmt.percent(max(ratios), 3),
        "floor": lambda: fmt.percent(FLOOR, 3),
        "count": lambda: f"{len(rows)}",
        "servers": lambda: " and ".join(sorted({e.server for e, _, _ in rows})),
        "chips": lambda: " and ".join(sorted({ctx.hw(e.hardware).name for e, _, _ in rows})),
    }
    if field not in values:
        raise RooflineError(f"unknown field {field!r}", field="field", valid=sorted(values))
    return values[field]()

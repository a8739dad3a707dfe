"""The serving window's HTML block: its controls, the first frame drawn at build time by
static.mjs (every width's drawing; print and no-JS readers keep it), the facts as sentences, the
price's source, the payload, and one inline module (view.mjs and what it imports, joined:
no request, so it works from file://) that redraws with the same code as the reader moves a
control. No Bokeh: the figure is SVG from the first paint on."""

from __future__ import annotations

import html
from pathlib import Path

from roofline.render.embed import as_json_text, script_safe_json
from roofline.render.jsengine import call
from roofline.render.jsmodule import mount_module

HERE = Path(__file__).parent
STATIC = HERE / "static.mjs"
VIEW = HERE / "view.mjs"

CSS = (
    "<style data-rl-hoist>"
    ".rl-window{margin:1em 0}"
    ".rl-window-figure{container-type:inline-size}"
    ".rl-window-figure svg{display:block;width:100%;height:auto}"
    ".rl-window-narrow{display:none}"
    "@container (max-width:687.5px){.rl-window-wide{display:none}.rl-window-narrow{display:block}}"
    ".rl-window-controls{display:flex;flex-wrap:wrap;gap:.4em .9em;align-items:end;"
    "margin:0 0 .6em;font-size:.72rem}"
    ".rl-window-controls label{display:flex;flex-direction:column;gap:.15em}"
    ".rl-window-controls select,.rl-window-controls input{font:inherit;min-height:28px;"
    "padding:0 .3em;color:var(--md-default-fg-color,inherit);"
    "background:var(--md-default-bg-color,transparent);"
    "border:1px solid var(--md-default-fg-color--light,#8c959f);border-radius:3px}"
    ".rl-window-controls input{width:6.5em}"
    ".rl-window-controls button{font:inherit;min-height:28px;padding:0 .6em;cursor:pointer;"
    "color:var(--md-primary-bg-color,#fff);background:var(--md-primary-fg-color,#4051b5);"
    "border:0;border-radius:3px}"
    ".rl-window-facts{font-size:.72rem;margin:.4em 0}"
    ".rl-window-key{font-size:.68rem;color:var(--md-default-fg-color--light,#57606a);margin:.3em 0}"
    ".rl-window-key span{display:inline-block;width:1.1em;height:.8em;margin:0 .3em 0 .8em;"
    "vertical-align:middle;border:1px solid var(--rl-frame,#8c959f)}"
    ".rl-window-source{font-size:.68rem;color:var(--md-default-fg-color--light,#57606a)}"
    "@media print{.rl-window-controls{display:none!important}.rl-window{break-inside:avoid}"
    ".rl-window-wide{display:block!important}.rl-window-narrow{display:none!important}}"
    "</style>")

KEY = (("launch", "launch-bound"), ("memory", "memory-bound"), ("compute", "compute-bound"),
       ("nofit", "does not fit"))


def _select(name: str, label: str, options: list[tuple[str, str]], value: str) -> str:
    opts = "".join(f'<option value="{html.escape(v)}"{" selected" if v == value else ""}>'
                   f"{html.escape(t)}</option>" for v, t in options)
    return f'<label>{html.escape(label)}<select name="{name}">{opts}</select></label>'


def controls(settings, P: dict) -> str:
    from roofline.widgets.window.settings import CONTEXTS
    st = P["state"]
    contexts = sorted(set(CONTEXTS) | {st["context"]})
    parts = [
        _select("model", "Model", [(m, e["label"]) for m, e in P["models"].items()], st["model"]),
        _select("hardware", "Chip", [(c, e["label"]) for c, e in P["chips"].items()],
                st["hardware"]),
        _select("precision", "Precision", [(p, p.upper()) for p in P["precisions"]],
                st["precision"]),
        _select("kv_precision", "KV cache", [(p, p.upper()) for p in P["kv_precisions"]],
                st["kv_precision"]),
        _select("context", "Context", [(str(c), f"{c:,} tokens") for c in contexts],
                str(st["context"])),
        _select("tp", "Tensor parallel", [(str(t), "1 chip" if t == 1 else f"{t} chips")
                                          for t in P["tps"]], str(st["tp"])),
        _select("launch", "Launches", [(m, f"{e['label']}: {e['seconds'] * 1e6:.2g} µs/kernel")
                                       for m, e in P["launch"].items()], st["launch"]),
        f'<label>$ per GPU-hour<input name="price" type="number" min="0.01" max="999" '
        f'step="0.01" inputmode="decimal" value="{"" if st["price"] is None else st["price"]}">'
        "</label>",
        f'<label>ms per token (blank: none)<input name="latency" type="number" min="0.1" '
        f'max="60000" step="any" inputmode="decimal" '
        f'value="{"" if st["latency_ms"] is None else st["latency_ms"]}"></label>',
    ]
    from roofline.widgets.window.settings import PRESET_LABELS
    parts += [f'<button type="button" data-preset="{k}">{html.escape(v)}</button>'
              for k, v in PRESET_LABELS]
    label = f"Serving window settings ({P['models'][st['model']]['label']})"
    return (f'<form class="rl-window-controls" hidden aria-label="{html.escape(label)}">'
            + "".join(parts) + "</form>")


def key_html() -> str:
    colors = call(STATIC, "windowColors")
    items = "".join(f'<span style="background:{c};opacity:{o}"></span>{html.escape(t)}'
                    for (k, t), (c, o) in zip(KEY, colors))
    return f'<p class="rl-window-key">Shaded: {items}.</p>'


def source_html(P: dict, controls: bool = True) -> str:
    st = P["state"]
    price = P["prices"].get(st["hardware"])
    if price is None or st["price"] != price["usd_per_hour"]:
        return ""
    lo, hi = price["range"]
    return (f'<p class="rl-window-source">Price: ${price["usd_per_hour"]:.2f} per GPU-hour, the '
            f'midpoint of ${lo:.2f}–${hi:.2f} ({html.escape(price["tier"])}, '
            f'{html.escape(price["date"])}): <a href="{html.escape(price["url"])}">'
            f'{html.escape(price["source"])}</a>. Prices move'
            + ("; type your own." if controls
               else " (<code>roofline window --price</code> takes yours).")
            + "</p>")


def caption(P: dict) -> str:
    """The figure's caption for the view it opens on (static.mjs windowCaption: the page
    rewrites it with the same code as the reader moves a control)."""
    return call(STATIC, "windowCaption", P, P["state"])


def render(settings) -> str:
    P = settings.payload()
    F = call(STATIC, "windowFigure", P, P["state"])
    facts = "".join(f"<li>{html.escape(f)}</li>" for f in F["facts"])
    live = []
    if settings.controls:
        data = script_safe_json(as_json_text(P))
        live = [f'<script type="application/json" class="rl-window-data">{data}</script>',
                mount_module(VIEW, ".rl-window:not([data-rl-window-state])")]
    return "\n".join([
        f'<div class="rl-window" role="figure" aria-label="{html.escape(settings.label)}">',
        CSS,
        controls(settings, P) if settings.controls else "",
        f'<div class="rl-window-figure">{F["svg"]}</div>',
        key_html(),
        f'<ul class="rl-window-facts">{facts}</ul>',
        f'<p class="roofline-caption"><span class="rl-window-caption">'
        f'{html.escape(caption(P))}</span></p>',
        source_html(P, settings.controls),
        *live,
        "</div>"])

"""The serving window's HTML block: its controls, the first frame drawn at build time by
static.mjs (every width's drawing; print and no-JS readers keep it), the facts as sentences, the
price's source, the payload, and one inline module (view.mjs and what it imports, joined:
no request, so it works from file://) that redraws with the same code as the reader moves a
control. No Bokeh: the figure is SVG from the first paint on."""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path

from roofline.render.blockstyle import NATIVE_CONTROL_STYLE
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
    # the controls' look is every block's (blockstyle.NATIVE_CONTROL_CSS); their layout is ours
    ".rl-window-controls{display:flex;flex-wrap:wrap;gap:.4em .9em;align-items:end;"
    "margin:0 0 .6em}"
    ".rl-window-controls label{display:flex;flex-direction:column;gap:.15em;position:relative}"
    ".rl-window-controls input{width:6.5em}"
    # a refused value's message, under its field, over what follows (no jump as it comes and goes)
    ".rl-window-controls .rl-control-error{position:absolute;top:100%;left:0;z-index:1;"
    "width:max-content;max-width:min(28em,90vw);white-space:normal;margin-top:2px;padding:.2em .4em;"
    "font-size:.9em;background:var(--rl-c-bg);border:1px solid var(--rl-c-error);border-radius:2px}"
    ".rl-window-facts{font-size:.72rem;margin:.4em 0}"
    ".rl-window-key{font-size:.68rem;color:var(--md-default-fg-color--light,#57606a);margin:.3em 0}"
    ".rl-window-key span{display:inline-block;width:1.1em;height:.8em;margin:0 .3em 0 .8em;"
    "vertical-align:middle;border:1px solid var(--rl-frame,#8c959f)}"
    ".rl-window-source,.rl-window-record{font-size:.68rem;color:var(--md-default-fg-color--light,#57606a)}"
    ".rl-window-record{display:none}"
    "@media print{.rl-window-controls{display:none!important}.rl-window{break-inside:avoid}"
    ".rl-window-record{display:block}.rl-window-figure .rl-window-noprice{display:none!important}"
    ".rl-window-wide{display:block!important}.rl-window-narrow{display:none!important}}"
    "</style>")


def _select(name: str, label: str, options: list[tuple[str, str]], value: str) -> str:
    opts = "".join(f'<option value="{html.escape(v)}"{" selected" if v == value else ""}>'
                   f"{html.escape(t)}</option>" for v, t in options)
    return f'<label>{html.escape(label)}<select name="{name}">{opts}</select></label>'


def _number(name: str, label: str, attrs: str, value, block: str) -> str:
    """A number field with its message (view.mjs shows it while the field's value is refused);
    `block` tells this block's message ids from another window's on the same page."""
    err = f"rl-window-{block}-{name}-error"
    return (f'<label>{html.escape(label)}<input name="{name}" type="number" {attrs} '
            f'inputmode="decimal" aria-describedby="{err}" '
            f'value="{"" if value is None else value}"><span class="rl-control-error" '
            f'id="{err}" aria-live="polite" hidden></span></label>')


def controls(settings, payload: dict) -> str:
    from roofline.widgets.window.settings import CONTEXTS
    state = payload["state"]
    contexts = sorted(set(CONTEXTS) | {state["context"]})
    # the view it opens on names the block (deterministic; two windows on a page open on two)
    block = hashlib.sha1(json.dumps(state, sort_keys=True).encode()).hexdigest()[:8]
    parts = [
        _select("model", "Model", [(m, e["label"]) for m, e in payload["models"].items()],
                state["model"]),
        _select("hardware", "Chip", [(c, e["label"]) for c, e in payload["chips"].items()],
                state["hardware"]),
        _select("precision", "Precision", [(p, p.upper()) for p in payload["precisions"]],
                state["precision"]),
        _select("kv_precision", "KV cache", [(p, p.upper()) for p in payload["kv_precisions"]],
                state["kv_precision"]),
        _select("context", "Context", [(str(c), f"{c:,} tokens") for c in contexts],
                str(state["context"])),
        _select("tp", "Tensor parallel", [(str(t), "1 chip" if t == 1 else f"{t} chips")
                                          for t in payload["tps"]], str(state["tp"])),
        _select("launch", "Launches", [(m, f"{e['label']}: {e['seconds'] * 1e6:.2g} µs/kernel")
                                       for m, e in payload["launch"].items()], state["launch"]),
        _number("price", "$ per GPU-hour", 'min="0.01" max="999" step="0.01"', state["price"],
                block),
        _number("latency", "ms per token (blank: none)", 'min="0.1" max="60000" step="any"',
                state["latency_ms"], block),
    ]
    from roofline.widgets.window.settings import PRESET_LABELS
    parts += [f'<button type="button" data-preset="{k}">{html.escape(v)}</button>'
              for k, v in PRESET_LABELS]
    label = f"Serving window settings ({payload['models'][state['model']]['label']})"
    return (f'<form class="rl-window-controls rl-controls" hidden novalidate '
            f'aria-label="{html.escape(label)}">' + "".join(parts) + "</form>")


def key_html(figure: dict) -> str:
    """The key of the regimes the figure shades (static.mjs windowKey; view.mjs rewrites it)."""
    return f'<p class="rl-window-key">{figure["key"]}</p>'


def source_html(payload: dict, controls: bool = True) -> str:
    """Where the price comes from (static.mjs windowSource; view.mjs rewrites it)."""
    text = call(STATIC, "windowSource", payload, payload["state"], controls)
    return f'<p class="rl-window-source">{text}</p>'


def record_html(payload: dict) -> str:
    """The view's settings in one line, printed only (static.mjs windowRecord)."""
    return (f'<p class="rl-window-record">'
            f'{html.escape(call(STATIC, "windowRecord", payload, payload["state"]))}</p>')


def caption(payload: dict) -> str:
    """The figure's caption for the view it opens on (static.mjs windowCaption: the page
    rewrites it with the same code as the reader moves a control)."""
    return call(STATIC, "windowCaption", payload, payload["state"])


def render(settings) -> str:
    payload = settings.payload()
    figure = call(STATIC, "windowFigure", payload, payload["state"])
    facts = "".join(f"<li>{html.escape(f)}</li>" for f in figure["facts"])
    live = []
    if settings.controls:
        data = script_safe_json(as_json_text(payload))
        live = [f'<script type="application/json" class="rl-window-data">{data}</script>',
                mount_module(VIEW, ".rl-window:not([data-rl-window-state])")]
    return "\n".join([
        f'<div class="rl-window" role="figure" aria-label="{html.escape(settings.label)}">',
        CSS,
        NATIVE_CONTROL_STYLE if settings.controls else "",
        controls(settings, payload) if settings.controls else "",
        f'<div class="rl-window-figure">{figure["svg"]}</div>',
        key_html(figure),
        f'<ul class="rl-window-facts">{facts}</ul>',
        f'<p class="roofline-caption"><span class="rl-window-caption">'
        f'{html.escape(caption(payload))}</span></p>',
        source_html(payload, settings.controls),
        record_html(payload) if settings.controls else "",
        *live,
        "</div>"])

"""The profile report as one static HTML block: the two figures (profile.mjs, drawn at build
time: they need no JavaScript on the page), the table of op families, the unmodelled ops and
the leaks. Works from file://, on paper and without JavaScript. The drop page's form and
pickers wear every block's control look (render/blockstyle.py NATIVE_CONTROL_CSS)."""

from __future__ import annotations

import html
from pathlib import Path

from roofline.render.jsengine import call

JS = Path(__file__).parent / "profile.mjs"
CSS = ("<style data-rl-hoist>.rl-profile{margin:1em 0}"
       ".rl-profile-figure{container-type:inline-size}"
       ".rl-profile-figure svg{display:block;width:100%;height:auto;margin:.3em 0}"
       ".rl-profile-medium,.rl-profile-narrow{display:none}"
       "@container (max-width:687.5px){.rl-profile-wide{display:none}"
       ".rl-profile-medium{display:block}}"
       "@container (max-width:479.5px){.rl-profile-medium{display:none}"
       ".rl-profile-narrow{display:block}}"
       "@media print{.rl-profile-wide{display:block!important}.rl-profile-medium,"
       ".rl-profile-narrow{display:none!important}.rl-profile-figure svg,.rl-profile-figure tr{break-inside:avoid}}</style>")


DROP = Path(__file__).parent / "drop.mjs"
DROP_CSS = (
    "<style data-rl-hoist>"
    ".rl-drop-zone{display:block;border:2px dashed var(--md-default-fg-color--light,#8c959f);"
    "border-radius:6px;padding:1.2em 1em;text-align:center;font-size:.8rem;cursor:pointer}"
    ".rl-drop-zone.rl-drop-over{border-color:var(--md-accent-fg-color,#526cfe);"
    "background:var(--md-accent-fg-color--transparent,rgba(82,108,254,.1))}"
    ".rl-drop-zone{position:relative}"
    # the picker: its input hidden to the eye (still focused and announced), its button ours
    ".rl-drop-zone input{position:absolute;left:50%;bottom:1.2em;width:1px;height:1px;opacity:0}"
    ".rl-drop-zone .rl-button{margin:.6em auto 0}"
    ".rl-drop-status{font-size:.72rem;min-height:1.2em;margin:.4em 0}"
    ".rl-drop-error{color:var(--rl-error,#d1352b);font-weight:600}"
    ".rl-drop-step{display:inline-flex;gap:.4em;align-items:center;font-size:.72rem;"
    "margin-right:1.2em}"
    "@media print{.rl-drop-form,.rl-drop-step{display:none!important}}"
    "</style>")


def drop_zone() -> str:
    """The form the script shows (hidden until it runs: without JavaScript the page says what
    it would do instead)."""
    return (
        '<form class="rl-drop-form rl-controls" hidden aria-label="Read your own trace">'
        '<label class="rl-drop-zone">Drop a <code>torch.profiler</code> trace here (.json or '
        ".json.gz, GPU or CPU; several files: the ranks of one job; add your "
        "<code>roofline measure</code> JSON to put a CPU trace on your CPU's roofline), "
        'or choose them:<br><input type="file" name="trace" multiple '
        'accept=".json,.gz,application/json,application/gzip">'
        '<span class="rl-button" aria-hidden="true">Choose files</span></label>'
        '<p class="rl-drop-status" role="status" aria-live="polite">Read in this browser: '
        "nothing is uploaded.</p></form>"
        '<noscript><p>With JavaScript on, this block reads a trace you choose, in your browser '
        "(nothing is uploaded); <code>roofline profile TRACE</code> prints the same report."
        "</p></noscript>")


def render(settings) -> str:
    payload = settings.payload()
    report = payload["report"] if settings.drop else payload
    parts = [f'<div class="rl-profile{" rl-drop" if settings.drop else ""}" role="figure" '
             f'aria-label="{html.escape(settings.label)}">', CSS]
    if settings.drop:
        from roofline.render.embed import as_json_text, script_safe_json
        data = script_safe_json(as_json_text({k: payload[k] for k in ("roof", "terms", "devices",
                                                                "chips", "kinds")}))
        from roofline.render.blockstyle import NATIVE_CONTROL_STYLE
        parts += [DROP_CSS, NATIVE_CONTROL_STYLE, drop_zone(),
                  f'<script type="application/json" class="rl-drop-data">{data}</script>']
    parts += ['<div class="rl-profile-report">',
              call(JS, "reportHtml", report) if report is not None else "", "</div>"]
    if settings.drop:
        from roofline.render.jsmodule import mount_module
        parts.append(mount_module(DROP, ".rl-drop:not([data-rl-drop-state])"))
    parts.append("</div>")
    return "\n".join(parts)

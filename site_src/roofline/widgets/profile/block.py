"""The profile report as one static HTML block: the two figures (profile.mjs, drawn at build
time: they need no JavaScript on the page), the table of op families, the unmodelled ops and
the leaks. Works from file://, on paper and without JavaScript."""

from __future__ import annotations

import html
from pathlib import Path

from roofline import fmt
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
       ".rl-profile-narrow{display:none!important}.rl-profile{break-inside:avoid}}</style>")


def _g(x: float) -> str:
    return fmt.num(x, 3)


def table(R: dict, label: str) -> str:
    """The families (and the unmodelled ops) as the site's responsive table: detail columns
    step aside, then rows become cards, on narrow screens (render/tables.py)."""
    from roofline.render.tables import HtmlColumn, html_table
    columns = [HtmlColumn("family", wrap=True, priority=1), HtmlColumn("ops", "right"),
               HtmlColumn("time", "right", 1), HtmlColumn("of step", "right"),
               HtmlColumn("FLOP/byte", "right", 3), HtmlColumn("GFLOP/s", "right"),
               HtmlColumn("of bound", "right"), HtmlColumn("verdict", wrap=True, priority=1)]
    rows = []
    for f, v in R["families"].items():
        ai = "—" if v["intensity_flops_per_byte"] is None else _g(v["intensity_flops_per_byte"])
        sb = "—" if v["share_of_bound"] is None else f"{_g(v['share_of_bound'] * 100)} %"
        rows.append([html.escape(f), str(v["count"]), f"{_g(v['time_s'] * 1e3)} ms",
                     f"{_g(v['share_of_step'] * 100)} %", ai,
                     _g(v["achieved_flops_per_s"] / 1e9), sb,
                     html.escape(v["verdict"]) + ("*" if v.get("note") else "")])
    if R["unmodelled"]:   # one row here; each op by name under the table (unmodelled())
        t = sum(u["time_s"] for u in R["unmodelled"])
        rows.append(["unmodelled", str(sum(u["count"] for u in R["unmodelled"])),
                     f"{_g(t * 1e3)} ms", f"{_g(t / R['wall_s'] * 100)} %", "—", "—", "—",
                     "not modelled (below)"])
    return html_table(columns, rows, label=label)


def unmodelled(R: dict) -> str:
    if not R["unmodelled"]:
        return ""
    items = "".join(f"<li><code>{html.escape(u['name'])}</code>: {u['count']} "
                    f"op{'s' * (u['count'] != 1)}, {_g(u['time_s'] * 1e3)} ms</li>"
                    for u in R["unmodelled"])
    return ("<p>Unmodelled ops (the cost model has no function for them: listed with their "
            f"time, never guessed):</p><ul>{items}</ul>")


def render(settings) -> str:
    R = settings.payload()
    roof = R["roof"]
    leaks = "".join(f"<li>{_g(l['share'] * 100)} % of the step: {html.escape(l['advice'])}</li>"
                    for l in R["leaks"])
    rec = R.get("recorded") or {}
    origin = (f" Recorded on the {html.escape(str(rec.get('device', '?')).upper())} by "
              f"<code>{html.escape(str(rec.get('script')))}</code> with torch "
              f"{html.escape(str(rec.get('torch')))}." if rec else "")
    return "\n".join([
        f'<div class="rl-profile" role="figure" aria-label="{html.escape(settings.label)}">',
        CSS,
        f"<p><strong>{html.escape(R['step'])}</strong> of "
        f"<code>{html.escape(Path(R['trace']).name)}</code>: {_g(R['wall_s'] * 1e3)} ms on the "
        f"{html.escape(R['device'].upper())}, measured MFU <strong>{_g(R['mfu'] * 100)} %"
        f"</strong> against {html.escape(roof['label'])}'s "
        f"{_g(roof['peak_flops_per_s'] / 1e9)} GFLOP/s and "
        f"{_g(roof['bandwidth_bytes_per_s'] / 1e9)} GB/s (ridge "
        f"{_g(roof['ridge_flops_per_byte'])} FLOP/byte).{origin}</p>",
        f'<div class="rl-profile-figure">{call(JS, "profileFigures", R)}</div>',
        table(R, f"Op families of {Path(R['trace']).name}"),
        unmodelled(R),
        "".join(f"<p>* {html.escape(f)}: {html.escape(v['note'])}.</p>"
                for f, v in R["families"].items() if v.get("note")),
        f"<p>Top leaks:</p><ol>{leaks}</ol>",
        f'<p class="roofline-caption">The op families of {html.escape(R["step"])} of '
        f"{html.escape(Path(R['trace']).name)} on the measured roofline (each at its "
        "arithmetic intensity and achieved FLOP/s) and where the step's wall time went.</p>",
        "</div>"])

"""The profile report as one static HTML block: the two figures (profile.mjs, drawn at build
time: they need no JavaScript on the page), the table of op families, the unmodelled ops and
the leaks. Works from file://, on paper and without JavaScript."""

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
       ".rl-profile-narrow{display:none!important}.rl-profile{break-inside:avoid}}</style>")


def render(settings) -> str:
    R = settings.payload()
    return "\n".join([
        f'<div class="rl-profile" role="figure" aria-label="{html.escape(settings.label)}">',
        CSS, '<div class="rl-profile-report">', call(JS, "reportHtml", R), "</div>", "</div>"])

"""The serving window's figures for validated settings, computed by window.mjs (the code the
page runs) in the build's JS engine: what `roofline window` prints and the lesson's markers
quote."""

from __future__ import annotations

from pathlib import Path

from roofline.render.jsengine import call

STATIC = Path(__file__).parent / "static.mjs"


def figures(settings) -> dict:
    """{"payload", "figures" (window.mjs windowAt), "facts" (the sentences under the figure)}."""
    payload = settings.payload()
    out = call(STATIC, "windowFacts", payload, payload["state"])
    return {"payload": payload, **out}

"""The serving window's figures for validated settings, computed by window.mjs (the code the
page runs) in the build's JS engine: what `roofline window` prints and the lesson's markers
quote."""

from __future__ import annotations

from pathlib import Path

from roofline.render.jsengine import call

STATIC = Path(__file__).parent / "static.mjs"


def figures(settings, rows: str | None = None) -> dict:
    """{"payload", "figures" (window.mjs windowAt), "facts" (the sentences under the figure)}.
    `rows`: "named" (the batches the summary names, and powers of two) or "every" (every batch
    to the wall, then the figure's past it) adds figures["rows"]."""
    payload = settings.payload()
    out = call(STATIC, "windowFacts", payload, payload["state"], rows)
    return {"payload": payload, **out}

"""Renderers: a validated settings object (roofline/widgets/) in, the page's HTML block out.

roofline.fences.WIDGETS names these; they never parse options or pick defaults (the settings
did), so every host gets the same block for the same settings.
"""

from __future__ import annotations

from ..widgets.measurement import MeasurementTableSettings
from ..widgets.roofline import RooflineSettings


def roofline_block(settings: RooflineSettings, *, label: str = "") -> str:
    """```roofline: the interactive roofline (with its measurement overlay, if any)."""
    from .embed import block
    from .svg import render_responsive
    from .widget import build_layout, drawing_payload
    return block(build_layout(settings), height_px=settings.height_px,
                 label=label or settings.label,
                 static=render_responsive(drawing_payload(settings), height_px=settings.height))


def measurement_block(settings: MeasurementTableSettings) -> str:
    """```roofline-measurement: one static table of a measurement."""
    from .measured import measurement_block as table
    return table(settings)

"""Renderers: a validated settings object (roofline/widgets/) in, the page's HTML block out.

roofline.hosts.fences.WIDGETS names these; they never parse options or pick defaults (the settings
did), so every host gets the same block for the same settings.
"""

from __future__ import annotations

from roofline.widgets.measurement.settings import MeasurementTableSettings
from roofline.widgets.roofline.settings import RooflineSettings


def roofline_block(settings: RooflineSettings, *, label: str = "") -> str:
    """```roofline: the interactive roofline (with its measurement overlay, if any)."""
    from roofline.render.embed import block
    from roofline.widgets.roofline.static import render_responsive
    from roofline.widgets.roofline.layout import build_layout, drawing_payload
    data = drawing_payload(settings)
    overlay = None
    if settings.measurement is not None:  # the static drawing shows the measurement too
        from roofline.widgets.measurement.overlay import load_measurement, overlay_data
        overlay = overlay_data(load_measurement(settings.measurement), *data["x"])
    return block(build_layout(settings), height_px=settings.height_px,
                 label=label or settings.label,
                 static=render_responsive(data, height_px=settings.height, overlay=overlay))


def measurement_block(settings: MeasurementTableSettings) -> str:
    """```roofline-measurement: one static table of a measurement."""
    from roofline.widgets.measurement.overlay import measurement_block as table
    return table(settings)

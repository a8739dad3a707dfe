"""```roofline: validated settings in, the page's HTML block out (the door's renderer for this
kind; it never parses options or picks defaults: the settings did)."""

from __future__ import annotations

from roofline.widgets.roofline.settings import RooflineSettings


def render(settings: RooflineSettings, *, label: str = "") -> str:
    """The interactive roofline (with its measurement overlay, if any) and its static first
    frame."""
    from roofline.render.embed import block
    from roofline.widgets.roofline.layout import build_layout, drawing_payload
    from roofline.widgets.roofline.static import render_responsive
    data = drawing_payload(settings)
    overlay = None
    if settings.measurement is not None:  # the static drawing shows the measurement too
        from roofline.widgets.measurement.overlay import load_measurement, overlay_data
        overlay = overlay_data(load_measurement(settings.measurement), *data["x"])
    return block(build_layout(settings), height_px=settings.height_px,
                 label=label or settings.label,
                 static=render_responsive(data, height_px=settings.height, overlay=overlay))

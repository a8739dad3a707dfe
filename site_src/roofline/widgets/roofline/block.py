"""```roofline: validated settings in, the page's HTML block out (the door's renderer for this
kind; it never parses options or picks defaults: the settings did)."""

from __future__ import annotations

from roofline.widgets.roofline.settings import RooflineSettings


def render(settings: RooflineSettings, *, label: str = "") -> str:
    """The interactive roofline (with its measurement overlay, if any) and its static first
    frame."""
    from roofline.render.embed import block
    from roofline.widgets.roofline.layout import build_layout, drawing_payload
    from roofline.widgets.roofline.static import key_html, render as static
    data = drawing_payload(settings)
    doc = None
    if settings.measurement is not None:  # the static drawing shows the measurement too
        from roofline.widgets.measurement.settings import load_measurement
        doc = load_measurement(settings.measurement)
    return block(build_layout(settings), height_px=settings.height_px,
                 label=label or settings.label,
                 static=static(data, height_px=settings.height, measurement=doc),
                 key=key_html(data))

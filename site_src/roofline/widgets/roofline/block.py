"""```roofline: validated settings in, the page's HTML block out (the door's renderer for this
kind; it never parses options or picks defaults: the settings did)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from roofline.widgets.roofline.settings import RooflineSettings

if TYPE_CHECKING:
    from roofline.model.catalog import Catalog
    from roofline.model.ops import OpZoo

# What the live layout takes under its plot in a column narrower than each width (px; the
# desktop's is settings.CONTROLS_HEIGHT_PX and TOKENS_CONTROLS_PX): the selects wrap a row each,
# the verdict and readout a line or two more, the tokens marks and the measurement's file
# picker a row or two. Measured in Chromium at the widths under each breakpoint that wrap the
# most (columns of 480, 380 and 288 px: 512, 412 and 320 px windows), 2026-12-07; the browser
# test (tests/test_layout_shift_browser.py) holds them to the live layout at 412 px.
NARROW_CONTROLS_PX = {688: 278, 480: 361, 380: 370}
NARROW_TOKENS_PX = {688: 151, 480: 179, 380: 169}
NARROW_PICKER_PX = {688: 119, 480: 124, 380: 137}


def narrow_heights(settings: RooflineSettings, picker: bool) -> dict[int, int]:
    """{column width: the height the block reserves in a column narrower than it}."""
    return {w: settings.height + NARROW_CONTROLS_PX[w]
            + (NARROW_TOKENS_PX[w] if settings.tokens is not None else 0)
            + (NARROW_PICKER_PX[w] if picker else 0) for w in NARROW_CONTROLS_PX}


def render(settings: RooflineSettings, *, label: str = "", catalog: Catalog | None = None,
           zoo: OpZoo | None = None, measurement: dict | None = None) -> str:
    """The interactive roofline (with its measurement overlay, if any) and its static first
    frame. `catalog`, `zoo` and a `measurement` document given as a dict are what
    roofline.figure() may be handed instead of names (the fence only has names)."""
    from roofline.render.embed import block
    from roofline.widgets.roofline.payload import drawing_payload
    from roofline.widgets.roofline.static import key_html, record_html, render as static
    drawn = measurement if measurement is not None else settings.measurement
    height = settings.height_px
    # the drawing's payload, made once if the block draws it
    payload = functools.cache(lambda: drawing_payload(settings, catalog, zoo, measurement))

    def first_frame() -> str:
        doc = None
        if drawn is not None:  # the static drawing shows the measurement too
            from roofline.widgets.measurement.settings import load_measurement
            doc = load_measurement(drawn)
        return static(payload(), height_px=settings.height, measurement=doc)
    picker = bool(settings.overlay() and settings.overlay().height_px)
    if measurement is not None and settings.measurement is None:  # its overlay adds the picker
        from roofline.widgets.measurement.settings import PICKER_HEIGHT_PX
        height += PICKER_HEIGHT_PX
        picker = True

    def layout():   # Bokeh's part, built only when the block is drawn (not on a cache hit)
        from roofline.widgets.roofline.layout import build_layout
        return build_layout(settings, catalog=catalog, zoo=zoo, measurement=measurement)
    return block(layout, height_px=height, narrow_px=narrow_heights(settings, picker),
                 label=label or settings.label, caption=caption(payload()),
                 static=first_frame, key=lambda: key_html(payload()) + record_html(payload()))


def caption(payload: dict) -> str:
    """One sentence that says what to look at, with the chip's own ridge, slope and roof, for
    the view the payload opens on (static.mjs rooflineCaption: the live plot rewrites it with the
    same code as the reader moves a control)."""
    from roofline.render.jsengine import call
    from roofline.widgets.roofline.static import JS
    return call(JS, "rooflineCaption", payload, payload["state"])

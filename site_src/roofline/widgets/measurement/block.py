"""```roofline-measurement: validated settings in, one static table of a measurement out (the
door's renderer for this kind)."""

from __future__ import annotations

from roofline.widgets.measurement.settings import MeasurementTableSettings


def render(settings: MeasurementTableSettings) -> str:
    from roofline.widgets.measurement.overlay import measurement_block
    return measurement_block(settings)

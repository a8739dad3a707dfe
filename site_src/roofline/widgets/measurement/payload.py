"""The measurement widgets' payload: what measure.mjs reads, for the overlay on a roofline
(OverlaySettings) and the ```roofline-measurement table (MeasurementTableSettings), both in
widgets/measurement/settings.py. It is the measurement document itself, validated against
roofline.measure.schema: the JS reads the file's own field names, so a reader's dropped file and
the build's are read alike."""

from __future__ import annotations


def payload(settings) -> dict:
    """The validated measurement document the settings name."""
    return settings.document()

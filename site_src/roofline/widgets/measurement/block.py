"""```roofline-measurement: validated settings in, one static table of a measurement out (the
door's renderer for this kind; no Bokeh: the overlay on a roofline is overlay.py's)."""

from __future__ import annotations

import html
from pathlib import Path

from roofline.render.jsengine import call
from roofline.widgets.measurement.settings import MeasurementTableSettings

JS = Path(__file__).parent / "measure.mjs"


def render(settings: MeasurementTableSettings) -> str:
    return measurement_block(settings)


def measurement_block(settings: MeasurementTableSettings) -> str:
    """```roofline-measurement: a table of a measurement, built from its JSON at build time.

        file: measurement-build-machine.json   # package data, or a path under docs/
        show: ops   # summary | verdict | check | ceilings | stream | ops | spread | machine
    """
    from roofline.measure import tables

    doc = settings.document()
    if settings.show == "summary":
        return f'<p class="roofline-measurement-summary">{html.escape(summary_text(doc))}</p>'
    if settings.show == "verdict":
        text = html.escape(tables.verdict_sentences(doc))
        return f'<p class="roofline-measurement-verdict">{text}</p>'
    if settings.show == "check":
        passed = doc["checks"]["triad_vs_roof"]["passed"]
        text = html.escape(tables.check_text(doc))
        return (f'<p class="roofline-measurement-check" '
                f'data-passed="{str(passed).lower()}">{text}</p>')
    if settings.show == "machine":
        return tables.plain_html(tables.machine_table(doc))
    table = {"ceilings": tables.ceilings_table, "stream": tables.stream_table,
             "ops": tables.ops_check_table, "spread": tables.spread_table}[settings.show](doc)
    return tables.plain_html(table)


def summary_text(doc: dict) -> str:
    """The one-line summary of a measurement (measure.mjs summaryText, run at build time)."""
    return call(JS, "summaryText", doc)

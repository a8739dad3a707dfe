"""Bokeh's integrity check (bad column lengths, missing renderers, empty layouts...) on every
Bokeh layout the site draws and on each kind's defaults, so a layout bug meets it here."""

from __future__ import annotations

from pathlib import Path

from roofline.hosts import door
from lesson_site.bokeh_models import fences

DOCS = Path(__file__).resolve().parent.parent / "docs"
BOKEH_KINDS = sorted(k for k, v in door.KINDS.items() if v.bokeh)


def _layout(kind: str, options: dict):
    settings = door.settings(kind, options)
    if kind == "roofline":
        from roofline.widgets.roofline.layout import build_layout
        return build_layout(settings)
    from roofline.widgets.budget.layout import _build
    return _build(settings, settings.payload())


def _site_cases() -> list[tuple[str, dict]]:
    cases = [(kind, {}) for kind in BOKEH_KINDS]
    return cases + [(kind, options) for _, kind, options in fences(DOCS) if kind in BOKEH_KINDS]


def _issues(layout) -> list[str]:
    from bokeh.core.validation.check import check_integrity
    found = check_integrity(layout.references())
    return [f"{i.code} {i.name}: {i.text} ({i.extra})" for i in found.error + found.warning]


def test_every_bokeh_layout_of_the_site_passes_bokeh_s_integrity_check():
    cases = _site_cases()
    assert {k for k, _ in cases} == set(BOKEH_KINDS) and len(cases) >= 5 + len(BOKEH_KINDS)
    for kind, options in cases:
        assert _issues(_layout(kind, options)) == [], (kind, options)


def test_seeded_a_glyph_whose_source_lacks_its_columns_is_reported():
    from bokeh.models import ColumnDataSource, GlyphRenderer, Plot
    layout = _layout("roofline", {})
    plot = next(m for m in layout.references() if isinstance(m, Plot))
    renderer = next(r for r in plot.renderers if isinstance(r, GlyphRenderer))
    renderer.data_source = ColumnDataSource({"a": [1.0, 2.0]})  # a source built for another glyph
    issues = _issues(layout)
    assert any("BAD_COLUMN_NAME" in i for i in issues), issues

"""The roofline model behind the lesson site: catalog → model → renderers.

The model (catalog, ops, maths, transformer, budget) needs only numpy. `figure()` builds the
interactive Bokeh roofline and imports bokeh on first use.
"""

from __future__ import annotations

import importlib

from roofline.errors import RooflineError, RooflineWarning

_FROM = {"Accelerator": "model.catalog", "Catalog": "model.catalog",
         "default_catalog": "model.catalog", "load_catalog": "model.catalog",
         "attainable": "model.maths", "bound": "model.maths", "intensity": "model.maths",
         "place": "model.maths", "ridge": "model.maths", "time_lower_bound": "model.maths",
         "Op": "model.ops", "default_zoo": "model.ops", "load_zoo": "model.ops"}
"""Where each model name lives: imported on first use, so importing a host (the MkDocs plugin,
the render-ahead worker) does not load the whole model before it has started its work."""


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM})


__all__ = ["Accelerator", "Catalog", "Op", "RooflineError", "RooflineWarning", "attainable",
           "block", "bound", "default_catalog", "default_zoo", "figure", "intensity", "load_catalog",
           "load_zoo", "place", "ridge", "time_lower_bound"]


def figure(**kwargs):
    """The interactive roofline as a Bokeh layout (see roofline.widgets.roofline.layout.figure) that also
    shows itself in a notebook, offline, and has .save(path) (see roofline.hosts.notebook)."""
    from roofline.hosts.notebook import roofline_figure
    return roofline_figure(**kwargs)


def block(kind: str, **options):
    """A block that needs no BokehJS (``"roofline-window"``, ``"roofline-profile"``, the table
    kinds), with the fence's options: shows itself in a notebook and has .save(path)
    (see roofline.hosts.notebook.Block)."""
    from roofline.hosts.notebook import roofline_block
    return roofline_block(kind, **options)

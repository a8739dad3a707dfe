"""The roofline model behind the lesson site: catalog → model → renderers.

The model (catalog, ops, maths, transformer, budget) needs only numpy. `figure()` builds the
interactive Bokeh roofline and imports bokeh on first use.
"""

from __future__ import annotations

from roofline._lazy import lazy_names
from roofline.errors import RooflineError, RooflineWarning

# Imported on first use, so importing a host (the MkDocs plugin) does not load the whole model.
__getattr__, __dir__ = lazy_names(__name__, {
    "model.catalog": ("Accelerator", "Catalog", "default_catalog", "load_catalog"),
    "model.maths": ("attainable", "bound", "intensity", "place", "ridge", "time_lower_bound"),
    "model.ops": ("Op", "default_zoo", "load_zoo")}, globals())

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

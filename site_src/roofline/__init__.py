"""The roofline model behind the lesson site: catalog → model → renderers.

The model (catalog, ops, maths, transformer, budget) needs only numpy. `figure()` builds the
interactive Bokeh roofline and imports bokeh on first use.
"""

from __future__ import annotations

from roofline.model.catalog import Accelerator, Catalog, default_catalog, load_catalog
from roofline.errors import RooflineError, RooflineWarning
from roofline.model.maths import attainable, bound, intensity, place, ridge, time_lower_bound
from roofline.model.ops import Op, default_zoo, load_zoo

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

"""The notebook entry's public name: `from roofline.notebook import figure` (the same call as
`roofline.figure`), whatever folder the implementation lives in (hosts/notebook.py)."""

from __future__ import annotations

from roofline.hosts.notebook import roofline_figure as figure

__all__ = ["figure"]

"""Widget settings: one frozen dataclass per widget kind, no bokeh (see widgets/base.py)."""

from roofline.render import assets, bokehjs

# Before any widget module imports bokeh: a bokeh of another minor version than the vendored
# BokehJS was trimmed from is refused here, in one line, not by a page that draws nothing.
bokehjs.check_version(assets.bokeh_version())

from roofline.widgets.base import (DEFAULT_HARDWARE, DEFAULT_PRECISION, Option,  # noqa: E402
                                   WidgetSettings)

__all__ = ["DEFAULT_HARDWARE", "DEFAULT_PRECISION", "Option", "WidgetSettings"]

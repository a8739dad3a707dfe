"""Widget settings: one frozen dataclass per widget kind, no bokeh (see widgets/base.py)."""

from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION, Option, WidgetSettings

__all__ = ["DEFAULT_HARDWARE", "DEFAULT_PRECISION", "Option", "WidgetSettings"]

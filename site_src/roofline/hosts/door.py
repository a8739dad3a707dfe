"""The one door every host goes through: options → settings → rendered block.

    html = door.render_widget("roofline", {"hardware": "a100-sxm-80gb"}, where="docs/a.md:12")

The fence, the Sphinx directive, the notebook, `roofline.figure()` and the CLI all come in here,
so a kind is parsed, validated, defaulted and rendered one way whatever hosts it. Bad input is a
`WidgetOptionError` ("where: option 'x': what is wrong", made by the kind's settings class);
any other exception is a bug in this package and propagates as itself. Warnings (what valid
settings will not show) go to the host's `warn`, else the MkDocs log. A new kind: its settings
class and renderer in roofline/widgets/<kind>/, then one line in KINDS.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from roofline.errors import RooflineError, WidgetOptionError
from roofline.widgets.base import WidgetSettings

if TYPE_CHECKING:
    from roofline.hosts.buildcache import Cache

log = logging.getLogger("mkdocs.plugins.roofline")


@dataclass(frozen=True)
class WidgetKind:
    """A widget kind: its settings class and its renderer as "module:name", imported on first
    use (so Bokeh is imported only when a block is drawn, not on a cache hit)."""
    settings: str
    render: str
    bokeh: bool = False
    """Its blocks hold a Bokeh item (embed.block)."""

    def settings_class(self) -> type[WidgetSettings]:
        return _attr(self.settings)

    def renderer(self):
        return _attr(self.render)


KINDS: Mapping[str, WidgetKind] = MappingProxyType({  # read-only: one registry for all
    "roofline": WidgetKind("roofline.widgets.roofline.settings:RooflineSettings",
                           "roofline.widgets.roofline.block:render", bokeh=True),
    "roofline-measurement": WidgetKind(
        "roofline.widgets.measurement.settings:MeasurementTableSettings",
        "roofline.widgets.measurement.block:render"),
    "roofline-budget": WidgetKind("roofline.widgets.budget.settings:BudgetSettings",
                                  "roofline.widgets.budget.block:budget_block", bokeh=True),
    "roofline-budget-table": WidgetKind("roofline.widgets.budget.settings:BudgetTableSettings",
                                        "roofline.widgets.budget.block:budget_table_block"),
    "roofline-window": WidgetKind("roofline.widgets.window.settings:WindowSettings",
                                  "roofline.widgets.window.block:render"),
    "roofline-profile": WidgetKind("roofline.widgets.profile.settings:ProfileSettings",
                                   "roofline.widgets.profile.block:render"),
})


def _attr(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def kind_of(kind: str, *, where: str = "") -> WidgetKind:
    try:
        return KINDS[kind]
    except KeyError:
        raise WidgetOptionError(f"unknown widget kind {kind!r}", where=where,
                                valid=list(KINDS)) from None


Warn = Callable[[str, str], None]
"""A host's way to report a warning: warn(option, message)."""


def settings(kind: str, options: Mapping[str, Any] | None = None, *, where: str = "",
             warn: Warn | None = None, **fields: Any) -> WidgetSettings:
    """Validated settings of widget `kind` from a host's options (a fence's YAML, a directive's
    options, figure()'s or the CLI's keyword arguments); `fields` sets dataclass fields that
    are not options (the CLI's --catalog). Raises WidgetOptionError naming where and option;
    reports the settings' warnings through `warn` (default: the MkDocs log)."""
    cls = kind_of(kind, where=where).settings_class()
    try:
        checked = cls.from_options(options or {}, where=where, **fields)
    except RooflineError as exc:
        log.debug("%s: %s", where or kind, exc, exc_info=True)
        raise cls.option_error(exc, where=where, given=options or {}) from None
    for option, message in checked.warnings():
        if warn is not None:
            warn(option, message)
        else:
            log.warning("%s", WidgetOptionError(message, where=where, option=option))
    return checked


def render(widget: WidgetSettings, *, where: str = "", cache: Cache | None = None) -> str:
    """The HTML block for validated settings, through the on-disk build cache (`cache`, else
    buildcache.Cache.here(): an unchanged widget is read back and never imports Bokeh). A model
    error raised while drawing (a data file edited since the settings were checked) is reported
    against the option to blame."""
    from roofline.hosts.buildcache import cached
    spec = kind_of(widget.KIND)
    try:
        return cached(widget.KIND, widget, lambda: spec.renderer()(widget), cache)
    except RooflineError as exc:
        log.debug("%s: %s", where or widget.KIND, exc, exc_info=True)
        raise type(widget).option_error(exc, where=where) from None


def render_widget(kind: str, options: Mapping[str, Any] | None = None, *, where: str = "",
                  warn: Warn | None = None, cache: Cache | None = None) -> str:
    """settings() then render(): the HTML block of widget `kind` for `options`."""
    return render(settings(kind, options, where=where, warn=warn), where=where, cache=cache)

"""Every widget host's one door: `render_widget(kind, options, where=...)`, and the superfences
custom fences (```roofline and friends) built on it.

    render_widget("roofline", {"hardware": "a100-sxm-80gb", "ai": 2}, where="docs/a.rst:12")

parses `options` with the kind's settings dataclass (roofline/widgets/, one per kind: defaults,
schema, validation, height, payload), renders its HTML block (roofline/plot/, through the
on-disk build cache, so an unchanged widget never imports bokeh), and turns ANY exception (ours,
Bokeh's, a KeyError) into one `WidgetOptionError`: "where: option 'x': what is wrong", with the
traceback logged at DEBUG on the `mkdocs.plugins.roofline` logger (`mkdocs build -v` shows it).

The fences (FENCES, installed by the MkDocs plugin; a Zensical or any Python-Markdown site can
name one directly: `format: !!python/name:roofline.hosts.fences.roofline_fence`) parse the body as
YAML and call render_widget; an error becomes a `FenceError`, one line naming the page, the
option's line and the option:

    docs/index.md:7: ```roofline fence: option 'precison': unknown option (valid: …)

FenceError is a SuperFencesException (anything else superfences swallows, leaving a plain code
block) and an MkDocs PluginError (MkDocs prints it as one line, with no traceback).

Adding a widget kind: its settings class and renderer (see roofline/widgets/base.py), then one
line in WIDGETS below.
"""

from __future__ import annotations

import contextvars
import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from pymdownx.superfences import SuperFencesException

from roofline.errors import RooflineError, WidgetOptionError
from roofline.widgets.base import WidgetSettings
from roofline.widgets.roofline.settings import CONTROLS_HEIGHT_PX, RooflineSettings

try:
    from mkdocs.exceptions import PluginError
except ImportError:  # a Python-Markdown site without MkDocs
    PluginError = Exception  # type: ignore[misc,assignment]

log = logging.getLogger("mkdocs.plugins.roofline")
Formatter = Callable[..., str]

# Set by the MkDocs plugin while a page converts: (the page's path as printed, its Markdown).
PAGE: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "roofline_fence_page", default=None)


@dataclass(frozen=True)
class WidgetKind:
    """A widget kind: its settings class and its renderer, as "module:name" (imported on first
    use, so bokeh is imported only when a block is actually drawn). A kind without a settings
    class yet gets the checked option dict."""
    render: str
    settings: str = ""

    def settings_class(self) -> type[WidgetSettings] | None:
        return _attr(self.settings) if self.settings else None


WIDGETS: dict[str, WidgetKind] = {
    "roofline": WidgetKind("roofline.widgets.blocks:roofline_block",
                           "roofline.widgets.roofline.settings:RooflineSettings"),
    "roofline-measurement": WidgetKind("roofline.widgets.blocks:measurement_block",
                                       "roofline.widgets.measurement.settings:MeasurementTableSettings"),
    "roofline-budget": WidgetKind("roofline.widgets.budget.layout:budget_block",
                                  "roofline.widgets.budget.settings:BudgetSettings"),
    "roofline-budget-table": WidgetKind("roofline.widgets.budget.layout:budget_table_block",
                                        "roofline.widgets.budget.settings:BudgetTableSettings"),
}
ROOFLINE_OPTIONS = {o.name: o.types for o in RooflineSettings.OPTIONS}


def _attr(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


# ---------------------------------------------------------------- the one door

def render_widget(kind: str, options: Mapping[str, Any], *, where: str) -> str:
    """The HTML block of widget `kind` for `options` (already parsed to a dict). Raises
    WidgetOptionError ("where: option 'x': message", `.where`, `.option`) for any failure."""
    try:
        spec = WIDGETS[kind]
    except KeyError:
        raise WidgetOptionError(f"unknown widget kind {kind!r} (valid: {', '.join(WIDGETS)})",
                                where=where) from None
    cls = None
    try:
        cls = spec.settings_class()
        settings: Any = (cls.from_options(options, where=where) if cls is not None
                         else dict(options))
        from roofline.hosts.buildcache import cached
        return cached(kind, settings, lambda: _attr(spec.render)(settings))
    except WidgetOptionError as exc:
        log.debug("%s: %s", where or kind, exc, exc_info=True)
        raise exc.at(where) if where and not exc.where else exc
    except RooflineError as exc:
        log.debug("%s: %s", where or kind, exc, exc_info=True)
        if cls is not None:
            raise cls.option_error(exc, where=where, given=options) from None
        field = exc.field.split(".")[0] if exc.field else ""
        raise WidgetOptionError(exc.detail if field in options else str(exc), where=where,
                                option=field if field in options else "",
                                valid=exc.valid) from None
    except Exception as exc:  # Bokeh's, a KeyError, a bug: still one line, never swallowed
        log.debug("%s: %s widget failed", where or kind, kind, exc_info=True)
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise WidgetOptionError(f"{type(exc).__name__}{': ' + text if text else ''} "
                                "(an internal error; -v shows the traceback)",
                                where=where) from None


# ---------------------------------------------------------------- the fences

class FenceError(SuperFencesException, PluginError):
    """A fence's one-line error: superfences lets it through, MkDocs prints it without a
    traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def parse(source: str) -> dict:
    """A fence body as a dict of options (empty body: no options)."""
    try:
        data = yaml.safe_load(source) if source.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (body line {mark.line + 1})" if mark is not None else ""
        raise WidgetOptionError(f"bad YAML{at}: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise WidgetOptionError(f"the body must be 'key: value' lines, got "
                                f"{type(data).__name__}")
    return data


class _Seen:
    """How many fences of each body the current page has rendered so far: the nth identical
    fence is reported at the nth place it occurs (superfences renders in page order)."""
    page: object = None
    counts: dict[str, int] = {}

    @classmethod
    def count(cls, source: str) -> int:
        page = PAGE.get()
        if page is not cls.page:
            cls.page, cls.counts = page, {}
        cls.counts[source] = cls.counts.get(source, 0) + 1
        return cls.counts[source]


def where(source: str, option: str = "", nth: int = 1) -> str:
    """'docs/page.md:12' for the line of the `nth` fence with this body (or its option's line),
    or '' off a page."""
    page = PAGE.get()
    if page is None:
        return ""
    path, markdown = page
    lines = source.strip("\n").splitlines()
    start = _find(markdown.splitlines(), [ln.strip() for ln in lines], nth) if lines else None
    if start is None:
        return path
    line = start  # 1-based number of the fence's opening line (the line before the body)
    if option:
        for offset, text in enumerate(lines, start=1):
            if text.lstrip().startswith(f"{option}:"):
                return f"{path}:{line + offset}"
    return f"{path}:{line}"


def _find(page: list[str], body: list[str], nth: int = 1) -> int | None:
    """Index of the page line where the `nth` copy of `body` starts (indentation ignored:
    fences inside admonitions and tabs arrive dedented); else of the first copy."""
    first, found = body[0], []
    for i, text in enumerate(page):
        if text.strip() == first and [t.strip() for t in page[i:i + len(body)]] == body:
            found.append(i)
            if len(found) == nth:
                break
    return found[nth - 1] if len(found) >= nth else (found[0] if found else None)


def fence(kind: str) -> Formatter:
    """The superfences formatter of widget `kind`."""
    def formatter(source: str, language: str, class_name: str, options: dict, md: Any,
                  **kwargs: Any) -> str:
        name = language or kind
        nth = _Seen.count(source)
        try:
            # Python-Markdown unwraps a stashed block from its <p> only when the HTML starts
            # with a tag: a leading newline leaves a <table> inside a <p> (invalid HTML).
            return render_widget(kind, parse(source), where="").strip()
        except WidgetOptionError as exc:
            at = where(source, exc.option, nth)
            text = (f"```{name} fence: " + (f"option '{exc.option}': " if exc.option else "")
                    + exc.detail)
            raise FenceError(f"{at}: {text}" if at else text) from None
    formatter.__name__ = formatter.__qualname__ = f"{kind.replace('-', '_')}_fence"
    return formatter


FENCES: dict[str, Formatter] = {kind: fence(kind) for kind in WIDGETS}
roofline_fence = FENCES["roofline"]


def custom_fences() -> list[dict]:
    """FENCES as superfences `custom_fences` entries."""
    return [{"name": name, "class": name, "format": formatter}
            for name, formatter in FENCES.items()]

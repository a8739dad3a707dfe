"""The widgets' options as the docs list them, read from each kind's settings schema (OPTIONS,
the dataclass defaults), so a page cannot fall behind the code:

- `<!-- rl:options kind=roofline -->`: the option names, inline (`hardware`, `precision`, …);
- `<!-- rl:options_table kind=roofline -->`: key, value and default, one row per option.
"""

from __future__ import annotations

import dataclasses

from roofline.hosts import door
from roofline.render.table_value import Column, Table
from roofline.widgets.base import Option, WidgetSettings
from lesson_site.context import Context
from lesson_site.markers import marker


def _settings(kind: str) -> type[WidgetSettings]:
    return door.kind_of(kind, where="rl:options").settings_class()


def default_text(settings: type[WidgetSettings], option: Option) -> str:
    """How an option's default reads: its own words, else the field's default as written in a
    fence (`true`, `h100-sxm`, `400`)."""
    if option.default_text:
        return option.default_text
    field = next(f for f in dataclasses.fields(settings) if f.name == option.attr)
    value = field.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value is None or value == ():
        return "none"
    if isinstance(value, tuple):  # a list option, as a fence writes it
        return f"`[{', '.join(map(str, value))}]`"
    return f"`{value}`"


def options_table(kind: str) -> Table:
    settings = _settings(kind)
    columns = (Column("key", "key", lambda k: f"`{k}`"), Column("value", "value"),
               Column("default", "default"))
    rows = tuple({"key": o.name, "value": o.help, "default": default_text(settings, o)}
                 for o in settings.OPTIONS)
    return Table(columns, rows)


@marker("options")
def options(ctx: Context, *, kind: str = "roofline") -> str:
    return ", ".join(f"`{o.name}`" for o in _settings(kind).OPTIONS)


@marker("options_table", block=True)
def options_table_markdown(ctx: Context, *, kind: str = "roofline") -> str:
    return options_table(kind).as_markdown()

"""One settings object per widget kind: the pattern every widget follows (no bokeh here).

A widget kind (```roofline, ```roofline-measurement, ```roofline-budget, …) has ONE frozen
dataclass, a subclass of `WidgetSettings`, in the bokeh-free `settings.py` of its folder
(roofline/widgets/<kind>/, beside its payload, Bokeh layout, renderer and JS). It holds, and is
the only place that holds:

- the defaults: the dataclass fields' defaults (the lesson's chip and precision come from
  DEFAULT_HARDWARE / DEFAULT_PRECISION below, the running example's, roofline.model.example);
- the option schema: `OPTIONS`, a tuple of `Option(name, types, help, field=..., items=...)`.
  Every host parses into the dataclass through it, by way of the one door
  (roofline.hosts.door.settings): the fence (a YAML body), Sphinx (a parsed dict),
  `roofline.figure()` (keyword arguments) and the CLI (whose flags are generated from it);
- validation: `check()` runs after the types are checked; it raises `WidgetOptionError`
  naming the option (use `self.fail(option, message)`), never a bare RooflineError;
- the reserved height: `height_px`, the pixels the page reserves before BokehJS draws
  (plot + controls), so nothing shifts;
- the data payload: `payload()`, JSON-able, what the browser draws from (no bokeh objects).

The renderer takes a validated settings object and returns HTML; it never re-validates or
re-defaults. roofline.hosts.door.KINDS maps a kind to its settings class and its renderer; the
door turns bad input into one WidgetOptionError naming where and the option, and lets a bug
propagate as itself.

Adding a kind: a folder roofline/widgets/<kind>/ with `settings.py` (a WidgetSettings: KIND,
OPTIONS, fields with defaults, check, height_px, payload) and a renderer
`render(settings) -> str`, and one line in roofline.hosts.door.KINDS.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from roofline.errors import RooflineError, WidgetOptionError
from roofline.model.example import EXAMPLE

DEFAULT_HARDWARE = EXAMPLE.hardware
"""The lesson's chip: the default of every widget, CLI command and table that needs one."""
DEFAULT_PRECISION = EXAMPLE.precision

S = TypeVar("S", bound="WidgetSettings")


@dataclass(frozen=True)
class Option:
    """One option of a widget: its name in the fence/directive, the types it takes, a one-line
    help, the dataclass field it sets (default: the same name), for lists the item type, and
    how its default reads where the field's default says nothing by itself (None: worked out
    from the other options)."""
    name: str
    types: type | tuple[type, ...]
    help: str = ""
    field: str = ""
    items: type | None = None
    default_text: str = ""

    @property
    def attr(self) -> str:
        return self.field or self.name


def type_names(t: type | tuple[type, ...]) -> str:
    types = t if isinstance(t, tuple) else (t,)
    if set(types) == {int, float}:
        return "a number"
    names = {str: "text", int: "an integer", float: "a number", list: "a list", bool: "true/false"}
    return " or ".join(names.get(x, x.__name__) for x in types)


def check_types(options: Mapping[str, Any], schema: tuple[Option, ...], *,
                where: str = "") -> dict[str, Any]:
    """`options` with only the schema's names, each of an allowed type (lists become tuples);
    else WidgetOptionError naming the option."""
    if not isinstance(options, Mapping):
        raise WidgetOptionError(f"the options must be 'key: value' pairs, got "
                                f"{type(options).__name__}", where=where)
    by_name = {o.name: o for o in schema}
    out: dict[str, Any] = {}
    for key, value in options.items():
        opt = by_name.get(str(key))
        if opt is None:
            raise WidgetOptionError(f"unknown option (valid: {', '.join(by_name)})", where=where,
                                    option=str(key))
        types = opt.types if isinstance(opt.types, tuple) else (opt.types,)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise WidgetOptionError(f"expected {type_names(opt.types)}, got {value!r}",
                                    where=where, option=opt.name)
        if isinstance(value, (list, tuple)):
            if opt.items is not None and not all(isinstance(v, opt.items) for v in value):
                raise WidgetOptionError(f"expected a list of {type_names(opt.items)}, got "
                                        f"{list(value)!r}", where=where, option=opt.name)
            value = tuple(value)
        out[opt.name] = value
    return out


class WidgetSettings:
    """Base of every widget kind's frozen settings dataclass (see the module docstring)."""

    KIND: ClassVar[str] = ""
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    FIELD_OPTIONS: ClassVar[dict[str, str]] = {}
    """A model error's field (RooflineError.field, first part) -> the option to blame."""

    @classmethod
    def from_options(cls: type[S], options: Mapping[str, Any] | None = None, *,
                     where: str = "", **fields: Any) -> S:
        """Parse and validate host options (fence YAML, Sphinx directive, CLI, figure());
        `fields` sets dataclass fields that are not options (e.g. the CLI's --catalog)."""
        checked = check_types(options or {}, cls.OPTIONS, where=where)
        by_name = {o.name: o for o in cls.OPTIONS}
        values = {by_name[k].attr: v for k, v in checked.items()}
        settings = cls(**values, **fields)  # type: ignore[call-arg]
        try:
            settings.check()
        except WidgetOptionError as exc:
            raise exc.at(where) if where and not exc.where else exc
        except RooflineError as exc:
            raise cls.option_error(exc, where=where, given=checked) from None
        return settings

    @classmethod
    def option_error(cls, exc: RooflineError, *, where: str = "",
                     given: Mapping[str, Any] | None = None) -> WidgetOptionError:
        """A model error as the option to blame (only one the host gave, when `given`)."""
        if isinstance(exc, WidgetOptionError):
            return exc.at(where) if where and not exc.where else exc
        field = exc.field.split(".")[0] if exc.field else ""
        option = cls.FIELD_OPTIONS.get(field, field)
        names = {o.name for o in cls.OPTIONS} | {o.attr for o in cls.OPTIONS}
        if option not in names or (given is not None and option not in given):
            option = ""
        detail = exc.detail if option else str(exc)
        return WidgetOptionError(detail, where=where, option=option, valid=exc.valid)

    def replace(self: S, **changes: Any) -> S:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def fail(self, option: str, message: str, valid: list[str] | None = None) -> WidgetOptionError:
        return WidgetOptionError(message, option=option, valid=valid)

    def check(self) -> None:
        """Validate against the model (catalog, zoo, files); raise WidgetOptionError."""

    def warnings(self) -> list[tuple[str, str]]:
        """(option, message) for each thing asked for that valid settings will not show (a
        roof the chip has no figure for): every host reports them through the door, and a
        request that would show nothing at all is refused by check() instead."""
        return []

    def data_files(self) -> list[str]:
        """Files outside the package data folder this widget reads (the build cache hashes
        them with the data folder's)."""
        return []

    def options(self) -> dict[str, Any]:
        """The options that differ from the defaults, by option name: what a host would write
        to get this widget again (and the build cache's key)."""
        out: dict[str, Any] = {}
        for opt in self.OPTIONS:
            value = getattr(self, opt.attr)
            default = next(f.default for f in dataclasses.fields(self)  # type: ignore[arg-type]
                           if f.name == opt.attr)
            if value != default:
                out[opt.name] = list(value) if isinstance(value, tuple) else value
        return out

    @property
    def height_px(self) -> int:
        raise NotImplementedError

    @property
    def label(self) -> str:
        """The accessible name of the widget's figure region."""
        return self.KIND

    def payload(self) -> dict:
        raise NotImplementedError

"""One error type for every bad input, so callers (CLI, fence, hook) can report it in one line."""

from __future__ import annotations


class RooflineError(ValueError):
    """Bad input: names where it came from (file or page), the entry and the field."""

    def __init__(self, message: str, *, where: str = "", entry: str = "", field: str = "",
                 valid: list[str] | tuple[str, ...] | None = None) -> None:
        self.where, self.entry, self.field, self.detail = where, entry, field, message
        self.valid = list(valid) if valid else []
        parts = [p for p in (where, f"entry '{entry}'" if entry else "",
                             f"field '{field}'" if field else "") if p]
        text = ": ".join(parts + [message]) if parts else message
        if self.valid:
            text += f" (valid: {', '.join(self.valid)})"
        super().__init__(text)


def unknown_id(kind: str, value: object, valid: list[str], *, where: str = "",
               field: str = "") -> RooflineError:
    return RooflineError(f"unknown {kind} {value!r}", where=where, field=field or kind,
                         valid=valid)


class WidgetOptionError(RooflineError):
    """A widget could not be made from its options: `.where` (a page and line, e.g.
    "docs/page.md:12", or ""), `.option` (the option's name, or "" when no one option is to
    blame) and a one-line message "where: option 'x': what is wrong"."""

    def __init__(self, message: str, *, where: str = "", option: str = "",
                 valid: list[str] | tuple[str, ...] | None = None) -> None:
        message = " ".join(str(message).split("\n")).strip()
        if valid:
            message += f" (valid: {', '.join(valid)})"
        super().__init__(message, where=where)
        self.option, self.field = option or "", option or ""
        parts = [p for p in (where, f"option '{option}'" if option else "") if p]
        self.args = (": ".join(parts + [message]),)

    def __str__(self) -> str:
        return self.args[0]

    def at(self, where: str) -> "WidgetOptionError":
        """The same error, reported at `where`."""
        return WidgetOptionError(self.detail, where=where, option=self.option)


class RooflineWarning(UserWarning):
    """Something asked for that valid settings will not show (a ceiling the chip has no figure
    for): roofline.figure() warns with it; other hosts log it (roofline.hosts.door)."""

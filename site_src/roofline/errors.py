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

"""The measurement file format: one JSON Schema file (data/measurement-schema.json) read by a
small checker here and by its twin in widgets/measurement/schema.mjs, so Python and the
browser reject the same files with the same field paths. Only the keywords that file uses are
understood; an unknown keyword is a bug in the schema, not in the measurement, and raises at
once."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from roofline.model import datafile as _toml
from roofline.model.datafile import DATA_DIR
from roofline.errors import RooflineError

SCHEMA_PATH = DATA_DIR / "measurement-schema.json"
FORMAT = "roofline-measurement"
SCHEMA_VERSION = 2

_KEYWORDS = {"$comment", "$defs", "$ref", "type", "properties", "required",
             "additionalProperties", "items", "minItems", "minLength", "enum", "const",
             "minimum", "exclusiveMinimum"}


def schema() -> dict:
    """The measurement JSON schema, cached per (path, mtime_ns, size): an edit is seen."""
    return _schema(_toml.file_key(SCHEMA_PATH))


@functools.lru_cache(maxsize=2)
def _schema(key: tuple[str, int, int]) -> dict:
    return json.loads(Path(key[0]).read_text(encoding="utf-8"))


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and value == value and value not in (float("inf"), float("-inf")))
    return isinstance(value, {"string": str, "array": list, "object": dict}[kind])


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(value: Any, rule: dict, path: str, root: dict) -> None:
    """Raise (message, path) for the first mismatch, walking in document order."""
    unknown = set(rule) - _KEYWORDS
    if unknown:
        raise AssertionError(f"schema uses unsupported keyword(s) {sorted(unknown)}")
    if "$ref" in rule:
        name = rule["$ref"].removeprefix("#/$defs/")
        _check(value, root["$defs"][name], path, root)
        return
    if "const" in rule and (value != rule["const"]
                            or isinstance(value, bool) != isinstance(rule["const"], bool)):
        raise _Mismatch(f"must be {_short(rule['const'])}, got {_short(value)}", path)
    if "enum" in rule and value not in rule["enum"]:
        raise _Mismatch(f"must be one of {', '.join(map(str, rule['enum']))}; got {_short(value)}",
                        path)
    if "type" in rule:
        kinds = rule["type"] if isinstance(rule["type"], list) else [rule["type"]]
        if not any(_type_ok(value, k) for k in kinds):
            raise _Mismatch(f"expected {' or '.join(kinds)}, got {_short(value)}", path)
    if _type_ok(value, "number"):
        if "minimum" in rule and value < rule["minimum"]:
            raise _Mismatch(f"must be ≥ {rule['minimum']}, got {_short(value)}", path)
        if "exclusiveMinimum" in rule and not value > rule["exclusiveMinimum"]:
            raise _Mismatch(f"must be > {rule['exclusiveMinimum']}, got {_short(value)}", path)
    if isinstance(value, str) and len(value) < rule.get("minLength", 0):
        raise _Mismatch("must not be empty", path)
    if isinstance(value, list):
        if len(value) < rule.get("minItems", 0):
            raise _Mismatch(f"needs at least {rule['minItems']} item(s), got {len(value)}", path)
        if "items" in rule:
            for i, item in enumerate(value):
                _check(item, rule["items"], f"{path}[{i}]", root)
    if isinstance(value, dict):
        for key in rule.get("required", []):
            if key not in value:
                raise _Mismatch("missing", _join(path, key))
        props = rule.get("properties", {})
        extra = rule.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                _check(item, props[key], _join(path, key), root)
            elif extra is False:
                raise _Mismatch(f"unknown field (known: {', '.join(props)})", _join(path, key))
            elif isinstance(extra, dict):
                _check(item, extra, _join(path, key), root)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Mismatch(Exception):
    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.message, self.path = message, path


def _consistency(doc: dict) -> None:
    """What a schema cannot say: spreads in order, and a roof for every point drawn."""
    for group in ("stream", "matmul", "ops"):
        for i, entry in enumerate(doc[group]):
            t = entry["time_s"]
            if not t["min"] <= t["median"] <= t["max"]:
                raise _Mismatch(f"needs min ≤ median ≤ max, got {t['min']!r}, {t['median']!r}, "
                                f"{t['max']!r}", f"{group}[{i}].time_s")
    ceilings = doc["ceilings"]
    levels = [b["level"] for b in ceilings["bandwidth"]]
    if ceilings["memory_level"] not in levels:
        raise _Mismatch(f"no bandwidth ceiling for memory_level {ceilings['memory_level']!r} "
                        f"(have: {', '.join(levels)})", "ceilings.bandwidth")
    roofs = [c["precision"] for c in ceilings["compute"]]
    for i, op in enumerate(doc["ops"]):
        if op["precision"] not in roofs:
            raise _Mismatch(f"no compute ceiling for precision {op['precision']!r} "
                            f"(have: {', '.join(roofs)})", f"ops[{i}].precision")


def validate(doc: Any, where: str = "measurement") -> dict:
    """Return `doc` if it is a measurement this code can read; otherwise raise RooflineError
    naming `where` (the file) and the field path, e.g. `stream[3].time_s.median`."""
    root = schema()
    try:
        if isinstance(doc, dict) and "schema_version" in doc and doc.get("format") == FORMAT \
                and doc["schema_version"] != SCHEMA_VERSION:
            raise _Mismatch(f"this site reads version {SCHEMA_VERSION}, the file is version "
                            f"{_short(doc['schema_version'])}: re-run `roofline measure`",
                            "schema_version")
        _check(doc, root, "", root)
        _consistency(doc)
    except _Mismatch as exc:
        raise RooflineError(exc.message, where=where, field=exc.path or "(top level)") from None
    return doc


def load(path: Path | str) -> dict:
    """Read and validate a measurement file; every failure names the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RooflineError("file not found", where=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RooflineError(f"cannot read: {exc}", where=str(path)) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RooflineError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column "
                            f"{exc.colno}", where=str(path)) from None
    return validate(doc, where=str(path))

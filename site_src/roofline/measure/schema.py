"""The measurement file format: one JSON Schema file (data/measurement-schema.json) read by one
checker, widgets/measurement/schema.mjs, which the measure page runs on a reader's file and the
build's JS engine runs here, so Python and the browser reject the same files with the same
field paths. Only the keywords that file uses are understood; an unknown keyword is a bug in
the schema, not in the measurement, and raises at once (as a JSError)."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

from roofline.model import datafile as _toml
from roofline.model.datafile import DATA_DIR
from roofline.errors import RooflineError

SCHEMA_PATH = DATA_DIR / "measurement-schema.json"
FORMAT = "roofline-measurement"
SCHEMA_VERSION = 2

CHECKER_JS = Path(__file__).resolve().parents[1] / "widgets" / "measurement" / "schema.mjs"


def schema() -> dict:
    """The measurement JSON schema, cached per (path, mtime_ns, size): an edit is seen."""
    return _schema(_toml.file_key(SCHEMA_PATH))


@functools.lru_cache(maxsize=2)
def _schema(key: tuple[str, int, int]) -> dict:
    return json.loads(Path(key[0]).read_text(encoding="utf-8"))


def _finite(value: Any) -> Any:
    """`value` as JSON can carry it to the checker: a NaN or an infinity (which JSON has no
    word for) becomes its Python spelling as a string, which no number rule accepts."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def validate(doc: Any, where: str = "measurement") -> dict:
    """Return `doc` if it is a measurement this code can read; otherwise raise RooflineError
    naming `where` (the file) and the field path, e.g. `stream[3].time_s.median`. The checker
    is schema.mjs's validate(), the one the measure page runs on a reader's file, run here by
    the build's JS engine: the CLI, the build and the browser refuse the same files in the
    same words."""
    from roofline.render.jsengine import call
    result = call(CHECKER_JS, "validate", _finite(doc), schema(), where)
    if not result["ok"]:
        raise RooflineError(result["message"], where=where, field=result["field"])
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
    _checked(str(path), text)
    return doc


@functools.lru_cache(maxsize=8)
def _checked(where: str, text: str) -> None:
    """Validate a file's text once per text (a build reads the same measurement for each of
    its fences, and again to draw them): keyed by the content, never stale; a bad file is
    refused every time (an exception is not remembered)."""
    validate(json.loads(text), where=where)

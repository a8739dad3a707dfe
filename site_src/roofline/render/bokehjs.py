"""The trimmed BokehJS the pages load: bokeh's own core and widgets modules, with only the
models our widgets serialize registered and only the modules those reach, five stubbed
(gzip, Bokeh server, map projections, SVG output, unused tool icons): 203 KB gzipped instead
of 452 for bokeh.min.js + bokeh-widgets.min.js (see BENCHMARKS.md).

It is vendored in roofline/vendor/bokehjs/ with manifest.json (the bokeh version, sha256 of
its inputs and of the script that made it, the models) so a build needs no Node; it is made by
`node scripts/trim-bokehjs.mjs` from the installed bokeh and models.json, which
`python -m lesson_site.bokeh_models` writes by walking the widgets' documents.

Pure reading: no bokeh import, so a warm build stays free of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "vendor" / "bokehjs"

# One entry of a generated registration module: "Name":r(123).Name (see trim-bokehjs.mjs).
_REGISTERED = re.compile(r'"([\w.]+)":r\(\d+\)\.\w+')


class StaleBundle(RuntimeError):
    """The vendored bundle no longer matches the installed bokeh or its inputs."""


@lru_cache(maxsize=1)
def manifest() -> dict:
    return json.loads((VENDOR / "manifest.json").read_text(encoding="utf-8"))


def bundle_path() -> Path:
    return VENDOR / manifest()["output"]["name"]


def _minor(version: str) -> tuple[str, ...]:
    return tuple(version.split(".")[:2])


def check_version(installed: str) -> None:
    """Refuse a bokeh of another minor version than the bundle was made from: its documents
    may name models or properties the bundle's BokehJS does not have. One line, naming both
    and the range pyproject.toml asks for. (A patch release serializes the same documents; the
    repository's own test of the bundle, stale_reasons, asks for the exact version.)"""
    made = manifest()["bokeh_version"]
    if _minor(made) != _minor(installed):
        major, minor = (int(v) for v in _minor(made))
        raise StaleBundle(f"roofline's BokehJS (roofline/vendor/bokehjs) was trimmed from bokeh "
                          f"{made} and needs bokeh {major}.{minor}.x, but bokeh {installed} is "
                          f"installed: pip install 'bokeh>={major}.{minor},<{major}.{minor + 1}'")


def item_models(item: object) -> Iterator[str]:
    """Every model type a json_item (or any serialized Bokeh value) refers to by name."""
    stack = [item]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("type") == "object" and isinstance(value.get("name"), str):
                yield value["name"]
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def stubbed_features(item: object) -> list[str]:
    """What a serialized document asks of the bundle's stubbed modules (trim-bokehjs.mjs
    STUBS): compressed binary arrays (fflate) or the SVG output backend (canvas2svg)."""
    found = []
    stack = [item]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("type") == "bytes" and isinstance(value.get("data"), str):
                found.append("compressed arrays (gzip)")
            if value.get("output_backend") == "svg":
                found.append("output_backend svg")
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return sorted(set(found))


def registered_models(bundle_text: str) -> set[str]:
    """The model names a trimmed bundle registers, read from the bundle itself."""
    return set(_REGISTERED.findall(bundle_text))


def missing_models(used: Iterable[str], bundle_text: str) -> list[str]:
    """The used model types the bundle cannot rebuild (BokehJS would fail on them)."""
    known = registered_models(bundle_text)
    return sorted({name for name in used if name not in known})


def stale_reasons(vendor: Path, bokeh_js: Path, generator: Path, bokeh_version: str) -> list[str]:
    """Why the bundle in `vendor` no longer matches its inputs (empty: it is current): the
    installed bokeh's version and bundles (in `bokeh_js`), the trimmer script, models.json,
    and the bundle file itself, each against manifest.json."""
    made = json.loads((vendor / "manifest.json").read_text(encoding="utf-8"))
    reasons = []
    if made["bokeh_version"] != bokeh_version:
        reasons.append(f"made from bokeh {made['bokeh_version']}, {bokeh_version} installed")
    for name, digest in made["inputs"].items():
        if _sha256(bokeh_js / name) != digest:
            reasons.append(f"bokeh's {name} differs from the one it was made from")
    if _sha256(generator) != made["generator"]["sha256"]:
        reasons.append(f"{made['generator']['path']} changed since")
    models = json.loads((vendor / "models.json").read_text(encoding="utf-8"))
    if models != made["models"]:
        reasons.append("models.json changed since")
    bundles = sorted(p.name for p in vendor.glob("bokeh-roofline-*.min.js"))
    if bundles != [made["output"]["name"]]:
        reasons.append(f"bundle files {bundles}, manifest names {made['output']['name']}")
    elif _sha256(vendor / made["output"]["name"]) != made["output"]["sha256"]:
        reasons.append(f"{made['output']['name']} was edited after it was made")
    return reasons


def _sha256(path: Path) -> str:
    import hashlib
    return hashlib.sha256(path.read_bytes()).hexdigest()

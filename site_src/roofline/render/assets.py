"""The browser files a roofline block needs: BokehJS and our loader.

BokehJS is the trimmed bundle vendored in roofline/vendor/bokehjs (bokeh's core and widgets
modules with only our widgets' models; see roofline.render.bokehjs), one file named with the
bokeh version and its hash so caches never serve a stale copy. `full=True` gives the installed
bokeh's own bundles instead, for a host where other Bokeh plots share window.Bokeh (a notebook).

Every embedding path — the MkDocs plugin, `roofline export`, `roofline plot` — gets its files
here, so a page never asks a CDN for anything.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata, util
from pathlib import Path

JS_DIR = Path(__file__).parent / "js"
ASSET_DIR = "assets/roofline"
"""Where the plugin puts the files inside a built site (relative to the site root)."""
# The full bundles a notebook gets; tables/gl/mathjax stay out (our widgets use none).
_COMPONENTS = ("bokeh", "bokeh-widgets")


@dataclass(frozen=True)
class Asset:
    name: str  # file name as shipped, e.g. bokeh-3.9.2.min.js
    path: Path  # where it comes from

    def read_text(self) -> str:
        return self.path.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def bokeh_version() -> str:
    """The installed bokeh's version, read without importing bokeh (a warm build never does)."""
    return metadata.version("bokeh")


@lru_cache(maxsize=2)
def bokeh_assets(*, full: bool = False) -> tuple[Asset, ...]:
    if not full:
        from roofline.render import bokehjs
        bokehjs.check_version(bokeh_version())
        path = bokehjs.bundle_path()
        return (Asset(path.name, path),)
    # Where bokeh.resources finds its bundles (bokeh/server/static/js), found without importing
    # bokeh.
    spec = util.find_spec("bokeh")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("bokeh is not installed")
    js_dir = Path(spec.submodule_search_locations[0]) / "server" / "static" / "js"
    return tuple(Asset(f"{c}-{bokeh_version()}.min.js", js_dir / f"{c}.min.js")
                 for c in _COMPONENTS)


def loader_source(*, full: bool = False) -> str:
    """The loader with the bundle names filled in (it loads them from its own folder)."""
    from roofline.render.jsstrip import strip_comments
    # Shipped without its comments (a third of it), like the callbacks (render/jsstrip.py).
    template = strip_comments((JS_DIR / "loader.js").read_text(encoding="utf-8"))
    names = [a.name for a in bokeh_assets(full=full)]
    return (template.replace("__BOKEH_FILES__", json.dumps(names))
            .replace("__BOKEH_VERSION__", bokeh_version()))


@lru_cache(maxsize=1)
def loader_name() -> str:
    digest = hashlib.sha256(loader_source().encode()).hexdigest()[:10]
    return f"roofline-loader.{digest}.js"


STABLE_LOADER = "roofline-loader.js"
"""A fixed-name copy of the loader, for configs that list it by hand (Zensical)."""


def write_assets(dest: Path, *, stable_loader: bool = False) -> list[Path]:
    """Copy the bundles and write the loader into `dest` (plus STABLE_LOADER if asked);
    returns the files written. Unchanged files are left alone, so watchers do not loop."""
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for asset in bokeh_assets():
        target = dest / asset.name
        data = asset.path.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        out.append(target)
    text = loader_source()
    for name in [loader_name()] + ([STABLE_LOADER] if stable_loader else []):
        loader = dest / name
        if not loader.exists() or loader.read_text(encoding="utf-8") != text:
            loader.write_text(text, encoding="utf-8")
        out.append(loader)
    return out


def inline_scripts() -> str:
    """BokehJS and the loader as inline <script> elements, for one self-contained HTML file."""
    parts = [a.read_text().replace("</script", "<\\/script") for a in bokeh_assets()]
    parts.append(loader_source())
    return "\n".join(f"<script>\n{p}\n</script>" for p in parts)

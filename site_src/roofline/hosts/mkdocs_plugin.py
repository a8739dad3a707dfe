"""The `roofline` MkDocs plugin: `plugins: [search, roofline]` and a ```roofline fence works.

It registers every fence of roofline.hosts.fences.FENCES with pymdownx.superfences, ships the BokehJS
bundles and the loader into the built site (no CDN), and tells the fences which page they are
on so a bad fence fails the build naming the page and line.
"""

from __future__ import annotations

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

import hashlib
import logging
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

from roofline.errors import RooflineError
from roofline.hosts import ahead, buildcache, fences, host_check
from roofline.render import assets, blockstyle
from roofline.render.embed import DEFERRED as _DEFERRED  # an item the worker still draws
from roofline.render.embed import ITEM as _ITEM  # a block's item, as block() writes it
from roofline.widgets import model_option

SUPERFENCES = "pymdownx.superfences"
log = logging.getLogger("mkdocs.plugins.roofline")


class RooflineConfig(Config):
    assets_dir = config_options.Type(str, default=assets.ASSET_DIR)
    # Worker processes that draw the build's widgets while the pages convert (hosts/ahead.py);
    # unset: one where there is a second CPU. 0 draws everything in the build's own process.
    workers = config_options.Optional(config_options.Type(int))


def _pages(docs_dir: Path):
    """(path, Markdown) of each .md file under `docs_dir`, in the order MkDocs converts them
    (index first in each folder, folders after files: mkdocs.structure.files.file_sort_key)."""
    def order(path: Path) -> tuple:
        parts = path.relative_to(docs_dir).parts
        return parts[:-1], path.stem != "index", parts[-1]
    for path in sorted(docs_dir.rglob("*.md"), key=order):
        try:
            yield path.relative_to(docs_dir).as_posix(), path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


class RooflinePlugin(BasePlugin[RooflineConfig]):
    def __init__(self) -> None:
        super().__init__()
        self._late: list[tuple[str, str]] = []
        """(written page, its URL) of pages whose items on_post_build fills in."""

    @event_priority(110)  # first of all (the site's hooks run at 100): the worker's head start
    def _start_drawing(self, config: MkDocsConfig) -> MkDocsConfig:
        self._late.clear()
        # Widget HTML is cached on disk beside mkdocs.yml: a warm build never imports bokeh.
        self.root = Path(config.config_file_path or ".").resolve().parent
        buildcache.configure(self.root / buildcache.DEFAULT_DIR)
        # A widget's `model:` config.json is a path relative to the docs folder.
        model_option.DOCS_DIR.set(Path(config.docs_dir))
        # The widgets the disk cache lacks go to a worker now, which draws them while MkDocs
        # reads its files and converts the pages (a cold build; hosts/ahead.py). The pages are
        # read from the docs folder in MkDocs' order: which fences a page has is only a hint.
        try:
            workers = ahead.workers(self.config.workers)
        except RooflineError as exc:
            raise PluginError(f"roofline: {exc}") from None
        ahead.start(_pages(Path(config.docs_dir)), workers=workers,
                    docs_dir=Path(config.docs_dir))
        return config

    def _configure(self, config: MkDocsConfig) -> MkDocsConfig:
        """After the other plugins' on_config (Material's offline plugin adds its polyfill)."""
        if SUPERFENCES not in config.markdown_extensions:
            config.markdown_extensions.append(SUPERFENCES)
        mdx = config.mdx_configs.setdefault(SUPERFENCES, {})
        custom = mdx.setdefault("custom_fences", [])
        # Keep the site's own entries; ours replace any of the same name (no duplicates on
        # `mkdocs serve` rebuilds, which call on_config again on the same config).
        ours = fences.custom_fences()
        names = {f["name"] for f in ours}
        custom[:] = [f for f in custom if f.get("name") not in names] + ours
        loader = f"{self.config.assets_dir}/{assets.loader_name()}"
        if loader not in [str(s) for s in config.extra_javascript]:
            config.extra_javascript.append(loader)
        host_check.warn_outside_assets(config)  # one warning if the host loads web fonts etc.
        return config

    on_config = CombinedEvent(_start_drawing, _configure)

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        base = self.config.assets_dir
        for asset in assets.bokeh_assets():
            files.append(File.generated(config, f"{base}/{asset.name}",
                                        abs_src_path=str(asset.path)))
        files.append(File.generated(config, f"{base}/{assets.loader_name()}",
                                    content=assets.loader_source()))
        return files

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Fill the pages written while the worker was still drawing their items (waiting for
        them now, after the last page), then end the build's rendering ahead."""
        try:
            for dest, url in self._late:
                path = Path(dest)
                html = ahead.fill(path.read_text(encoding="utf-8"))
                # as MkDocs writes a page
                path.write_bytes(self._move_items(html, url, Path(config.site_dir)).encode(
                    "utf-8", errors="xmlcharrefreplace"))
        finally:
            self._late.clear()
            ahead.stop()

    def on_build_error(self, *, error: Exception) -> None:
        self._late.clear()
        ahead.stop()

    def on_env(self, env: Any, *, config: MkDocsConfig, files: Files) -> Any:
        # Every plugin's and hook's files are in by now: a polyfill none of them has is missing.
        host_check.warn_missing_polyfills(config, files)
        return env

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        # The fences run inside this page's Markdown conversion, right after this event.
        # Errors name the page as a path from the project root (docs/index.md:7), which an
        # editor or terminal opens as is.
        fences.PAGE.set((self._display_path(page), markdown))
        return markdown

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig,
                        files: Files) -> str:
        fences.PAGE.set(None)
        return html

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """Pages with a plot: the loader starts from <head> (async: it finds the blocks as the
        page parses, without waiting for the theme's scripts), and each plot's JSON moves out
        of the HTML into a hashed script file the loader fetches when the plot nears view.
        An item the worker is still drawing keeps its placeholder: on_post_build fills it
        into the written page, so no page waits for the worker."""
        output = ahead.fill(output, wait=False)   # the items the worker has drawn by now
        if _DEFERRED.search(output):
            self._late.append((page.file.abs_dest_path, page.url))
        if 'class="roofline-item"' not in output:
            # a page whose blocks need no BokehJS (the serving window, a profile report) still
            # has their <style> moved into <head>
            return blockstyle.hoist_styles(output)
        output = blockstyle.hoist_styles(self._move_items(output, page.url,
                                                          Path(config.site_dir)))
        loader = get_relative_url(f"{self.config.assets_dir}/{assets.loader_name()}", page.url)
        return output.replace("</head>", f'<script async src="{loader}"></script>\n</head>', 1)

    def _move_items(self, output: str, page_url: str, site: Path) -> str:
        """Each item's JSON moved into a hashed script file (written once), the page keeping
        a reference to it."""
        base = self.config.assets_dir

        def move(m: re.Match) -> str:
            text = m.group(1)
            key = hashlib.sha256(text.encode()).hexdigest()[:16]
            name = f"{base}/items/{key}.js"
            path = site / name
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("(self.rooflineItems=self.rooflineItems||{})"
                                f'["{key}"]={text};\n', encoding="utf-8")
            src = get_relative_url(name, page_url)
            return (f'<script type="application/json" class="roofline-item" '
                    f'data-roofline-item="{key}" data-src="{src}"></script>')
        return _ITEM.sub(move, output)

    def _display_path(self, page: Page) -> str:
        src = page.file.abs_src_path
        root = getattr(self, "root", None)
        if src and root is not None:
            try:
                return Path(os.path.relpath(src, root)).as_posix()
            except ValueError:  # another drive (Windows)
                pass
        return page.file.src_uri

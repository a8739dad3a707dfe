"""The `roofline` MkDocs plugin: `plugins: [search, roofline]` and a ```roofline fence works.

It registers every fence of roofline.hosts.fences.FENCES with pymdownx.superfences, ships the BokehJS
bundles and the loader into the built site (no CDN), and tells the fences which page they are
on so a bad fence fails the build naming the page and line.
"""

from __future__ import annotations

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

from roofline.hosts import buildcache, fences, host_check
from roofline.render import assets, blockstyle
from roofline.render.embed import ITEM as _ITEM  # a block's item, as block() writes it
from roofline.widgets import model_option

SUPERFENCES = "pymdownx.superfences"


class RooflineConfig(Config):
    assets_dir = config_options.Type(str, default=assets.ASSET_DIR)
    # Accepted and ignored: it set the render-ahead worker's processes, now gone (issue #48).
    workers = config_options.Optional(config_options.Type(int))


class RooflinePlugin(BasePlugin[RooflineConfig]):
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """After the other plugins' on_config (Material's offline plugin adds its polyfill)."""
        # Widget HTML is cached on disk beside mkdocs.yml: a warm build never imports bokeh.
        # One Cache per build (our code's hash read once each); its fences draw through it.
        self.root = Path(config.config_file_path or ".").resolve().parent
        self.cache = buildcache.Cache.here(self.root / buildcache.DEFAULT_DIR)
        if self.cache is not None:
            buildcache.prune(self.cache.folder)
        # A widget's `model:` config.json is a path relative to the docs folder.
        model_option.DOCS_DIR.set(Path(config.docs_dir))
        if SUPERFENCES not in config.markdown_extensions:
            config.markdown_extensions.append(SUPERFENCES)
        mdx = config.mdx_configs.setdefault(SUPERFENCES, {})
        custom = mdx.setdefault("custom_fences", [])
        # Keep the site's own entries; ours replace any of the same name (no duplicates on
        # `mkdocs serve` rebuilds, which call on_config again on the same config).
        ours = fences.custom_fences(self.cache)
        names = {f["name"] for f in ours}
        custom[:] = [f for f in custom if f.get("name") not in names] + ours
        loader = f"{self.config.assets_dir}/{assets.loader_name()}"
        if loader not in [str(s) for s in config.extra_javascript]:
            config.extra_javascript.append(loader)
        host_check.warn_outside_assets(config)  # one warning if the host loads web fonts etc.
        return config

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        base = self.config.assets_dir
        for asset in assets.bokeh_assets():
            files.append(File.generated(config, f"{base}/{asset.name}",
                                        abs_src_path=str(asset.path)))
        files.append(File.generated(config, f"{base}/{assets.loader_name()}",
                                    content=assets.loader_source()))
        return files

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
        of the HTML into a hashed script file the loader fetches when the plot nears view."""
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

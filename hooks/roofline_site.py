"""The lesson site's build, as MkDocs events. Each event hands its work to lesson_site.build;
nothing here computes anything."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from roofline.errors import RooflineError

# The lesson's own build (site_src/lesson_site) is not in the roofline wheel: it is imported
# from this checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site_src"))
from lesson_site import captions, glossary, stylesheets  # noqa: E402


def _build():
    """lesson_site.build, the whole lesson's model with it: imported on first use, so loading
    mkdocs.yml (which imports this hook) stays quick."""
    from lesson_site import build
    return build


# `mkdocs build` renders into a staging folder and swaps it in at the end (see
# lesson_site.build.publish); `mkdocs serve` keeps its own temporary folder.
_command: list[str] = []
_staging: dict[str, Path] = {}
_css: dict[str, str] = {}  # the joined stylesheet's URI and text, from on_config to on_files
_undo_log: list = []  # restores MkDocs' log once the staged build is published or discarded


def on_startup(*, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
    _command[:] = [command]


@event_priority(100)  # before any plugin writes into site_dir
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if _command == ["build"]:
        _staging["target"] = Path(config.site_dir).resolve()
        _staging["stage"] = _build().stage_dir(config.site_dir)
        config.site_dir = str(_staging["stage"])
        _undo_log.append(_build().log_real_folder(_staging["stage"], _staging["target"]))
    # The glossary's first-appearance rule runs after Python-Markdown's `abbr` (mkdocs.yml).
    config.markdown_extensions[:] = [e for e in config.markdown_extensions
                                     if not isinstance(e, glossary.GlossaryExtension)]
    config.markdown_extensions.append(glossary.GlossaryExtension())
    # One stylesheet of ours per page instead of five (lesson_site/stylesheets.py).
    config.extra_css, uri, text = stylesheets.join(config.extra_css, config.docs_dir)
    _css.clear()
    if uri:
        _css[uri] = text
    return config


def on_pre_build(*, config: MkDocsConfig) -> None:
    """Fail on bad data before MkDocs empties any folder."""
    try:
        _build().check_inputs()
    except RooflineError as exc:
        raise PluginError(f"roofline: {exc}") from None


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add the vendored polyfill, the downloadable tables and the zip's placeholder."""
    try:
        generated = _build().generated_files()
    except RooflineError as exc:
        raise PluginError(f"roofline: {exc}") from None
    generated.update(_css)
    for uri, content in sorted(generated.items()):
        files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Expand the model's markers; a bad one stops the build naming page, line and field."""
    try:
        return _build().render_markdown(markdown, f"docs/{page.file.src_uri}",
                                     page.file.content_string)
    except RooflineError as exc:
        raise PluginError(f"roofline: {exc}") from None


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Put back the tables set aside while the page converted; number its figures in order."""
    return captions.number_figures(_build().restore_tables(html, f"docs/{page.file.src_uri}"))


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    return _build().patch_page_html(output)


def on_post_template(output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
    """404.html is a theme template, not a page: it needs the same patch."""
    return _build().patch_page_html(output_content) if template_name.endswith(".html") \
        else output_content


@event_priority(-200)  # after Material's offline plugin (-100) has written the search index
def on_post_build(*, config: MkDocsConfig) -> None:
    """Pack the finished site into the downloadable zip, then put it in place."""
    _build().write_zip(config.site_dir)
    if "stage" in _staging:
        _build().publish(_staging.pop("stage"), _staging.pop("target"))
    while _undo_log:
        _undo_log.pop()()


def on_build_error(*, error: Exception) -> None:
    if "stage" in _staging:
        _build().discard(_staging.pop("stage"))
    while _undo_log:
        _undo_log.pop()()

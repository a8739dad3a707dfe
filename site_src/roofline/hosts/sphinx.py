"""Sphinx extension: `extensions = ["roofline.sphinx"]` adds the `roofline` directive and one
per widget kind (the MkDocs fences' twins), in reST (`.. roofline::`) or MyST (```{roofline}
or :::{roofline}).

Options come as directive options (`:ai: 2`), a YAML body like the fence's, or both (a key
given twice is an error); values are read as YAML. Every option goes through the door, so a bad
one fails the build with `file:line: ERROR: roofline directive: option 'x': …` at the option's
line. BokehJS and the loader are written once per build into `_static/roofline/` (only when a
page has a plot) and linked only from such pages: nothing is fetched from outside. Dark mode
follows furo's and pydata-sphinx-theme's `data-theme` (render/js/loader.js).
"""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import directives

from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from roofline.errors import RooflineError
from roofline.hosts import door
from roofline.widgets import model_option

logger = logging.getLogger(__name__)

STATIC_SUBDIR = "roofline"
"""Where BokehJS, the loader and CSS_NAME go, under the HTML output's `_static/`."""
CSS_NAME = "roofline-sphinx.css"
# The widget's inputs take their colours from Material's variables; map the Sphinx themes' own
# (furo, pydata-sphinx-theme) onto them, and declare pages of other themes (alabaster: no dark
# mode) light, so the plot does not turn dark on a white page under a dark OS setting.
SPHINX_CSS = """\
/* roofline.hosts.sphinx: the plot's colours follow the Sphinx theme. */
body[data-theme] {
  --md-default-bg-color: var(--color-background-primary);
  --md-default-fg-color: var(--color-foreground-primary);
  --md-default-fg-color--lighter: var(--color-background-border);
}
html[data-theme] body {
  --md-default-bg-color: var(--pst-color-background);
  --md-default-fg-color: var(--pst-color-text-base);
  --md-default-fg-color--lighter: var(--pst-color-border);
}
html:not([data-theme]) body:not([data-theme]) { color-scheme: light; }
.roofline-block { margin: 1em 0; }
"""

KINDS = tuple(door.KINDS)


class OptionError(Exception):
    """A bad directive option: the option's name (or None) and a one-line message."""

    def __init__(self, option: str | None, message: str) -> None:
        super().__init__(message)
        self.option, self.message = option, message


def render(kind: str, options: dict[str, Any], *, where: str,
           warn: door.Warn | None = None) -> str:
    """The HTML block for widget `kind` with `options`, through the widget layer's one door
    (roofline.hosts.door: the kind's settings object, the fence's validation);
    raises OptionError naming the option; `warn(option, message)` gets its warnings."""
    try:
        return door.render_widget(kind, options, where=where, warn=warn)
    except RooflineError as exc:  # WidgetOptionError: .option and .detail (the rest of the line)
        raise OptionError(getattr(exc, "option", "") or None, exc.detail) from None


class _AnyOption(dict):
    """An option_spec that takes every name, so the widget layer's validation (the same as the
    fence's) is the one that rejects an unknown option, with the list of valid ones. (It lists
    every kind's option names because docutils and myst ignore the options of an empty spec.)"""

    def __init__(self) -> None:
        names = {o.name for k in door.KINDS.values() for o in k.settings_class().OPTIONS}
        super().__init__({name: directives.unchanged for name in sorted(names)})

    def __missing__(self, key: str):
        return directives.unchanged


def _value(text: Any) -> Any:
    """A directive option's text read as YAML (`2` -> 2, `[a, b]` -> list, `true` -> True);
    a plain `a, b` becomes a list."""
    if not isinstance(text, str):
        return text  # myst's YAML option block may already give typed values
    try:
        value = yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError:
        return text
    if isinstance(value, str) and "," in value:
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class roofline_block(nodes.General, nodes.Element):
    """The widget's HTML block; HTML builders write it, others write its child paragraph (the
    plot's name and where to find it)."""


def _visit_html(self, node: roofline_block) -> None:
    self.body.append(node["html"] + "\n")
    raise nodes.SkipNode


def _visit_other(self, node: roofline_block) -> None:
    pass  # the child paragraph is written as usual


def _depart_other(self, node: roofline_block) -> None:
    pass


_LABEL = re.compile(r'aria-label="([^"]*)"')


class RooflineDirective(SphinxDirective):
    has_content = True
    required_arguments = 0
    optional_arguments = 0
    final_argument_whitespace = False
    option_spec = _AnyOption()

    def _line_of(self, option: str | None) -> int:
        """The source line of `option` (as `:option:` or `option:`), else the directive's."""
        if option is None:
            return self.lineno
        for offset, text in enumerate(self.block_text.splitlines()):
            if re.match(rf"\s*:?{re.escape(option)}:", text) and offset:
                return self.lineno + offset
        return self.lineno

    def _options(self) -> dict[str, Any]:
        opts = {str(k): _value(v) for k, v in self.options.items()}
        body = "\n".join(self.content)
        if body.strip():
            try:
                data = yaml.safe_load(body)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                at = f" (body line {mark.line + 1})" if mark is not None else ""
                raise OptionError(None, f"bad YAML{at}: {getattr(exc, 'problem', exc)}") from None
            if not isinstance(data, dict):
                raise OptionError(None, "the body must be 'key: value' lines, got "
                                        f"{type(data).__name__}")
            for key, value in data.items():
                if str(key) in opts:
                    raise OptionError(str(key), "given twice (as an option and in the body)")
                opts[str(key)] = value
        return opts

    def run(self) -> list[nodes.Node]:
        kind = self.name
        try:
            opts = self._options()
            source, _ = self.get_source_info()
            line = self.lineno
            where = f"{_relative(source, self.env.srcdir)}:{line}"

            def warn(option: str, message: str) -> None:  # -W makes it an error
                logger.warning(f"{kind} directive: option '{option}': {message}",
                               location=(self.env.docname, self._line_of(option)))
            # A `model:` config.json is a path relative to the source folder.
            token = model_option.DOCS_DIR.set(Path(self.env.srcdir))
            try:
                html = render(kind, opts, where=where, warn=warn)
            finally:
                model_option.DOCS_DIR.reset(token)
        except OptionError as exc:
            what = f"option '{exc.option}': " if exc.option else ""
            msg = self.state.document.reporter.error(
                f"{kind} directive: {what}{exc.message}", line=self._line_of(exc.option))
            return [msg]
        _plot_pages(self.env).add(self.env.docname)
        node = roofline_block(html=html, kind=kind)
        found = _LABEL.search(html)
        label = html_module.unescape(found.group(1)) if found else kind
        node += nodes.paragraph(text=f"[{label}: in the HTML version of this page]")
        self.set_source_info(node)
        return [node]


def _relative(source: str, srcdir: Any) -> str:
    try:
        return str(Path(source).relative_to(Path(srcdir)))
    except ValueError:
        return source


# ---------------------------------------------------------------- which pages have a plot

def _plot_pages(env) -> set[str]:
    if not hasattr(env, "roofline_pages"):
        env.roofline_pages = set()
    return env.roofline_pages


def _purge(app: Sphinx, env, docname: str) -> None:
    _plot_pages(env).discard(docname)


def _merge(app: Sphinx, env, docnames, other) -> None:
    _plot_pages(env).update(_plot_pages(other) & set(docnames))


def _is_html(app: Sphinx) -> bool:
    return getattr(app.builder, "format", "") == "html"


def _write_static(app: Sphinx, env) -> None:
    """BokehJS, the loader and our CSS into _static/roofline/, once per build (when a page has
    a plot; unchanged files are left alone)."""
    if not _is_html(app) or not _plot_pages(env):
        return
    from roofline.render.assets import write_assets
    dest = Path(app.outdir) / "_static" / STATIC_SUBDIR
    write_assets(dest)
    css = dest / CSS_NAME
    if not css.exists() or css.read_text(encoding="utf-8") != SPHINX_CSS:
        css.write_text(SPHINX_CSS, encoding="utf-8")


def _page_assets(app: Sphinx, pagename: str, templatename: str, context: dict,
                 doctree) -> None:
    """Link the loader and CSS from pages that have a plot, and only those."""
    if pagename not in _plot_pages(app.env):
        return
    from roofline.render.assets import loader_name
    app.add_css_file(f"{STATIC_SUBDIR}/{CSS_NAME}")
    app.add_js_file(f"{STATIC_SUBDIR}/{loader_name()}")


def setup(app: Sphinx) -> dict[str, Any]:
    other = (_visit_other, _depart_other)
    app.add_node(roofline_block, html=(_visit_html, None), latex=other, text=other, man=other,
                 texinfo=other)
    for kind in KINDS:
        app.add_directive(kind, RooflineDirective)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-updated", _write_static)
    app.connect("html-page-context", _page_assets)
    from importlib.metadata import version
    return {"version": version("roofline-lesson"), "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}

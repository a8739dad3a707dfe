"""The ```roofline fence: options become a widget, bad input fails loudly with page and line."""

from __future__ import annotations

import traceback

import markdown
import pytest
from pymdownx.superfences import SuperFencesException

from roofline.hosts import door, fences
from roofline.model.catalog import default_catalog


def render(text: str, page: str | None = "notes/page.md") -> str:
    md = markdown.Markdown(extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": fences.custom_fences()}})
    token = fences.PAGE.set((page, text) if page else None)
    try:
        return md.convert(text)
    finally:
        fences.PAGE.reset(token)


def fence(body: str) -> str:
    return f"# Title\n\nIntro.\n\n```roofline\n{body}\n```\n"


def test_fence_renders_a_block_with_the_named_models():
    html = render(fence("hardware: a100-sxm-80gb\nprecision: bf16\n"
                        "ops: [rmsnorm, gemm-train]\nai: 2"))
    assert html.count('class="roofline-block"') == 1
    for name in ("roofline-figure", "ai-slider", "readout", "verdict", "hardware", "precision",
                 "presets"):
        assert f'"name":"{name}"' in html, name
    assert "NVIDIA A100 SXM4 80GB" in html


def test_empty_fence_uses_the_defaults():
    assert 'class="roofline-block"' in render(fence(""))


def test_same_input_gives_byte_identical_html():
    text = fence("hardware: h100-sxm\nceilings: [sram, host]")
    assert render(text) == render(text)


def test_registry_lists_roofline():
    assert "roofline" in fences.FENCES
    assert {f["name"] for f in fences.custom_fences()} >= {"roofline"}


@pytest.mark.parametrize("body, key, line, words", [
    ("hardware: h100-sxm\nprecison: bf16", "precison", 7, "unknown option"),
    ("hardware: h1000", "hardware", 6, "unknown hardware 'h1000'"),
    ("hardware: tpu-v5e\nprecision: fp8", "precision", 7, "unknown precision 'fp8'"),
    ("ops: [rmsnorm, nope]", "ops", 6, "unknown op 'nope'"),
    ("ai: -3", "ai", 6, "ai must be a number"),
    ("ai: lots", "ai", 6, "expected a number"),
    ("height: 5", "height", 6, "height must be an integer"),
    ("ceilings: [attic]", "ceilings", 6, "unknown ceiling 'attic'"),
    ("url: maybe", "url", 6, "expected true/false"),
    ("ops: rmsnorm", "ops", 6, "expected a list"),
])
def test_bad_option_names_page_line_and_key(body, key, line, words):
    with pytest.raises(SuperFencesException) as err:
        render(fence(body))
    message = str(err.value)
    assert message.startswith(f"notes/page.md:{line}: ```roofline fence: option '{key}'"), message
    assert words in message
    assert "\n" not in message


def test_a_ceiling_the_chip_lacks_is_a_warning_at_its_line(caplog):
    """Issue #29: `ceilings: [sram]` on an L4 (no SRAM bandwidth in the catalog) drew nothing,
    silently. It is drawn for the chips that have one, so the page still builds, with a
    warning in the MkDocs log (strict: true fails on it)."""
    with caplog.at_level("WARNING", logger="mkdocs.plugins.roofline"):
        html = render(fence("hardware: l4\nceilings: [sram, host]"))
    assert html.count('class="roofline-block"') == 1
    others = sum(1 for a in default_catalog() if (t := a.tier("sram")) and t.bandwidth_bytes_per_s)
    assert [(r.name, r.getMessage()) for r in caplog.records] == [(
        "mkdocs.plugins.roofline", "notes/page.md:7: ```roofline fence: option 'ceilings': "
        f"'sram' is not drawn for l4: the catalog has no SRAM bandwidth for it ({others} other "
        "chips have one)")]


def test_ceilings_no_chip_can_draw_are_refused():
    with pytest.raises(SuperFencesException, match=r"notes/page.md:7: ```roofline fence: "
                       r"option 'ceilings': nothing to draw: no chip in the catalog has an L2 "
                       r"bandwidth$"):
        render(fence("hardware: h100-sxm\nceilings: [l2]"))


def test_bad_yaml_is_named():
    with pytest.raises(SuperFencesException, match=r"notes/page.md:5: ```roofline fence: bad YAML"):
        render(fence("ops: [rmsnorm"))


def test_without_a_page_the_message_still_names_the_key():
    with pytest.raises(SuperFencesException, match=r"^```roofline fence: option 'hardware'"):
        render(fence("hardware: h1000"), page=None)


# ---------------------------------------------------------------- the one adapter

def test_a_bokeh_exception_inside_a_fence_fails_the_page_as_a_bug(monkeypatch):
    """Superfences swallows any exception but its own: one from Bokeh (a bug of ours) must still
    fail the page, naming page and line, as a bug (FenceBug, chained to the original), never
    as the author's option error."""
    from bokeh.models import InlineStyleSheet

    from roofline.hosts.fences import FenceBug, FenceError

    from roofline.widgets.measurement import overlay as measured

    # The bug this guards: one stylesheet model shared by two documents (Bokeh refuses).
    shared = InlineStyleSheet(css="")
    monkeypatch.setattr(measured, "InlineStyleSheet", lambda **kwargs: shared)
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    body = "measurement: measurement-build-machine.json"
    assert 'class="roofline-block"' in render(fence(body))
    with pytest.raises(FenceBug) as err:
        render(fence(body))
    message = str(err.value)
    assert message.startswith("notes/page.md:5: ```roofline fence: RuntimeError in the roofline "
                              "package (a bug, not a fence option): "), message
    assert "document" in message and "\n" not in message and "option '" not in message
    assert not isinstance(err.value, FenceError)
    assert isinstance(err.value.__cause__, RuntimeError)


@pytest.mark.parametrize("kind, target, body", [
    ("roofline", "roofline.widgets.roofline.layout:_build", "ai: 2"),
    ("roofline-measurement", "roofline.widgets.measurement.block:summary_text",
     "file: measurement-build-machine.json\nshow: summary"),
    ("roofline-budget", "roofline.widgets.budget.layout:_build", "model: llama-2-7b"),
    ("roofline-budget-table", "roofline.widgets.budget.block:summary_table", "table: configs"),
])
def test_any_exception_in_any_fence_fails_with_page_and_line(kind, target, body, monkeypatch):
    import importlib
    module, _, name = target.partition(":")

    def broken(*args, **kwargs):
        raise KeyError("missing-model")

    monkeypatch.setattr(importlib.import_module(module), name, broken)
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    with pytest.raises(SuperFencesException) as err:
        render(f"# T\n\n```{kind}\n{body}\n```\n")
    assert str(err.value).startswith(f"notes/page.md:3: ```{kind} fence: KeyError in the "
                                     "roofline package (a bug, not a fence option): "
                                     "'missing-model'"), str(err.value)
    assert isinstance(err.value.__cause__, KeyError)


def test_fence_error_is_also_an_mkdocs_build_error():
    """MkDocs prints a BuildError as its one line, with no traceback."""
    from mkdocs.exceptions import BuildError
    with pytest.raises(BuildError):
        render(fence("hardware: h1000"))


def test_render_widget_is_the_fence_without_yaml():
    body = "hardware: a100-sxm-80gb\nops: [rmsnorm, gemm-train]\nai: 2"
    html = door.render_widget("roofline", {"hardware": "a100-sxm-80gb",
                                             "ops": ["rmsnorm", "gemm-train"], "ai": 2},
                                where="docs/page.rst:12")
    assert html == fences.FENCES["roofline"](body, "roofline", "roofline", {}, None)


@pytest.mark.parametrize("kind, options, option, words", [
    ("roofline", {"ai": 1e9}, "ai", "ai must be a number from 0.01 to 10000"),
    ("roofline", {"colour": "red"}, "colour", "unknown option (valid: hardware, precision"),
    ("roofline", {"ops": ["nope"]}, "ops", "unknown op 'nope' (valid: "),
    ("roofline-measurement", {"show": "ops"}, "file", "missing"),
    ("roofline-budget", {"model": "gpt"}, "model", "unknown model 'gpt'"),
    ("roofline-budget-table", {"table": "all"}, "table", "unknown table 'all'"),
    ("roofline-nope", {}, "", "unknown widget kind 'roofline-nope'"),
])
def test_render_widget_errors_name_where_and_option(kind, options, option, words):
    from roofline.errors import RooflineError, WidgetOptionError
    with pytest.raises(WidgetOptionError) as err:
        door.render_widget(kind, options, where="docs/page.rst:12")
    exc = err.value
    assert isinstance(exc, RooflineError)
    assert exc.where == "docs/page.rst:12" and exc.option == option
    prefix = "docs/page.rst:12: " + (f"option '{option}': " if option else "")
    assert str(exc).startswith(prefix + words), str(exc)
    assert "\n" not in str(exc)


def test_fence_inside_an_admonition_still_names_its_line():
    text = ('# T\n\n!!! note\n\n    ```roofline\n    hardware: h100-sxm\n    ai: -1\n    ```\n')
    md = markdown.Markdown(extensions=["admonition", "pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": fences.custom_fences()}})
    token = fences.PAGE.set(("docs/a.md", text))
    try:
        with pytest.raises(SuperFencesException, match=r"^docs/a.md:7: ```roofline fence: "
                                                        r"option 'ai'"):
            md.convert(text)
    finally:
        fences.PAGE.reset(token)


def test_the_second_of_two_identical_fences_is_named_by_its_own_line(monkeypatch):
    """Errors find the fence by its body; the nth identical body is the nth fence rendered."""
    from roofline.errors import RooflineError
    from roofline.widgets.roofline import block

    calls = []

    def second_fails(settings, **kwargs):
        calls.append(settings)
        if len(calls) == 2:
            raise RooflineError("boom", field="ai")
        return "<div></div>"

    monkeypatch.setattr(block, "render", second_fails)
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    text = "# T\n\n```roofline\nai: 2\n```\n\nText.\n\n```roofline\nai: 2\n```\n"
    with pytest.raises(SuperFencesException, match=r"^notes/page.md:10: ```roofline fence: "
                                                    r"option 'ai': boom$"):
        render(text)


def test_a_bug_stays_a_bug_with_its_traceback(monkeypatch):
    """A KeyError in our code is not the author's mistake: the fence neither rewords it as an
    option error nor lets superfences swallow it; the original is the chained cause."""
    from roofline.hosts.fences import FenceBug, FenceError
    from roofline.widgets.roofline import block

    def buggy(settings, **kwargs):
        return {}["missing"]

    monkeypatch.setattr(block, "render", buggy)
    monkeypatch.setenv("ROOFLINE_CACHE", "0")
    with pytest.raises(FenceBug, match=r"^notes/page.md:3: ```roofline fence: KeyError in the "
                                       r"roofline package \(a bug") as info:
        render("# T\n\n```roofline\nai: 2\n```\n")
    assert not isinstance(info.value, FenceError)
    cause = info.value.__cause__
    assert isinstance(cause, KeyError)
    assert "in buggy" in "".join(traceback.format_exception(cause))


def test_every_fence_kind_renders_as_a_block_not_inside_a_paragraph():
    """A stashed fence whose HTML starts with a newline stays wrapped in <p> by Python-Markdown
    (the Nu validator reported '<p><div …><table>' on budget.html); each kind must come out as a
    block of its own."""
    import markdown

    from roofline.hosts import fences as f
    md = markdown.Markdown(extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": f.custom_fences()}})
    html = md.convert("Text before:\n\n```roofline-budget-table\ntable: memory\n```\n")
    assert "<p>\n<div" not in html and "<p><div" not in html
    assert '<div class="rl-table' in html

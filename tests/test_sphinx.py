"""The Sphinx extension (roofline.sphinx, implemented in roofline.hosts.sphinx): a fixture project with furo, one reST and one MyST page
of two plots each, built once per session with -W; a bad-option project that must fail naming
file and line; and, in Chromium over http and file://, the built pages."""

from __future__ import annotations

import io
import json
import math
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from conftest import ROOT, screenshot, serve
from pagecheck import frames

pytest.importorskip("sphinx", reason="install the [sphinx] extra (the test extra pulls it in)")

from roofline.render import assets

FIXTURES = Path(__file__).parent / "fixtures"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PAGES = {"index.html": 2, "myst.html": 2}


def sphinx_build(src: Path, out: Path, *args: str, builder: str = "html") -> tuple[int, str]:
    """sphinx-build -W -E in this process (no second interpreter); returns (status, warnings)."""
    from sphinx.cmd.build import build_main

    warnings = out.parent / f"{out.name}-warnings.txt"
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        status = build_main(["-W", "-E", "-q", "-b", builder, "-d", str(out.parent / f"{out.name}"
                             "-doctrees"), "-w", str(warnings), *args, str(src), str(out)])
    text = warnings.read_text(encoding="utf-8") if warnings.exists() else ""
    return status, text + err.getvalue()


@pytest.fixture(scope="session")
def sphinx_site(tmp_path_factory) -> Path:
    """The furo fixture project, built once per test session with -W."""
    out = tmp_path_factory.mktemp("sphinx-site") / "html"
    status, log = sphinx_build(FIXTURES / "sphinx-site", out)
    assert status == 0, log
    return out


def test_furo_build_has_two_plots_per_page_and_ships_bokehjs_once(sphinx_site):
    static = sphinx_site / "_static" / "roofline"
    assert sorted(p.name for p in static.iterdir()) == sorted(
        [a.name for a in assets.bokeh_assets()] + [assets.loader_name(), "roofline-sphinx.css"])
    for name, count in PAGES.items():
        html = (sphinx_site / name).read_text(encoding="utf-8")
        assert html.count('class="roofline-block"') == count, name
        assert "in the HTML version of this page" not in html  # the other builders' line
        assert html.count(assets.loader_name()) == 1, name  # one loader, whatever the count
        srcs = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
        assert not [s for s in srcs if s.startswith(("http:", "https:", "//"))], srcs
    # Pages without a plot do not load the loader.
    assert assets.loader_name() not in (sphinx_site / "genindex.html").read_text("utf-8")
    # Every option form reached the widget: reST options, reST YAML body, MyST fence, colon fence.
    index = (sphinx_site / "index.html").read_text("utf-8")
    myst = (sphinx_site / "myst.html").read_text("utf-8")
    assert "Interactive roofline: a100-sxm-80gb, bf16" in index
    assert "Interactive roofline: h100-sxm, fp8" in index
    assert "Interactive roofline: a100-sxm-80gb, bf16" in myst
    assert "Interactive roofline: l4, fp8" in myst


@pytest.fixture(scope="module")
def alabaster_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sphinx-alabaster") / "html"
    status, log = sphinx_build(FIXTURES / "sphinx-site", out, "-D", "html_theme=alabaster")
    assert status == 0, log
    return out


def test_alabaster_build_passes_with_warnings_as_errors(alabaster_site):
    html = (alabaster_site / "myst.html").read_text(encoding="utf-8")
    assert html.count('class="roofline-block"') == 2 and "alabaster" in html


@pytest.mark.slow
def test_text_builder_names_the_plot_instead(tmp_path):
    status, log = sphinx_build(FIXTURES / "sphinx-site", tmp_path / "text", builder="text")
    assert status == 0, log
    text = " ".join((tmp_path / "text" / "myst.txt").read_text(encoding="utf-8").split())
    assert "[Interactive roofline: l4, fp8: in the HTML version of this page]" in text
    assert "roofline-block" not in text


@pytest.mark.slow
def test_bad_options_fail_naming_file_line_and_option(tmp_path):
    status, log = sphinx_build(FIXTURES / "sphinx-bad", tmp_path / "html")
    assert status != 0
    expected = [  # (file, line of the bad option, what it says)
        ("index.rst", 10, "roofline directive: option 'precison': unknown option (valid: "),
        ("myst.md", 5, "roofline directive: option 'hardware': unknown hardware 'a200'"),
        ("myst.md", 10, "roofline directive: option 'ai': ai must be a number from 0.01"),
    ]
    for name, line, message in expected:
        pattern = rf"sphinx-bad[/\\]{re.escape(name)}:{line}: ERROR: {re.escape(message)}"
        assert re.search(pattern, log), (pattern, log)


@pytest.mark.slow
def test_a_ceiling_the_chip_lacks_warns_at_its_line(tmp_path):
    """A Sphinx warning at the option's line (so -W fails the build), as the fence's."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["roofline.sphinx"]\n', encoding="utf-8")
    (src / "index.rst").write_text("L4\n==\n\n.. roofline::\n   :hardware: l4\n"
                                   "   :ceilings: sram, host\n", encoding="utf-8")
    status, log = sphinx_build(src, tmp_path / "html")
    assert status != 0
    assert re.search(r"index\.rst:6: WARNING: roofline directive: option 'ceilings': 'sram' "
                     r"is not drawn for l4: the catalog has no SRAM bandwidth for it", log), log


@pytest.mark.slow
def test_options_and_body_giving_the_same_key_is_an_error(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["roofline.sphinx"]\n', encoding="utf-8")
    (src / "index.rst").write_text("Twice\n=====\n\n.. roofline::\n   :ai: 2\n\n   ai: 3\n",
                                   encoding="utf-8")
    status, log = sphinx_build(src, tmp_path / "html")
    assert status != 0
    assert re.search(r"index\.rst:5: ERROR: roofline directive: option 'ai': given twice", log), log


def test_render_goes_through_the_widget_layer():
    from roofline.hosts import sphinx as ext

    html = ext.render("roofline", {"hardware": "a100-sxm-80gb", "ai": 2}, where="x.rst:1")
    assert html.startswith('<div class="roofline-block"')
    with pytest.raises(ext.OptionError) as err:
        ext.render("roofline", {"height": 5}, where="x.rst:1")
    assert err.value.option == "height" and "240" in err.value.message
    assert ext._value("rmsnorm, softmax") == ["rmsnorm", "softmax"]
    assert ext._value("[rmsnorm]") == ["rmsnorm"] and ext._value("2") == 2
    assert ext._value("false") is False


# ---------------------------------------------------------------- in Chromium

READY = """() => [...document.querySelectorAll('.roofline-block')]
    .every((b) => b.dataset.rooflineState === 'ready')"""
STATE = """(i) => {
  const d = window.roofline.documents[i];
  const m = (n) => d.get_model_by_name(n);
  return {readout: m('readout').text, verdict: m('verdict').text,
          marker: m('marker').data.x[0], ridge: m('ridge').location,
          bg: m('roofline-figure').background_fill_color,
          theme: document.querySelector('.roofline-block').dataset.rooflineTheme};
}"""
SET = """([i, values]) => {
  const d = window.roofline.documents[i];
  for (const [name, prop, v] of values) d.get_model_by_name(name)[prop] = v;
}"""


def _open_ready(open_page, url, scheme="light"):
    w = open_page(url, scheme=scheme)
    for block in w.page.locator(".roofline-block").all():
        block.scroll_into_view_if_needed()
    w.page.wait_for_function(READY, timeout=20000)
    return w


SETTLE = """([i, x, text]) => {
  const m = (n) => window.roofline.documents[i].get_model_by_name(n);
  if (m('readout').text === text) return true;
  if (Math.abs(m('ai-slider').value - x) > 1e-12) m('ai-slider').value = x;
  return false;
}"""


@pytest.fixture(scope="module")
def sphinx_server(sphinx_site):
    server = serve(sphinx_site)
    yield server
    server.httpd.shutdown()


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["http", "file"])
def test_sphinx_pages_work_offline(sphinx_site, sphinx_server, open_page, scheme):
    """Each page loads once per scheme; every check runs on that load."""
    base = sphinx_server.url if scheme == "http" else sphinx_site.as_uri() + "/"
    # file:// runs under a dark OS setting: furo's default ("auto") follows it, so do the plots.
    os_scheme = "light" if scheme == "http" else "dark"
    for name, count in PAGES.items():
        w = _open_ready(open_page, base + name, scheme=os_scheme)
        assert w.page.locator(".roofline-block").count() == count
        themes = w.page.evaluate("[...document.querySelectorAll('.roofline-block')]"
                                 ".map((b) => b.dataset.rooflineTheme)")
        assert themes == [os_scheme] * count
        assert w.page.evaluate("window.roofline.documents.length") == count
        if name == "index.html":
            _check_slider(w)
            screenshot(w.page, f"sphinx-furo-{scheme}")
            if scheme == "http":  # model logic and palettes: the same bundle on either scheme
                _check_cases(w)
                _check_dark_mode_and_axe(w)
        w.assert_clean()


def _check_slider(w):
    """The slider moves the marker and the readout is the model's (A100 BF16 at AI 2 ≈ 4.1
    TFLOP/s); the second plot on the page is untouched."""
    before = w.page.evaluate(STATE, 1)
    from roofline.model.catalog import default_catalog
    a100_bw = default_catalog()["a100-sxm-80gb"].hbm_bandwidth_bytes_per_s
    for ai in (100, 2):  # the fixture starts at 2: move away, then back
        w.page.evaluate(SET, [0, [["ai-slider", "value", math.log10(ai)]]])
        w.page.wait_for_function("(x) => Math.abs(window.roofline.documents[0]"
                                 ".get_model_by_name('marker').data.x[0] - x) < 1e-9 * x",
                                 arg=ai, timeout=10000)
    w.page.wait_for_function("() => window.roofline.documents[0].get_model_by_name('readout')"
                             ".text.startsWith('AI 2 FLOP/byte')", timeout=10000)
    readout = w.page.evaluate(STATE, 0)["readout"]
    best = float(re.search(r"best ([\d.]+) TFLOP/s", readout).group(1))
    assert math.isclose(best, 2 * a100_bw / 1e12, rel_tol=0.015), readout  # ≈ 4.1
    assert w.page.evaluate(STATE, 1) == before  # two plots on one page stay independent


def readout_cases() -> list[dict]:
    """The readout and verdict the widget's own scene.mjs gives (run by the build's JS engine)
    for a few states: the page must show them."""
    from roofline.render.jsengine import call
    from roofline.widgets.roofline import layout as widget
    from roofline.widgets.roofline.settings import RooflineSettings
    data = RooflineSettings().payload()
    js = widget.JS.with_name("scene.mjs")
    out = []
    for h, p, ai, op in (("h100-sxm", "bf16", 2.0, None), ("h100-sxm", "bf16", 1365.0, None),
                         ("h100-sxm", "fp8", 590.0, None), ("a100-sxm-80gb", "bf16", 100.0,
                                                             "rmsnorm"),
                         ("h100-sxm", "fp32", 10.0, "gemm-train"), ("l4", "fp8", 0.25,
                                                                    "softmax")):
        st = {"hardware": h, "precision": p, "vector": False, "op": op, "tokens": None}
        bound, verdict = call(js, "verdictText", data, st, ai)
        out.append({"hardware": h, "precision": p, "ai": ai, "op": op, "bound": bound,
                    "verdict": verdict,
                    "readout": call(js, "readoutText", data, st, ai, data["ops"])})
    return out


def _check_cases(w):
    """Readout and verdict are the ones the widget's scene.mjs computes (readout_cases)."""
    before = w.page.evaluate(STATE, 1)
    for case in readout_cases():
        w.page.evaluate(SET, [0, [["hardware", "value", case["hardware"]],
                                  ["precision", "value", case["precision"]],
                                  ["presets", "value", case["op"] or "custom"]]])
        if case["op"] is None:  # readout and verdict exactly as the model's, at the case's AI
            w.page.wait_for_function(SETTLE, arg=[0, math.log10(case["ai"]), case["readout"]],
                                     timeout=10000)
            assert w.page.evaluate(STATE, 0)["verdict"] == case["verdict"], case
        else:  # a preset pins the AI to its op's: the op's time bound is the case's
            bound = " · " + case["readout"].split(" · ")[-1]  # "· GEMM (training) takes ≥ …"
            assert " takes ≥ " in bound, case
            w.page.wait_for_function("([i, t]) => window.roofline.documents[i]"
                                     ".get_model_by_name('readout').text.endsWith(t)",
                                     arg=[0, bound], timeout=10000)
    assert w.page.evaluate(STATE, 1) == before


def _check_dark_mode_and_axe(w):
    """The plots follow furo's body[data-theme] and pydata's html[data-theme]; axe finds no
    violation in the plots in either palette."""
    assert AXE.exists(), "run `npm ci` (the README's test command does)"
    light = w.page.evaluate(STATE, 0)
    assert light["theme"] == "light"
    w.page.evaluate("document.body.dataset.theme = 'dark'")  # furo's toggle
    w.page.wait_for_function("() => document.querySelector('.roofline-block')"
                             ".dataset.rooflineTheme === 'dark'", timeout=5000)
    assert w.page.evaluate(STATE, 0)["bg"] != light["bg"]
    w.page.evaluate("document.body.dataset.theme = 'auto'; "
                    "document.documentElement.dataset.theme = 'light'")  # pydata's attribute
    w.page.wait_for_function("() => document.querySelector('.roofline-block')"
                             ".dataset.rooflineTheme === 'light'", timeout=5000)
    w.page.evaluate("document.documentElement.dataset.theme = 'dark'")
    w.page.wait_for_function("() => document.querySelector('.roofline-block')"
                             ".dataset.rooflineTheme === 'dark'", timeout=5000)
    for theme in ("light", "dark"):
        w.page.evaluate("(t) => { document.documentElement.removeAttribute('data-theme');"
                        " document.body.dataset.theme = t; }", theme)
        w.page.wait_for_function("(t) => document.querySelector('.roofline-block')"
                                 ".dataset.rooflineTheme === t", arg=theme, timeout=5000)
        frames(w.page)  # the plots' restyle painted
        if theme == "dark":
            screenshot(w.page, "sphinx-furo-dark")
        violations = _axe_plots(w.page)
        assert violations == [], (theme, violations)


def _axe_plots(page) -> list[dict]:
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run({include: [['.roofline-block']]},
                                {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }""")


@pytest.mark.browser
def test_alabaster_page_keeps_the_plot_light_under_a_dark_os(alabaster_site, open_page):
    w = open_page((alabaster_site / "myst.html").as_uri(), scheme="dark")
    # One block at a time: the loader embeds a plot that is near the viewport, so a block
    # scrolled past before its observer fired would (rightly) wait until it is seen again.
    for block in w.page.locator(".roofline-block").all():
        block.scroll_into_view_if_needed()
        block.element_handle().wait_for_element_state("stable")
        w.page.wait_for_function("(b) => b.dataset.rooflineState === 'ready'",
                                 arg=block.element_handle(), timeout=20000)
    w.page.wait_for_function(READY, timeout=20000)
    assert w.page.evaluate(STATE, 0)["theme"] == "light"
    w.assert_clean()


# ---------------------------------------------------------------- the budget widget's theme

BUDGET_INK = """() => {
  const d = window.roofline.documents.find((x) => x.get_model_by_name('budget-waterfall'));
  const label = (n) => d.get_model_by_name(n).left[0].major_label_text_color;
  const rgb = (c) => { const e = document.createElement('i'); e.style.color = c;
    document.body.append(e); const v = getComputedStyle(e).color; e.remove();
    return v.match(/[\\d.]+/g).slice(0, 3).map(Number); };
  const lum = ([r, g, b]) => [r, g, b].map((x) => x / 255)
    .map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4))
    .reduce((s, x, i) => s + x * [0.2126, 0.7152, 0.0722][i], 0);
  const page = getComputedStyle(document.body).backgroundColor;
  return {theme: document.querySelector('.roofline-block').dataset.rooflineTheme,
          labels: [label('budget-waterfall'), label('budget-classes')].map((c) => lum(rgb(c))),
          page: lum(rgb(page))};
}"""


@pytest.mark.browser
def test_budget_axis_labels_follow_furos_palette(sphinx_site, sphinx_server, open_page):
    """The budget's category axes (its waterfall's and op classes' labels) are themed by the
    loader, whose Sphinx branch reads furo's body[data-theme]: light on a dark page and dark on
    a light one, whatever the OS says. The budget's own copy of the theming had no Sphinx
    branch: under a dark OS a light furo page got near-white labels (issue #25)."""
    w = _open_ready(open_page, sphinx_server.url + "budget.html", scheme="dark")
    for theme in ("dark", "light", "dark"):
        w.page.evaluate("(t) => { document.body.dataset.theme = t; }", theme)
        w.page.wait_for_function("(t) => document.querySelector('.roofline-block')"
                                 ".dataset.rooflineTheme === t", arg=theme, timeout=5000)
        frames(w.page)
        got = w.page.evaluate(BUDGET_INK)
        for lum in got["labels"]:  # WCAG contrast ratio of the labels on the page, ≥ 4.5
            hi, lo = max(lum, got["page"]), min(lum, got["page"])
            assert (hi + 0.05) / (lo + 0.05) >= 4.5, (theme, got)
            assert (lum > got["page"]) == (theme == "dark"), (theme, got)
    screenshot(w.page, "sphinx-furo-budget-dark")
    w.assert_clean()

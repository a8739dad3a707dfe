"""Another MkDocs site using only `plugins: [search, roofline]` gets a working, offline plot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import build_site, screenshot
from sitecheck import doc_block
from roofline.render import assets

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("plugin-site") / "site"
    proc = build_site(dest, config=FIXTURES / "plugin-site" / "mkdocs.yml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dest


def test_bokehjs_and_loader_ship_with_the_site(plugin_site):
    shipped = sorted(p.name for p in (plugin_site / assets.ASSET_DIR).iterdir())
    assert shipped == sorted([a.name for a in assets.bokeh_assets()] + [assets.loader_name()]
                             + ["items"])
    for a in assets.bokeh_assets():
        assert (plugin_site / assets.ASSET_DIR / a.name).read_bytes() == a.path.read_bytes()


def test_page_has_the_block_and_loads_only_local_scripts(plugin_site):
    html = (plugin_site / "index.html").read_text(encoding="utf-8")
    assert html.count('class="roofline-block"') == 1
    assert f'src="{assets.ASSET_DIR}/{assets.loader_name()}"' in html
    srcs = re.findall(r'<script[^>]+src="([^"]+)"', html)
    assert srcs and not [s for s in srcs if s.startswith(("http:", "https:", "//"))], srcs


def test_plot_json_lives_in_a_hashed_script_and_the_loader_starts_from_head(plugin_site):
    """The page carries no plot JSON: each item is a <script data-src> naming a file that
    assigns it into window.rooflineItems (works from file://), fetched when the plot nears
    view; the loader is also in <head>, async, so it finds blocks as the page parses."""
    import hashlib
    import json
    html = (plugin_site / "index.html").read_text(encoding="utf-8")
    head = html[:html.index("</head>")]
    assert f'<script async src="{assets.ASSET_DIR}/{assets.loader_name()}"></script>' in head
    items = re.findall(r'<script type="application/json" class="roofline-item" '
                       r'data-roofline-item="(\w+)" data-src="([^"]+)"></script>', html)
    assert len(items) == 1 and '"doc":' not in html
    key, src = items[0]
    text = (plugin_site / src).read_text(encoding="utf-8")
    prefix = f'(self.rooflineItems=self.rooflineItems||{{}})["{key}"]='
    assert text.startswith(prefix) and text.endswith(";\n")
    body = text[len(prefix):-2]
    assert hashlib.sha256(body.encode()).hexdigest()[:16] == key
    assert json.loads(body)["root_id"]


def test_build_is_byte_identical(plugin_site, tmp_path):
    again = tmp_path / "again"
    proc = build_site(again, config=FIXTURES / "plugin-site" / "mkdocs.yml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (again / "index.html").read_bytes() == (plugin_site / "index.html").read_bytes()


@pytest.mark.slow
def test_bad_fence_fails_the_build_in_the_line_the_docs_show(tmp_path):
    """docs/embed.md quotes the build's output for its own example with a misspelt option."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(doc_block("mkdocs.yml"), encoding="utf-8")
    page = doc_block("docs/index.md")
    assert "\nprecision:" in page
    (tmp_path / "docs" / "index.md").write_text(page.replace("\nprecision:", "\nprecison:"),
                                                encoding="utf-8")
    proc = build_site(tmp_path / "site", config=tmp_path / "mkdocs.yml")
    assert proc.returncode != 0
    expected = doc_block("mkdocs build: a misspelt option").strip().splitlines()
    printed = (proc.stderr + proc.stdout).strip().splitlines()  # click echoes "Aborted" to stdout
    assert printed[-len(expected):] == expected, printed
    assert "Traceback" not in proc.stderr


INJECT_HOOK = """
from bokeh.models import InlineStyleSheet
from roofline.widgets.measurement import overlay as measured

_shared = InlineStyleSheet(css="")


def on_config(config):
    # One stylesheet shared by every document: Bokeh raises on the second plot.
    measured.InlineStyleSheet = lambda **kwargs: _shared
"""


@pytest.mark.slow
def test_a_bokeh_exception_fails_the_build_naming_page_and_line(tmp_path):
    """Superfences swallows foreign exceptions; a bug of ours must still fail the build, naming
    page and line, and as a bug: with the original exception's traceback, even under -q."""
    import os
    import subprocess
    import sys

    (tmp_path / "docs").mkdir()
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "inject.py").write_text(INJECT_HOOK, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: injected\nplugins: [roofline]\nhooks: [hooks/inject.py]\n",
        encoding="utf-8")
    fence = "```roofline\nmeasurement: measurement-build-machine.json\n```\n"
    (tmp_path / "docs" / "index.md").write_text(f"# A\n\n{fence}\nText.\n\n{fence}",
                                                encoding="utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "ROOFLINE_CACHE": "0"}
    outputs = {}
    for flag in ("-q", "-v"):
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", flag, "-f",
                               str(tmp_path / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
        assert proc.returncode != 0
        outputs[flag] = proc.stdout + proc.stderr
    line = ("docs/index.md:9: ```roofline fence: RuntimeError in the roofline package (a bug, "
            "not a fence option): Models must be owned by only a")
    for flag in ("-q", "-v"):
        assert line in outputs[flag], outputs[flag][-3000:]
        assert "Traceback (most recent call last)" in outputs[flag]
        assert "RuntimeError: Models must be owned by only a" in outputs[flag]


@pytest.mark.browser
def test_fixture_plot_renders_from_file_with_no_outside_request(plugin_site, open_page):
    w = open_page((plugin_site / "index.html").as_uri())
    page = w.page
    page.wait_for_selector(".roofline-block[data-roofline-state=ready]", timeout=20000)
    canvas = page.locator(".roofline-block canvas").first  # Playwright pierces shadow roots
    box = canvas.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 300, box
    size = page.evaluate("""() => {
        const doc = window.roofline.documents[0];
        return {ridge: doc.get_model_by_name('verdict').text,
                h: document.querySelector('.roofline-target').getBoundingClientRect().height};
    }""")
    assert "ridge at 153 FLOP/byte" in size["ridge"]  # the fence asked for the A100
    assert size["h"] > 500
    screenshot(page, "plugin-fixture")
    w.assert_clean()



@pytest.mark.slow
def test_docs_mkdocs_example_builds(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(doc_block("mkdocs.yml"), encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(doc_block("docs/index.md"), encoding="utf-8")
    proc = build_site(tmp_path / "site", config=tmp_path / "mkdocs.yml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="roofline-block"') == 1 and "NVIDIA A100 SXM4 80GB" in html


def test_docs_zensical_config_runs_the_formatter_without_the_plugin(tmp_path):
    import markdown
    from mkdocs.utils.yaml import yaml_load

    from roofline.cli import main

    config = yaml_load(doc_block("mkdocs.yml (Zensical)"))
    assert "plugins" not in config
    exts = config["markdown_extensions"]
    md = markdown.Markdown(extensions=["pymdownx.superfences"],
                           extension_configs=exts[0])
    html = md.convert(doc_block("docs/index.md"))
    assert html.count('class="roofline-block"') == 1
    command = doc_block("copy BokehJS and the loader into the docs folder").split()
    assert command[:3] == ["roofline", "export", "--assets-only"]
    out = tmp_path / command[command.index("--out") + 1]
    assert main(command[1:-1] + [str(out)]) == 0
    loader = config["extra_javascript"][0]
    assert (tmp_path / "docs" / loader).exists(), loader
    for a in assets.bokeh_assets():
        assert (tmp_path / "docs" / Path(loader).parent / a.name).exists()


# The page's Bokeh documents in the order of their blocks on the page: roofline.documents lists
# them as they finish rendering, which two blocks rendering at once can do in either order.
PAGE_DOCS = ("const PAGE_DOCS = [...document.querySelectorAll('.roofline-block')].map((b) => "
             "window.roofline.documents.find((d) => d.rooflineBlock === b)); ")


@pytest.mark.browser
def test_two_plots_on_one_page_work_independently(plugin_site, open_page):
    w = open_page((plugin_site / "two.html").as_uri())
    blocks = w.page.locator(".roofline-block")
    assert blocks.count() == 2
    for i in range(2):
        blocks.nth(i).scroll_into_view_if_needed()
        w.page.wait_for_selector(f".roofline-block >> nth={i}", state="attached")
    w.page.wait_for_function(
        "() => [...document.querySelectorAll('.roofline-block')]"
        ".every((b) => b.dataset.rooflineState === 'ready')", timeout=20000)
    from roofline.model.catalog import default_catalog
    l4 = default_catalog()["l4"]
    w.page.evaluate("() => { " + PAGE_DOCS + "PAGE_DOCS[0].get_model_by_name('hardware').value"
                    " = 'l4'; }")
    # A module callback runs asynchronously (BokehJS imports it), so wait for its redraw.
    w.page.wait_for_function(
        "(r) => { " + PAGE_DOCS + "return Math.abs(PAGE_DOCS[0]"
        ".get_model_by_name('ridge').location - r) < 1e-6 * r; }", arg=l4.ridge_flops_per_byte("bf16"), timeout=10000)
    ridges = w.page.evaluate(
        "() => { " + PAGE_DOCS + "return PAGE_DOCS.map((d) => "
        "d.get_model_by_name('ridge').location); }")
    assert ridges[0] != ridges[1] and round(ridges[1]) == 153  # the second stays an A100
    # the scene draws one ceiling line and labels it (labels-color holds the coloured labels)
    lines, texts = w.page.evaluate(
        "() => { " + PAGE_DOCS + "const d = PAGE_DOCS[0]; return ["
        "d.get_model_by_name('ceilings').data.xs.length,"
        "Array.from(d.get_model_by_name('labels-color').data.text)]; }")
    from roofline import fmt
    expected = f"Host link {fmt.bandwidth(l4.tier('host').bandwidth_bytes_per_s)}"
    assert lines == 1 and expected in texts  # the L4 has no SRAM or scale-up bandwidth
    assert not [t for t in texts if t.startswith(("SRAM", "GPU-GPU"))]
    screenshot(w.page, "plugin-two-plots")
    w.assert_clean()

"""roofline.figure in Jupyter, run in a real kernel (nbclient, no stubs): the docs' notebook cells
and examples/roofline.ipynb execute as written, BokehJS travels in the first plot output only
(later ones stay under 100 KB), nothing comes from a CDN, `bokeh.io.show` no longer fails, and
the saved file, the outputs and nbconvert's HTML export render offline in Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, screenshot
from test_sphinx_docs import CDNS

nbformat = pytest.importorskip("nbformat", reason="install the [notebook] extra")
nbclient = pytest.importorskip("nbclient", reason="install the [notebook] extra")

import bokeh  # noqa: E402

import roofline  # noqa: E402
from roofline.hosts import notebook  # noqa: E402
from roofline.render import assets  # noqa: E402

NOTEBOOK = ROOT / "examples" / "roofline.ipynb"
SAVED = "roofline-a100.html"  # what the notebook's .save() cell writes
LATER_MAX_BYTES = 100_000  # issue #29: an output after the first carries no BokehJS
DOC_CELLS = [(ROOT / "docs" / page, "notebook cell") for page in ("embed.md",
                                                                  "use-in-your-docs.md")]


def doc_cell(page: Path, title: str) -> str:
    """The body of the code block titled `title` on `page`, as a reader copies it."""
    found = re.search(r'^(`{3,})\w* title="' + re.escape(title) + r'"\n(.*?)\n\1$',
                      page.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert found, f"no code block titled {title!r} on {page.name}"
    return found.group(2)


def execute(nb, where: Path):
    """`nb` run top to bottom in a fresh python3 kernel whose working folder is `where`."""
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(where)}}).execute()
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> tuple[object, Path]:
    """The example notebook run in a fresh kernel, in a scratch folder."""
    where = tmp_path_factory.mktemp("notebook")
    return execute(nbformat.read(NOTEBOOK, as_version=4), where), where


def _outputs(nb) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _html(nb) -> list[str]:
    return [o["data"]["text/html"] for o in _outputs(nb) if "text/html" in o.get("data", {})]


def carries_bokeh(out: str) -> bool:
    return all(f'data-roofline="{a.name}"' in out for a in assets.bokeh_assets(full=True))


def test_example_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "clear the outputs before committing (the first plot output carries BokehJS)"


@pytest.mark.slow
def test_docs_notebook_cells_run_as_written_in_a_kernel(tmp_path):
    """Each page's "notebook cell", pasted into a cell of one notebook: no error (the embed
    page's output_notebook() + show() cell failed with 'Models must be owned by only a single
    document'), the plot is the cell's value, and only the first output carries BokehJS."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(doc_cell(page, title))
                                         for page, title in DOC_CELLS])
    execute(nb, tmp_path)
    assert not [o for o in _outputs(nb) if o["output_type"] == "error"]
    values = [[o for o in c.outputs if o["output_type"] == "execute_result"] for c in nb.cells]
    assert [len(v) for v in values] == [1, 1]
    first, later = (v[0]["data"]["text/html"] for v in values)
    for out in (first, later):
        assert out.count('class="roofline-block"') == 1
        assert not re.search(r"<script[^>]+src=", out)
    assert carries_bokeh(first) and 'data-roofline="loader"' in first
    assert not carries_bokeh(later) and len(later.encode()) <= LATER_MAX_BYTES
    saved = (tmp_path / SAVED).read_text("utf-8")
    assert saved.count('class="roofline-block"') == 1 and "<script src=" not in saved


@pytest.mark.slow
def test_bokeh_show_works_in_a_kernel_without_a_cdn(tmp_path):
    """bokeh.io.show(fig), twice, after output_notebook(INLINE): no 'already in a doc' error and
    BokehJS from no CDN; the cell value after it still shows the plot."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in (
        "import roofline\nfrom bokeh.io import output_notebook, show\n"
        "from bokeh.resources import INLINE\noutput_notebook(INLINE, hide_banner=True)",
        'fig = roofline.figure(hardware="h100-sxm", ai=2)\nshow(fig)\nshow(fig)', "fig")])
    execute(nb, tmp_path)
    assert not [o for o in _outputs(nb) if o["output_type"] == "error"]
    shown = [o for o in nb.cells[1].outputs if "application/javascript" in o.get("data", {})]
    assert len(shown) == 2
    # output_notebook()'s default would load BokehJS from Bokeh's CDN; INLINE sends it along.
    assert not [o for o in _outputs(nb) if "cdn.bokeh.org" in str(o.get("data", {}))]
    assert _html(nb)[-1].count('class="roofline-block"') == 1


@pytest.mark.slow
def test_example_notebook_outputs_carry_bokehjs_once(executed):
    nb, where = executed
    html = _html(nb)
    assert len(html) == 2
    for out in html:
        assert out.count('class="roofline-block"') == 1
        assert not re.search(r'<script[^>]+src=', out)  # nothing fetched, CDN or local
        # Our own markup names no CDN (BokehJS's bundle names one on a path we never take:
        # its MathJax provider; the browser tests prove no request leaves).
        ours = re.sub(r'<script type="text/x-roofline" data-roofline="bokeh[^"]*">.*?</script>',
                      "", out, flags=re.S)
        assert not [c for c in CDNS if c in ours]
    assert carries_bokeh(html[0]) and not carries_bokeh(html[1])
    assert len(html[1].encode()) <= LATER_MAX_BYTES
    text = "".join(o.get("text", "") for o in _outputs(nb) if o["output_type"] == "stream")
    assert "'ai'" in text and "0.01" in text  # the bad-option cell's error names the option
    assert (where / SAVED).exists()


# ---------------------------------------------------------------- which output carries what

@pytest.mark.parametrize("requests, carried", [
    # (cell id, request id, deleted cells) of each display -> whether it carries BokehJS
    ([("a", "1", ()), ("b", "2", ()), ("c", "3", ())], [True, False, False]),
    ([("a", "1", ()), ("a", "1", ())], [True, False]),  # two display() calls in one run
    ([("a", "1", ()), ("b", "2", ()), ("a", "3", ())], [True, False, True]),  # a re-run
    ([("a", "1", ()), ("b", "2", ("a",))], [True, True]),  # the carrier cell was deleted
    ([(None, "1", ()), (None, "2", ())], [True, False]),  # a front end that names no cells
])
def test_bokehjs_goes_with_the_first_output_and_its_cell(monkeypatch, requests, carried):
    session = notebook.Session()
    got = []
    for cell, request, deleted in requests:
        monkeypatch.setattr(notebook, "_request", lambda: (cell, request, deleted, False))
        got.append(session.carry("bokeh"))
    assert got == carried


@pytest.mark.slow
def test_a_rerun_of_the_carrying_cell_carries_again_in_a_kernel(tmp_path):
    """The cell id as JupyterLab sends it (the request's metadata.cellId; nbclient sends none,
    so each cell sets it on its own request here): the carrying cell run again carries again,
    another cell does not."""
    def cell(cell_id: str) -> str:
        return ("get_ipython().kernel.get_parent()['metadata']['cellId'] = "
                f"{cell_id!r}\nroofline.figure(hardware='l4')")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in (
        "import roofline", cell("plot-a"), cell("plot-a"), cell("plot-b"))])
    execute(nb, tmp_path)
    assert [carries_bokeh(h) for h in _html(nb)] == [True, True, False]


def test_colab_outputs_each_carry_bokehjs(monkeypatch):
    session = notebook.Session()
    monkeypatch.setattr(notebook, "_request", lambda: ("a", "1", (), True))
    assert [session.carry("bokeh") for _ in range(2)] == [True, True]


def test_shared_callback_code_comes_back_exactly():
    block = roofline.figure(hardware="a100-sxm-80gb", tokens=256)._roofline_block()
    item = notebook._ITEM.search(block).group(2)
    small, shared = notebook.share_code(item)
    assert shared and all(len(t) >= notebook.CODE_SHARED_MIN for t in shared.values())
    for digest, token in shared.items():
        small = small.replace(f'"roofline-code:{digest}"', token)
    assert small == item


def test_figure_stays_a_bokeh_model_and_names_bad_options():
    from bokeh.document import Document
    from bokeh.embed import json_item

    fig = roofline.figure(hardware="a100-sxm-80gb", ai=2)
    assert fig.document is None  # so bokeh.io.show can add it to its own document
    assert json_item(fig)["doc"]["roots"][0]["type"] == "object"
    assert json_item(fig)["doc"]["roots"][0]["name"] == "Column"  # BokehJS knows the type
    ready = fig.document.callbacks._js_event_callbacks["document_ready"]  # json_item's doc
    assert [c.tags for c in ready] == [["roofline-first-frame"]]
    fig.document.remove_root(fig)
    Document().add_root(fig)  # and the next document gets it too, once
    assert len(fig.document.callbacks._js_event_callbacks["document_ready"]) == 1
    bundle = fig._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    with pytest.raises(roofline.RooflineError, match="'precision'"):
        roofline.figure(hardware="a100-sxm-80gb", precision="fp8")


def test_figure_output_is_the_fences_block():
    """Through the one door: the same options give the fence's bytes (before the notebook's
    wrapping), and `url` is the option's name here too (url_state is its old spelling)."""
    from roofline.hosts import door
    fig = roofline.figure(hardware="l4", precision="fp8", url=False)
    assert fig._roofline_block() == door.render_widget(
        "roofline", {"hardware": "l4", "precision": "fp8", "url": False})
    with pytest.warns(DeprecationWarning, match="url="):
        assert roofline.figure(url_state=False)._roofline_settings.url_state is False


def test_figure_warns_of_a_ceiling_the_chip_lacks_and_refuses_one_none_has():
    with pytest.warns(roofline.RooflineWarning, match=r"^option 'ceilings': 'sram' is not drawn "
                      r"for l4: the catalog has no SRAM bandwidth for it") as got:
        roofline.figure(hardware="l4", ceilings=["sram", "host"])
    assert got[0].filename == __file__  # points at the caller's line
    with pytest.raises(roofline.RooflineError, match="nothing to draw"):
        roofline.figure(ceilings=["l2"])


# ---------------------------------------------------------------- in the browser, offline

@pytest.mark.browser
def test_saved_file_and_outputs_render_offline_in_any_order(executed, open_page, tmp_path):
    """The saved file; the notebook's outputs pasted into one page the way Jupyter shows them,
    in page order and with a later output above the first (cells run out of order): BokehJS
    evaluated once, every plot live, no request and no console error."""
    nb, where = executed
    w = open_page((where / SAVED).as_uri())
    w.page.wait_for_selector(".roofline-block[data-roofline-state=ready]", timeout=20000)
    verdict = w.page.evaluate("window.roofline.documents[0].get_model_by_name('verdict').text")
    assert "ridge at 153 FLOP/byte" in verdict  # the A100 the notebook asked for
    w.assert_clean()

    first, later = _html(nb)
    for name, outputs in (("in-order", [first, later]), ("out-of-order", [later, first])):
        page = tmp_path / f"{name}.html"
        page.write_text("<!DOCTYPE html><html lang=en><title>outputs</title><body>"
                        + "".join(f"<div class=output>{o}</div>" for o in outputs)
                        + "</body></html>", encoding="utf-8")
        w = open_page(page.as_uri())
        w.page.wait_for_function("() => [...document.querySelectorAll('.roofline-block')]"
                                 ".every((b) => b.dataset.rooflineState === 'ready')",
                                 timeout=20000)
        assert w.page.evaluate("window.roofline.documents.length") == 2
        assert w.page.evaluate("window.Bokeh.version") == bokeh.__version__
        assert w.page.evaluate("[...document.querySelectorAll('.roofline-waiting')]"
                               ".every((n) => n.hidden)")
        screenshot(w.page, f"notebook-outputs-{name}")
        w.assert_clean()


@pytest.mark.browser
def test_html_export_renders_every_plot_and_a_cleared_first_output_leaves_a_picture(
        executed, open_page, tmp_path):
    """nbconvert's HTML export (what "Save and Export as HTML" writes) shows both plots with
    every outside request refused; nbconvert's own template asks for require.js and MathJax,
    ours asks for nothing. With the first plot output cleared, the other keeps its static
    first frame and its note, and nothing fails."""
    nbconvert = pytest.importorskip("nbconvert", reason="install the [notebook] extra")
    nb, _ = executed
    exporter = nbconvert.HTMLExporter()
    theirs = (exporter.require_js_url, exporter.mathjax_url.split("?")[0])
    page = tmp_path / "export.html"
    page.write_text(exporter.from_notebook_node(nb)[0], encoding="utf-8")
    w = open_page(page.as_uri())
    w.page.wait_for_function("() => [...document.querySelectorAll('.roofline-block')]"
                             ".every((b) => b.dataset.rooflineState === 'ready')", timeout=30000)
    assert w.page.evaluate("window.roofline.documents.length") == 2
    assert w.external and all(u.startswith(theirs) for u in w.external), w.external
    assert all("Failed to load resource" in e for e in w.errors), w.errors

    cleared = nbformat.from_dict(nb)
    first = next(c for c in cleared.cells if any("text/html" in o.get("data", {})
                                                 for o in c.get("outputs", [])))
    first.outputs = []
    page.write_text(exporter.from_notebook_node(cleared)[0], encoding="utf-8")
    w = open_page(page.as_uri())
    w.page.wait_for_selector(".roofline-waiting:not([hidden])", timeout=20000)
    state = w.page.evaluate("""() => [...document.querySelectorAll('.roofline-block')].map((b) =>
        [b.dataset.rooflineState, [...b.querySelectorAll('.roofline-static svg')]
         .some((s) => getComputedStyle(s).display !== 'none')])""")
    assert state == [["waiting", True]], state
    assert all(u.startswith(theirs) for u in w.external), w.external
    assert all("Failed to load resource" in e for e in w.errors), w.errors

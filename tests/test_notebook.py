"""roofline.figure in Jupyter: examples/roofline.ipynb executes under nbclient, its outputs carry
the plot with BokehJS inside (no CDN), and the HTML it saves renders offline in Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, screenshot
from test_sphinx_docs import CDNS

nbformat = pytest.importorskip("nbformat", reason="install the [sphinx] extra")
nbclient = pytest.importorskip("nbclient", reason="install the [sphinx] extra")

import bokeh  # noqa: E402

import roofline  # noqa: E402

NOTEBOOK = ROOT / "examples" / "roofline.ipynb"
SAVED = "roofline-a100.html"  # what the notebook's .save() cell writes


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> tuple[object, Path]:
    """The example notebook run top to bottom in a fresh kernel, in a scratch folder."""
    where = tmp_path_factory.mktemp("notebook")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(where)}}).execute()
    return nb, where


def _outputs(nb) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def test_example_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "clear the outputs before committing (each plot output carries BokehJS, ~1.7 MB)"


@pytest.mark.slow
def test_notebook_executes_and_shows_two_offline_plots(executed):
    nb, where = executed
    html = [o["data"]["text/html"] for o in _outputs(nb) if "text/html" in o.get("data", {})]
    assert len(html) == 2
    for out in html:
        assert out.count('class="roofline-block"') == 1
        assert 'data-roofline="bokeh"' in out and 'data-roofline="loader"' in out
        assert not re.search(r'<script[^>]+src=', out)  # nothing fetched, CDN or local
        # Our own markup names no CDN (BokehJS's bundle names one on a path we never take:
        # its MathJax provider; the browser test proves no request leaves).
        ours = re.sub(r'<script type="text/x-roofline" data-roofline="bokeh[^"]*">.*?</script>',
                      "", out, flags=re.S)
        assert not [c for c in CDNS if c in ours]
    text = "".join(o.get("text", "") for o in _outputs(nb) if o["output_type"] == "stream")
    assert "'ai'" in text and "0.01" in text  # the bad-option cell's error names the option
    assert (where / SAVED).exists()


def test_figure_stays_a_bokeh_model_and_names_bad_options():
    from bokeh.embed import json_item

    fig = roofline.figure(hardware="a100-sxm-80gb", ai=2)
    assert json_item(fig)["doc"]["roots"][0]["type"] == "object"
    assert json_item(fig)["doc"]["roots"][0]["name"] == "Column"  # BokehJS knows the type
    bundle = fig._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    with pytest.raises(roofline.RooflineError, match="'precision'"):
        roofline.figure(hardware="a100-sxm-80gb", precision="fp8")


@pytest.mark.browser
def test_notebook_outputs_and_saved_file_render_offline(executed, open_page, tmp_path):
    """The saved file, and the two cell outputs pasted into one page the way Jupyter shows them
    (BokehJS evaluated once, both plots live), render with no request and no console error."""
    nb, where = executed
    w = open_page((where / SAVED).as_uri())
    w.page.wait_for_selector(".roofline-block[data-roofline-state=ready]", timeout=20000)
    verdict = w.page.evaluate("window.roofline.documents[0].get_model_by_name('verdict').text")
    assert "ridge at 153 FLOP/byte" in verdict  # the A100 the notebook asked for
    w.assert_clean()

    outputs = [o["data"]["text/html"] for o in _outputs(nb) if "text/html" in o.get("data", {})]
    page = tmp_path / "outputs.html"
    page.write_text("<!DOCTYPE html><html lang=en><title>outputs</title><body>"
                    + "".join(f"<div class=output>{o}</div>" for o in outputs)
                    + "</body></html>", encoding="utf-8")
    w = open_page(page.as_uri())
    for block in w.page.locator(".roofline-block").all():
        block.scroll_into_view_if_needed()
    w.page.wait_for_function("() => [...document.querySelectorAll('.roofline-block')]"
                             ".every((b) => b.dataset.rooflineState === 'ready')", timeout=20000)
    assert w.page.evaluate("window.roofline.documents.length") == 2
    assert w.page.evaluate("window.Bokeh.version") == bokeh.__version__
    screenshot(w.page, "notebook-outputs")
    w.assert_clean()

"""The trimmed BokehJS (roofline/vendor/bokehjs, roofline.render.bokehjs): it registers every
model the widgets serialize, and it is what scripts/trim-bokehjs.mjs makes from the installed
bokeh and models.json — each gate with a seeded defect that it must catch."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pytest

from lesson_site import bokeh_models
from roofline.render import assets, bokehjs

ROOT = Path(__file__).resolve().parents[1]
TRIMMER = ROOT / "scripts" / "trim-bokehjs.mjs"
BOKEH_JS = Path(assets.bokeh_assets(full=True)[0].path).parent


@pytest.fixture(scope="module")
def used() -> dict[str, set[str]]:
    return bokeh_models.used_models()


@pytest.fixture(scope="module")
def bundle_text() -> str:
    return bokehjs.bundle_path().read_text(encoding="utf-8")


def test_every_model_the_widgets_serialize_is_registered(used, bundle_text):
    assert {"Figure", "Slider", "CustomJS", "ColumnDataSource"} <= set(used)  # the walk works
    missing = bokehjs.missing_models(used, bundle_text)
    assert not missing, {name: sorted(used[name]) for name in missing}


def test_a_model_missing_from_the_bundle_is_reported(bundle_text):
    # Seeded defect 1: a document with a model the bundle lacks (a table widget).
    item = {"doc": {"roots": [{"type": "object", "name": "Column", "id": "p1", "attributes": {
        "children": [{"type": "object", "name": "DataTable", "id": "p2"}]}}]}}
    assert bokehjs.missing_models(bokehjs.item_models(item), bundle_text) == ["DataTable"]
    # Seeded defect 2: the bundle with Slider's registration taken out.
    cut = bundle_text.replace('"Slider":', '"Slid":', 1)
    assert bokehjs.missing_models(["Slider", "Figure"], cut) == ["Slider"]


def test_no_widget_needs_a_stubbed_module():
    found = {where: bokehjs.stubbed_features(item)
             for where, item in bokeh_models.widget_items()}
    assert not {w: f for w, f in found.items() if f}


def test_a_document_needing_a_stubbed_module_is_reported(bundle_text):
    # Seeded defects: a numpy array sent as compressed bytes; a plot drawn as SVG.
    item = {"doc": {"roots": [{"type": "object", "name": "Figure", "id": "p1", "attributes": {
        "output_backend": "svg", "x": {"type": "ndarray", "array": {"type": "bytes",
                                                                     "data": "H4sI"}}}}]}}
    assert bokehjs.stubbed_features(item) == ["compressed arrays (gzip)", "output_backend svg"]
    # ... and the stubs are in the bundle, so such a plot would fail loudly, not quietly.
    for stub in ("no gzip", "no SVG output", "no map projections", "no Bokeh server"):
        assert stub in bundle_text, stub


def test_models_json_is_what_the_widgets_use(used):
    listed = json.loads((bokehjs.VENDOR / "models.json").read_text(encoding="utf-8"))
    assert listed == sorted(used), "run: python -m lesson_site.bokeh_models"


def test_vendored_bundle_is_current():
    reasons = bokehjs.stale_reasons(bokehjs.VENDOR, BOKEH_JS, TRIMMER, metadata.version("bokeh"))
    assert not reasons, reasons


def test_stale_bundle_is_reported(tmp_path):
    vendor = tmp_path / "vendor"
    shutil.copytree(bokehjs.VENDOR, vendor)
    version = metadata.version("bokeh")
    assert bokehjs.stale_reasons(vendor, BOKEH_JS, TRIMMER, version) == []
    # Seeded defects: another bokeh, an edited bundle, a changed model list.
    assert bokehjs.stale_reasons(vendor, BOKEH_JS, TRIMMER, "3.9.3")
    bundle = vendor / bokehjs.manifest()["output"]["name"]
    bundle.write_text(bundle.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert any("edited" in r for r in bokehjs.stale_reasons(vendor, BOKEH_JS, TRIMMER, version))
    models = vendor / "models.json"
    models.write_text(json.dumps(["Figure"]), encoding="utf-8")
    assert any("models.json" in r for r in bokehjs.stale_reasons(vendor, BOKEH_JS, TRIMMER, version))


def test_another_bokeh_minor_is_refused_in_one_line_and_a_patch_release_is_not():
    made = bokehjs.manifest()["bokeh_version"]
    major, minor, _ = made.split(".", 2)
    bokehjs.check_version(made)
    bokehjs.check_version(f"{major}.{minor}.99")
    for other in ("3.0.0", f"{major}.{int(minor) + 1}.0"):
        with pytest.raises(bokehjs.StaleBundle, match=re.escape(other)) as refused:
            bokehjs.check_version(other)
        assert "\n" not in str(refused.value) and made in str(refused.value)


def test_importing_the_widgets_with_another_bokeh_names_the_mismatch(tmp_path):
    """The import-time check: roofline.widgets imported where bokeh's metadata says 3.0.0."""
    import sys
    fake = tmp_path / "bokeh-3.0.0.dist-info"
    fake.mkdir()
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: bokeh\nVersion: 3.0.0\n")
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
            "import roofline.widgets")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "StaleBundle" in last and "bokeh 3.0.0 is installed" in last, done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_trimmer_reproduces_the_vendored_bundle(tmp_path):
    shutil.copy(bokehjs.VENDOR / "models.json", tmp_path / "models.json")
    subprocess.run(["node", str(TRIMMER)], check=True, capture_output=True,
                   env={"PATH": _path(), "BOKEHJS_VENDOR_DIR": str(tmp_path),
                        "BOKEH_JS_DIR": str(BOKEH_JS)})
    name = bokehjs.manifest()["output"]["name"]
    assert (tmp_path / name).read_bytes() == bokehjs.bundle_path().read_bytes()
    assert json.loads((tmp_path / "manifest.json").read_text()) == bokehjs.manifest()


def test_the_trimmer_refuses_an_unknown_model(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    (tmp_path / "models.json").write_text(json.dumps(["Figure", "NoSuchModel"]))
    run = subprocess.run(["node", str(TRIMMER)], capture_output=True, text=True,
                         env={"PATH": _path(), "BOKEHJS_VENDOR_DIR": str(tmp_path),
                              "BOKEH_JS_DIR": str(BOKEH_JS)})
    assert run.returncode != 0 and "NoSuchModel" in run.stderr


def _path() -> str:
    import os
    return os.environ.get("PATH", "")

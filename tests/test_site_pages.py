"""The reference pages and the downloads: hardware catalog (every accelerator, peaks, tiers,
ridges, sources), op zoo (formulas, three models × three phases), CSV/JSON files that match
the model, and the offline zip (complete, reproducible)."""

from __future__ import annotations

import csv
import io
import json
import zipfile

from roofline import fmt
from roofline.model.catalog import default_catalog
from lesson_site.build import ZIP_ROOT, ZIP_URI, write_zip
from site_helpers import read_main, tables

MODELS = ("llama-2-7b", "llama-3-8b", "llama-3-70b")
PHASES = ("train", "prefill", "decode")


def test_catalog_page_lists_every_accelerator(built_site):
    cat = default_catalog()
    page = read_main(built_site / "hardware.html")
    # the summary: the lesson's chips, then the rest in a collapsed second table (#28)
    names = [r[0] for t in page.tables[:2] for r in t[1:]]
    every = [a.name for a in cat]
    assert sorted(names) == sorted(every) and len(names) == len(every)  # human names, linked
    assert len(page.tables[0]) - 1 < len(every)
    heads = list(page.headings)
    after = heads[heads.index(("h2", "Accelerators")):]  # "Which chip?" has h3s of its own
    h3 = [h for tag, h in after if tag == "h3"]
    assert h3 == [a.name for a in cat]
    text = "".join(page.parts)
    for acc in cat:
        for p in acc.peaks:
            assert fmt.tflops(acc.peak_flops_per_s(p)) in text
    for key in cat.sources:
        assert f"source-{key.lower()}" in (built_site / "hardware.html").read_text()


def test_catalog_downloads_match_the_model(built_site):
    cat = default_catalog()
    rows = list(csv.DictReader(io.StringIO((built_site / "downloads/hardware.csv").read_text())))
    assert [r["id"] for r in rows] == [a.id for a in cat]
    h100 = next(r for r in rows if r["id"] == "h100-sxm")
    assert float(h100["hbm_bandwidth_bytes_per_s"]) == cat["h100-sxm"].hbm_bandwidth_bytes_per_s
    data = json.loads((built_site / "downloads/hardware.json").read_text())
    rec = next(a for a in data["catalog"] if a["id"] == "h100-sxm")
    assert rec["ridges_flops_per_byte"]["bf16"] == cat["h100-sxm"].ridge_flops_per_byte("bf16")
    assert set(rec["sources"]) <= set(data["sources"])


def test_op_zoo_page_has_nine_model_tables_and_downloads(built_site):
    t = tables(built_site / "op-zoo.html")
    op_tables = [x for x in t if x and x[0][:2] == ["Op", "Shape"]]
    assert len(op_tables) == len(MODELS) * len(PHASES)
    for model in MODELS:
        for phase in PHASES:
            path = built_site / f"downloads/ops-{model}-{phase}.csv"
            rows = list(csv.DictReader(io.StringIO(path.read_text())))
            assert rows and all(float(r["flops"]) >= 0 for r in rows)
            assert json.loads(path.with_suffix(".json").read_text())[0]["name"] == rows[0]["name"]
    formulas = next(x for x in t if x and x[0] == ["Op (shape)", "FLOPs", "HBM bytes"])
    assert len(formulas) > 10
    assert "<math" in (built_site / "op-zoo.html").read_text()


def test_zip_holds_the_whole_site(built_site):
    with zipfile.ZipFile(built_site / ZIP_URI) as zf:
        names = set(zf.namelist())
        assert all(n.startswith(f"{ZIP_ROOT}/") for n in names)
        for rel in ("index.html", "lessons/06-gpus-the-hardware-youre-renting.html",
                    "search/search_index.js", "assets/vendor/iframe-worker-shim.js",
                    "downloads/hardware.csv"):
            assert f"{ZIP_ROOT}/{rel}" in names, rel
        assert f"{ZIP_ROOT}/{ZIP_URI}" not in names  # it does not contain itself
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        lesson = "lessons/06-gpus-the-hardware-youre-renting.html"
        assert zf.read(f"{ZIP_ROOT}/{lesson}") == (built_site / lesson).read_bytes()
        # index.html differs only where it links to the zip (tests/test_zip_links.py, #18)


def test_zip_is_reproducible(built_site, tmp_path):
    first = (built_site / ZIP_URI).read_bytes()
    again = write_zip(built_site).read_bytes()
    assert again == first

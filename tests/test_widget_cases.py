"""tests/cases/roofline_cases.jsonl: what Python and the browser both compute (the roofline
arithmetic and the display formatting), written from the Python model by
tests/cases/make_cases.py; node --test checks the same file against render/js/maths.mjs and
format.mjs. And the seed's own claims about the ridges, read from the model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

CASES_DIR = Path(__file__).parent / "cases"
sys.path.insert(0, str(CASES_DIR))
import make_cases  # noqa: E402

from roofline.model.catalog import default_catalog  # noqa: E402
from roofline.render.jsengine import call  # noqa: E402
from roofline.widgets.roofline.settings import RooflineSettings  # noqa: E402

SCENE_JS = Path(make_cases.__file__).resolve().parents[2] / "site_src" / "roofline" / \
    "widgets" / "roofline" / "scene.mjs"


def lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (CASES_DIR / name).read_text(encoding="utf-8")
            .splitlines() if line]


@pytest.mark.parametrize("name, rows", [("roofline_cases.jsonl", make_cases.roofline_cases),
                                        ("payloads.jsonl", make_cases.payloads)])
def test_case_files_are_current(name, rows):
    """Regenerate with `PYTHONPATH=site_src python3 tests/cases/make_cases.py`."""
    assert lines(name) == json.loads(json.dumps(rows())), f"regenerate {name}"


def test_the_shared_cases_stay_small():
    """Issue 25: one case per line, only cases that pin a distinct behaviour; all the shared
    case files together under 250 KB."""
    total = sum(p.stat().st_size for p in CASES_DIR.iterdir()
                if p.suffix in (".json", ".jsonl"))
    assert total <= 250_000, f"{total:,} bytes of cases"


def test_seed_claims_ridges():
    """The lesson's numbers: H100 SXM ridge ≈ 295 (bf16), ≈ 591 (fp8); A100 ≈ 153."""
    cat = default_catalog()
    assert round(cat["h100-sxm"].ridge_flops_per_byte("bf16")) == 295
    assert round(cat["h100-sxm"].ridge_flops_per_byte("fp8")) == 591
    assert round(cat["a100-sxm-80gb"].ridge_flops_per_byte("bf16")) == 153


def test_vector_roof_is_the_one_the_precision_runs_on():
    """Issue 13 (failure mode 10): bf16 elementwise math runs on the H100's packed bf16 vector
    units, ≈ 134 TFLOP/s (NVIDIA H100 datasheet, non-tensor bf16/fp16), not under fp32's 66.9.
    The scene (scene.mjs, run here as the build runs it) labels the one it draws."""
    data = RooflineSettings().payload()
    texts = {}
    for prec in ("bf16", "fp32"):
        st = {"hardware": "h100-sxm", "precision": prec, "vector": True}
        s = call(SCENE_JS, "scene", data, st, [574, 336])
        texts[prec] = [lb["text"] for lb in s["labels"] if lb.get("key") == "vector"]
        assert s["vector"]["y"], prec
    assert texts["bf16"] == ["BF16 vector roof 134 TFLOP/s"]
    assert texts["fp32"] == ["FP32 vector roof 66.9 TFLOP/s"]

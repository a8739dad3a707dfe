"""roofline.measure.checks: the check a measurement records about its own memory roof
(issue #32). Each defect the check exists for is seeded here and must be reported: a roof
from a working set a cache still holds, a roof far from the same run's triad (as a roof taken
from an L3-assisted GEMV was: 35.9 GB/s against a 16.8 GB/s triad), no triad past the caches."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from roofline.measure import checks, load
from roofline.measure.document import ceilings
from roofline.measure.tables import check_text

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "site_src" / "roofline" / "data" / "measurement-build-machine.json"
MiB = 2 ** 20
LLC = 32 * MiB


def _run(kernel: str, bw: float, array: float = 8 * LLC, threads: int = 2,
         level: str = "DRAM") -> dict:
    return {"kernel": kernel, "level": level, "threads": threads, "array_bytes": float(array),
            "working_set_bytes": 3.0 * array, "bandwidth_bytes_per_s": bw}


def _doc(stream: list[dict]) -> dict:
    return {"stream": stream, "ceilings": ceilings(stream, [], "DRAM")}


def test_an_honest_roof_passes():
    chk = checks.triad_vs_roof(_doc([_run("add", 30e9), _run("triad", 27e9),
                                     _run("copy", 40e9, threads=1)]), LLC)
    assert chk["passed"] and chk["problems"] == []
    assert chk["ratio"] == pytest.approx(0.9)
    assert chk["roof_kernel"] == "add" and chk["threads"] == 2
    assert chk["roof_array_bytes"] == chk["triad_array_bytes"] == 8 * LLC


def test_seeded_a_roof_from_an_in_cache_working_set_is_reported():
    # The old rule: "DRAM" at 3 × the last-level cache, all arrays together (96 MiB).
    doc = _doc([_run("add", 36e9, array=32 * MiB), _run("triad", 17e9)])
    chk = checks.triad_vs_roof(doc, LLC)
    assert not chk["passed"]
    assert any("under 4 × the last-level cache" in p for p in chk["problems"])


def test_seeded_a_roof_far_from_the_triad_is_reported():
    # A roof that an op (or anything but a plain stream past the caches) set: 35.9 GB/s
    # against a 16.8 GB/s triad, the bundled file's figures before #32.
    doc = _doc([_run("triad", 16.8e9)])
    doc["ceilings"]["bandwidth"][0]["bandwidth_bytes_per_s"] = 35.9e9
    chk = checks.triad_vs_roof(doc, LLC)
    assert not chk["passed"] and chk["ratio"] == pytest.approx(16.8 / 35.9)
    assert chk["problems"] == ["triad ÷ roof is 0.47, outside 1 ± 0.2"]
    text = check_text({**doc, "checks": {"triad_vs_roof": chk}})
    assert "Check failed: triad ÷ roof is 0.47, outside 1 ± 0.2. " in text
    # ... and says why, from the run's own figures, rather than failing silently
    assert text.endswith(chk["explanation"]) and "two ufunc passes" in chk["explanation"]


def test_an_explanation_names_the_noisy_kernels():
    noisy = _run("triad", 16.8e9)
    noisy["time_s"] = {"min": 0.01, "max": 0.03}
    doc = _doc([_run("add", 35.9e9), noisy])
    chk = checks.triad_vs_roof(doc, LLC)
    assert chk["spread"] == {"triad": pytest.approx(3.0)}
    assert "The samples of triad spread more than 1.5×" in chk["explanation"]
    agree = checks.triad_vs_roof(_doc([_run("add", 30e9), _run("triad", 27e9)]), LLC)
    assert agree["explanation"] == "" and agree["passed"]


def test_seeded_no_triad_past_the_caches_is_reported():
    doc = _doc([_run("add", 30e9), _run("triad", 25e9, array=4 * LLC, level="between")])
    chk = checks.triad_vs_roof(doc, LLC)
    assert not chk["passed"] and chk["ratio"] is None
    assert any("no triad with arrays of at least 4" in p for p in chk["problems"])
    assert check_text({**doc, "checks": {"triad_vs_roof": chk}}).startswith("Check failed: ")


def test_seeded_a_roof_on_fewer_threads_than_the_triad_is_reported():
    doc = _doc([_run("triad", 28e9)])
    doc["ceilings"]["bandwidth"][0]["threads"] = 1
    assert "the roof used 1 thread(s), the triad 2" in checks.triad_vs_roof(doc, LLC)["problems"]


def test_the_bundled_measurement_passes_its_recorded_check():
    doc = load(BUNDLED)
    chk = doc["checks"]["triad_vs_roof"]
    assert chk == checks.triad_vs_roof(doc, chk["last_level_cache_bytes"])
    llc = max(c["size_bytes"] for c in doc["machine"]["caches"])
    assert chk["last_level_cache_bytes"] == llc
    assert chk["passed"], chk["problems"]


def test_a_doctored_file_cannot_hide_a_failed_check():
    """Recomputed from the file's own runs, the check sees through an edited `passed`."""
    doc = copy.deepcopy(load(BUNDLED))
    roof = next(b for b in doc["ceilings"]["bandwidth"] if b["level"] == "DRAM")
    roof["bandwidth_bytes_per_s"] *= 2
    again = checks.triad_vs_roof(doc, doc["checks"]["triad_vs_roof"]["last_level_cache_bytes"])
    assert not again["passed"] and json.dumps(again["problems"]).count("outside") == 1

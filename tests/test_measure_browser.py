"""The measurement overlay in Debian Chromium: the bundled measurement is drawn on the
widget, a file picked with the page's file input is read in the browser and redrawn, and bad
files are refused with one line naming the file and the field. Over http and file://."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import screenshot
from pagecheck import first_block_ready, frames, painted
from roofline.measure import load

pytestmark = pytest.mark.browser
PAGE = "measure.html"
ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "tests" / "cases" / "measure_cases.json").read_text(encoding="utf-8"))
BUNDLED = load(ROOT / "site_src" / "roofline" / "data" / "measurement-build-machine.json")

STATE_JS = """() => {
  const d = window.roofline.documents[0];
  const m = (n) => d.get_model_by_name(n);
  const pts = m('measured-points').data, roofs = m('measured-roofs').data;
  const ys = Array.from(pts.y).concat(roofs.ys.flat());
  const r = m('roofline-figure').y_range;
  return {points: pts.x.length, labels: Array.from(pts.text).filter((t) => t),
          drawn: Array.from(m('measured-labels').data.text),
          roofs: roofs.xs.length, status: m('measurement-status').text,
          minY: Math.min(...ys), maxY: Math.max(...ys), start: r.start, end: r.end};
}"""


def ready(w):
    block = w.page.locator(".roofline-block").first
    block.scroll_into_view_if_needed()
    first_block_ready(w.page, timeout_ms=30000, errors=w.errors)
    return state(w)


def state(w):
    return w.page.evaluate(STATE_JS)


def pick(w, path: Path, expect: str) -> dict:
    w.page.set_input_files("input[type=file]", str(path))
    w.page.wait_for_function(
        "(t) => window.roofline.documents[0].get_model_by_name('measurement-status')"
        ".text.includes(t)", arg=expect, timeout=10000)
    return state(w)


def write(tmp_path: Path, name: str, doc) -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def mutated(**changes) -> dict:
    doc = copy.deepcopy(CASES["base"])
    doc.update(changes)
    return doc


@pytest.fixture(params=["http", "file"])
def measure_page(request, site_server, built_site, open_page):
    url = site_server.url + PAGE if request.param == "http" else (built_site / PAGE).as_uri()
    return open_page(url)


def test_bundled_measurement_is_drawn_with_its_tables(measure_page):
    w = measure_page
    s = ready(w)
    assert s["points"] == len(BUNDLED["ops"])
    assert s["roofs"] == 2 + len(BUNDLED["ceilings"]["compute"])
    assert s["status"].startswith(f"Measured: {BUNDLED['label']} — ")
    # The CPU sits far below the H100: the plot's range must have opened to show it.
    assert s["start"] <= s["minY"] and s["end"] >= s["maxY"]
    rows = w.page.locator("table:has(caption:text('model lower bound')) tbody tr")
    assert rows.count() == len(BUNDLED["ops"])
    w.assert_clean()


def test_a_picked_measurement_replaces_the_overlay_and_stays_in_view(measure_page, tmp_path):
    w = measure_page
    ready(w)
    picked = mutated(label="Picked box")
    s = pick(w, write(tmp_path, "mine.json", picked), "Picked box")
    assert s["status"].startswith("Measured: Picked box — ")
    assert s["status"].endswith("(from mine.json, read in this browser only)")
    assert s["points"] == len(picked["ops"])
    assert s["labels"] == list(dict.fromkeys(op["label"] for op in picked["ops"]))
    # its labels were laid out again (labels.mjs): every op family named at 1280 px
    # (ops whose markers overlap share one label, their names joined: "RMSNorm, Softmax")
    assert set(s["labels"]) <= {n for d in s["drawn"] for n in d.split(", ")}, s["drawn"]
    assert s["start"] <= s["minY"] and s["end"] >= s["maxY"]
    # paper: the build's drawing shows the bundled file, not this one, so it is left out and the
    # record says the drawing is on screen only (#49; widgets/roofline/paper.mjs)
    w.page.emulate_media(media="print")
    try:
        paper = w.page.evaluate("""() => [getComputedStyle(document.querySelector(
          '.roofline-block > .roofline-static')).display,
          document.querySelector('.roofline-block > .roofline-record').textContent]""")
    finally:
        w.page.emulate_media(media="screen")
    assert paper[0] == "none" and paper[1].endswith("is on screen only."), paper
    # The widget resets its y range on every change; the overlay must stay in view.
    w.page.evaluate("window.roofline.documents[0].get_model_by_name('hardware').value = 'b200'")
    frames(w.page)
    s = state(w)
    assert s["start"] <= s["minY"] and s["end"] >= s["maxY"]
    w.assert_clean()


BAD = [
    ("notes.txt", "{not json", "Rejected — notes.txt: not valid JSON"),
    ("neg.json", "median", "Rejected — neg.json: field 'stream[0].time_s.median': must be > 0"),
    # a file written before #32 (no checks, a roof an op could set) is refused by version
    ("v1.json", "version",
     "Rejected — v1.json: field 'schema_version': this site reads version 2, the file is "
     "version 1"),
    ("list.json", [1, 2], "Rejected — list.json: field '(top level)': expected object"),
    ("nolevel.json", "level", "Rejected — nolevel.json: field 'ceilings.bandwidth': no bandwidth "
                              "ceiling for memory_level"),
]


@pytest.fixture(scope="module")
def bad_file_tab(tab_pool):
    """One guarded tab for the bad-file cases: each case loads the page afresh (a new document,
    after about:blank), sparing each a new tab."""
    w = tab_pool.tab()
    yield w
    tab_pool.release(w)


@pytest.mark.parametrize("name, what, message", BAD, ids=[b[0] for b in BAD])
def test_bad_files_are_refused_with_one_clear_line(site_server, bad_file_tab, tmp_path, name,
                                                   what, message):
    w = bad_file_tab
    w.page.goto("about:blank")
    w.external.clear()  # this case's load only
    w.errors.clear()
    w.page.goto(site_server.url + PAGE)
    before = ready(w)
    if what == "median":
        doc = copy.deepcopy(CASES["base"])
        doc["stream"][0]["time_s"]["median"] = -1
    elif what == "version":
        doc = mutated(schema_version=1)
    elif what == "level":
        doc = copy.deepcopy(CASES["base"])
        doc["ceilings"]["memory_level"] = "HBM"
    else:
        doc = what if isinstance(what, str) else json.dumps(what)
    s = pick(w, write(tmp_path, name, doc if isinstance(doc, str) else json.dumps(doc)),
             "Rejected")
    assert s["status"].startswith(message), s["status"]
    assert "\n" not in s["status"]
    # The overlay the reader had stays as it was.
    assert (s["points"], s["roofs"]) == (before["points"], before["roofs"])
    w.assert_clean()


def test_screenshots_light_dark_and_narrow(site_server, open_page, tmp_path):
    for name, width, scheme in (("measure-light", 1280, "light"), ("measure-dark", 1280, "dark"),
                                ("measure-412", 412, "light")):
        w = open_page(site_server.url + PAGE, width=width, scheme=scheme)
        if scheme == "dark":
            w.page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
        ready(w)
        pick(w, write(tmp_path, "mine.json", mutated(label="Picked box")), "Picked box")
        w.page.locator(".roofline-block").first.scroll_into_view_if_needed()
        painted(w.page)
        assert screenshot(w.page, name).stat().st_size > 10_000
        w.assert_clean()

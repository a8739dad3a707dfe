"""The profile drop page in Chromium, from file:// with every request but the page's own files
refused: a torch trace chosen by the reader is read in the browser (reader.mjs, analyse.mjs) and
gives the very report the build drew for the same trace (the same JS, run by the build's
engine); a bad file is one line; a dropped measurement moves the trace onto its roofline."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PAGE = "profile.html"
TRACES = Path(__file__).parent / "fixtures" / "traces"


def _open(built_site, tab_pool):
    w = tab_pool.tab(scheme="light")
    page = w.page
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url))
    page.goto((built_site / PAGE).as_uri())
    root = page.locator(".rl-drop").first
    page.wait_for_function("el => el.getAttribute('data-rl-drop-state') === 'ready'",
                           arg=root.element_handle())
    return page, root, sent


def _choose(page, root, *files) -> str:
    # the state the last choice left must not answer for this one (a race seen under load)
    root.evaluate("el => el.removeAttribute('data-rl-drop-state')")
    root.locator("input[name=trace]").set_input_files([str(f) for f in files])
    page.wait_for_function("el => ['shown', 'error'].includes("
                           "el.getAttribute('data-rl-drop-state'))", arg=root.element_handle())
    return root.get_attribute("data-rl-drop-state")


def _report(page, locator) -> str:
    """A report's markup without the dropped one's step picker and the page's figure number."""
    markup = locator.evaluate("el => { const c = el.cloneNode(true); "
                              "c.querySelectorAll('.rl-drop-step').forEach(s => s.remove()); "
                              "return c.innerHTML.trim(); }")
    return re.sub(r'<span class="rl-fignum">Figure \d+:</span> ', "", markup)


def _made(page, sent: list[str]) -> list[str]:
    """The requests in `sent` but the tab's icon (the page's <link rel=icon>), which is the
    browser's own, made whenever it gets to it, after the page is ready or not."""
    icon = page.evaluate("() => document.querySelector('link[rel~=icon]').href")
    return [u for u in sent if u != icon]


def test_seeded_a_request_of_the_page_s_code_is_caught(built_site, tab_pool):
    page, root, sent = _open(built_site, tab_pool)
    before = len(sent)
    with page.expect_request(lambda r: r.url.endswith("seeded.json")):
        page.evaluate("() => { fetch('seeded.json').catch(() => {}); }")
    assert [u.rsplit("/", 1)[-1] for u in _made(page, sent[before:])] == ["seeded.json"]


def test_a_chosen_trace_gives_the_report_the_build_drew(built_site, tab_pool, tmp_path):
    page, root, sent = _open(built_site, tab_pool)
    before = len(sent)
    for name in ("torch-cpu-train.json.gz", "torch-cpu-decode.json.gz"):
        assert _choose(page, root, TRACES / name) == "shown", root.inner_text()
        dropped = _report(page, root.locator(".rl-profile-report"))
        static = page.locator(".rl-profile:not(.rl-drop)", has_text=name).first
        assert dropped == _report(page, static.locator(".rl-profile-report"))
        assert "measured MFU" in dropped and name in dropped
    assert _made(page, sent[before:]) == [], "reading a trace made a request"
    # a plain (not gzipped) trace reads the same
    plain = tmp_path / "train.json"
    plain.write_bytes(gzip.decompress((TRACES / "torch-cpu-train.json.gz").read_bytes()))
    assert _choose(page, root, plain) == "shown"
    assert "ProfilerStep#3" in root.locator(".rl-profile-report").inner_text()
    # another step, from the picker
    root.locator("select[name=step]").select_option("2")
    page.wait_for_function("el => el.querySelector('.rl-profile-report strong')"
                           ".textContent === 'ProfilerStep#2'", arg=root.element_handle())


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_text("{ not json"), "not a Chrome trace: expected a key"),
    (lambda p: p.write_text('{"traceEvents": [{"ph": X}]}'), "not JSON at character 17"),
    (lambda p: p.write_text(""), "the file is empty"),
    (lambda p: p.write_bytes(gzip.compress(b'{"traceEvents": [{"ph": "X"}]}')[:-12]),
     "truncated or corrupt gzip stream"),
    (lambda p: p.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",'
                            ' "ts": 0, "dur": 1, "args": {}}]}'), "record_shapes=True"),
    (lambda p: p.write_text('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a"'),
     "truncated JSON"),
])
def test_a_bad_file_is_one_line(built_site, tab_pool, tmp_path, make, message):
    page, root, _ = _open(built_site, tab_pool)
    bad = tmp_path / "bad.json"
    make(bad)
    assert _choose(page, root, bad) == "error"
    line = root.locator(".rl-drop-status").inner_text()
    assert message in line and "\n" not in line.strip()


def test_a_dropped_measurement_moves_the_trace_onto_its_roofline(built_site, tab_pool, tmp_path):
    from roofline.model import datafile as _toml
    doc = json.loads((_toml.DATA_DIR / "measurement-build-machine.json").read_text())
    for b in doc["ceilings"]["bandwidth"]:
        if b["level"] == "DRAM":
            b["bandwidth_bytes_per_s"] = 10e9
    doc["label"] = "A slower CPU"
    mine = tmp_path / "my-cpu.json"
    mine.write_text(json.dumps(doc))
    page, root, _ = _open(built_site, tab_pool)
    assert _choose(page, root, mine, TRACES / "torch-cpu-decode.json.gz") == "shown"
    text = root.locator(".rl-profile-report").inner_text()
    assert "Roofline: A slower CPU," in text and re.search(r"\b10 GB/s", text), text


def test_a_dropped_gpu_trace_gives_the_report_the_cli_computes(built_site, tab_pool,
                                                                 gpu_traces):
    # the browser runs gpu.mjs on the file it streams; the Python host runs the same module on
    # the events it streams: the two reports' markup is the same
    from roofline.profile.analyse import report
    from roofline.render.jsengine import call
    from roofline.widgets.profile.block import JS
    page, root, sent = _open(built_site, tab_pool)
    before = len(sent)
    path = gpu_traces / "hta-mi250-minitoy-train.json.gz"
    assert _choose(page, root, path) == "shown", root.inner_text()
    dropped = _report(page, root.locator(".rl-profile-report"))
    # (the browser's serialisation of the CLI's markup: &quot; and &#x27; come back as quotes)
    want = page.evaluate("h => { const d = document.createElement('div'); d.innerHTML = h; "
                         "return d.innerHTML.trim(); }", call(JS, "reportHtml", report(path)))
    assert dropped == want
    assert "AMD Instinct MI250 (one GCD)" in dropped
    assert _made(page, sent[before:]) == [], "reading a trace made a request"


def test_dropped_ranks_without_a_chip_ask_for_one_then_merge(built_site, tab_pool, gpu_traces):
    from roofline.profile.ranks import ranks
    page, root, _ = _open(built_site, tab_pool)
    files = [gpu_traces / f"hta-sampled-rank-{i}-of-128.json.gz" for i in (0, 1)]
    assert _choose(page, root, *files) == "error"
    assert "no deviceProperties" in root.locator(".rl-drop-status").inner_text()
    root.locator("select[name=chip]").select_option("a100-sxm-80gb")
    page.wait_for_function("el => el.getAttribute('data-rl-drop-state') === 'shown'",
                           arg=root.element_handle())
    m = ranks(files, hardware="a100-sxm-80gb")
    text = root.locator(".rl-profile-report").inner_text()
    assert f"the slowest is rank {m['slowest']}" in text and "2 ranks" in text

"""Layout gate: every page of the built site at 1280 px light, 1280 px dark and 412 px, each
page loaded once per view with every check run on that load (tests/layoutcheck.py); the
lesson printed to PDF keeps every table column and its static figures. Each check also runs
on a small seeded page holding the defect it guards against, and must report it."""

from __future__ import annotations

import re
import subprocess

import pytest

import layoutcheck
from pagecheck import BOKEH_IDLE_JS, bokeh_idle
from conftest import view_gate, view_group, view_results
from layoutcheck import SCREEN_CHECKS, run, run_print
from site_helpers import LESSON

pytestmark = pytest.mark.browser

# Geometry is the palette's to keep, not to change: the slate palette swaps colours, not fonts,
# sizes or boxes, so the layout gate runs in the light palette at both widths, and the dark
# view's own gates (test_quality_browser: axe's colour rules on the same loads) judge colour.
VIEWS = {"1280-light": (1280, "light"), "412": (412, "light")}
# What each view checks: punchline columns at desktop width, chart text size on the phone.
SKIP = {"1280-light": {"chart_text"}, "412": {"punchline"}}


# Open defects the gate finds in other owners' code, each named with its owner. A waiver
# must still match a reported problem (a fixed defect fails the test until its waiver goes),
# so the gate never silently stops looking.
WAIVERS: dict[tuple[str, str, str], str] = {}


def _waived(problem: str) -> tuple | None:
    return next((k for k in WAIVERS
                 if problem.startswith(f"{k[0]} [{k[1]}]") and k[2] in problem), None)


def _pages(site) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                  if "assets" not in p.parts and p.name != "404.html")


def _settle(page, timeout_ms: int = 15000) -> None:
    """Wait for every plot's first frame (the loader sets data-roofline-state), so the gate
    sees what a reader sees once the page has settled; a plot that never settles keeps its
    static first-paint drawing, and the checks judge that."""
    # The loader starts a plot when it scrolls into view: bring each one in, then go back up.
    for i in range(page.evaluate("document.querySelectorAll('.roofline-block').length")):
        page.evaluate("i => document.querySelectorAll('.roofline-block')[i].scrollIntoView()", i)
        try:
            page.wait_for_function("""i => document.querySelectorAll('.roofline-block')[i]
                                      .dataset.rooflineState !== 'loading' &&
                                      document.querySelectorAll('.roofline-block')[i]
                                      .dataset.rooflineState""", arg=i, timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - judged by the checks below
            pass
    # Collapsed blocks are judged open, as a reader who opens them sees them.
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.evaluate("window.scrollTo(0, 0)")
    bokeh_idle(page)


# Each view's pages are loaded once by conftest.site_views, which runs this gate on every load
# after the quality gates (test_quality_browser.py: settle, axe) of the same view, if any.
VIEW_KEYS = {view: ("http", scheme, width) for view, (width, scheme) in VIEWS.items()}


@view_gate("layout", order=1, views=VIEW_KEYS.values(), pages=lambda site, scheme: _pages(site))
def _layout(w, rel: str, key: tuple) -> list[str]:
    view = next(v for v, k in VIEW_KEYS.items() if k == key)
    width, page = key[2], w.page
    page.wait_for_load_state("load")
    _settle(page)
    problems = []
    for check in SCREEN_CHECKS:
        if check not in SKIP[view]:
            problems += [f"{rel} [{check}] {p}" for p in run(page, check, phone=width < 1024)]
    if rel == LESSON and width >= 1024:
        problems += [f"{rel} [print] {p}" for p in run_print(page)]
    return problems


@pytest.mark.parametrize("view", [pytest.param(v, marks=pytest.mark.xdist_group(view_group(*k)))
                                  for v, k in VIEW_KEYS.items()])
def test_every_page_passes_the_layout_gate(view, site_views):
    problems = [p for found in view_results(site_views, "layout", *VIEW_KEYS[view]).values()
                for p in found]
    open_ = [p for p in problems if not _waived(p)]
    assert open_ == [], f"{len(open_)} layout problems at {view}:\n" + "\n".join(open_)
    used = {_waived(p) for p in problems} - {None}
    stale = [k for k in WAIVERS if k not in used]
    assert not stale, f"waived defects no longer found at {view} (remove the waiver): {stale}"


def test_lesson_pdf_keeps_every_column_and_the_figures(built_site, site_server, tab_pool,
                                                       tmp_path):
    w = tab_pool.tab(scheme="dark")
    page = w.page
    try:
        page.goto(site_server.url + LESSON)
        page.wait_for_load_state("load")
        heads = page.evaluate("""() => [...document.querySelectorAll('.rl-table thead th')]
                                 .map(th => th.textContent.trim())""")
        figure_text = page.evaluate("""() => [...document.querySelectorAll(
            'figure .rl-chart-wide svg text, .roofline-static svg.roofline-svg-wide text')]
            .map(t => t.textContent.trim()).filter(Boolean)""")
        flat = _pdf_text(page, tmp_path / "lesson.pdf")
    finally:
        tab_pool.release(w)
    assert len(heads) >= 15 and figure_text
    missing = pdf_missing_columns(heads, flat)
    assert missing == [], f"columns missing from the PDF: {missing}"
    lost = [t for t in figure_text if t not in flat]
    assert lost == [], f"static figure text missing from the PDF: {lost[:10]}"


# --- the static drawings as a reader without JavaScript sees them (first paint, no-JS) ------

@pytest.mark.parametrize("width", [412, 1280])
def test_static_drawings_pass_without_javascript(width, built_site, site_server, browser):
    """The build-time SVGs are what a phone shows first and all a no-JS reader gets: at 412 px
    the narrow drawing is shown (no text under 11 px), and no label meets another or its edge."""
    ctx = browser.new_context(viewport={"width": width, "height": 900},
                              java_script_enabled=False)
    page = ctx.new_page()
    problems, drawings = [], 0
    try:
        for rel in _pages(built_site):
            if "roofline-static" not in (built_site / rel).read_text(encoding="utf-8"):
                continue
            page.goto(site_server.url + rel)
            drawings += page.evaluate("""() => [...document.querySelectorAll(
                '.roofline-static svg')].filter(s => s.getBoundingClientRect().width > 0).length""")
            for check in ("chart_text", "labels"):
                if check == "chart_text" and width > 1024:
                    continue
                problems += [f"{rel} [{check}] {p}" for p in run(page, check)]
    finally:
        ctx.close()
    assert drawings >= 3
    assert problems == [], f"{len(problems)} problems at {width} px, no JS:\n" + "\n".join(problems)


# --- every state of every live plot: labels apart, inside their frame, 11 px on a phone ------

_WALK = """async ([check, phone, page]) => {
  const live = %s;
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const out = []; let states = 0;
  const look = async (what) => { await frame(); states++;
    let found = live(phone ? 11 : 0);
    if (found.length) {  // judge the settled frame: a redraw may still be on its way
      await (BOKEH_IDLE)();
      found = live(phone ? 11 : 0);
    }
    for (const p of found) out.push(`${what}: ${p}`); };
  for (const doc of window.roofline.documents) {
    const m = n => doc.get_model_by_name(n);
    if (m('hardware')) {
      const hw = m('hardware'), prec = m('precision'), vec = m('vector-roof');
      const first = hw.value, presets = m('presets'), tokens = m('tokens-slider');
      const ids = o => o.map(x => Array.isArray(x) ? x[0] : x);
      // Each preset (a selected op adds its launch floor and label) at each precision, and
      // with the tokens slider at each of its marks.
      for (const p of ids(prec.options)) {
        prec.value = p;
        for (const op of ids(presets.options)) {
          presets.value = op;
          await look(`${page} ${first} ${p} preset=${op}`);
        }
      }
      if (tokens) {
        for (const t of [0, 6, 8, 12, 15].filter(v => v <= tokens.end)) {
          tokens.value = t; await frame();
          for (const op of ids(presets.options)) {
            presets.value = op;
            await look(`${page} tokens=2^${t} preset=${op}`);
          }
        }
      }
      presets.value = 'custom';
      // Every chip × precision × vector roof on the lesson; elsewhere every chip in its first
      // precision (the same scene code: node's label gate walks every state of each page's
      // layout, tests/js/labelgate.mjs, so the browser samples the canvas drawing of it).
      const everyState = page.includes('lessons/');
      for (const h of hw.options.map(o => Array.isArray(o) ? o[0] : o)) {
        hw.value = h; await frame();
        const precs = prec.options.map(o => Array.isArray(o) ? o[0] : o);
        for (const p of everyState ? precs : precs.slice(0, 1)) {
          prec.value = p;
          for (const v of everyState ? [false, true] : [false]) {
            if (v && vec.disabled) continue;
            vec.active = v;
            await look(`${page} ${h} ${p} vector=${v}`);
          }
        }
      }
    }
    if (m('budget-model')) {
      const model = m('budget-model'), phase = m('budget-phase'), batch = m('budget-batch');
      const fus = m('budget-fusions'), all = fus.labels.map((_, i) => i);
      for (const md of model.options.map(o => Array.isArray(o) ? o[0] : o)) {
        model.value = md;
        for (const ph of phase.options.map(o => Array.isArray(o) ? o[0] : o)) {
          phase.value = ph; await frame();
          const batches = batch.options.map(o => Array.isArray(o) ? o[0] : o);
          for (const b of [batches[0], batches[batches.length - 1]]) {
            batch.value = b;
            for (const f of [[], all]) {
              fus.active = f;
              await look(`${page} budget ${md} ${ph} batch=${b} fusions=${f.length}`);
            }
          }
        }
      }
    }
  }
  return [states, [...new Set(out)]];
}""".replace("BOKEH_IDLE", BOKEH_IDLE_JS)


@pytest.mark.parametrize("width", [pytest.param(w, marks=pytest.mark.xdist_group(f"live-walk-{w}"))
                                   for w in (1280, 412)])
def test_every_live_plot_state_keeps_its_labels_apart(width, site_server, tab_pool):
    """Walks each widget through every state it offers — the roofline (on the lesson, the
    measure page with its overlay, the budget page with its ceilings) over every chip ×
    precision × vector toggle, every preset at each precision and at each tokens mark; the
    budget over every model × phase × smallest/largest batch × no/all fusions — and checks the
    canvas labels in each (the AI slider moves only the marker, which carries no label)."""
    w = tab_pool.tab(width=width)
    page = w.page
    problems, states = [], 0
    try:
        for rel in (LESSON, "measure.html", "budget.html"):
            page.goto(site_server.url + rel)
            page.wait_for_load_state("load")
            _settle(page)
            n, found = page.evaluate(_WALK % layoutcheck.CHECKS["live_labels"],
                                     ["live_labels", width < 1024, rel])
            states += n
            problems += found
    finally:
        tab_pool.release(w)
    assert states >= 60
    open_ = [p for p in problems if not any(w in p for w in LIVE_WAIVERS)]
    assert open_ == [], f"{len(open_)} of {states} states at {width} px:\n" + "\n".join(open_[:30])


# Open live-label defects in other owners' plots, each with its owner; see WAIVERS.
LIVE_WAIVERS: dict[str, str] = {}


def test_seeded_live_label_defects_are_reported(site_server, tab_pool):
    """The canvas check on a real page: an overlay label drawn on top of another, one pushed out
    of the frame, one at 9 px, one on an axis's tick label and one 40 px from the point it names
    with no leader line must each be reported; so must the last x tick ("10,000") once the
    figure's right border is shrunk back to 0 px, and an x-axis title wider than the canvas."""
    w = tab_pool.tab(width=412)
    page = w.page
    try:
        page.goto(site_server.url + "measure.html")
        page.wait_for_load_state("load")
        _settle(page)
        assert run(page, "live_labels") == []
        page.evaluate("""() => { const d = window.roofline.documents[0];
          const fig = d.get_model_by_name('roofline-figure');
          const x = Math.sqrt(fig.x_range.start * fig.x_range.end);
          const y = Math.sqrt(fig.y_range.start * fig.y_range.end);
          // among them a name 40 px over a measured point, the overlay's leader lines gone
          const pt = d.get_model_by_name('measured-points').data;
          d.get_model_by_name('measured-leaders').data = { x0: [], y0: [], x1: [], y1: [] };
          d.get_model_by_name('measured-labels').data = {
            x: [x, x, fig.x_range.end, x, fig.x_range.end / 10, pt.x[0]],
            y: [y, y, y, y / 3, fig.y_range.start, pt.y[0]],
            text: ['first label', 'second label', 'out of frame', 'tiny', 'on a tick', 'far name'],
            dx: [0, 3, 0, 0, 0, 0], dy: [0, 1, 0, 0, -12, 40],
            align: ['left', 'left', 'left', 'left', 'center', 'center'],
            baseline: ['middle', 'middle', 'middle', 'middle', 'top', 'bottom'],
            size: ['12px', '12px', '12px', '9px', '12px', '12px'],
            style: ['normal', 'normal', 'normal', 'normal', 'normal', 'normal'] }; }""")
        bokeh_idle(page)
        found = run(page, "live_labels")
        # The right border the last x tick needs, taken away: Bokeh centres "10,000" on the
        # frame's edge and the canvas cuts it.
        page.evaluate("""() => { const fig = window.roofline.documents[0]
          .get_model_by_name('roofline-figure');
          fig.min_border_right = 0;
          fig.below[0].axis_label = 'an x-axis title far too long for the width of a phone canvas'; }""")
        bokeh_idle(page)
        cut = run(page, "live_labels")
    finally:
        tab_pool.release(w)
    assert any("overlap" in p and "first label" in p for p in found), found
    assert any("cut by its frame" in p and "out of frame" in p for p in found), found
    assert any("9 px" in p and "tiny" in p for p in found), found
    assert any("overlap" in p and "on a tick" in p and "x tick 1,000" in p for p in found), found
    assert not any("cut by its canvas" in p for p in found), found
    assert any("no leader line" in p and "far name" in p for p in found), found
    assert not any("no leader line" in p and "far name" not in p for p in found), found
    assert any("x tick 10,000 cut by its canvas" in p for p in cut), cut
    assert any("axis title cut" in p and "far too long" in p for p in cut), cut
    assert not any("axis title" in p for p in found), found


def _pdf_text(page, path) -> str:
    page.pdf(path=str(path), format="A4", print_background=True)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                          text=True, check=True).stdout
    return re.sub(r"\s+", " ", text)


def pdf_missing_columns(heads: list[str], flat: str) -> list[str]:
    """Headers with a word absent from the PDF's text. A wrapped header comes out of
    pdftotext a word per line, between other columns' words, so words are compared."""
    words = set(flat.split())
    return [h for h in heads if not set(h.split()) <= words]


def test_pdf_check_reports_a_column_dropped_in_print(fixture_page, tmp_path):
    fixture_page.set_content(_BASE % ('<style>@media print{.gone{display:none}}</style>'
                                      '<table><tr><th>Bound</th><th class="gone">Attainable'
                                      '</th></tr></table>'))
    flat = _pdf_text(fixture_page, tmp_path / "seeded.pdf")
    assert pdf_missing_columns(["Bound", "Attainable"], flat) == ["Attainable"]


# --- seeded defects: each check must report the defect it guards against --------------------

_BASE = """<!doctype html><html><head><style>body{margin:0;font:16px sans-serif}
.md-content{width:380px;margin:0 auto}</style></head><body><div class="md-content"><article>
%s</article></div></body></html>"""

SEEDED = {
    "hscroll": '<div style="width:2000px">too wide</div>',
    "clipped": '<div style="width:200px;overflow:hidden"><span style="display:inline-block;'
               'width:400px">cut off</span></div>'
               '<div style="width:200px;overflow-x:auto;scrollbar-width:none">'
               '<span style="display:inline-block;width:400px">scrolls, no cue</span></div>',
    "punchline": '<div class="rl-table" aria-label="t"><table><thead><tr>'
                 '<th class="rl-p1" style="display:none">Bound</th></tr></thead><tbody><tr>'
                 '<td class="rl-p1" data-label="Bound" style="display:none">memory</td></tr>'
                 '</tbody></table></div>',
    "chart_text": '<svg viewBox="0 0 1000 100" width="300"><text x="10" y="50" font-size="14">'
                  'tiny</text></svg><math style="font-size:12px"><msub><mi>r</mi><mi>w</mi></msub></math>',
    "cards": '<div class="rl-table" aria-label="t" style="overflow-x:auto"><table><thead style='
             '"position:absolute"><tr><th>Shape</th></tr></thead><tbody><tr><td style="white-'
             'space:nowrap">batch=4 × heads=32 × kv_heads=32 × head_dim=128</td></tr></tbody>'
             '</table></div>',  # a card value that cannot wrap, as the op zoo's shapes did
    "labels": '<svg viewBox="0 0 300 100" width="300" height="100">'
              '<text x="10" y="50" font-size="14">FP32 roof</text>'
              '<text x="20" y="52" font-size="14">FP64 roof</text>'
              '<text x="250" y="80" font-size="14">clipped label</text></svg>',
    "targets": '<p><input type="checkbox" style="width:13px;height:13px;margin:0">'
               '<input type="checkbox" style="width:13px;height:13px;margin:0"></p>',
    "print": '<style>@media print{.gone{display:none} body{background:#222}}</style>'
             '<div class="rl-table" aria-label="t"><table><thead><tr><th>Op</th>'
             '<th class="gone">Time</th></tr></thead></table></div>'
             '<figure><svg class="gone" width="10" height="10"></svg></figure>'
             '<input type="range">',
}

CLEAN = ('<style>@media print{input{display:none}}</style><p>Text with a <a href="#">link</a>.</p><div class="rl-table" aria-label="t"><table>'
         '<thead><tr><th class="rl-p1">Bound</th></tr></thead><tbody><tr><td class="rl-p1" '
         'data-label="Bound">memory</td></tr></tbody></table></div>'
         '<svg viewBox="0 0 300 100" width="300" height="100"><text x="10" y="50" '
         'font-size="14">FP32 roof</text><text x="10" y="80" font-size="14">FP64 roof</text>'
         '</svg><label style="display:inline-block;min-height:24px"><input type="checkbox" '
         'style="width:20px;height:20px;margin:2px"> item</label>')


@pytest.fixture(scope="module")
def fixture_page(tab_pool):
    w = tab_pool.tab(width=412, height=700)
    yield w.page
    tab_pool.release(w)


@pytest.mark.parametrize("check", list(SEEDED))
def test_seeded_defect_is_reported(check, fixture_page):
    fixture_page.set_content(_BASE % SEEDED[check])
    found = run_print(fixture_page) if check == "print" else run(fixture_page, check)
    assert found, f"check {check!r} missed its seeded defect"
    if check == "clipped":
        assert any(p.startswith("clipped") for p in found)
        assert any(p.startswith("scrolls without a cue") for p in found)
    if check == "labels":
        assert any("overlap" in p for p in found) and any("cut" in p for p in found)
    assert check != "chart_text" or {p.split()[0] for p in found} == {"chart", "formula"}
    if check == "print":
        assert len(found) == 4, found  # a hidden column, no figure, a control, a dark page


def test_clean_fixture_passes_every_check(fixture_page):
    fixture_page.set_content(_BASE % CLEAN)
    for check in layoutcheck.CHECKS:
        found = run_print(fixture_page) if check == "print" else run(fixture_page, check)
        assert found == [], (check, found)


def test_seeded_small_target_in_a_shadow_root_is_reported(fixture_page):
    """Bokeh's widgets live in shadow roots; a 14 × 18 px slider handle there must be found."""
    fixture_page.set_content(_BASE % '<div id="host"></div>')
    fixture_page.evaluate("""() => { const r = document.getElementById('host')
        .attachShadow({mode: 'open'});
      r.innerHTML = '<div role="slider" tabindex="0" style="width:14px;height:18px"></div>' +
                    '<div role="slider" tabindex="0" style="width:14px;height:18px"></div>'; }""")
    assert any("14×18" in p for p in run(fixture_page, "targets"))

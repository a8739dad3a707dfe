"""The build-time SVG of the roofline's first frame (widgets/roofline/static.py, running the
live plot's own scene.mjs through the embedded JS engine): valid, with the live figure's frame
and the scene's labels, every label inside its picture, apart from the others and crossed by
no drawn line (tests/svgcheck.py: the label gate, measured on the drawing itself), and placed
in the block so it shows first, in print and without JavaScript."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from roofline import fmt
from roofline.widgets.roofline import static
from roofline.widgets.roofline.payload import FRAME_MARGIN_PX
from roofline.widgets.roofline.settings import RooflineSettings
from svgcheck import count_problems_by_kind, drawings, labels, svg_problems

NS = {"s": "http://www.w3.org/2000/svg"}
VARIANTS = ((688, "roofline-svg-wide"), (480, "roofline-svg-medium"), (380, "roofline-svg-narrow"),
            (320, "roofline-svg-small"))
STATES = (("h100-sxm", "bf16", False, ()), ("h100-sxm", "fp32", True, ()),
          ("h100-sxm", "fp8", True, ("sram", "host", "scaleup")),
          ("a100-sxm-80gb", "bf16", False, ("l2",)), ("l4", "fp8", True, ()),
          ("tpu-v5e", "bf16", False, ()), ("b200", "fp4", False, ()),
          ("mi300x", "fp64", True, ("sram",)))


def figure(hardware="h100-sxm", precision="bf16", vector=False, ceilings=(), height=400,
           **kw) -> list[str]:
    data = RooflineSettings(hardware=hardware, precision=precision, ceilings=ceilings,
                            **kw).payload()
    data["state"]["vector"] = vector
    return drawings(static.render(data, height_px=height))


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s[0]}-{s[1]}")
@pytest.mark.parametrize("height", [400, 300])
def test_every_drawing_passes_the_label_gate(state, height):
    hardware, precision, vector, ceilings = state
    drawn = figure(hardware, precision, vector, ceilings, height)
    assert [ET.fromstring(d).get("class").split()[-1] for d in drawn] == [c for _, c in VARIANTS]
    for svg in drawn:
        assert svg_problems(svg) == [], ET.fromstring(svg).get("class")
    wide = ET.fromstring(drawn[0])
    texts = [t for t, _ in labels(wide)]
    data = RooflineSettings(hardware=hardware, precision=precision).payload()
    hw = data["hardware"][hardware]
    assert any(t.endswith(fmt.tflops(hw["peaks"][precision])) for t in texts), texts
    assert any(t.startswith(f"ridge {fmt.num(hw['peaks'][precision] / hw['bw'])}") for t in texts)
    assert wide.find(".//s:line[@class='rl-ridge']", NS) is not None


def test_the_static_frame_is_the_live_figures():
    """The frame sits where the live figure's borders put it (payload.FRAME_MARGIN_PX, which
    layout.py gives Bokeh as min_border_*); the browser test compares the live frame."""
    top, right, bottom, left = FRAME_MARGIN_PX
    wide = ET.fromstring(figure()[0])
    x, y, w, h = (float(v) for v in wide.get("data-frame").split())
    assert (x, y, w, h) == (left, top, 688 - left - right, 400 - top - bottom)


def test_the_gate_counts_a_seeded_crossing_overlap_and_overflow():
    """A label on a polyline, two labels at one place, and one past the edge are each found."""
    doc = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100">'
           '<polyline class="rl-roof" points="0,50 300,10"/>'
           '<line class="rl-grid" x1="0" y1="80" x2="300" y2="80"/>'
           '<text x="120" y="36" style="font-size:12px">on the roof</text>'
           '<text x="10" y="85" style="font-size:12px">grid is fine</text>'
           '<text x="10" y="70" style="font-size:12px">first</text>'
           '<text x="20" y="72" style="font-size:12px">second</text>'
           '<text x="290" y="95" style="font-size:12px">cut</text></svg>')
    problems = svg_problems(doc)
    assert count_problems_by_kind(problems) == {"crosses": 1, "meets": 1, "leaves": 1}, problems
    assert not any("grid is fine" in p for p in problems)


def test_a_leader_may_end_at_its_own_label_only():
    doc = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100">'
           '<line class="rl-leader" x1="10" y1="90" x2="60" y2="58"/>'
           '<text x="60" y="60" style="font-size:12px">mine</text>'
           '<text x="30" y="78" style="font-size:12px">crossed</text></svg>')
    assert [p for p in svg_problems(doc)] == ["a line (rl-leader) crosses 'crossed'"]


def test_block_shows_the_svg_first_in_print_and_without_javascript():
    from roofline.widgets.roofline.block import render
    html = render(RooflineSettings())
    static_html = re.search(r'<div class="roofline-static">(.*?)</div>', html, re.S).group(1)
    assert len(drawings(static_html)) == 4
    assert ".roofline-block[data-roofline-state=ready]>.roofline-static{display:none}" in html
    assert re.search(r"@media print\{.*\.roofline-block>\.roofline-target[^}]*\{display:none", html)
    assert re.search(r"<noscript>.*\.roofline-block>\.roofline-target\{display:none\}", html, re.S)
    # the key of the numbered points stays under the live plot too (outside .roofline-static)
    assert re.search(r'</noscript>\n<ol class="roofline-key"', html)


def test_each_width_keeps_its_text_at_11px():
    """Each drawing is shown only in columns at least its viewBox wide (blockstyle's container
    queries), so no text renders under its own size, 11 px at least."""
    from roofline.render.blockstyle import STATIC_CSS
    for (w, _), svg in zip(VARIANTS, figure()):
        root = ET.fromstring(svg)
        assert float(root.get("width")) == w
        sizes = [float(re.search(r"font-size:([\d.]+)px", t.get("style")).group(1))
                 for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert min(sizes) >= 11
    for nxt in (688, 480, 380):
        assert f"@container (max-width:{nxt - 0.5}px)" in STATIC_CSS


def test_static_figures_take_the_palette_and_print_light():
    """No hard-coded white panel: the background and text are the palette's CSS variables,
    dark under Material's slate scheme, light again on paper."""
    from roofline.render.blockstyle import PALETTE_CSS
    svg = figure()[0]
    assert "#fff" not in svg.replace("var(--rl-bg,#ffffff)", "")
    assert "fill:var(--rl-bg,#ffffff)" in svg
    assert "[data-md-color-scheme=slate]" in PALETTE_CSS and "@media print" in PALETTE_CSS


def test_a_page_owning_host_moves_block_styles_into_head():
    """HTML allows <style> only in <head> (the Nu validator gate reports one in a <div>): the
    MkDocs plugin hoists each block's CSS there once; a block alone keeps its own copy."""
    from roofline.render.blockstyle import NOSCRIPT_STYLE, STATIC_STYLE, hoist_styles
    block = (f'<div class="roofline-block">{STATIC_STYLE}\n<div class="roofline-static"></div>'
             f"<noscript><p>x</p>{NOSCRIPT_STYLE}</noscript></div>")
    page = f"<html><head><title>t</title></head><body>{block}\n{block}</body></html>"
    out = hoist_styles(page)
    head, body = out.split("</head>")
    assert "<style" not in body
    assert head.count(STATIC_STYLE) == 1 and head.count(NOSCRIPT_STYLE) == 1
    assert f"<noscript>{NOSCRIPT_STYLE}</noscript>" in head
    assert body.count('class="roofline-static"') == 2
    assert hoist_styles("<p>no block</p>") == "<p>no block</p>"


def test_every_drawing_on_every_built_page_passes_the_label_gate(built_site):
    """Every static figure the site prints (the widgets' first frames at each width, the
    budget's three plots, the lesson's, op zoo's and hardware page's charts): the SVG label
    gate on each, as built. Icons (24 × 24 viewBox, no text) are not figures. Seeded: the
    budget's narrow x-axis title as it was before chart.mjs fitted it (13 px, 320 px wide)
    leaves its picture."""
    problems, checked = [], 0
    for page in sorted(built_site.rglob("*.html")):
        for svg in drawings(page.read_text(encoding="utf-8")):
            if 'viewBox="0 0 24 24"' in svg[:200]:
                continue
            checked += 1
            problems += [f"{page.relative_to(built_site)}: {p}" for p in svg_problems(svg)]
    assert checked >= 25  # 31 when written
    assert problems == []
    seeded = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 360" width="320" '
              'height="360"><text x="160" y="351" style="font-size:13px;font-style:italic;'
              'text-anchor:middle">arithmetic intensity per kernel (FLOP/byte)</text></svg>')
    assert count_problems_by_kind(svg_problems(seeded)) == {"leaves": 1}
    # a page's script that writes SVG as strings is not a drawing; the same SVG outside a
    # script still is
    in_script = f"<p>x</p><script>const s = `{seeded}`;</script>"
    assert drawings(in_script) == [] and drawings(in_script + seeded) == [seeded]


def test_the_block_reserves_the_live_layouts_height_in_a_phones_column():
    """The live controls wrap in a narrow column: the block reserves more there (#49), from
    the block's own width, by the static drawings' breakpoints; a wrong table is refused."""
    from roofline.render.blockstyle import STATIC_CSS
    from roofline.render.embed import NARROW_COLUMNS, block
    from roofline.widgets.roofline.block import narrow_heights, render
    opts = RooflineSettings(tokens=1)
    html = render(opts)
    target = re.search(r'<div class="roofline-target rl-reserve" style="([^"]*)"', html).group(1)
    heights = narrow_heights(opts, picker=False)
    assert f"min-height:{opts.height_px}px" in target
    for w in NARROW_COLUMNS:
        assert f"--rl-h-{w}:{heights[w]}px" in target
        assert heights[w] > opts.height_px
        assert (f"@container (max-width:{w - 0.5}px){{.roofline-block>.rl-reserve"
                f"{{min-height:var(--rl-h-{w})!important}}}}") in STATIC_CSS
    with pytest.raises(ValueError):
        block(lambda: None, height_px=400, label="x", narrow_px={480: 500})

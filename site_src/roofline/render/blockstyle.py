"""The CSS a roofline block carries, and how a page-owning host moves it into <head>.

No bokeh here: the MkDocs plugin uses it on warm builds, which never import bokeh.
"""

from __future__ import annotations

# The charts' palette, in one place: CSS custom properties the static drawings paint with
# (render/js/chart.mjs) and the loader reads for the live plots (render/js/loader.js): light by
# default, dark under Material's slate scheme and wherever the loader marks a block dark (furo,
# pydata-sphinx-theme, the OS preference), and light again on paper. Plain selector lists, no
# :is(): the HTML gate's CSS parser (the Nu validator) reads them.
PALETTE_CSS = (
    ".roofline-block,.rl-chart{--rl-ink:#1f2328;--rl-muted:#57606a;--rl-grid:#e3e6ea;"
    "--rl-frame:#8c959f;--rl-accent:#4051b5;--rl-bg:var(--md-default-bg-color,#fff)}"
    "[data-md-color-scheme=slate] .roofline-block,[data-md-color-scheme=slate] .rl-chart,"
    ".roofline-block[data-roofline-theme=dark]{--rl-ink:#e2e4e9;--rl-muted:#a4a9b6;"
    "--rl-grid:#3b3f4f;--rl-frame:#6e7681;--rl-accent:#5488e8;--rl-bg:var(--md-default-bg-color,#1e2029)}"
    "@media print{.roofline-block,.rl-chart,[data-md-color-scheme=slate] .roofline-block,"
    "[data-md-color-scheme=slate] .rl-chart{--rl-ink:#1f2328;--rl-muted:#57606a;--rl-grid:#e3e6ea;--rl-frame:#8c959f;"
    "--rl-bg:#fff}"
    # No halo on paper: a PDF keeps stroked text as a second run of the same words, which
    # copies and reads twice (paper has no canvas lines to part from, only the drawn ones).
    ".roofline-svg text,.rl-chart text{stroke:none!important}}")

# The static first frame covers the top of the reserved box until the live plot is ready, then
# steps aside (no layout shift: the box's height never changes); print and no-JS readers keep it.
STATIC_CSS = PALETTE_CSS + (
    # Bokeh's widgets and texts in the page's type, as the plain forms (NATIVE_CONTROL_CSS) have
    # it; Bokeh's own is Helvetica. Set outside the shadow roots: each Bokeh host inherits it.
    ".roofline-block{position:relative;"
    "--bokeh-base-font:var(--md-text-font-family,Helvetica,Arial,sans-serif)}"
    ".roofline-static{position:absolute;top:0;left:0;right:0;background:var(--rl-bg)}"
    ".roofline-static svg{display:block;width:100%;height:auto}"
    ".roofline-block[data-roofline-state=ready]>.roofline-static{display:none}"
    # One drawing per column width (static.mjs VARIANTS), each shown from its viewBox width up,
    # so its text never scales under its 11 px; without container queries, the wide one.
    ".roofline-static{container-type:inline-size}"
    ".roofline-static>.roofline-svg-medium,.roofline-static>.roofline-svg-narrow,"
    ".roofline-static>.roofline-svg-small{display:none}"
    "@container (max-width:687.5px){.roofline-static>.roofline-svg-wide{display:none}"
    ".roofline-static>.roofline-svg-medium{display:block}}"
    "@container (max-width:479.5px){.roofline-static>.roofline-svg-medium{display:none}"
    ".roofline-static>.roofline-svg-narrow{display:block}}"
    "@container (max-width:379.5px){.roofline-static>.roofline-svg-narrow{display:none}"
    ".roofline-static>.roofline-svg-small{display:block}}"
    # The height a block reserves in a narrower column, where its live controls wrap
    # (embed.block's narrow_px): the same breakpoints, on the block's own width.
    ".roofline-block{container-type:inline-size}"
    "@container (max-width:687.5px){.roofline-block>.rl-reserve{min-height:var(--rl-h-688)!important}}"
    "@container (max-width:479.5px){.roofline-block>.rl-reserve{min-height:var(--rl-h-480)!important}}"
    "@container (max-width:379.5px){.roofline-block>.rl-reserve{min-height:var(--rl-h-380)!important}}"
    # A widget's readout before it runs (the budget's): its lines, as the live readout shows
    # them (widgets/budget/layout.py READOUT_CSS).
    ".roofline-static-text{white-space:pre-line;margin:0 0 .6em;font-size:13.5px;line-height:1.5;"
    "color:var(--rl-ink)}"
    # The key of the numbered points: one line of small "n name" items under the plot (as
    # specific as Material's `.md-typeset ol:not([hidden])`, which would make it a column).
    ".roofline-block>ol.roofline-key:not([hidden]){display:flex;flex-wrap:wrap;gap:.1em 1.1em;margin:.3em 0 0;padding:0;"
    "list-style:none;counter-reset:rl-key;font-size:.75em;color:var(--rl-muted)}"
    ".roofline-block>.roofline-key>li{margin:0;counter-increment:rl-key}"
    ".roofline-block>.roofline-key>li::before{content:counter(rl-key) \"\\a0\";font-weight:700;"
    "color:var(--rl-ink)}"
    ".roofline-block>ul.roofline-lines:not([hidden]){display:flex;flex-wrap:wrap;gap:.1em 1.1em;margin:.2em 0 0;"
    "padding:0;list-style:none;font-size:.75em;color:var(--rl-muted)}"
    ".roofline-block>.roofline-lines>li{margin:0}"
    ".roofline-swatch{display:inline-block;width:1.8em;margin-right:.35em;vertical-align:middle;"
    "border-top:3px solid currentColor}"
    ".roofline-swatch-dashed{border-top-style:dashed;border-top-width:2px}"
    ".roofline-swatch-dotdash{border-top-style:dotted;border-top-width:3px}"
    # The view's settings in one line (widgets/roofline/static.mjs rooflineRecord): paper's
    # record of the controls it does not print; on screen the controls say it.
    ".roofline-block>.roofline-record{display:none;margin:.3em 0 0;font-size:.75em;"
    "color:var(--rl-muted)}"
    "@media print{.roofline-block>.roofline-record{display:block}"
    # a drawing the live plot could not redraw for the view on screen (widgets/roofline/paper.mjs)
    ".roofline-block>.roofline-static.rl-stale,.roofline-static.rl-stale~.roofline-key"
    "{display:none!important}"
    ".roofline-block>.roofline-target,.roofline-block>.roofline-error"
    "{display:none!important}.roofline-block>.roofline-static{display:block!important;"
    "position:static}.roofline-block{break-inside:avoid}"
    ".roofline-static>.roofline-svg-medium,.roofline-static>.roofline-svg-narrow,"
    ".roofline-static>.roofline-svg-small"
    "{display:none!important}.roofline-static>.roofline-svg-wide{display:block!important}}")


# The controls' CSS, one copy for every control a block shows: Bokeh's widgets (in their shadow
# roots: each widget's InlineStyleSheet starts with CONTROL_CSS) and the plain HTML forms of the
# serving window and the profile drop page (NATIVE_CONTROL_CSS, scoped to `.rl-controls`, which
# their blocks carry and hoist). One set of values, so a select, a field, a button, a checkbox, a
# slider and a file picker look alike wherever they are: Material's UI type size (.7rem, as its
# navigation; capped at SELECT_FONT_PX, the size select_width measures for), its palette
# variables, else the charts' palette (PALETTE_CSS: light or dark in furo, pydata, Jupyter, the
# OS), else light literals; its primary button (filled, 2 px corners, bold); its accent focus
# ring. A slider's handle and filled track take the link colour, which Material lightens on slate
# (the primary indigo is 2.4:1 on slate's background). Focus shows an accent ring (4.3:1 on white,
# 3.8:1 on slate). On a touch screen the handles grow to 28 px (WCAG 2.5.8's 24 px target, with
# room to spare); the keyboard still steps them (Bokeh's own handlers).
SELECT_FONT_PX = 14
_CONTROL_VARS = f"""
  --rl-c-fg: var(--md-default-fg-color, var(--rl-ink, #1f2328));
  --rl-c-bg: var(--md-default-bg-color, var(--rl-bg, #fff));
  --rl-c-line: var(--md-default-fg-color--light, var(--rl-muted, #57606a));
  --rl-c-track: var(--md-default-fg-color--lightest, var(--rl-grid, #e3e6ea));
  --rl-c-primary: var(--md-primary-fg-color, #4051b5);
  --rl-c-primary-dark: var(--md-primary-fg-color--dark, #303fa1);
  --rl-c-on-primary: var(--md-primary-bg-color, #fff);
  --rl-c-link: var(--md-typeset-a-color, var(--rl-accent, #4051b5));
  --rl-c-focus: var(--md-accent-fg-color, #526cfe);
  --rl-c-error: #d1352b;
  --rl-c-size: min(.7rem, {SELECT_FONT_PX}px);
  --rl-c-height: 2.15em;"""


def _each(selectors: str, suffix: str) -> str:
    """`suffix` (an attribute or a pseudo-class) put on each selector of a comma-separated list,
    before its pseudo-element if it has one (input:hover::file-selector-button)."""
    out = []
    for x in selectors.split(","):
        head, sep, element = x.partition("::")
        out.append(f"{head}{suffix}{sep}{element}")
    return ",".join(out)


def _control_css(host: str, field: str, select: str, button: str, check: str) -> str:
    """The rules, for controls found by these selectors (`host`: what carries the variables;
    `button` may list a file picker's button)."""
    return f"""
{host} {{{_CONTROL_VARS}
  color: var(--rl-c-fg); font-size: var(--rl-c-size);
}}
{field} {{ color: var(--rl-c-fg); background-color: var(--rl-c-bg); font: inherit;
  font-size: var(--rl-c-size); min-height: var(--rl-c-height); box-sizing: border-box;
  border: 1px solid var(--rl-c-line); border-radius: 2px; padding: 0 12px; }}
{_each(field, "[aria-invalid=true]")} {{ border-color: var(--rl-c-error); }}
{select} {{ padding-right: 24px; text-overflow: ellipsis; appearance: none;
  background-image: linear-gradient(45deg, transparent 50%, var(--rl-c-fg) 50%),
                    linear-gradient(135deg, var(--rl-c-fg) 50%, transparent 50%);
  background-position: right 14px center, right 9px center;
  background-size: 5px 5px; background-repeat: no-repeat; }}
{_each(f"{field},{button},{check}", ":focus-visible")} {{ outline: 2px solid var(--rl-c-focus);
  outline-offset: 2px; }}
{button} {{ color: var(--rl-c-on-primary); background-color: var(--rl-c-primary);
  border: 1px solid var(--rl-c-primary); border-radius: 2px; font: inherit;
  font-size: var(--rl-c-size); font-weight: 700; min-height: var(--rl-c-height);
  padding: 0 .9em; cursor: pointer; }}
{_each(button, ":hover")},{_each(button, ":focus-visible")} {{
  color: var(--rl-c-on-primary); background-color: var(--rl-c-primary-dark);
  border-color: var(--rl-c-primary-dark); }}
{check} {{ accent-color: var(--rl-c-primary); }}
"""


CONTROL_CSS = """
:host {
  --background-color: var(--rl-c-bg);
  --input-focus-border-color: var(--rl-c-primary);
  --input-focus-halo-color: transparent;
  --bokeh-font-size: var(--rl-c-size);
  --slider-size: 6px; --handle-width: 18px; --handle-height: 18px;
  max-width: calc(100% - 10px); /* Bokeh's 100% leaves out its own 5 px margins */
}
@media (pointer: coarse) { :host { --handle-width: 28px; --handle-height: 28px; } }""" + _control_css(
    ":host", ".bk-input", "select:not([multiple]).bk-input",
    ".bk-btn-default,input[type=file]::file-selector-button",
    "input[type=checkbox],input[type=radio]") + """
/* Bokeh lifts a box's label 2 px: a checkbox and its label share one middle line instead. */
input[type=checkbox] { vertical-align: middle; }
input[type=checkbox] + * { top: 0; vertical-align: middle; }
.noUi-target { background: var(--rl-c-track); border: 0; border-radius: 999px;
               box-shadow: none; }
/* Half a handle of room at each end of the track: a handle at either end stays whole. */
.noUi-target.noUi-horizontal { margin-left: calc(var(--handle-width) / 2);
                               margin-right: calc(var(--handle-width) / 2);
                               width: calc(100% - var(--handle-width)); }
.noUi-connect { background: var(--rl-c-link) !important; }
.noUi-handle { background: var(--rl-c-link); border: 2px solid var(--rl-c-bg);
               border-radius: 50%; box-shadow: 0 0 0 1px var(--rl-c-link); }
.noUi-handle:focus-visible { outline: 2px solid var(--rl-c-focus); outline-offset: 2px; }
/* The title above a slider already says its value: the drag tooltip would only cover it. */
.noUi-tooltip { display: none !important; }
"""
"""Bokeh widgets' CSS (shadow DOM). The track is inset by half a handle at each end, so a handle
at either end stays whole inside the widget's box."""

NATIVE_CONTROL_CSS = _control_css(
    ".rl-controls",
    ".rl-controls select,.rl-controls input:not([type=checkbox]):not([type=radio]):not([type=file])",
    ".rl-controls select",
    ".rl-controls button,.rl-controls .rl-button",
    ".rl-controls input[type=checkbox],.rl-controls input[type=radio]") + """
.rl-controls .rl-button { display: inline-flex; align-items: center; box-sizing: border-box; }
.rl-controls input:focus-visible + .rl-button { outline: 2px solid var(--rl-c-focus);
  outline-offset: 2px; }
.rl-controls .rl-control-error { color: var(--rl-c-error); font-weight: 600; }
"""
"""The same look for a block's plain HTML controls, inside any element of class `rl-controls`.
A file picker is a visually hidden <input type=file> followed by a `.rl-button` inside its
<label> (the HTML validator's CSS parser knows no ::file-selector-button: the Bokeh picker, in a
shadow root, styles that)."""

NATIVE_CONTROL_STYLE = f"<style data-rl-hoist>{NATIVE_CONTROL_CSS}</style>"


# A select is as wide as its longest option (a closed select cuts its text off): the text's
# width in CONTROL_CSS's SELECT_FONT_PX sans-serif, measured by the label layout's own rule (labels.mjs
# textWidth: per glyph, the wider of DejaVu Sans and Liberation Sans, the fonts the page's stack
# names), plus the select's padding, caret and border. tests/test_widget_browser.py measures the
# real text in the browser against it.
SELECT_CHROME_PX = 12 + 24 + 2 + 6  # left padding, caret room, border, slack


def select_width(labels, *, minimum: int = 0) -> int:
    """The width (px) of a select whose longest option is shown whole, at least `minimum`."""
    from pathlib import Path

    from roofline.render.jsengine import call
    labels_js = Path(__file__).parent / "js" / "labels.mjs"
    widest = max((call(labels_js, "textWidth", t, SELECT_FONT_PX) for t in labels), default=0)
    return max(minimum, round(widest + SELECT_CHROME_PX))


STATIC_STYLE = f"<style>{STATIC_CSS}</style>"
NOSCRIPT_STYLE = ("<style>.roofline-block>.roofline-target{display:none}"
                   ".roofline-block>.roofline-static{position:static}</style>")


def hoist_styles(page_html: str) -> str:
    """The page with each block's <style> elements moved into <head>, once.

    A block carries its own CSS so it works pasted into any host, but HTML allows <style> only
    in <head> (a <noscript> there may hold one too). A host that owns the whole page (the MkDocs
    plugin) calls this so the page validates; the rendering is the same.
    """
    if "</head>" not in page_html:
        return page_html
    page_html = _hoist_marked(page_html)
    if STATIC_STYLE not in page_html:
        return page_html
    body = page_html.replace(STATIC_STYLE + "\n", "").replace(STATIC_STYLE, "")
    body = body.replace(NOSCRIPT_STYLE, "")
    head = f"{STATIC_STYLE}\n<noscript>{NOSCRIPT_STYLE}</noscript>\n</head>"
    return body.replace("</head>", head, 1)


HOIST = "<style data-rl-hoist>"
"""How a block other than a Bokeh one (the serving window, a profile report) opens the <style>
it carries, so hoist_styles() moves it into <head> too (each distinct one once)."""


def _hoist_marked(page_html: str) -> str:
    import re
    found: list[str] = []

    def take(m: re.Match) -> str:
        if m.group(0) not in found:
            found.append(m.group(0))
        return ""
    body = re.sub(re.escape(HOIST) + r".*?</style>\n?", take, page_html, flags=re.S)
    if not found:
        return page_html
    return body.replace("</head>", "".join(found) + "\n</head>", 1)

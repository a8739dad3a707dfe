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
    "--rl-frame:#8c959f;--rl-bg:var(--md-default-bg-color,#fff)}"
    "[data-md-color-scheme=slate] .roofline-block,[data-md-color-scheme=slate] .rl-chart,"
    ".roofline-block[data-roofline-theme=dark]{--rl-ink:#e2e4e9;--rl-muted:#a4a9b6;"
    "--rl-grid:#3b3f4f;--rl-frame:#6e7681;--rl-bg:var(--md-default-bg-color,#1e2029)}"
    "@media print{.roofline-block,.rl-chart,[data-md-color-scheme=slate] .roofline-block,"
    "[data-md-color-scheme=slate] .rl-chart{--rl-ink:#1f2328;--rl-muted:#57606a;--rl-grid:#e3e6ea;--rl-frame:#8c959f;"
    "--rl-bg:#fff}"
    # No halo on paper: a PDF keeps stroked text as a second run of the same words, which
    # copies and reads twice (paper has no canvas lines to part from, only the drawn ones).
    ".roofline-svg text,.rl-chart text{stroke:none!important}}")

# The static first frame covers the top of the reserved box until the live plot is ready, then
# steps aside (no layout shift: the box's height never changes); print and no-JS readers keep it.
STATIC_CSS = PALETTE_CSS + (
    ".roofline-block{position:relative}"
    ".roofline-static{position:absolute;top:0;left:0;right:0;background:var(--rl-bg)}"
    ".roofline-static svg{display:block;width:100%;height:auto}"
    ".roofline-block[data-roofline-state=ready]>.roofline-static{display:none}"
    # One drawing per column width (static.mjs VARIANTS), each shown from its viewBox width up,
    # so its text never scales under its 11 px; without container queries, the wide one.
    ".roofline-static{container-type:inline-size}"
    ".roofline-static>.roofline-svg-medium,.roofline-static>.roofline-svg-narrow{display:none}"
    "@container (max-width:687.5px){.roofline-static>.roofline-svg-wide{display:none}"
    ".roofline-static>.roofline-svg-medium{display:block}}"
    "@container (max-width:479.5px){.roofline-static>.roofline-svg-medium{display:none}"
    ".roofline-static>.roofline-svg-narrow{display:block}}"
    # A widget's readout before it runs (the budget's): its lines, as the live readout shows
    # them (widgets/budget/layout.py READOUT_CSS).
    ".roofline-static-text{white-space:pre-line;margin:0 0 .6em;font-size:13.5px;line-height:1.5;"
    "color:var(--rl-ink)}"
    # The key of the numbered points: one line of small "n name" items under the plot.
    ".roofline-block>.roofline-key{display:flex;flex-wrap:wrap;gap:.1em 1.1em;margin:.3em 0 0;padding:0;"
    "list-style:none;counter-reset:rl-key;font-size:.75em;color:var(--rl-muted)}"
    ".roofline-block>.roofline-key>li{margin:0;counter-increment:rl-key}"
    ".roofline-block>.roofline-key>li::before{content:counter(rl-key) \"\\a0\";font-weight:700;"
    "color:var(--rl-ink)}"
    ".roofline-block>.roofline-lines{display:flex;flex-wrap:wrap;gap:.1em 1.1em;margin:.2em 0 0;"
    "padding:0;list-style:none;font-size:.75em;color:var(--rl-muted)}"
    ".roofline-block>.roofline-lines>li{margin:0}"
    ".roofline-swatch{display:inline-block;width:1.8em;margin-right:.35em;vertical-align:middle;"
    "border-top:3px solid currentColor}"
    ".roofline-swatch-dashed{border-top-style:dashed;border-top-width:2px}"
    ".roofline-swatch-dotdash{border-top-style:dotted;border-top-width:3px}"
    "@media print{.roofline-block>.roofline-target,.roofline-block>.roofline-error"
    "{display:none!important}.roofline-block>.roofline-static{display:block!important;"
    "position:static}.roofline-block{break-inside:avoid}"
    ".roofline-static>.roofline-svg-medium,.roofline-static>.roofline-svg-narrow"
    "{display:none!important}.roofline-static>.roofline-svg-wide{display:block!important}}")


# The Bokeh controls' own CSS (each widget's InlineStyleSheet starts with it): inputs and
# noUiSlider tracks take the host's palette (Material's variables; light fallbacks elsewhere),
# so in dark mode a slider is not a glaring white bar, and its handle shows a focus ring.
CONTROL_CSS = """
:host { --background-color: var(--md-default-bg-color, #fff);
        color: var(--md-default-fg-color, inherit); }
.bk-input { color: inherit; background-color: var(--md-default-bg-color, #fff);
            border-color: var(--md-default-fg-color--lighter, #bbb); }
.noUi-target { background: var(--md-default-fg-color--lightest, #fafafa);
               border-color: var(--md-default-fg-color--light, #d3d3d3); box-shadow: none; }
.noUi-handle { background: var(--md-default-bg-color, #fff);
               border-color: var(--md-default-fg-color--light, #d9d9d9); box-shadow: none; }
.noUi-handle:focus-visible { outline: 3px solid var(--md-accent-fg-color, #005fcc);
                             outline-offset: 2px; }
.noUi-connect { background: var(--md-primary-fg-color, #4051b5) !important; }
.bk-btn-default { color: inherit; background-color: var(--md-default-bg-color, #fff);
                  border-color: var(--md-default-fg-color--lighter, #ccc); }
.bk-btn-default:hover { background-color: var(--md-default-fg-color--lightest, #e6e6e6); }
"""


STATIC_STYLE = f"<style>{STATIC_CSS}</style>"
NOSCRIPT_STYLE = ("<style>.roofline-block>.roofline-target{display:none}"
                   ".roofline-block>.roofline-static{position:static}</style>")


def hoist_styles(page_html: str) -> str:
    """The page with each block's <style> elements moved into <head>, once.

    A block carries its own CSS so it works pasted into any host, but HTML allows <style> only
    in <head> (a <noscript> there may hold one too). A host that owns the whole page (the MkDocs
    plugin) calls this so the page validates; the rendering is the same.
    """
    if STATIC_STYLE not in page_html or "</head>" not in page_html:
        return page_html
    body = page_html.replace(STATIC_STYLE + "\n", "").replace(STATIC_STYLE, "")
    body = body.replace(NOSCRIPT_STYLE, "")
    head = f"{STATIC_STYLE}\n<noscript>{NOSCRIPT_STYLE}</noscript>\n</head>"
    return body.replace("</head>", head, 1)

"""The CSS a roofline block carries, and how a page-owning host moves it into <head>.

No bokeh here: the MkDocs plugin uses it on warm builds, which never import bokeh.
"""

from __future__ import annotations

# The static first frame covers the top of the reserved box until the live plot is ready, then
# steps aside (no layout shift: the box's height never changes); print and no-JS readers keep it.
STATIC_CSS = (
    ".roofline-block{position:relative}"
    ".roofline-static{position:absolute;top:0;left:0;right:0;background:#fff}"
    ".roofline-static svg{display:block;width:100%;height:auto}"
    ".roofline-block[data-roofline-state=ready]>.roofline-static{display:none}"
    # One drawing per column width (plot/svg.py VARIANTS), each shown from its viewBox width
    # up, so its text never scales under its 11 px; without container queries, the wide one.
    ".roofline-static{container-type:inline-size}"
    ".roofline-static>.roofline-svg-medium,.roofline-static>.roofline-svg-narrow{display:none}"
    "@container (max-width:687.5px){.roofline-static>.roofline-svg-wide{display:none}"
    ".roofline-static>.roofline-svg-medium{display:block}}"
    "@container (max-width:479.5px){.roofline-static>.roofline-svg-medium{display:none}"
    ".roofline-static>.roofline-svg-narrow{display:block}}"
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

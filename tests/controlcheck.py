"""The widgets' controls as a reader meets them, read from their shadow DOM (the styles come
from roofline.render.blockstyle.CONTROL_CSS): what `controls_look` returns, and `problems`, the
ways they have fallen back to the browser's or Bokeh's defaults."""

from __future__ import annotations

import re

# Every element under the first roofline block, shadow roots included, and what each control
# kind shows: a select's longest option measured in the select's own font (a closed select cuts
# off what does not fit), a button's colours against the page's primary colour, a checkbox's
# middle against its label's, a slider handle's size and its focus ring once focused.
LOOK_JS = """(coarse) => {
  const all = [];
  const walk = (n) => n.querySelectorAll('*').forEach((e) => {
    all.push(e); if (e.shadowRoot) walk(e.shadowRoot); });
  walk(document.querySelector('.roofline-block'));
  const probe = document.createElement('div');
  probe.style.background = 'var(--md-primary-fg-color)';
  document.body.append(probe);
  const primary = getComputedStyle(probe).backgroundColor;
  probe.remove();
  const ctx = document.createElement('canvas').getContext('2d');
  const mid = (e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; };
  const selects = all.filter((e) => e.tagName === 'SELECT').map((e) => {
    const cs = getComputedStyle(e);
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const widths = [...e.options].map((o) => [ctx.measureText(o.text).width, o.text]);
    const [text, longest] = widths.sort((a, b) => b[0] - a[0])[0];
    return {longest, text, room: e.clientWidth - parseFloat(cs.paddingLeft)
            - parseFloat(cs.paddingRight), color: cs.color, bg: cs.backgroundColor};
  });
  const buttons = all.filter((e) => e.tagName === 'BUTTON').map((e) => {
    const cs = getComputedStyle(e);
    return {label: e.textContent, bg: cs.backgroundColor, color: cs.color};
  });
  const checks = all.filter((e) => e.type === 'checkbox').map((e) => ({
    label: e.nextElementSibling.textContent, off: mid(e) - mid(e.nextElementSibling)}));
  const handle = all.find((e) => e.classList.contains('noUi-handle'));
  handle.focus();
  const ring = getComputedStyle(handle);
  const out = {primary, selects, buttons, checks, coarse,
               matches: matchMedia('(pointer: coarse)').matches,
               handle: [handle.getBoundingClientRect().width,
                        handle.getBoundingClientRect().height],
               ring: [handle.matches(':focus-visible'), ring.outlineStyle,
                      parseFloat(ring.outlineWidth)]};
  handle.blur();
  return out;
}"""


def controls_look(page, *, coarse: bool = False) -> dict:
    """The controls of the page's first roofline block; with `coarse`, as a touch screen shows
    them (Chromium's touch emulation, which makes `(pointer: coarse)` match), then back."""
    cdp = page.context.new_cdp_session(page) if coarse else None
    page.keyboard.press("Shift")  # a keyboard user: a focused control shows its ring
    try:
        if cdp:
            cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
        return page.evaluate(LOOK_JS, coarse)
    finally:
        if cdp:
            cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
            cdp.detach()


def _rgba(css: str) -> tuple[float, float, float, float]:
    nums = [float(n) for n in re.findall(r"[\d.]+", css)]
    return (*nums[:3], nums[3] if len(nums) > 3 else 1.0)


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast of CSS colour `fg` (its alpha blended over `bg`) on the opaque `bg`."""
    *f, a = _rgba(fg)
    b = _rgba(bg)[:3]
    f = [a * x + (1 - a) * y for x, y in zip(f, b)]

    def lum(rgb):
        c = [v / 255 for v in rgb]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    hi, lo = sorted((lum(f), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def problems(look: dict) -> list[str]:
    """What in `look` is a browser's or Bokeh's default rather than the site's control style."""
    found = []
    for s in look["selects"]:
        if s["text"] > s["room"]:
            found.append(f"select cuts off {s['longest']!r}: {s['text']:.0f} px of text in "
                         f"{s['room']:.0f} px")
        if contrast(s["color"], s["bg"]) < 4.5:
            found.append(f"select text {s['color']} on {s['bg']} is under 4.5:1")
    if not look["buttons"]:
        found.append("no buttons found")
    for b in look["buttons"]:
        if b["bg"] != look["primary"]:
            found.append(f"button {b['label']!r} is {b['bg']}, not the primary {look['primary']}")
        if contrast(b["color"], b["bg"]) < 4.5:
            found.append(f"button {b['label']!r} text {b['color']} on {b['bg']} is under 4.5:1")
    for c in look["checks"]:
        if abs(c["off"]) > 2:
            found.append(f"checkbox {c['label']!r} sits {c['off']:+.1f} px off its label's middle")
    if look["coarse"] != look["matches"]:
        found.append("(pointer: coarse) did not follow the emulated pointer")
    if look["coarse"] and min(look["handle"]) < 24:
        found.append(f"slider handle {look['handle']} px is under 24 px on a touch screen")
    focus, style, width = look["ring"]
    if not (focus and style != "none" and width >= 2):
        found.append(f"a focused slider handle shows no 2 px ring: {look['ring']}")
    return found

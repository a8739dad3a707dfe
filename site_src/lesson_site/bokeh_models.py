"""Which Bokeh model types the site's widgets serialize: the list the trimmed BokehJS
(roofline/vendor/bokehjs, scripts/trim-bokehjs.mjs) must register.

Every roofline fence in docs/ is rendered through the door, as the site build does, plus each
widget kind with its defaults; each block's json_item is walked for `{"type": "object",
"name": ...}`, the references BokehJS resolves by name when it rebuilds the document.

    python -m lesson_site.bokeh_models          # rewrite models.json, then run the trimmer

(`node scripts/trim-bokehjs.mjs` rebuilds the bundle from models.json.)
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import yaml

from roofline.render import bokehjs

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<kind>roofline[\w-]*)[ \t]*\n(?P<body>.*?)^(?P=indent)```",
                    re.M | re.S)
_ITEM = re.compile(r'<script type="application/json" class="roofline-item">(.*?)</script>', re.S)


def fences(docs: Path = DOCS) -> Iterator[tuple[str, str, dict]]:
    """(where, kind, options) of every widget fence on the site's pages."""
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            body = "\n".join(line[len(m["indent"]):] for line in m["body"].splitlines())
            line = text.count("\n", 0, m.start()) + 1
            yield f"{page.relative_to(docs.parent)}:{line}", m["kind"], yaml.safe_load(body) or {}


def items(html: str) -> list[dict]:
    """The json_items inline in a door's HTML block (a table-only block has none)."""
    return [json.loads(t.replace("<\\/", "</")) for t in _ITEM.findall(html)]


def widget_items(docs: Path = DOCS) -> Iterator[tuple[str, dict]]:
    """(where, json_item) of every live block: "docs/x.md:12" or "default <kind>"."""
    from roofline.hosts import door
    cases = [(f"default {kind}", kind, {}) for kind in door.KINDS]
    cases += [c for c in fences(docs) if c[1] in door.KINDS]
    for where, kind, options in cases:
        try:
            html = door.render_widget(kind, options, where=where)
        except Exception as exc:  # a default that needs a file: only fences count then
            if where.startswith("default "):
                continue
            raise RuntimeError(f"{where}: {exc}") from exc
        for item in items(html):
            yield where, item


def used_models(docs: Path = DOCS) -> dict[str, set[str]]:
    """Model name -> where it is used."""
    used: dict[str, set[str]] = {}
    for where, item in widget_items(docs):
        for name in bokehjs.item_models(item):
            used.setdefault(name, set()).add(where)
    return used


def main(argv: list[str]) -> int:
    names = sorted(used_models())
    path = bokehjs.VENDOR / "models.json"
    text = json.dumps(names, indent=1) + "\n"
    if path.read_text(encoding="utf-8") != text if path.exists() else True:
        path.write_text(text, encoding="utf-8")
        print(f"{path}: {len(names)} models; now run: node scripts/trim-bokehjs.mjs")
    else:
        print(f"{path}: unchanged ({len(names)} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`roofline export`: a folder of embeddable roofline pages sharing one copy of BokehJS, plus
snippets.html with the <iframe> code for each page."""

from __future__ import annotations

import argparse
import html
from dataclasses import dataclass, field
from pathlib import Path

from roofline.errors import RooflineError
from roofline.cli._common import output_dir, write_error

ASSETS = "roofline-assets"
VENDOR = Path(__file__).resolve().parent.parent / "vendor"
SHIM = "iframe-worker-shim.js"
"""Material's offline plugin needs this polyfill; listed in extra.polyfills, it is not fetched
from unpkg.com. --shim-only writes it (and its licence)."""
IFRAME_HEIGHT_PX = 720


@dataclass(frozen=True)
class View:
    slug: str
    title: str
    options: dict = field(default_factory=dict)


VIEWS = (
    View("roofline-h100-bf16", "The H100 SXM roofline at BF16, with the lesson's op zoo",
         {"hardware": "h100-sxm", "precision": "bf16", "ai": 2}),
    View("roofline-h100-fp8", "The H100 SXM roofline at FP8: the ridge doubles",
         {"hardware": "h100-sxm", "precision": "fp8", "ai": 2}),
    View("roofline-a100-bf16", "The A100 SXM 80GB roofline at BF16",
         {"hardware": "a100-sxm-80gb", "precision": "bf16", "ai": 2}),
    View("roofline-h100-hierarchy", "The H100 memory hierarchy as ceilings on one roofline",
         {"hardware": "h100-sxm", "precision": "bf16",
          "ceilings": ["sram", "hbm", "scaleup", "host", "vector"], "ops": ["gemm-train",
                                                                            "rmsnorm"]}),
)


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write embeddable roofline pages and their <iframe> snippets",
                       description="Write one HTML page per view, one shared copy of BokehJS "
                       f"in DIR/{ASSETS}/ and DIR/snippets.html with the <iframe> code for "
                       "each page.")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="folder to write into (created if missing; its parent must exist, "
                        "except with --assets-only; files of the same names are replaced)")
    p.add_argument("--assets-only", action="store_true",
                   help="write only the BokehJS bundles and the loader, into DIR itself "
                        "(e.g. a Zensical site's docs/assets/roofline, created with its "
                        "parents)")
    p.add_argument("--shim-only", action="store_true",
                   help="write only the iframe-worker polyfill Material's offline plugin needs "
                        f"({SHIM}, MIT licence beside it) into DIR, created with its parents; "
                        "list it in extra.polyfills so it is not fetched from unpkg.com")


def iframe(view: View, src: str) -> str:
    return (f'<iframe src="{html.escape(src)}" title="{html.escape(view.title)}" width="100%" '
            f'height="{IFRAME_HEIGHT_PX}" loading="lazy" style="border:0"></iframe>')


def run(args: argparse.Namespace) -> int:
    if args.assets_only and args.shim_only:
        raise RooflineError("not allowed with --assets-only", field="shim-only")
    output_dir(args.out, "--out", parents=args.assets_only or args.shim_only)
    try:
        return _shim(args.out) if args.shim_only else _export(args)
    except OSError as exc:
        raise write_error(exc, args.out, "--out") from None


def _shim(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for name in (SHIM, "iframe-worker.LICENSE"):
        data = (VENDOR / name).read_bytes()
        if not (out / name).exists() or (out / name).read_bytes() != data:
            (out / name).write_bytes(data)  # unchanged files untouched: no watcher loops
        print(out / name)
    return 0


def _export(args: argparse.Namespace) -> int:
    from roofline.hosts import door
    from roofline.render import assets
    from roofline.render.embed import page

    out: Path = args.out
    if args.assets_only:  # straight into --out: it is the folder the site serves them from
        for f in assets.write_assets(out, stable_loader=True):
            print(f)
        return 0
    assets.write_assets(out / ASSETS, stable_loader=True)
    loader = f"{ASSETS}/{assets.loader_name()}"
    snippets = []
    for view in VIEWS:
        body = (f"<h1>{html.escape(view.title)}</h1>\n"
                + door.render_widget("roofline", view.options, where=f"export view {view.slug}"))
        path = out / f"{view.slug}.html"
        path.write_text(page(body, title=view.title, script_src=loader), encoding="utf-8")
        snippets.append((view, iframe(view, f"{view.slug}.html")))
    items = "\n".join(
        f"<section>\n<h2>{html.escape(v.title)}</h2>\n<pre><code>{html.escape(code)}</code></pre>\n"
        f"{code}\n</section>" for v, code in snippets)
    intro = ("<h1>Roofline plots to embed</h1>\n<p>Copy this folder next to your page (keep "
             f"<code>{ASSETS}/</code> beside the pages) and paste a snippet; change "
             "<code>src</code> if the folder lives elsewhere.</p>")
    (out / "snippets.html").write_text(page(intro + "\n" + items, title="Roofline snippets",
                                            script_src=loader),
                                       encoding="utf-8")
    print(f"wrote {len(VIEWS)} pages, snippets.html and {ASSETS}/ to {out}")
    return 0

"""The site's and the CLI's standard tables, built from the model as Table values."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from roofline import fmt
from roofline.model.catalog import Accelerator, Catalog
from roofline.model.maths import OpPoint
from roofline.render.table_value import Column, Table

PRECISION_ORDER = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4")


def _t(x: float) -> str:
    return fmt.num(x / 1e12, 3)


def hardware_table(catalog: Catalog) -> Table:
    """One row per accelerator: peaks per precision, HBM and the bf16 ridge."""
    cols = [Column("id", "id"), Column("name", "Accelerator")]
    cols += [Column(f"{p}_flops_per_s", f"{p.upper()} TFLOP/s", _t, "right")
             for p in PRECISION_ORDER]
    cols += [Column("hbm_capacity_bytes", "Memory", fmt.memory, "right"),
             Column("hbm_bandwidth_bytes_per_s", "Memory BW", fmt.bandwidth, "right"),
             Column("ridge_bf16_flops_per_byte", "BF16 ridge (FLOP/B)",
                    lambda x: fmt.num(x, 3), "right"),
             Column("compute_units", "SM/CU", lambda x: f"{x:,}", "right"),
             Column("tdp_w", "TDP", lambda x: f"{x:,.0f} W", "right")]
    rows = []
    for acc in catalog:
        row = {"id": acc.id, "name": acc.name, "compute_units": acc.compute_units,
               "tdp_w": acc.tdp_w, "hbm_capacity_bytes": acc.hbm.capacity_bytes,
               "hbm_bandwidth_bytes_per_s": acc.hbm_bandwidth_bytes_per_s,
               "ridge_bf16_flops_per_byte": (acc.ridge_flops_per_byte("bf16")
                                             if "bf16" in acc.peaks else None)}
        row.update({f"{p}_flops_per_s": acc.peaks[p].flops_per_s if p in acc.peaks else None
                    for p in PRECISION_ORDER})
        rows.append(row)
    return Table(tuple(cols), tuple(rows))


def tiers_table(acc: Accelerator) -> Table:
    """The memory hierarchy of one chip, fastest tier first."""
    cols = (Column("name", "Tier"),
            Column("capacity_bytes", "Capacity", fmt.memory, "right"),
            Column("per_unit_capacity_bytes", f"per {acc.compute_unit_name}", fmt.memory,
                   "right"),
            Column("bandwidth_bytes_per_s", "Bandwidth", fmt.bandwidth, "right"),
            Column("role", "Role"), Column("basis", "Basis"), Column("source", "Source"))
    rows = tuple({"kind": t.kind, "name": t.name, "capacity_bytes": t.capacity_bytes,
                  "per_unit_capacity_bytes": t.per_unit_capacity_bytes,
                  "bandwidth_bytes_per_s": t.bandwidth_bytes_per_s, "role": t.role,
                  "basis": t.basis, "source": t.source, "note": t.note} for t in acc.tiers)
    return Table(cols, rows)


def hardware_records(catalog: Catalog) -> list[dict]:
    """Everything in the catalog as JSON-ready records, SI units, with sources."""
    out = []
    for acc in catalog:
        out.append({
            "id": acc.id, "name": acc.name, "vendor": acc.vendor,
            "compute_unit_name": acc.compute_unit_name, "compute_units": acc.compute_units,
            "tdp_w": acc.tdp_w,
            "facts": {k: {"value": v, "source": s, "basis": b, "note": n}
                      for k, (v, s, b, n) in acc.facts.items()},
            "peaks_flops_per_s": {p: pk.flops_per_s for p, pk in acc.peaks.items()},
            "peaks": {p: {"flops_per_s": pk.flops_per_s, "unit": pk.unit, "source": pk.source,
                          "basis": pk.basis, "note": pk.note} for p, pk in acc.peaks.items()},
            "ridges_flops_per_byte": {p: acc.ridge_flops_per_byte(p) for p in acc.peaks},
            # Non-tensor roofs of precisions whose main peak is the tensor one (#13).
            "vector_peaks": {p: {"flops_per_s": pk.flops_per_s, "source": pk.source,
                                 "basis": pk.basis, "note": pk.note}
                             for p, pk in acc.vector_peaks.items()},
            "tiers": [{"kind": t.kind, "name": t.name, "capacity_bytes": t.capacity_bytes,
                       "per_unit_capacity_bytes": t.per_unit_capacity_bytes,
                       "max_shared_per_unit_bytes": t.max_shared_per_unit_bytes,
                       "visible_capacity_bytes": t.visible_capacity_bytes,
                       "bandwidth_bytes_per_s": t.bandwidth_bytes_per_s, "basis": t.basis,
                       "source": t.source, "note": t.note} for t in acc.tiers],
            "sources": sorted({pk.source for pk in [*acc.peaks.values(),
                                                     *acc.vector_peaks.values()]}
                              | {t.source for t in acc.tiers}
                              | {s for (_, s, _, _) in acc.facts.values()}),
        })
    return out


def ops_table(points: list[OpPoint], *, contexts: dict[str, str] | None = None) -> Table:
    """op, shapes, FLOPs, bytes, AI, bound, attainable, % of peak, time bound."""
    cols = [Column("name", "Op")]
    if contexts:
        cols.append(Column("context", "Shapes"))
    else:
        cols.append(Column("shape", "Shape", lambda s: " × ".join(
            f"{k}={int(v):,}" for k, v in s.items())))
    cols += [Column("flops", "FLOPs", fmt.count, "right"),
             Column("bytes", "Bytes", fmt.count, "right"),
             Column("intensity_flops_per_byte", "AI (FLOP/B)", lambda x: fmt.num(x, 3), "right"),
             Column("bound", "Bound"),
             Column("attainable_flops_per_s", "Attainable TFLOP/s", lambda x: _t(x), "right"),
             Column("fraction_of_peak", "% of peak", fmt.percent, "right"),
             Column("time_s", "Time ≥", fmt.seconds, "right")]
    rows = []
    for p in points:
        row = p.as_dict()
        if contexts:
            row["context"] = contexts.get(p.name, "")
        rows.append(row)
    return Table(tuple(cols), tuple(rows))


# --- HTML tables for the site: column priorities, grouped rows, print -------------------------
# A generated table on a page is an HTML <table class="rl-t"> inside a labelled container
# (docs/assets/stylesheets/tables.css). Each column has a priority: 1 = the punchline (never
# hidden on screens >= 1024 px), 2 = context, 3 = detail that gives way first. The container
# carries two width classes computed here from the cell text: rl-fit-N (the whole table needs
# about N rem) and rl-min-M (the priority-1 and -2 columns need about M rem). Container queries
# in tables.css then hide priority-3 columns (with a visible note) when the column is narrower
# than N on a screen 1024 to 1279 px wide (from 1280 px every column shows), and turn rows into
# grouped rows, every cell under its column's title, when it is narrower than M, or narrower
# than N on a screen under 1024 px, so no column is ever out of reach. Print shows every column.

PUNCHLINE = ("name", "bound", "attainable_flops_per_s", "fraction_of_peak", "time_s",
             "intensity_flops_per_byte")
WRAPS = ("shape", "context")
"""Columns that wrap in every table: an op's shapes ("m=16,384 × n=4,096 × k=4,096") kept on
one line made the op zoo's tables 1,080 px at their narrowest, too wide for any article (#49)."""
TABLE_JS = Path(__file__).parent / "js" / "table.mjs"
"""The markup and the width rule (rl-fit-N, rl-min-M) of every generated table: one copy, in
JavaScript, so a table made in the browser (the profile drop page) is laid out by the same rule."""


@dataclass(frozen=True)
class HtmlColumn:
    title: str
    align: str = "left"
    priority: int = 2
    wrap: bool = False
    """Text that may wrap (prose, shapes); numbers and short labels never wrap."""


def html_table(columns: list[HtmlColumn], rows: list[list[str]], *, label: str,
               css_class: str = "", note: str = "") -> str:
    """An accessible, responsive table (table.mjs's htmlTable). Cells are HTML (escape text
    before passing it)."""
    from dataclasses import asdict
    from roofline.render.jsengine import call
    return call(TABLE_JS, "htmlTable", [asdict(c) for c in columns],
                [[str(v) for v in r] for r in rows],
                {"label": label, "cssClass": css_class, "note": note})


def table_html(t: Table, *, label: str, priority: dict[str, int] | None = None,
               wrap: tuple[str, ...] = (), css_class: str = "", note: str = "") -> str:
    """A Table value as an html_table: punchline columns get priority 1 unless told."""
    prio = {k: 1 for k in PUNCHLINE} | (priority or {})
    wrap = (*wrap, *WRAPS)
    cols = [HtmlColumn(c.title, c.align, prio.get(c.key, 2), c.key in wrap) for c in t.columns]
    rows = [[html.escape(c.fmt(r.get(c.key))) if r.get(c.key) is not None else "—"
             for c in t.columns] for r in t.rows]
    return html_table(cols, rows, label=label, css_class=css_class, note=note)


def rest_details(summary: str, table: str) -> str:
    """The rest of a summarised table, collapsed under `summary` (text): one screen of rows
    on a phone instead of three. Print opens it without the theme's script (tables.css)."""
    return (f'\n<details class="note rl-sources rl-rest" markdown="1">\n<summary>'
            f"{html.escape(summary)}</summary>\n\n{table}\n</details>\n")

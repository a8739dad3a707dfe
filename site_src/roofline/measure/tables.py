"""A measurement as tables (values: Markdown, CSV, JSON or text), for the page and the CLI."""

from __future__ import annotations

from .. import fmt
from ..render.table import Column, Table
from .compare import op_checks

LEVEL_ORDER = {"L1": 0, "L2": 1, "L2-GPU": 1, "L3": 2, "between": 3, "DRAM": 4, "HBM": 4}


def _ratio(x: float) -> str:
    return f"{fmt.num(x, 2)}×"


def stream_table(doc: dict) -> Table:
    """One row per working set and thread count, one column per kernel: the plateaus."""
    rows: dict[tuple, dict] = {}
    for s in doc["stream"]:
        n = s["elements"]
        key = (LEVEL_ORDER.get(s["level"], 9), n, s["threads"])
        arrays = 2 if s["kernel"] in ("copy", "scale") else 3
        row = rows.setdefault(key, {"level": s["level"], "threads": s["threads"],
                                    "array_bytes": s["working_set_bytes"] / arrays})
        row[s["kernel"]] = s["bandwidth_bytes_per_s"]
    bw = lambda x: fmt.bandwidth(x)  # noqa: E731
    return Table(
        (Column("level", "Where the arrays live"), Column("array_bytes", "Each array",
                                                          fmt.capacity, "right"),
         Column("threads", "Threads", str, "right"),
         *(Column(k, k.capitalize(), bw, "right") for k in ("copy", "scale", "add", "triad"))),
        tuple(rows[k] for k in sorted(rows)),
        caption="STREAM-style bandwidth (best of the repeats; bytes counted as STREAM does)")


def ceilings_table(doc: dict) -> Table:
    c = doc["ceilings"]
    rows = [{"roof": f"Bandwidth, {b['level']}", "value": fmt.bandwidth(b["bandwidth_bytes_per_s"]),
             "how": f"{b['kernel']}, {b['threads']} thread{'s' * (b['threads'] > 1)}"}
            for b in sorted(c["bandwidth"], key=lambda b: LEVEL_ORDER.get(b["level"], 9))]
    rows += [{"roof": f"Compute, {p['precision']}", "value": f"{fmt.si(p['flops_per_s'], 'FLOP/s')}",
              "how": p.get("from", "matmul")} for p in c["compute"]]
    return Table((Column("roof", "Measured roof"), Column("value", "Value", align="right"),
                  Column("how", "Best of")), tuple(rows), caption="Measured ceilings")


def ops_check_table(doc: dict) -> Table:
    rows = []
    for chk in op_checks(doc):
        d = chk.as_dict()
        d["shape_text"] = " × ".join(f"{int(v):,}" for v in chk.shape.values())
        d["spread"] = f"{fmt.seconds(chk.measured_min_s)} – {fmt.seconds(chk.measured_max_s)}"
        rows.append(d)
    return Table(
        (Column("label", "Op"), Column("shape_text", "Shape"),
         Column("intensity_flops_per_byte", "FLOP/byte", fmt.num, "right"),
         Column("bound", "Bound"),
         Column("predicted_s", "Model lower bound", fmt.seconds, "right"),
         Column("measured_s", "Measured (median)", fmt.seconds, "right"),
         Column("spread", "Spread (min – max)", align="right"),
         Column("ratio", "Measured ÷ bound", _ratio, "right"),
         Column("traffic_factor", "numpy bytes ÷ model bytes", _ratio, "right")),
        tuple(rows),
        caption="Each op's model lower bound, with the measured roofs, against its measured time")

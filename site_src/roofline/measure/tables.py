"""A measurement as tables (values: Markdown, CSV, JSON or text), for the page and the CLI."""

from __future__ import annotations

import html

from roofline import fmt
from roofline.render.table_value import Column, Table
from roofline.measure.verdict import op_checks, verdict

LEVEL_ORDER = {"L1": 0, "L2": 1, "L2-GPU": 1, "L3": 2, "between": 3, "DRAM": 4, "HBM": 4}


def _ratio(x: float) -> str:
    return f"{fmt.num(x, 2)}×"


def stream_table(doc: dict) -> Table:
    """One row per level, working set and thread count, one column per kernel: the plateaus.
    An in-cache row's kernels share a working set (all of a kernel's arrays); a DRAM row's
    share the size of each array, DRAM_ARRAY_MULTIPLE × the last-level cache."""
    rows: dict[tuple, dict] = {}
    for s in doc["stream"]:
        past = s["level"] == doc["ceilings"]["memory_level"]
        size = s["array_bytes"] if past else s["working_set_bytes"]
        key = (LEVEL_ORDER.get(s["level"], 9), round(size, -3), s["threads"])
        where = (f"{s['level']}, {fmt.memory(size)}{' per array' if past else ''}"
                 + (f", {s['threads']} threads" if s["threads"] > 1 else ""))
        row = rows.setdefault(key, {"level": where, "threads": s["threads"],
                                    "working_set_bytes": s["working_set_bytes"]})
        row[s["kernel"]] = s["bandwidth_bytes_per_s"]
    gbps = lambda x: fmt.num(x / 1e9)  # noqa: E731  the unit is in the caption: narrow cells
    return Table(
        # Material gives every column at least 5rem: six fit the content column unscrolled.
        (Column("level", "Level, arrays"),
         *(Column(k, k.capitalize(), gbps, "right")
           for k in ("read", "copy", "scale", "add", "triad"))),
        tuple(rows[k] for k in sorted(rows)),
        caption="STREAM-style bandwidth in GB/s (best of the repeats; bytes counted as STREAM "
                "does)")


def ceilings_table(doc: dict) -> Table:
    c = doc["ceilings"]
    rows = [{"roof": f"Bandwidth, {b['level']}", "value": fmt.bandwidth(b["bandwidth_bytes_per_s"]),
             "how": f"{b['kernel']}, {b['threads']} thread{'s' * (b['threads'] > 1)}, "
                    + (f"{fmt.memory(b['array_bytes'])} per array"
                       if b["level"] == c["memory_level"]
                       else f"{fmt.memory(b['working_set_bytes'])} in all")}
            for b in sorted(c["bandwidth"], key=lambda b: LEVEL_ORDER.get(b["level"], 9))]
    rows += [{"roof": f"Compute, {p['precision']}", "value": fmt.si(p["flops_per_s"], "FLOP/s"),
              "how": p.get("from", "matmul")} for p in c["compute"]]
    return Table((Column("roof", "Measured roof"), Column("value", "Value", align="right"),
                  Column("how", "Best of")), tuple(rows), caption="Measured ceilings")


def check_text(doc: dict) -> str:
    """checks.triad_vs_roof in a sentence or two, every number from the measurement."""
    chk = doc["checks"]["triad_vs_roof"]
    level = doc["ceilings"]["memory_level"]
    llc = fmt.memory(chk["last_level_cache_bytes"])
    if chk["ratio"] is None:
        return (f"Check failed: {'; '.join(chk['problems'])}. The {level} roof cannot be "
                f"trusted.")
    roof = next(b for b in doc["ceilings"]["bandwidth"] if b["level"] == level)
    out = [f"The {level} roof, {fmt.bandwidth(chk['roof_bandwidth_bytes_per_s'])} "
           f"({chk['roof_kernel']} on {roof['threads']} thread{'s' * (roof['threads'] > 1)}, "
           f"{fmt.memory(chk['roof_array_bytes'])} per array), "
           f"against STREAM's triad in the same run, "
           f"{fmt.bandwidth(chk['triad_bandwidth_bytes_per_s'])} on {chk['threads']} "
           f"thread{'s' * (chk['threads'] > 1)} with "
           f"{fmt.memory(chk['triad_array_bytes'])} arrays "
           f"({fmt.num(chk['triad_array_bytes'] / chk['last_level_cache_bytes'])} × the "
           f"{llc} last-level cache): triad ÷ roof = {fmt.num(chk['ratio'], 2)}."]
    out.append(f"Check passed: within {fmt.num(chk['tolerance'] * 100)} %, arrays at least "
               f"{fmt.num(chk['array_multiple_required'])} × the last-level cache."
               if chk["passed"] else f"Check failed: {'; '.join(chk['problems'])}.")
    if chk.get("explanation"):
        out.append(chk["explanation"])
    return " ".join(out)


def spread(lo: float, hi: float) -> str:
    """'14.2–16.4 ms' (one unit when both share it), else '998 µs–1.2 ms'."""
    a, b = fmt.seconds(lo), fmt.seconds(hi)
    (va, ua), (vb, ub) = a.split(" "), b.split(" ")
    return f"{va}–{vb}\u00a0{ub}" if ua == ub else f"{va}\u00a0{ua}–{vb}\u00a0{ub}"


def ops_check_table(doc: dict) -> Table:
    rows = []
    for chk in op_checks(doc):
        d = chk.as_dict()
        d["op"] = f"{chk.label} {'×'.join(str(int(v)) for v in chk.shape.values())}"
        d["ai_bound"] = f"{fmt.num(chk.intensity_flops_per_byte)} ({chk.bound})"
        d["spread"] = spread(chk.measured_min_s, chk.measured_max_s)
        rows.append(d)
    return Table(
        (Column("op", "Op and shape"),
         Column("ai_bound", "FLOP/byte (bound)", align="right"),
         Column("predicted_s", "Model bound", fmt.seconds, "right"),
         Column("measured_s", "Measured (median)", fmt.seconds, "right"),
         Column("ratio", "÷ bound", _ratio, "right"),
         Column("traffic_factor", "numpy ÷ model bytes", _ratio, "right")),
        tuple(rows),
        caption="Each op's model lower bound, with the measured roofs, against its measured time")


def spread_table(doc: dict) -> Table:
    """How much the repeats of each op varied: the spread behind each median."""
    rows = [{"label": c.label, "shape_text": "×".join(str(int(v)) for v in c.shape.values()),
             "measured_s": c.measured_s, "spread": spread(c.measured_min_s, c.measured_max_s),
             "repeats": len(op["time_s"]["samples"])}
            for c, op in zip(op_checks(doc), doc["ops"])]
    return Table((Column("label", "Op"), Column("shape_text", "Shape"),
                  Column("measured_s", "Median", fmt.seconds, "right"),
                  Column("spread", "Min–max", align="right"),
                  Column("repeats", "Repeats", str, "right")), tuple(rows),
                 caption="The spread of the timed repeats")


def machine_table(doc: dict) -> Table:
    m, v = doc["machine"], doc["versions"]
    blas = m.get("blas", {})
    build = blas.get("numpy_build", {})
    threads = blas.get("threadpoolctl")
    rows = [("Label", doc["label"]), ("Measured (UTC)", doc["created_utc"]),
            ("Run", f"{doc['mode']}: warm-up {doc['method']['warmup']}, "
                    f"{doc['method']['repeats']} repeats, median"),
            ("CPU", m["cpu_model"]),
            ("Cores", f"{m.get('usable_cpus', m['logical_cpus'])} usable of "
                      f"{m['logical_cpus']} logical"),
            ("Caches", ", ".join(f"{c['level']} {fmt.memory(c['size_bytes'])}"
                                 for c in m.get("caches", []))),
            ("GPU", m.get("gpu") or "none used"),
            ("BLAS", " ".join(str(build[k]) for k in ("name", "version") if k in build)
             if isinstance(build, dict) and build else str(build or "unknown")),
            # A reader of a measurement can't act on the runner's install hint (#14).
            ("BLAS threads", ", ".join(f"{p['internal_api']} {p['num_threads']}"
                                       for p in threads) if isinstance(threads, list)
             else "not recorded (threadpoolctl was not installed where this ran)"
             if str(threads).startswith("not installed") else str(threads)),
            *((f"Load average at {when}", ", ".join(f"{x:.2f}" for x in m[key])
               if m.get(key) else "unknown")
              for when, key in (("start", "load_average"), ("end", "load_average_end"))
              if key in m or when == "start"),
            ("Versions", ", ".join(f"{k} {val}" for k, val in v.items() if val))]
    return Table((Column("what", "Measured on"), Column("value", "Value")),
                 tuple({"what": a, "value": b} for a, b in rows))


def plain_html(table: Table) -> str:
    """The table as HTML, for a fence (fences return HTML, not Markdown)."""
    def cell(tag: str, text: str, align: str) -> str:
        style = ' style="text-align:right"' if align == "right" else ""
        return f"<{tag}{style}>{html.escape(text)}</{tag}>"
    head = "".join(cell("th", c.title, c.align) for c in table.columns)
    body = "".join("<tr>" + "".join(cell("td", text, c.align)
                                    for text, c in zip(row, table.columns)) + "</tr>"
                   for row in table._cells())
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _range(span: tuple[float, float]) -> str:
    lo, hi = span
    return _ratio(lo) if fmt.num(lo, 2) == fmt.num(hi, 2) else f"{fmt.num(lo, 2)}–{_ratio(hi)}"


def verdict_sentences(doc: dict) -> str:
    """The op table in sentences, every number from the measurement."""
    v = verdict(doc)
    if not v.beaten:
        out = [f"All {v.total} ops took at least their model lower bound."]
    elif all(op.startswith("gemv-") for op in v.beaten):
        # STREAM's count leaves out the write-allocate reads its stores cost; the roof pays
        # them, a GEMV (loads only) does not, so it can land under its bound. A matrix only a
        # few times the last-level cache is partly served by it as well.
        out = [f"{v.total - len(v.beaten)} of {v.total} ops took at least their model lower "
               f"bound; {' and '.join(v.beaten)} ran faster: a GEMV only loads, so it pays "
               f"none of the write-allocate traffic that the stores of the roof's STREAM "
               f"kernel cost and STREAM's byte count leaves out."]
        llc = doc["checks"]["triad_vs_roof"]["last_level_cache_bytes"]
        need = doc["checks"]["triad_vs_roof"]["array_multiple_required"]
        near = [o for o in doc["ops"] if o["id"] in v.beaten and o["bytes"] < need * llc]
        out += [f"{o['id']} moves {fmt.capacity(o['bytes'])}, only "
                f"{fmt.num(o['bytes'] / llc, 2)} × the {fmt.memory(llc)} last-level cache "
                f"(the roof's arrays are {fmt.num(need)} × it), so the cache may serve part "
                f"of it." for o in near]
    else:
        out = [f"{v.total - len(v.beaten)} of {v.total} ops took at least their model lower "
               f"bound; {', '.join(v.beaten)} ran faster, so this run's measured roofs "
               f"understate the machine (a busy machine spoils the ceiling runs: measure again)."]
    if v.exact:
        out.append(f"Memory-bound ops whose numpy code moves exactly the model's bytes land "
                   f"within {_range(v.exact)} of bytes ÷ measured bandwidth.")
    if v.unfused:
        out.append(f"Memory-bound ops that numpy runs as several passes land at "
                   f"{_range(v.unfused)} of their bound, and their extra passes alone move "
                   f"{_range(v.unfused_traffic)} the model's bytes.")
    if v.compute:
        out.append(f"Compute-bound GEMMs land at {_range(v.compute)} of FLOPs ÷ measured "
                   f"matmul rate.")
    return " ".join(out)

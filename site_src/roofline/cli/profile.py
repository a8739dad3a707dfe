"""`roofline profile TRACE`: your own torch.profiler trace on the roofline — every op family at
its achieved FLOP/s against the bound at its arithmetic intensity, its verdict, the step's
measured MFU, a waterfall of where the step's wall time went and the top three leaks, with
what the lesson says to do about each. Bad input is one line and exit 2."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from roofline.cli._common import add_format, terminal_columns, wrap, write
from roofline.render.table import Column, Table


def add_parser(sub) -> None:
    p = sub.add_parser("profile", help="place a PyTorch profiler trace on the roofline",
                       description="Read a Chrome trace written by torch.profiler "
                       "(prof.export_chrome_trace(), recorded with record_shapes=True; plain "
                       "or .json.gz) and place one step's ops on the roofline of the machine it "
                       "ran on: a CPU trace on a measured CPU roofline (roofline measure).")
    p.add_argument("trace", type=Path, metavar="TRACE", help="the trace (.json or .json.gz)")
    p.add_argument("--step", type=int, metavar="N",
                   help="which ProfilerStep#N (default: the last one)")
    p.add_argument("--measurement", type=Path, metavar="FILE.json",
                   help="the CPU's measurement (roofline measure); default: this site's build "
                        "machine's, which recorded the bundled traces")
    p.add_argument("--hardware", metavar="CHIP",
                   help="a GPU chip from the catalog, for a trace with GPU kernels")
    add_format(p, ("table", "json", "csv"))


def families_table(r: dict) -> Table:
    """The report's families, then each unmodelled op, as the package's Table."""
    pct = lambda v: f"{v * 100:.3g}%"  # noqa: E731
    cols = (Column("family", "family"), Column("count", "ops", str, "right"),
            Column("time_s", "ms", lambda v: f"{v * 1e3:.4g}", "right"),
            Column("share_of_step", "step", pct, "right"),
            Column("flops", "FLOPs", lambda v: f"{v:.3g}", "right"),
            Column("bytes", "bytes", lambda v: f"{v:.3g}", "right"),
            Column("intensity_flops_per_byte", "FLOP/byte", lambda v: f"{v:.3g}", "right"),
            Column("achieved_flops_per_s", "GFLOP/s", lambda v: f"{v / 1e9:.3g}", "right"),
            Column("bound_flops_per_s", "bound GFLOP/s", lambda v: f"{v / 1e9:.3g}", "right"),
            Column("share_of_bound", "of bound", pct, "right"),
            Column("verdict", "verdict"))
    rows = [{"family": f, **v} for f, v in r["families"].items()]
    rows += [{"family": "unmodelled: " + u["name"], "count": u["count"], "time_s": u["time_s"],
              "share_of_step": u["time_s"] / r["wall_s"], "verdict": "not modelled"}
             for u in r["unmodelled"]]
    return Table(cols, tuple(rows))


def run(args: argparse.Namespace) -> int:
    from roofline.profile.analyse import report
    r = report(args.trace, args.step, measurement=args.measurement, hardware=args.hardware)
    if args.format == "json":
        write(json.dumps(r, indent=1) + "\n")
        return 0
    table = families_table(r)
    if args.format == "csv":
        write(table.as_csv())
        return 0
    width = terminal_columns()
    rec, roof = r["recorded"] or {}, r["roof"]
    lines = [f"{r['trace']}: {r['step']}, {r['wall_s'] * 1e3:.4g} ms on the {r['device'].upper()}"
             + (f" (recorded by {rec.get('script')} with torch {rec.get('torch')})" if rec else ""),
             *wrap(f"Roofline: {roof['label']}: {roof['peak_flops_per_s'] / 1e9:.4g} GFLOP/s, "
                   f"{roof['bandwidth_bytes_per_s'] / 1e9:.4g} GB/s, ridge "
                   f"{roof['ridge_flops_per_byte']:.3g} FLOP/byte ({roof['basis']}).", width,
                   indent="  "),
             f"Measured MFU: {r['mfu'] * 100:.3g}% (useful matrix FLOPs ÷ (step time × peak)).",
             ""]
    text = table.as_text(width, wrap=("family",), drop=("bytes", "flops", "bound_flops_per_s"),
                         hint="--format csv has every column.")
    lines += [text.rstrip("\n"), "", "Where the step's time went:"]
    lines += [f"  {w['part']:<30} {w['time_s'] * 1e3:>9.4g} ms {w['share'] * 100:>6.3g}%"
              for w in r["waterfall"]]
    if r.get("flops_check"):
        lines += ["", "FLOPs against torch's own counts (over the ops torch counted):"]
        for c in r["flops_check"]:
            if c["ours"] is None:
                lines += wrap(f"  {c['family']}: torch {c['torch']:.4g} FLOP over {c['ops']} ops; "
                              "the model does not know the op", width, indent="  ")
                continue
            text = (f"  {c['family']} ({c['ops']} ops): model {c['ours']:.4g}, torch "
                    f"{c['torch']:.4g} FLOP" + (" — differs: " + "; ".join(
                        f"{o['name']} {o['ours']:.4g} vs {o['torch']:.4g}" for o in c["where"])
                        if c["differs"] else " (the same)"))
            lines += wrap(text, width, indent="    ")
    lines += ["", "Top leaks:"]
    for i, leak in enumerate(r["leaks"], 1):
        lines += wrap(f"{i}. {leak['share'] * 100:.3g}% of the step: {leak['advice']}", width,
                      indent="   ")
    write("\n".join(lines) + "\n")
    return 0

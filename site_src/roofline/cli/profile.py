"""`roofline profile TRACE`: your own torch.profiler trace on the roofline — every op family at
its achieved FLOP/s against the bound at its arithmetic intensity, its verdict, the step's
measured MFU, a waterfall of where the step's wall time went and the top three leaks, with
what the lesson says to do about each. Bad input is one line and exit 2."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from roofline.cli._common import add_format, terminal_columns, wrap, write
from roofline.errors import RooflineError

COLUMNS = ("family", "count", "time_s", "share_of_step", "flops", "bytes",
           "intensity_flops_per_byte", "achieved_flops_per_s", "bound_flops_per_s",
           "share_of_bound", "verdict")


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


def _roof(args, info):
    from roofline.measure.schema import load
    from roofline.model import datafile as _toml
    from roofline.profile.analyse import cpu_roof
    if info["kernels"]:
        raise RooflineError("GPU kernels found: placing a GPU trace on a chip's roofline is "
                            "not supported yet (no GPU trace has been recorded to test it "
                            "against)", where=str(args.trace))
    if args.hardware:
        raise RooflineError(f"a CPU-only trace (no GPU kernels): its ops ran on the CPU, not "
                            f"on {args.hardware}; drop --hardware to place it on the measured "
                            "CPU roofline", where="--hardware")
    path = args.measurement or _toml.DATA_DIR / "measurement-build-machine.json"
    return cpu_roof(load(path))


def run(args: argparse.Namespace) -> int:
    from roofline.profile.analyse import analyse, survey
    info = survey(args.trace)
    roof = _roof(args, info)
    r = analyse(args.trace, roof, args.step)
    if args.format == "json":
        write(json.dumps(r, indent=1) + "\n")
        return 0
    if args.format == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        for f, v in r["families"].items():
            w.writerow([f] + ["" if v[c] is None else v[c] for c in COLUMNS[1:]])
        for u in r["unmodelled"]:
            w.writerow(["unmodelled: " + u["name"], u["count"], u["time_s"]]
                       + [""] * (len(COLUMNS) - 3))
        write(buf.getvalue())
        return 0
    width = terminal_columns()
    rec = r["recorded"] or {}
    lines = [f"{r['trace']}: {r['step']}, {r['wall_s'] * 1e3:.4g} ms on the {r['device'].upper()}"
             + (f" (recorded by {rec.get('script')} with torch {rec.get('torch')})" if rec else ""),
             *wrap(f"Roofline: {roof.label}: {roof.peak_flops_per_s / 1e9:.4g} GFLOP/s, "
                   f"{roof.bandwidth_bytes_per_s / 1e9:.4g} GB/s, ridge "
                   f"{roof.ridge:.3g} FLOP/byte ({roof.basis}).", width, indent="  "),
             f"Measured MFU: {r['mfu'] * 100:.3g}% (useful matrix FLOPs ÷ (step time × peak)).",
             "", f"{'family':<12} {'ops':>4} {'ms':>9} {'step':>6} {'FLOP/byte':>9} "
             f"{'GFLOP/s':>9} {'of bound':>8}  verdict"]
    for f, v in r["families"].items():
        ai = ("—" if v["intensity_flops_per_byte"] is None
              else f"{v['intensity_flops_per_byte']:.3g}")
        sb = "—" if v["share_of_bound"] is None else f"{v['share_of_bound'] * 100:.3g}%"
        lines.append(f"{f:<12} {v['count']:>4} {v['time_s'] * 1e3:>9.4g} "
                     f"{v['share_of_step'] * 100:>5.3g}% {ai:>9} "
                     f"{v['achieved_flops_per_s'] / 1e9:>9.3g} {sb:>8}  {v['verdict']}")
    if r["unmodelled"]:
        lines += ["", "Unmodelled (the model does not know them; listed, never guessed):"]
        lines += [f"  {u['name']}: {u['count']} ops, {u['time_s'] * 1e3:.3g} ms"
                  for u in r["unmodelled"]]
    lines += ["", "Where the step's time went:"]
    lines += [f"  {w['part']:<30} {w['time_s'] * 1e3:>9.4g} ms {w['share'] * 100:>6.3g}%"
              for w in r["waterfall"]]
    lines += ["", "Top leaks:"]
    for i, leak in enumerate(r["leaks"], 1):
        lines += wrap(f"{i}. {leak['share'] * 100:.3g}% of the step: {leak['advice']}", width,
                      indent="   ")
    write("\n".join(lines) + "\n")
    return 0

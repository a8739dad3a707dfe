"""`roofline profile TRACE|DIR`: your own torch.profiler trace on the roofline. A GPU trace (CUDA
or ROCm) gets its step's time account — GPU busy and idle by cause, kernel families, streams,
communication exposed and overlapped, launches, the top kernels — and, where shapes were
recorded, every op family on its chip's roofline and the measured MFU; a CPU trace goes on a
measured CPU roofline. A folder (or several files) is many ranks of one job: a per-rank table
with the slowest rank and the spread. Bad input is one line and exit 2."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from roofline.cli._common import add_format, positive_int, terminal_columns, wrap, write
from roofline.render.table_value import Column, Table


def step_arg(text: str) -> int | str:
    if text == "all" or re.fullmatch(r"\d+-\d+", text):
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a step number, N-M or 'all', got {text!r}") \
            from None


def add_parser(sub) -> None:
    p = sub.add_parser("profile", help="place a PyTorch profiler trace on the roofline",
                       description="Read a Chrome trace written by torch.profiler "
                       "(prof.export_chrome_trace(); plain or .json.gz; Kineto's format of torch "
                       "1.11 and later, CUDA or ROCm) and account for one step: a GPU trace's "
                       "busy and idle time, kernel families, communication and launches, and, "
                       "where it was recorded with record_shapes=True, its ops on the roofline "
                       "of the chip it ran on; a CPU trace's ops on a measured CPU roofline "
                       "(roofline measure). A folder, or several files, are the ranks of one "
                       "job.")
    p.add_argument("trace", type=Path, nargs="+", metavar="TRACE|DIR",
                   help="the trace (.json or .json.gz), or a folder of per-rank traces")
    p.add_argument("--step", type=step_arg, metavar="N|N-M|all",
                   help="which ProfilerStep#N (default: the last one that ran kernels); N-M: "
                        "steps N to M as one window; all: the whole trace")
    p.add_argument("--rank", type=int, metavar="R",
                   help="with a folder: the whole report of rank R (default: the table of "
                        "every rank)")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                   help="with a folder: read N ranks at once, each in its own process "
                        "(default: 1)")
    p.add_argument("--measurement", type=Path, metavar="FILE.json",
                   help="a CPU trace's machine (roofline measure); default: this site's build "
                        "machine's, which recorded the bundled traces")
    p.add_argument("--hardware", metavar="CHIP",
                   help="the chip a GPU trace ran on (default: from the trace's "
                        "deviceProperties; roofline hardware lists the chips)")
    add_format(p, ("table", "json", "csv"))


UNMODELLED_ROWS = 8
"""Unmodelled ops (or kernels) a text table names one by one; the rest are one row."""


def families_cli_table(r: dict, every: bool = False) -> Table:
    """The report's families, then each unmodelled op (the first UNMODELLED_ROWS, unless
    `every`), as the package's Table."""
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
    shown = r["unmodelled"] if every else r["unmodelled"][:UNMODELLED_ROWS]
    rows += [{"family": "unmodelled: " + u["name"], "count": u["count"], "time_s": u["time_s"],
              "share_of_step": u["time_s"] / r["wall_s"], "verdict": "not modelled"}
             for u in shown]
    rest = r["unmodelled"][len(shown):]
    if rest:
        t = sum(u["time_s"] for u in rest)
        rows.append({"family": f"unmodelled: {len(rest)} more names", "count":
                     sum(u["count"] for u in rest), "time_s": t, "share_of_step": t / r["wall_s"],
                     "verdict": "not modelled"})
    return Table(cols, tuple(rows))


def leak_lines(r: dict, width: int) -> list[str]:
    """The report's top leaks, each with what the lesson says to do about it."""
    lines = ["", "Top leaks:"]
    for i, leak in enumerate(r["leaks"], 1):
        lines += wrap(f"{i}. {leak['share'] * 100:.3g}% of the step: {leak['advice']}", width,
                      indent="   ")
    return lines


def run(args: argparse.Namespace) -> int:
    from roofline.profile.analyse import report
    from roofline.profile.ranks import rank_files, ranks
    from roofline.profile.trace import TraceError
    many = len(args.trace) > 1 or args.trace[0].is_dir()
    if many and args.rank is None:
        r = ranks(args.trace, args.step, hardware=args.hardware, jobs=args.jobs)
        return _ranks_out(r, args.format)
    if args.rank is not None:
        if not many:
            raise TraceError("--rank needs a folder (or several files) of per-rank traces",
                             where="--rank")
        found = [f for f in rank_files(args.trace) if _rank_of(f) == args.rank]
        if not found:
            raise TraceError(f"no trace of rank {args.rank} among the files", where="--rank")
        path = found[0]
    else:
        path = args.trace[0]
    r = report(path, args.step, measurement=args.measurement, hardware=args.hardware)
    if r.get("kind") == "gpu":
        return _gpu_out(r, args.format)
    if args.format == "json":
        write(json.dumps(r, indent=1) + "\n")
        return 0
    table = families_cli_table(r, every=args.format == "csv")
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
    lines += leak_lines(r, width)
    write("\n".join(lines) + "\n")
    return 0


def _rank_of(path: Path) -> int | None:
    from roofline.profile.analyse import survey
    return (survey(path)["meta"].get("distributedInfo") or {}).get("rank")


def _in_ms(v: float | None) -> str:
    """Seconds as a figure in milliseconds; the column title or the sentence says "ms"."""
    return "—" if v is None else f"{v * 1e3:.4g}"


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v * 100:.3g}%"


def ranks_table(r: dict) -> Table:
    cols = (Column("rank", "rank", lambda v: "?" if v is None else str(v), "right"),
            Column("step", "step"),
            Column("wall_s", "step ms", _in_ms, "right"),
            Column("busy_s", "busy ms", _in_ms, "right"),
            Column("idle_s", "idle ms", _in_ms, "right"),
            Column("communication_s", "comm ms", _in_ms, "right"),
            Column("communication_exposed_s", "exposed ms", _in_ms, "right"),
            Column("mfu", "MFU", _pct, "right"),
            Column("trace", "trace"))
    return Table(cols, tuple(r["ranks"]))


def _ranks_out(r: dict, fmt: str) -> int:
    if fmt == "json":
        write(json.dumps(r, indent=1) + "\n")
        return 0
    table = ranks_table(r)
    if fmt == "csv":
        write(table.as_csv())
        return 0
    width = terminal_columns()
    lines = [f"{len(r['ranks'])} ranks (world size {r['world_size']})", "",
             table.as_text(width, wrap=("trace",), hint="--format csv has every column.")
             .rstrip("\n"), ""]
    lines += wrap(f"Slowest: rank {r['slowest']} ({r['slowest_trace']}), "
                  f"{_in_ms(r['slowest_wall_s'])} ms; fastest {_in_ms(r['fastest_wall_s'])} ms; "
                  f"median {_in_ms(r['median_wall_s'])} ms; spread (slowest − fastest) ÷ median "
                  f"{_pct(r['spread'])}. `--rank R` prints one rank's whole report.", width)
    write("\n".join(lines) + "\n")
    return 0


def account_table(r: dict) -> Table:
    a = r["account"]
    cols = (Column("family", "kernel family"), Column("count", "kernels", str, "right"),
            Column("time_s", "ms", _in_ms, "right"),
            Column("share", "of busy", _pct, "right"))
    return Table(cols, tuple({"family": f["label"], "count": f["count"], "time_s": f["time_s"],
                              "share": f["time_s"] / a["busy_s"]} for f in a["families"]))


def _gpu_out(r: dict, fmt: str) -> int:
    if fmt == "json":
        write(json.dumps(r, indent=1) + "\n")
        return 0
    if fmt == "csv":
        write((families_cli_table(r, every=True) if r["families"] else account_table(r)).as_csv())
        return 0
    width = terminal_columns()
    a, chip = r["account"], r["chip"]
    rank = (f", rank {r['rank']} of {r['world_size']}" if r["rank"] is not None else "")
    lines = [f"{r['trace']}: {r['step']}{rank}, {_in_ms(r['wall_s'])} ms of GPU time on "
             f"{chip['label']} ({r['device'].upper()})"]
    lines += wrap(f"Chip: {chip['source']}.", width, indent="  ")
    lines += ["", "Time account (the step's kernels, from its first start to its last end):"]
    rows = [("GPU busy (any stream)", a["busy_s"]), ("  compute kernels", a["compute_s"]),
            ("  communication, exposed", a["communication_exposed_s"]),
            ("  memcpy/memset alone", a["memory_only_s"]), ("GPU idle", a["idle_s"]),
            ("  waiting for the host", a["idle_host_s"]), ("  other", a["idle_other_s"])]
    lines += [f"  {k:<28} {_in_ms(v):>10} ms {_pct(v / r['wall_s']):>7}" for k, v in rows]
    lines += [f"  Communication {_in_ms(a['communication_s'])} ms: "
              f"{_in_ms(a['communication_overlapped_s'])} ms overlapped with compute, "
              f"{_in_ms(a['communication_exposed_s'])} ms exposed.", ""]
    lines += [account_table(r).as_text(width).rstrip("\n"), ""]
    lines += ["Streams: " + ", ".join(
        f"{s['stream']}: {s['count']} kernels, {_in_ms(s['busy_s'])} ms" for s in a["streams"][:6])]
    la = a["launch"]
    lines += wrap(f"Launches: {la['kernels']} kernels, {la['linked']} linked to their launch call; "
                  f"{la['shorter_than_launch']} ran shorter than the call that launched them; "
                  f"launch call median {_in_ms(la['launch_call_median_s'])} ms, launch-to-start "
                  f"median {_in_ms(la['launch_delay_median_s'])} ms (p90 "
                  f"{_in_ms(la['launch_delay_p90_s'])} ms).", width)
    lines += ["", "Top kernels:"]
    lines += [f"  {_in_ms(k['time_s']):>9} ms  {k['count']:>5}×  {k['family']:<13} "
              f"{k['name']}"[:width] for k in a["top"][:5]]
    if r["families"]:
        roof = r["roof"]
        lines += ["", f"Measured MFU: {r['mfu'] * 100:.3g}% (useful matrix FLOPs ÷ (GPU time × "
                      f"{roof['precision']} peak {roof['peak_flops_per_s'] / 1e12:.4g} TFLOP/s)).",
                  *wrap(f"Precision: {r['precision_rule']}.", width, indent="  "), ""]
        lines += [families_cli_table(r).as_text(width, wrap=("family",),
                  drop=("bytes", "flops", "bound_flops_per_s"),
                  hint="--format csv has every column.").rstrip("\n")]
    elif not r["shapes"]:
        lines += ["", *wrap("No shapes recorded: the time account only. Record with "
                            "record_shapes=True to place the ops on the roofline.", width)]
    lines += ["", "Where the step's GPU time went:"]
    lines += [f"  {w['part']:<32} {_in_ms(w['time_s']):>9} ms {w['share'] * 100:>6.3g}%"
              for w in r["waterfall"]]
    lines += leak_lines(r, width)
    write("\n".join(lines) + "\n")
    return 0

"""HTA baseline: what Holistic Trace Analysis reports for the same GPU traces `roofline profile` reads.

Run with HTA's own interpreter, not the project's (HTA pins its own pandas/plotly):

    /tmp/htavenv/bin/python site_src/benchmarks/hta_baseline.py TRACE_OR_DIR... --out FILE.json
    /tmp/htavenv/bin/python site_src/benchmarks/hta_baseline.py --ranks-dir DIR --calls temporal,overlap

Why: the project's GPU-trace analysis is compared with HTA (PyPI `holistictraceanalysis`), so
we need HTA's own figures, produced by HTA's own calls, and the rules behind them.

What, per trace: HTA's `TraceAnalysis` reads a *folder* of rank traces, so each single trace
(a file, or every *.json / *.json.gz in a folder given as an argument) is symlinked into a
temporary folder of its own and analysed alone. `--ranks-dir DIR` instead analyses DIR as one
multi-rank job. The calls, all with `visualize=False`:

- `get_temporal_breakdown`: idle / compute / non-compute % and the raw µs figures;
- `get_comm_comp_overlap`: % of (merged) communication time overlapped by computation;
- `get_idle_time_breakdown` over every rank: host wait / kernel wait / other, summed over streams;
- `get_gpu_kernel_breakdown`: merged time per kernel type (HTA reports COMPUTATION,
  COMMUNICATION, MEMORY and their overlaps, never OTHER), plus, for OTHER, plain sums of `dur`
  per type by HTA's own `get_kernel_type` over the GPU events HTA kept.

A call that raises, or returns NaN, is recorded with its message and the run goes on. The JSON
also carries "hta_rules": how HTA classifies kernels and which iterations it keeps, as read in
the installed HTA's source (hta/utils/utils.py, hta/common/trace.py) — so the comparison says
what HTA counted, not only what it printed.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

CALLS = ("temporal", "overlap", "idle", "kernels")

HTA_RULES = {
    "source": "installed hta (see hta_version); hta/utils/utils.py, hta/common/trace.py, "
              "hta/analyzers/breakdown_analysis.py, hta/analyzers/communication_analysis.py",
    "kernel_type": "get_kernel_type(name): first match wins, in this order: COMMUNICATION if "
                   "is_comm_kernel, MEMORY if is_memory_kernel, COMPUTATION if is_compute_kernel, "
                   "else OTHER. Only the kernel name is used (no category, no stream).",
    "is_comm_kernel": "re.match(r'^nccl.*Kernel', name): names starting 'nccl' that contain 'Kernel'.",
    "is_memory_kernel": "re.match(r'(^Memcpy)|(^Memset)|(^dma)', name): names starting Memcpy, Memset or dma.",
    "is_compute_kernel": "not re.match(r'(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)', name): everything "
                         "except nccl*Kernel, names containing Memcpy, names starting Memset, names containing "
                         "Sync. So OTHER = names containing 'Sync' or a non-leading 'Memcpy' that are not "
                         "comm/memory (e.g. cudaDeviceSynchronize-style sync events).",
    "is_comm_kernel_upstream_head": "HolisticTraceAnalysis HEAD f4d0062 (0.6.1) differs: comm = "
                                    "(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*); memory = "
                                    "(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma); compute = not (^nccl|Memcpy|Memset|dma|"
                                    "Sync|^Stream Wait Event|cuda.*LaunchKernel|^runFunction|^hip|^hccl|...).",
    "gpu_events": "temporal breakdown, overlap and kernel breakdown take every kept row with stream != -1 "
                  "(kernels, memcpy, memset, and cuda_sync rows such as 'Context Sync' / 'Stream Sync', which "
                  "count as GPU busy time in the temporal breakdown and are typed OTHER). Idle breakdown takes "
                  "stream != -1 rows whose cat is kernel/Kernel/gpu_memset/Memset/gpu_memcpy/Memcpy/mtia_ccp_events.",
    "iterations_kept": "TraceAnalysis(include_last_profiler_step=False) -> Trace._filter_irrelevant_gpu_kernels: "
                       "per rank, last_start = max ts of the ProfilerStep#N events; the trace keeps only CPU-side "
                       "rows (not GPU kernels / Event Sync / Context Sync) with ts < last_start, and only the GPU "
                       "kernels whose correlation id matches one of those kept CPU rows. So the last ProfilerStep "
                       "(by start time) and the kernels launched from it are dropped; events before the first "
                       "ProfilerStep are kept; GPU kernels without a matching CPU launch are dropped. Applied only "
                       "when the shared symbol table has >= 2 distinct ProfilerStep names; with 0 or 1 nothing is "
                       "filtered (warning 'analysis result may not be accurate').",
    "temporal": "per rank: merged intervals of all GPU events; kernel_time(us) = last end - first start "
                "(a span, not a sum); idle_time = span - merged busy time; compute_time = merged COMPUTATION "
                "intervals; non_compute_time = span - compute - idle; percentages are of the span.",
    "overlap": "per rank: time where merged COMPUTATION and merged COMMUNICATION intervals overlap / total "
               "merged COMMUNICATION time; NaN (0/0) when a rank has no communication kernels.",
    "idle_breakdown": "per stream, per kernel: gap to the previous kernel's end on that stream is HOST_WAIT if "
                      "its launching runtime event started after that end, else KERNEL_WAIT if the gap < "
                      "consecutive_kernel_delay (default 30, in the trace's µs units), else OTHER. Ranks default "
                      "to [0] in HTA; here all ranks are passed.",
    "rank": "rank from the first '\"rank\": N' match in the file (regex on the raw text); missing -> rank 0.",
    "multiprocessing": "Trace.load_traces(use_multiprocessing=True): one rank -> no pool; 2..8 ranks -> "
                       "fork Pool(min(ranks, cpu_count)); > 8 ranks -> parse rank 0 once under tracemalloc, "
                       "then Pool(min(0.8*available RAM / that peak, ranks, cpu_count)).",
}


def trace_files(args: list[str]) -> list[Path]:
    """Files given, and every *.json / *.json.gz directly inside folders given."""
    out: list[Path] = []
    for a in args:
        p = Path(a)
        if p.is_dir():
            out += sorted(f for f in p.iterdir() if f.name.endswith((".json", ".json.gz")))
        else:
            out.append(p)
    return out


def plain(v):
    """numpy / pandas scalars to JSON values; NaN and inf to None."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def attempt(errors: list, call: str, fn):
    """Run one HTA call; on an exception record it and return None."""
    t0 = time.perf_counter()
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 - any HTA failure is a finding, not a crash
        errors.append({"call": call, "error": f"{type(e).__name__}: {e}"})
        return None, time.perf_counter() - t0
    return result, time.perf_counter() - t0


def note_nans(errors: list, call: str, rows: dict) -> None:
    """Record every None (was NaN) in a per-rank result."""
    for rank, fields in rows.items():
        for k, v in fields.items():
            if v is None:
                errors.append({"call": call, "error": f"rank {rank}: {k} is NaN"})


def per_rank(df, columns: list[str]) -> dict:
    """{rank: {column: value}} from an HTA per-rank frame."""
    return {int(r["rank"]): {c: plain(r[c]) for c in columns} for _, r in df.iterrows()}


def temporal(ta) -> dict:
    cols = ["idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)",
            "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]
    return per_rank(ta.get_temporal_breakdown(visualize=False), cols)


def overlap(ta) -> dict:
    return per_rank(ta.get_comm_comp_overlap(visualize=False), ["comp_comm_overlap_pctg"])


def idle(ta) -> dict:
    """Idle time by cause per rank, summed over that rank's streams."""
    df, _ = ta.get_idle_time_breakdown(ranks=ta.t.get_ranks(), visualize=False)
    out: dict = {}
    for _, r in df.iterrows():
        d = out.setdefault(int(r["rank"]), {"host_wait": 0, "kernel_wait": 0, "other": 0, "streams": set()})
        d[r["idle_category"]] = d.get(r["idle_category"], 0) + plain(r["idle_time"])
        d["streams"].add(int(r["stream"]))
    for d in out.values():
        d["streams"] = len(d["streams"])
    return out


def kernel_types(ta) -> list:
    """HTA's kernel-type table (merged µs per type, across ranks)."""
    df, _ = ta.get_gpu_kernel_breakdown(visualize=False)
    return [{"kernel_type": r["kernel_type"], "sum_us": plain(r["sum"]), "percentage": plain(r["percentage"])}
            for _, r in df.iterrows()]


def kernel_type_dur_sums(ta) -> dict:
    """{rank: {type: summed dur µs}} by hta.utils.utils.get_kernel_type, OTHER included (not merged)."""
    from hta.utils.utils import get_kernel_type
    names = ta.t.symbol_table.get_sym_table()
    out: dict = {}
    for rank, df in ta.t.traces.items():
        sums = df.loc[df["stream"].ne(-1)].groupby("name")["dur"].sum()
        d = out.setdefault(int(rank), {})
        for name_id, dur in sums.items():
            kind = get_kernel_type(names[name_id])
            d[kind] = d.get(kind, 0) + plain(dur)
    return out


def iterations(ta) -> dict:
    """ProfilerStep numbers in the trace, and the iterations left after HTA's filter, per rank."""
    steps = sorted(n for n in ta.t.symbol_table.get_sym_table() if n.startswith("ProfilerStep"))
    return {"profiler_steps": steps,
            "kept": {int(r): [int(i) for i in ta.t.get_iterations(r)] for r in ta.t.get_ranks()}}


def analyse(folder: str, calls: list[str]) -> dict:
    """All requested HTA calls on one folder of rank traces."""
    from hta.trace_analysis import TraceAnalysis
    errors: list = []
    rec: dict = {"errors": errors, "seconds": {}}
    ta, rec["seconds"]["load"] = attempt(errors, "TraceAnalysis", lambda: TraceAnalysis(trace_dir=folder))
    if ta is None:
        return rec
    rec["ranks"] = [int(r) for r in ta.t.get_ranks()]
    rec["iterations"], _ = attempt(errors, "iterations", lambda: iterations(ta))
    steps = {"temporal": ("get_temporal_breakdown", temporal), "overlap": ("get_comm_comp_overlap", overlap),
             "idle": ("get_idle_time_breakdown", idle), "kernels": ("get_gpu_kernel_breakdown", kernel_types)}
    for key in calls:
        name, fn = steps[key]
        rec[key], rec["seconds"][key] = attempt(errors, name, lambda fn=fn: fn(ta))
        if isinstance(rec[key], dict):
            note_nans(errors, name, rec[key])
    if "kernels" in calls:
        rec["kernel_type_dur_sum_us"], _ = attempt(errors, "get_kernel_type sums", lambda: kernel_type_dur_sums(ta))
    return rec


def analyse_single(path: Path, calls: list[str]) -> dict:
    """One trace alone: symlink it into a temporary folder of its own."""
    with tempfile.TemporaryDirectory(prefix="hta-one-") as tmp:
        os.symlink(path.resolve(), Path(tmp) / path.name)
        return analyse(tmp, calls)


def fmt(v, spec: str = ".1f") -> str:
    return "-" if v is None else format(v, spec)


def table(results: dict) -> str:
    """One line per trace and rank."""
    head = (f"{'trace':<42} {'rk':>3} {'it':>3} {'idle%':>6} {'comp%':>6} {'ncmp%':>6} {'ovl%':>6} "
            f"{'host_us':>10} {'kern_us':>9} {'oth_us':>10} {'COMP_us':>11} {'COMM_us':>10} {'MEM_us':>9} {'OTH_us':>8} err")
    lines = [head, "-" * len(head)]
    for name, rec in results.items():
        kept = (rec.get("iterations") or {}).get("kept", {})
        for rank in rec.get("ranks") or [None]:
            t = (rec.get("temporal") or {}).get(rank, {})
            o = (rec.get("overlap") or {}).get(rank, {})
            i = (rec.get("idle") or {}).get(rank, {})
            k = (rec.get("kernel_type_dur_sum_us") or {}).get(rank, {})
            lines.append(
                f"{name[:42]:<42} {fmt(rank, 'd'):>3} {len(kept.get(rank, [])):>3} "
                f"{fmt(t.get('idle_time_pctg')):>6} {fmt(t.get('compute_time_pctg')):>6} "
                f"{fmt(t.get('non_compute_time_pctg')):>6} {fmt(o.get('comp_comm_overlap_pctg')):>6} "
                f"{fmt(i.get('host_wait'), '.0f'):>10} {fmt(i.get('kernel_wait'), '.0f'):>9} "
                f"{fmt(i.get('other'), '.0f'):>10} {fmt(k.get('COMPUTATION'), '.0f'):>11} "
                f"{fmt(k.get('COMMUNICATION'), '.0f'):>10} {fmt(k.get('MEMORY'), '.0f'):>9} "
                f"{fmt(k.get('OTHER'), '.0f'):>8} {len(rec['errors'])}")
    lines.append("it = iterations kept by HTA; idle by cause summed over streams; *_us (kernel types) = summed "
                 "dur by HTA's get_kernel_type (unmerged); err = recorded failures/NaNs (see JSON).")
    lines += ["", "get_gpu_kernel_breakdown, kernel-type table (merged µs, all ranks; HTA has no OTHER row):"]
    for name, rec in results.items():
        rows = rec.get("kernels") or []
        cells = ", ".join(f"{r['kernel_type'].replace(' overlapping ', '+')} {r['sum_us']} ({r['percentage']}%)"
                          for r in rows)
        lines.append(f"  {name}: {cells or '-'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="*", help="trace files, or folders whose traces are each analysed alone")
    ap.add_argument("--ranks-dir", action="append", default=[], help="a folder analysed as one multi-rank job")
    ap.add_argument("--calls", default=",".join(CALLS), help=f"comma list from {','.join(CALLS)}")
    ap.add_argument("--out", type=Path, help="write the JSON here")
    ap.add_argument("--verbose", action="store_true", help="keep HTA's own log output")
    a = ap.parse_args(argv)
    calls = [c for c in a.calls.split(",") if c]
    if bad := set(calls) - set(CALLS):
        ap.error(f"unknown calls: {sorted(bad)}")
    if not a.verbose:
        logging.getLogger("hta").setLevel(logging.ERROR)
        warnings.simplefilter("ignore", RuntimeWarning)  # HTA's 0/0 -> NaN; recorded as an error instead
    from importlib.metadata import version

    results: dict = {}
    for d in a.ranks_dir:
        results[str(d)] = analyse(str(Path(d).resolve()), calls)
    for f in trace_files(a.traces):
        results[f.name] = analyse_single(f, calls)
    doc = {"hta_version": version("HolisticTraceAnalysis"), "python": sys.version.split()[0], "calls": calls,
           "hta_rules": HTA_RULES, "traces": results}
    if a.out:
        a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

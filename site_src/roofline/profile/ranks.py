"""Many ranks of one job: a folder of per-rank traces read one at a time (or `jobs` at once, each
in its own process), each reduced to its summary, then merged (gpu.mjs mergeRanks): the per-rank
table, the slowest rank and the spread. A map over ranks then a merge of small summaries, so
memory is one rank's step at a time, whatever the number of ranks.

    ranks(folder_or_paths, step=None, hardware=None, jobs=1) -> dict
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from roofline.profile.trace import TraceError
from roofline.render.jsengine import call

SUFFIXES = (".json", ".json.gz")


def rank_files(paths: list[Path]) -> list[Path]:
    """The trace files named, a folder standing for the traces in it (sorted by name)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and f.name.endswith(SUFFIXES))
            if not found:
                raise TraceError("no trace files (.json or .json.gz) in the folder", where=str(p))
            out += found
        else:
            out.append(p)
    return out


def _one(args: tuple) -> dict:
    """One rank's report and its summary (run in a worker process with --jobs)."""
    from roofline.profile.analyse import GPU, report
    path, step, hardware = args
    r = report(path, step, hardware=hardware)
    if r.get("kind") != "gpu":
        raise TraceError("a CPU trace among GPU ranks: name the ranks of one GPU job",
                         where=str(path))
    return {"summary": call(GPU, "rankSummary", r), "report": r}


def ranks(paths: list[Path], step: int | str | None = None, hardware: str | None = None,
          jobs: int = 1) -> dict:
    """The merged table of every rank's step; the slowest rank's whole report beside it."""
    from roofline.profile.analyse import GPU
    files = rank_files(paths)
    work = [(f, step, hardware) for f in files]
    summaries, slowest = [], None
    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 and len(files) > 1 else None
    try:
        for r in (pool.map(_one, work) if pool else map(_one, work)):
            summaries.append(r["summary"])
            if slowest is None or r["report"]["wall_s"] > slowest["wall_s"]:
                slowest = r["report"]
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    merged = call(GPU, "mergeRanks", summaries)
    if "error" in merged:
        raise TraceError(merged["error"], where=str(paths[0]) if len(paths) == 1 else "")
    return {"kind": "ranks", **merged, "slowest_report": slowest}

"""Speed and memory of `roofline profile` against Holistic Trace Analysis on the same GPU traces,
interleaved in one run (issue #45): per round, ours then HTA on one trace, then ours then HTA on
a folder of ranks. Each run's wall time, the peak RSS and PSS summed over its whole process tree
(sampled every 0.1 s: HTA forks a pool, we fork --jobs workers) and the load average around it.

    python -m benchmarks.hta_speed --hta-python /path/to/venv/bin/python \\
        --single TRACE --ranks DIR [--rounds 3] [--jobs 2] [--out FILE.txt]

HTA runs through benchmarks/hta_baseline.py (TraceAnalysis, then its temporal breakdown and its
communication/compute overlap) in its own venv; ours is `roofline profile` (the last step of
each rank: its time account and, with shapes, its roofline)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent


def _tree(root: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def _kb(pid: int, path: str, key: str) -> int:
    try:
        with open(f"/proc/{pid}/{path}") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(cmd: list[str]) -> dict:
    """Wall seconds, peak tree RSS and PSS (MiB) and the load average before and after."""
    before = open("/proc/loadavg").read().split()[:3]
    peak = {"rss": 0, "pss": 0}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def sample() -> None:
        while proc.poll() is None:
            pids = _tree(proc.pid)
            peak["rss"] = max(peak["rss"], sum(_kb(p, "status", "VmRSS:") for p in pids))
            peak["pss"] = max(peak["pss"], sum(_kb(p, "smaps_rollup", "Pss:") for p in pids))
            time.sleep(0.1)

    th = threading.Thread(target=sample)
    th.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - t0
    th.join()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-400:]}")
    return {"wall_s": wall, "rss_mib": peak["rss"] / 1024, "pss_mib": peak["pss"] / 1024,
            "load": (before, open("/proc/loadavg").read().split()[:3])}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hta-python", required=True)
    p.add_argument("--single", type=Path, required=True)
    p.add_argument("--ranks", type=Path, required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    ours = [sys.executable, "-m", "roofline", "profile", "--format", "json"]
    hta = [args.hta_python, str(HERE / "hta_baseline.py"), "--calls", "temporal,overlap",
           "--out", str(tmp / "hta.json")]
    cases = [("single", "ours", ours + [str(args.single)]),
             ("single", "HTA", hta + [str(args.single)]),
             ("ranks", "ours", ours + [str(args.ranks), "--jobs", str(args.jobs)]),
             ("ranks", "HTA", hta + ["--ranks-dir", str(args.ranks)])]
    results: dict[tuple[str, str], list[dict]] = {}
    lines = []
    for r in range(1, args.rounds + 1):
        for what, who, cmd in cases:
            got = run(cmd)
            results.setdefault((what, who), []).append(got)
            line = (f"round {r} {what:<6} {who:<4} wall {got['wall_s']:7.2f} s  tree RSS "
                    f"{got['rss_mib']:7.0f} MiB  PSS {got['pss_mib']:7.0f} MiB  load "
                    f"{' '.join(got['load'][0])} -> {' '.join(got['load'][1])}")
            print(line, flush=True)
            lines.append(line)
    size = sum(f.stat().st_size for f in args.ranks.iterdir() if f.is_file())
    head = [f"single: {args.single} ({args.single.stat().st_size} bytes on disk)",
            f"ranks: {args.ranks} ({len(list(args.ranks.iterdir()))} files, {size} bytes), "
            f"ours with --jobs {args.jobs}", f"{os.cpu_count()} CPUs", "medians:"]
    for (what, who), rs in results.items():
        walls = ", ".join(f"{x['wall_s']:.2f}" for x in rs)
        head.append(f"  {what:<6} {who:<4} wall {statistics.median(x['wall_s'] for x in rs):.2f} s"
                    f"  tree RSS {statistics.median(x['rss_mib'] for x in rs):.0f} MiB"
                    f"  PSS {statistics.median(x['pss_mib'] for x in rs):.0f} MiB"
                    f"  (walls {walls})")
    text = "\n".join(head + ["", *lines]) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Our GPU time account beside Holistic Trace Analysis's, trace by trace (issue #45): idle %,
compute %, non-compute % and communication/compute overlap %, over the iterations HTA keeps.

    python -m benchmarks.hta_compare HTA_FIGURES.json TRACE_DIR... [--out FILE.md]

HTA_FIGURES.json is what benchmarks/hta_baseline.py wrote (run with HTA's own venv: HTA needs
pandas, which this package does not). HTA drops each rank's last ProfilerStep and the kernels it
launched; here the same steps are one window (`--step FIRST-(LAST-1)`), so both sides account
for the same kernels but the ones launched before the first step, which HTA keeps."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from roofline.errors import RooflineError
from roofline.profile.analyse import report, survey

HARDWARE = {"hta-sampled-rank-0-of-128.json.gz": "a100-sxm-80gb",
            "hta-sampled-rank-1-of-128.json.gz": "a100-sxm-80gb"}
"""Traces with no deviceProperties: the chip their kernels' names (sm80 cutlass) show."""


def ours(path: Path) -> dict:
    """Our figures for the window HTA keeps, or {"error": line}."""
    try:
        steps = sorted(map(int, survey(path)["steps"]))
        step = f"{steps[0]}-{steps[-2]}" if len(steps) >= 2 else "all"
        r = report(path, step, hardware=HARDWARE.get(path.name))
    except RooflineError as exc:
        return {"error": str(exc).split(": ", 1)[-1]}
    a, w = r["account"], r["wall_s"]
    return {"window": r["step"], "idle": a["idle_s"] / w, "compute": a["compute_s"] / w,
            "non_compute": (a["busy_s"] - a["compute_s"]) / w,
            "overlap": (a["communication_overlapped_s"] / a["communication_s"]
                        if a["communication_s"] else None),
            "wall_us": w * 1e6}


def theirs(fig: dict) -> dict:
    rank = next(iter(fig["temporal"]), None)
    if rank is None:
        return {"error": "; ".join(fig.get("errors", [])) or "no figures"}
    t = fig["temporal"][rank]
    ov = (fig.get("overlap") or {}).get(rank, {}).get("comp_comm_overlap_pctg")
    return {"idle": t["idle_time_pctg"] / 100, "compute": t["compute_time_pctg"] / 100,
            "non_compute": t["non_compute_time_pctg"] / 100,
            "overlap": None if ov is None or ov != ov else ov / 100,
            "wall_us": t["kernel_time(us)"]}


def pct(v) -> str:
    return "—" if v is None else f"{v * 100:.1f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("figures", type=Path)
    p.add_argument("dirs", type=Path, nargs="+")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    figures = json.loads(args.figures.read_text())["traces"]
    rows = ["| trace | window (ours) | idle % ours / HTA | compute % | non-compute % | "
            "overlap % | step µs ours / HTA |", "|---|---|---|---|---|---|---|"]
    for d in args.dirs:
        for path in sorted(d.glob("*.json.gz")):
            fig = figures.get(path.name) if isinstance(figures, dict) else next(
                (f for f in figures if f.get("trace") == path.name), None)
            if fig is None:
                continue
            o, h = ours(path), theirs(fig)
            if "error" in o or "error" in h:
                rows.append(f"| {path.name} | {o.get('error', o.get('window'))} | "
                            f"HTA: {h.get('error', 'read')} | | | | |")
                continue
            pair = lambda k: f"{pct(o[k])} / {pct(h[k])}"  # noqa: E731
            rows.append(f"| {path.name} | {o['window']} | {pair('idle')} | {pair('compute')} | "
                        f"{pair('non_compute')} | {pair('overlap')} | "
                        f"{o['wall_us']:.0f} / {h['wall_us']:.0f} |")
    text = "\n".join(rows) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

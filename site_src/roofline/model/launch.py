"""Launch overhead, the third regime: one model for the whole site.

Every launched kernel adds a gap t_launch to its roofline time:

    t_kernel = max(FLOPs / peak, bytes / BW) + t_launch

The tokens rule's overhead regime (a kernel is overhead-bound when t_launch outlasts its
roofline time), the time budget's launch term (launches × t_launch, roofline.model.budget), the
lesson's launch figures and formula (lesson_site.steptime) and the roofline widget's launch
ceiling (widgets/roofline/payload.launch_payload) all use the functions below.

Why a gap added to every kernel, not a floor (t ≥ max(FLOPs / peak, bytes / BW, t_launch)):
the basis (data/overhead.toml, NVIDIA's CUDA Graphs walkthrough) times one 2.9 µs kernel back
to back at 3.8 µs per kernel when launches overlap and 9.6 µs when each is synchronised. In
both the overhead is added to the kernel's own time, 0.9 µs and 6.7 µs. A floor would charge a
kernel longer than t_launch nothing, but the overlapped case shows the GPU-side gap (ramp-up,
tail, the next launch's latency) paid by a kernel whose host launch was already hidden. Both
(a host floor overlapped with the GPU plus a GPU-side gap) would need two figures the one
source does not separate; one gap spans both ends instead: 0.9 µs is the GPU-side gap alone
(the host keeps ahead), 6.7 µs the whole launch latency exposed (the host does not). The
default, 4 µs, is a round figure inside that range; launch_range() gives its ends so a page
can show how an answer moves across it.

Launch modes. `eager` is that gap: each kernel launched from the host. `graphs` is the gap left
when the step's kernels are captured and replayed as one CUDA graph, as serving stacks run
decode (the same walkthrough's 3.4 µs per kernel as a graph, less the kernel's 2.9 µs: data
entry [launch.graphs], checked against [launch.measured]). The serving window defaults to
`graphs`; the budget to `eager` (a training step is launched eagerly).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from roofline.errors import RooflineError
from roofline.model import datafile as _toml
from roofline.model.datafile import Fields

OVERHEAD_PATH = _toml.DATA_DIR / "overhead.toml"
MEASURED = ("kernel_seconds", "overlapped_seconds", "synchronised_seconds", "graph_seconds")
LAUNCH_MODES = ("graphs", "eager")
"""How kernels are launched: replayed as a CUDA graph, or one by one from the host."""
MODE_LABELS = {"graphs": "CUDA graphs", "eager": "eager"}


@dataclass(frozen=True)
class LaunchOverhead:
    """data/overhead.toml's launch figure, its basis and what its source measured."""
    seconds: float
    basis: str
    source: str
    source_title: str
    url: str
    note: str
    measured: dict[str, float]
    """Per-kernel times the source measured for one short kernel (MEASURED's keys)."""
    graphs_seconds: float = 0.0
    """The gap per kernel replayed as a CUDA graph ([launch.graphs])."""
    graphs_basis: str = ""
    graphs_note: str = ""

    def mode_seconds(self, mode: str) -> float:
        """The gap per kernel in a launch mode (LAUNCH_MODES)."""
        if mode not in LAUNCH_MODES:
            raise RooflineError(f"unknown launch mode {mode!r}", field="launch",
                                valid=list(LAUNCH_MODES))
        return self.graphs_seconds if mode == "graphs" else self.seconds

    @property
    def overlapped_s(self) -> float:
        """The gap when the host's launches overlap the GPU: the low end of the range."""
        return self.measured["overlapped_seconds"] - self.measured["kernel_seconds"]

    @property
    def synchronised_s(self) -> float:
        """The gap when each launch is waited for: the high end of the range."""
        return self.measured["synchronised_seconds"] - self.measured["kernel_seconds"]

    @property
    def graph_s(self) -> float:
        """The gap left when the kernels are replayed as one CUDA graph."""
        return self.measured["graph_seconds"] - self.measured["kernel_seconds"]

    def launch_range(self) -> tuple[tuple[str, float], ...]:
        """(label, seconds) from the overlapped gap through the default to the synchronised."""
        return (("launches overlapped", self.overlapped_s), ("the default", self.seconds),
                ("each launch synchronised", self.synchronised_s))


def load_launch(path: Path | str | None = None) -> LaunchOverhead:
    """data/overhead.toml (or `path`), read once per version of the file: the key is (path,
    mtime_ns, size), so an edit under `mkdocs serve` is seen (a build asks ~140 times)."""
    return _cached_launch(_toml.file_key(Path(path) if path else OVERHEAD_PATH))


@functools.lru_cache(maxsize=4)
def _cached_launch(key: tuple[str, int, int]) -> LaunchOverhead:
    path = Path(key[0])
    data = _toml.load(path)
    where = str(path)
    sources = data.get("sources", {})
    f = Fields(data.get("launch"), where=where, entry="launch")
    seconds = f.positive("seconds")
    if seconds >= 1e-3:
        raise RooflineError(f"{seconds!r} s per launch is implausible: seconds expected",
                            where=where, entry="launch", field="seconds")
    basis, source, note = f.get("basis", str), f.get("source", str), f.get("note", str)
    m = f.sub("measured")
    measured = {k: m.positive(k) for k in MEASURED}
    m.finish()
    g = f.sub("graphs")
    graphs = g.positive("seconds")
    g_basis, g_source, g_note = g.get("basis", str), g.get("source", str), g.get("note", str)
    g.finish()
    f.finish()
    for k in MEASURED[1:]:
        if measured[k] <= measured["kernel_seconds"]:
            raise RooflineError("a per-kernel time must exceed kernel_seconds", where=where,
                                entry="launch", field=f"measured.{k}")
    for what, s in (("source", source), ("graphs.source", g_source)):
        if s not in sources:
            raise RooflineError(f"unknown source {s!r}", where=where, entry="launch",
                                field=what, valid=sorted(sources))
    derived = measured["graph_seconds"] - measured["kernel_seconds"]
    if abs(graphs - derived) > 1e-9 * derived:  # one figure, written twice: they must agree
        raise RooflineError(f"{graphs!r} s is not measured.graph_seconds − "
                            f"measured.kernel_seconds ({derived:.3g} s)", where=where,
                            entry="launch", field="graphs.seconds")
    s = Fields(sources[source], where=where, entry=f"sources.{source}")
    title, url = s.get("title", str), s.get("url", str)
    s.finish()
    return LaunchOverhead(seconds, basis, source, title, url, note, measured, graphs, g_basis,
                          g_note)


def roofline_time(flops: float, bytes_: float, peak_flops_per_s: float,
                  bandwidth_bytes_per_s: float) -> float:
    return max(flops / peak_flops_per_s, bytes_ / bandwidth_bytes_per_s)


def kernel_time(flops: float, bytes_: float, peak_flops_per_s: float,
                bandwidth_bytes_per_s: float, launch_s: float) -> float:
    """t = max(FLOPs / peak, bytes / BW) + t_launch."""
    return roofline_time(flops, bytes_, peak_flops_per_s, bandwidth_bytes_per_s) + launch_s


def attainable_flops_per_s(flops: float, bytes_: float, peak_flops_per_s: float,
                           bandwidth_bytes_per_s: float, launch_s: float) -> float:
    """FLOPs / kernel_time: below both the roofline's attainable and the launch ceiling
    FLOPs / t_launch, and never below half the lower of the two (the two times add)."""
    return flops / kernel_time(flops, bytes_, peak_flops_per_s, bandwidth_bytes_per_s, launch_s)


def regime(flops: float, bytes_: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float,
           launch_s: float) -> str:
    """'overhead' when the launch gap outlasts the roofline time (more than half of the
    kernel's time); otherwise 'memory' strictly below the ridge and 'compute' at or above it
    (as maths.bound)."""
    if launch_s > roofline_time(flops, bytes_, peak_flops_per_s, bandwidth_bytes_per_s):
        return "overhead"
    return "memory" if flops / bytes_ < peak_flops_per_s / bandwidth_bytes_per_s else "compute"


def launch_share(launches: float, launch_s: float, roofline_step_s: float) -> float:
    """The launch gaps a step adds, as a fraction of its roofline time."""
    return launches * launch_s / roofline_step_s

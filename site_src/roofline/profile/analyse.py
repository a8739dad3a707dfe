"""One profiled step on the roofline, for the hosts that run in Python (`roofline profile`,
the ```roofline-profile fence, Sphinx, notebooks): the trace is streamed by trace.py and every
event goes to analyse.mjs (a CPU trace) or gpu.mjs (a trace with GPU kernels) — the one copy of
the analysis, which the drop page runs in the browser — through the build's JS engine, in chunks,
in two passes of bounded memory (the survey, then the chosen step's events). The conventions are
stated at the head of each .mjs file.

    report(path, step=None, measurement=None, hardware=None) -> dict   # the one entry point
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from roofline.errors import RooflineError
from roofline.profile.trace import TraceError, stream
from roofline.render.jsengine import call, call_json

JS = Path(__file__).with_name("analyse.mjs")
GPU = Path(__file__).with_name("gpu.mjs")
TIMELINE = Path(__file__).with_name("timeline.mjs")
CHUNK_EVENTS = 4096
"""Events handed to the JS engine per call: large enough that a call's cost is noise, small
enough that a chunk's JSON is a few MB at most."""
BUILD_MACHINE = "measurement-build-machine.json"


@dataclass(frozen=True)
class Roof:
    label: str
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float
    basis: str


def _chunks(path: Path) -> Iterator[tuple[int, list[str], list]]:
    """(number, events' JSON texts, meta pairs) of the trace, CHUNK_EVENTS events at a time."""
    events: list[str] = []
    meta: list = []
    n = 0
    for kind, value in stream(path, raw=True):
        if kind == "meta":
            meta.append(list(value))
            continue
        events.append(value)
        if len(events) >= CHUNK_EVENTS:
            yield n, events, meta
            n, events, meta = n + 1, [], []
    yield n, events, meta


def _events(texts: list[str]) -> str:
    return "[" + ",".join(texts) + "]"


def _ok(result: dict, path: Path, field: str | None = None) -> dict:
    if isinstance(result, dict) and "error" in result:
        raise TraceError(result["error"], where=str(path), field=result.get("field") or field)
    return result


def survey(path: Path | str) -> dict:
    """First pass: the steps, what the trace recorded and on which device, and each chunk's
    time span (so the second pass decodes only the chunks of the chosen step)."""
    path = Path(path)
    state = call(JS, "newSurvey")
    for n, events, meta in _chunks(path):
        state = call_json(JS, "surveyEvents", f"[{json.dumps(state)},{_events(events)},"
                                              f"{json.dumps(meta)},{n}]")
    return _ok(call(JS, "finishSurvey", state), path)


def analyse(path: Path | str, roof: Roof, step: int | None = None,
            info: dict | None = None) -> dict:
    """The report of one step (the last by default) on `roof`; `info`: survey()'s, if taken."""
    from roofline.profile.terms import terms
    path = Path(path)
    info = survey(path) if info is None else info
    window = _ok(call(JS, "pickStep", info, step), path)
    wanted = set(call(JS, "chunksFor", info, window))
    nodes: list = []
    for n, events, _ in _chunks(path):
        if n in wanted:
            nodes += call_json(JS, "stepEvents", f"[{json.dumps(window)},{_events(events)}]")
    return call(JS, "stepReport", {"info": info, "window": window, "nodes": nodes,
                                   "roof": dataclasses.asdict(roof), "terms": terms(),
                                   "trace": str(path)})


def cpu_roof(measurement: dict) -> Roof:
    """The measured CPU roofline: the DRAM bandwidth roof and the fp32 matmul roof."""
    r = call(JS, "cpuRoof", measurement)
    if "error" in r:
        raise TraceError(r["error"], field="measurement")
    return Roof(r["label"], r["peak_flops_per_s"], r["bandwidth_bytes_per_s"], r["basis"])


def gpu_analyse(path: Path | str, step: int | str | None = None, *,
                hardware: str | None = None, info: dict | None = None) -> dict:
    """The report of one step of a GPU trace (the last by default; "all": the whole trace) on
    its chip's roofline: the chip from the trace's deviceProperties (data/devices.toml), or
    `hardware`, which always wins."""
    from roofline.profile.kinds import chip_roof, device_rules, kernel_kinds
    from roofline.profile.terms import terms
    path = Path(path)
    info = survey(path) if info is None else info
    if hardware:
        from roofline.model.catalog import default_catalog
        try:
            default_catalog()[hardware]
        except RooflineError as exc:
            raise TraceError(str(exc), where="--hardware") from None
        chip = chip_roof(hardware, f"--hardware {hardware}")
    else:
        found = _ok(call(GPU, "chipFor", info["meta"].get("deviceProperties"), device_rules()),
                    path, "hardware")
        chip = chip_roof(found["chip"], f"deviceProperties \"{found['device']}\": {found['rule']}")
    kinds, cost_terms = kernel_kinds(), terms()
    # The last step by default; one that launched nothing (a trace often ends inside a step)
    # gives way to the step before it.
    tries = [step] if step is not None else (
        [n for n in sorted(map(int, info["steps"]), reverse=True)] or [None])
    for n in tries:
        window = _ok(call(JS, "pickStep", info, n), path)
        # each chunk's share into empty parts (gpu.mjs newGpuParts), gathered here
        empty = json.dumps(call(GPU, "newGpuParts"))
        parts: dict[str, list] = json.loads(empty)
        for _, events, _ in _chunks(path):
            got = call_json(GPU, "gpuStepEvents",
                            f"[{empty},{json.dumps(window)},{_events(events)}]")
            for k in parts:
                parts[k] += got[k]
        r = call(GPU, "gpuReport", {"info": info, "window": window, "parts": parts, "chip": chip,
                                    "kinds": kinds, "terms": cost_terms, "trace": str(path)})
        if "error" not in r:
            break
    return _ok(r, path)


def report(path: Path | str, step: int | str | None = None, *,
           measurement: Path | None = None, hardware: str | None = None) -> dict:
    """The one way a Python host gets a trace's report: the trace surveyed once, placed on the
    roofline of the machine it ran on. A trace with GPU kernels goes on its chip's roofline
    (gpu_analyse); a CPU trace on a measured CPU roofline (`measurement`, default the build
    machine's), and a chip named for it is an error."""
    from roofline.measure.schema import load
    from roofline.model import datafile as _toml
    path = Path(path)
    info = survey(path)
    if call(JS, "deviceOf", info) == "gpu":
        if measurement:
            raise TraceError("a GPU trace goes on its chip's roofline, not a measured CPU's: "
                             "drop --measurement (name the chip with --hardware if need be)",
                             where="--measurement")
        return gpu_analyse(path, step, hardware=hardware, info=info)
    if isinstance(step, str):
        raise TraceError(f"--step {step} is for a GPU trace's kernels; a CPU trace is read one "
                         "ProfilerStep at a time (--step N)", where="--step")
    if hardware:
        raise TraceError(f"a CPU-only trace (no GPU kernels): its ops ran on the CPU, not on "
                         f"{hardware}; drop --hardware to place it on the measured CPU roofline",
                         where="--hardware")
    doc = load(measurement or _toml.DATA_DIR / BUILD_MACHINE)
    return analyse(path, cpu_roof(doc), step, info)

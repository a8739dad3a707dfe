"""roofline.measure: the measurement schema (Python half of the case file), the CLI contract,
the model's costs on every measured op, the ceilings and the predicted-vs-measured maths, and
the fences that put a measurement on a page. Timings themselves go to BENCHMARKS.md, never
into assertions."""

from __future__ import annotations

import copy
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pymdownx.superfences import SuperFencesException

from roofline import cli
from roofline.model import ops as costs
from roofline.errors import RooflineError
from roofline.measure import PLANS, load, validate
from roofline.measure import cpu, gpu, machine
from roofline.measure.verdict import op_checks, verdict
from roofline.measure.runner import ceilings
from roofline.measure.schema import schema
from roofline.measure.tables import ceilings_table, ops_check_table, stream_table, verdict_sentences
from roofline.measure.timing import Method, Progress, time_call, time_interleaved
from roofline.widgets.measurement.settings import resolve

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "tests" / "cases" / "measure_cases.json").read_text(encoding="utf-8"))
BUNDLED = ROOT / "site_src" / "roofline" / "data" / "measurement-build-machine.json"


def mutate(case: dict):
    if "replace" in case:
        return case["replace"]
    doc = copy.deepcopy(CASES["base"])
    for path, value in case.get("set", []):
        at = doc
        for key in path[:-1]:
            at = at[key]
        at[path[-1]] = value
    for path in case.get("delete", []):
        at = doc
        for key in path[:-1]:
            at = at[key]
        del at[path[-1]]
    return doc


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """`roofline measure` run once, for real, in a subprocess, at the test suite's size
    (seconds; its numbers mean little). `--quick` is timed in BENCHMARKS.md, not here."""
    out = tmp_path_factory.mktemp("measure") / "m.json"
    # This tree's package, not whichever checkout is installed (a worktree's tests ran
    # another checkout's `roofline` before)
    path = os.pathsep.join(filter(None, [str(ROOT / "site_src"), os.environ.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-m", "roofline", "measure", "--plan", "tiny",
                           "--out", str(out), "--label", "CI box"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": path})
    return proc, out


@pytest.fixture(scope="module")
def tiny(tiny_run) -> dict:
    proc, out = tiny_run
    assert proc.returncode == 0, proc.stderr
    return load(out)


# ---------------------------------------------------------------- the schema

def test_case_base_and_bundled_measurement_are_valid():
    validate(CASES["base"], where="case base")
    doc = load(BUNDLED)
    assert "built on" in doc["label"]
    assert doc["machine"]["cpu_model"] and doc["created_utc"][:4].isdigit()
    assert doc["mode"] in ("full", "quick")


@pytest.mark.parametrize("case", CASES["invalid"], ids=[c["name"] for c in CASES["invalid"]])
def test_bad_documents_are_rejected_naming_file_and_field(case):
    with pytest.raises(RooflineError) as err:
        validate(mutate(case), where="bad.json")
    assert err.value.where == "bad.json"
    assert err.value.field == case["field"]
    assert str(err.value).startswith(f"bad.json: field '{case['field']}': ")


def test_at_least_five_kinds_of_bad_file():
    assert len({c["field"] for c in CASES["invalid"]}) >= 5


def test_bad_files_on_disk_name_the_file(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(RooflineError, match=r"broken\.json: not valid JSON"):
        load(broken)
    with pytest.raises(RooflineError, match=r"missing\.json: file not found"):
        load(tmp_path / "missing.json")
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**CASES["base"], "schema_version": 3}), encoding="utf-8")
    with pytest.raises(RooflineError, match=r"newer\.json: field 'schema_version': this site "
                                            r"reads version 2.*re-run `roofline measure`"):
        load(newer)


def test_schema_file_is_json_schema_with_a_version():
    s = schema()
    assert s["properties"]["schema_version"] == {"const": 2}
    assert s["properties"]["format"] == {"const": "roofline-measurement"}


# ---------------------------------------------------------------- a run

def test_a_run_is_valid_and_complete(tiny):
    validate(tiny)
    assert {s["kernel"] for s in tiny["stream"]} == {"read", "copy", "scale", "add", "triad"}
    assert {m["precision"] for m in tiny["matmul"]} == {"fp64", "fp32"}
    assert {o["kind"] for o in tiny["ops"]} == {"rmsnorm", "softmax", "gelu", "bias_add",
                                                 "gemv", "gemm"}
    assert {s["level"] for s in tiny["stream"]} >= {"L1", "DRAM"}
    # Even the tiny plan measures DRAM by the rule: each array 4 × the last-level cache, on
    # one thread and on every usable CPU; the roof is the all-thread run's and is recorded
    # with its working set.
    llc = max(c["size_bytes"] for c in tiny["machine"]["caches"])
    dram = [s for s in tiny["stream"] if s["level"] == "DRAM"]
    assert dram and all(s["array_bytes"] >= 4 * llc for s in dram)
    assert {s["threads"] for s in dram} == {1, tiny["machine"]["usable_cpus"]}
    roof = next(b for b in tiny["ceilings"]["bandwidth"] if b["level"] == "DRAM")
    assert roof["threads"] == tiny["machine"]["usable_cpus"] and roof["array_bytes"] >= 4 * llc
    chk = tiny["checks"]["triad_vs_roof"]
    assert chk["last_level_cache_bytes"] == llc and chk["triad_array_bytes"] >= 4 * llc
    assert chk["ratio"] == chk["triad_bandwidth_bytes_per_s"] / roof["bandwidth_bytes_per_s"]
    assert len(tiny["machine"]["load_average_end"]) == 3
    for entry in tiny["stream"] + tiny["matmul"] + tiny["ops"]:
        t = entry["time_s"]
        assert len(t["samples"]) == PLANS["tiny"].method.repeats
        assert t["min"] == min(t["samples"]) and t["max"] == max(t["samples"])


def test_machine_description_says_what_it_could_not_find(tiny):
    m = tiny["machine"]
    assert m["cpu_model"] == machine.cpu_model()
    assert m["logical_cpus"] >= 1 and m["caches"]
    blas = m["blas"]["threadpoolctl"]
    try:
        import threadpoolctl  # noqa: F401
    except ImportError:
        assert blas.startswith("not installed")
    else:
        assert isinstance(blas, list)
    assert tiny["versions"]["numpy"] and tiny["versions"]["python"]


def test_ops_carry_the_models_costs(tiny):
    """Every op's FLOPs and bytes are the cost functions' own, at 4 bytes per element."""
    conv = costs.default_zoo().conventions
    expect = {
        "rmsnorm": lambda s: costs.rmsnorm(s["rows"], s["d"], 4.0, conv=conv),
        "softmax": lambda s: costs.softmax(s["rows"], s["d"], 4.0, conv=conv),
        "gelu": lambda s: costs.activation(s["n"], 4.0, "gelu", conv=conv),
        "bias_add": lambda s: costs.bias_add(s["rows"], s["cols"], 4.0),
        "gemv": lambda s: costs.gemv(s["n"], s["k"], 4.0),
        "gemm": lambda s: costs.gemm(s["m"], s["n"], s["k"], 4.0),
    }
    for op in tiny["ops"]:
        model = expect[op["kind"]](op["shape"])
        assert (op["flops"], op["bytes"]) == (model.flops, model.bytes), op["id"]
        assert op["bytes_per_element"] == 4.0


def test_ceilings_come_from_dedicated_kernels_only():
    def run(level, kernel, threads, bw, array=256 * 2 ** 20):
        return {"level": level, "kernel": kernel, "threads": threads, "array_bytes": array,
                "working_set_bytes": 3 * array, "bandwidth_bytes_per_s": bw}
    stream = [run("DRAM", "copy", 1, 30e9), run("DRAM", "add", 2, 14e9),
              run("DRAM", "triad", 2, 12e9), run("DRAM", "read", 2, 50e9),
              run("between", "copy", 1, 99e9, 16 * 2 ** 20), run("L2", "add", 1, 40e9, 8192),
              run("L2", "read", 1, 80e9, 8192)]
    matmul = [{"precision": "fp32", "flops_per_s": 100e9, "n": 1024},
              {"precision": "fp32", "flops_per_s": 120e9, "n": 2048}]
    c = ceilings(stream, matmul, "DRAM")
    dram, l2 = c["bandwidth"]  # "between" is never a roof
    # The memory roof is the all-thread runs' best (a faster one-thread run is a fluke of a
    # busy machine, not the rule), and `read`, which stores nothing, sets no roof anywhere.
    assert (dram["kernel"], dram["threads"], dram["bandwidth_bytes_per_s"]) == ("add", 2, 14e9)
    assert dram["array_bytes"] == 256 * 2 ** 20 and dram["working_set_bytes"] == 3 * 2 ** 28
    assert (l2["level"], l2["bandwidth_bytes_per_s"]) == ("L2", 40e9)
    assert c["compute"] == [{"precision": "fp32", "flops_per_s": 120e9, "from": "matmul n=2048"}]


def test_ops_never_set_the_roof_they_are_judged_against():
    doc = load(BUNDLED)
    rebuilt = ceilings(doc["stream"], doc["matmul"], doc["ceilings"]["memory_level"])
    assert rebuilt == doc["ceilings"]
    assert not any("op " in c.get("from", "") for c in doc["ceilings"]["compute"])


def test_cache_levels_leave_headroom_and_dram_is_four_times_the_last_level():
    sizes = {"L1": 32 * 1024, "L2": 512 * 1024, "L3": 32 * 2 ** 20}
    assert cpu.level_of(16 * 1024, sizes) == "L1"
    assert cpu.level_of(17 * 1024, sizes) == "L2"
    assert cpu.level_of(16 * 2 ** 20, sizes) == "L3"
    assert cpu.level_of(40 * 2 ** 20, sizes) == "between"
    # 96 MiB (3 × L3), the old DRAM size, is no longer DRAM; nor is 3 × 100 MiB arrays
    assert cpu.level_of(96 * 2 ** 20, sizes) == "between"
    assert cpu.level_of(300 * 2 ** 20, sizes, 100 * 2 ** 20) == "between"
    assert cpu.level_of(768 * 2 ** 20, sizes, 256 * 2 ** 20) == "DRAM"
    assert cpu.dram_array_bytes(sizes) == 128 * 2 ** 20  # STREAM's 4 × the caches


def test_stream_kernels_size_dram_arrays_by_the_last_level_cache():
    sizes = {"L1": 32 * 1024, "L2": 512 * 1024, "L3": 32 * 2 ** 20}
    ks = cpu.stream_kernels(PLANS["tiny"], sizes, threads=4)
    records = [r for k in ks for r in (k.records if isinstance(k, cpu.Batch) else (k.record,))]
    dram = [r for r in records if r["level"] == "DRAM"]
    # The DRAM kernels are timed together, interleaved, on one set of arrays per thread count
    assert [len(k.records) for k in ks if isinstance(k, cpu.Batch)] == [5, 5]
    assert all(r["level"] != "DRAM" for k in ks if isinstance(k, cpu.Kernel)
               for r in (k.record,))
    assert {r["threads"] for r in dram} == {1, 4}
    assert {r["array_bytes"] for r in dram} == {128 * 2 ** 20}
    assert {r["kernel"]: r["working_set_bytes"] / r["array_bytes"] for r in dram} == {
        "read": 1, "copy": 2, "scale": 2, "add": 3, "triad": 3}
    # The blocked triad streams what STREAM counts: its temporary stays in L2.
    triad = next(r for r in dram if r["kernel"] == "triad")
    assert triad["implementation_bytes"] == triad["bytes"]


def test_the_blocked_triad_computes_stream_triad():
    import numpy as np
    n = 10_001  # not a multiple of the block: the last block is short
    a, b, c = np.zeros(n), np.arange(n, dtype=float), np.linspace(0, 1, n)
    cpu.blocked_triad(a, b, c, 3.0, block=4096)()
    assert np.array_equal(a, b + 3.0 * c)


def test_interleaved_timing_takes_turns_and_keeps_every_sample():
    order = []
    ticks = iter(range(10_000))
    clock = lambda: next(ticks) * 1e-3  # noqa: E731
    fns = [lambda: order.append("a"), lambda: order.append("b")]
    out = time_interleaved(fns, Method(warmup=1, repeats=3, min_sample_s=0.001), clock=clock)
    assert [len(r["samples"]) for r in out] == [3, 3]
    assert "".join(order) == "ab" + "ab" * 3  # one call each to size them, then turn by turn


def test_timing_repeats_short_calls_and_keeps_every_sample():
    calls = []
    ticks = iter(range(10_000))
    clock = lambda: next(ticks) * 1e-3  # noqa: E731  every reading 1 ms later
    result = time_call(lambda: calls.append(1), Method(warmup=2, repeats=4, min_sample_s=0.005),
                       clock=clock)
    assert result["inner_loops"] == 5  # the first call "took" 1 ms; a sample must last 5 ms
    assert len(result["samples"]) == 4
    assert len(calls) == 1 + 5 * (2 - 1) + 4 * 5
    assert result["min"] <= result["median"] <= result["max"]


def test_progress_bar_on_a_pipe_writes_whole_lines():
    out = io.StringIO()
    bar = Progress(3, stream=out)
    for label in ("copy 8 KiB", "add", "triad"):
        bar.step(label)
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and "\r" not in out.getvalue()
    assert lines[0].startswith("[") and "0/3" in lines[0] and "copy 8 KiB" in lines[0]
    assert lines[-1].endswith("done") and "3/3" in lines[-1]


def test_estimate_counts_fills_samples_and_the_sample_floor():
    # At 1 GB/s and 1 GFLOP/s, with warmup=1 (the sizing call is the warm-up, as in
    # time_call) and 3 repeats, 4 calls: a stream kernel of three 1 GB arrays moving 2 GB per
    # call fills 3 GB (3 s), then 4 calls of 2 s; a 0.5 GFLOP matmul's 0.5 s calls; an op below the 0.1 s floor costs the floor.
    method = Method(warmup=1, repeats=3, min_sample_s=0.1)
    rates = {"bytes_per_s": 1e9, "flops_per_s": 1e9}
    stream = cpu.Kernel("stream", "copy", lambda: None,
                        {"array_bytes": 1e9, "implementation_bytes": 2e9, "bytes": 2e9})
    matmul = cpu.Kernel("matmul", "mm", lambda: None, {"flops": 5e8})
    small = cpu.Kernel("ops", "tiny", lambda: None, {"bytes": 1e3, "flops": 1e3,
                                                     "implementation_bytes": 1e3})
    assert cpu.estimate_seconds([stream], method, rates) == pytest.approx(3 + 4 * 2)
    assert cpu.estimate_seconds([matmul], method, rates) == pytest.approx(4 * 0.5)
    assert cpu.estimate_seconds([small], method, rates) == pytest.approx(4 * 0.1)
    rates_ = cpu.probe_rates(0.001)
    assert rates_["bytes_per_s"] > 1e8 and rates_["flops_per_s"] > 1e8


# ---------------------------------------------------------------- the CLI

def test_cli_writes_a_valid_file_with_progress_on_stderr(tiny_run):
    proc, out = tiny_run
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    # the plan line, with its time estimate, comes before the first progress line
    first = proc.stderr.splitlines()[0]
    assert first.startswith("roofline measure: plan tiny") and " s on this machine" in first
    assert "done" in proc.stderr and f"wrote {out}" in proc.stderr
    doc = load(out)
    assert doc["label"] == "CI box" and doc["mode"] == "tiny"


def test_cli_quick_flag_picks_the_quick_plan(monkeypatch, tmp_path, capsys):
    seen = {}

    def fake(device, plan, **kw):
        seen.update(device=device, plan=plan)
        return CASES["base"]
    monkeypatch.setattr("roofline.measure.measure", fake)
    assert cli.main(["measure", "--quick", "--out", str(tmp_path / "q.json")]) == 0
    assert seen == {"device": "cpu", "plan": "quick"}
    assert cli.main(["measure", "--no-progress"]) == 0
    assert seen["plan"] == "full"
    assert json.loads(capsys.readouterr().out)["format"] == "roofline-measurement"


def test_cli_cuda_without_a_device_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(gpu, "available", lambda: (False, "torch is not installed"))
    assert cli.main(["measure", "--device", "cuda"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err == ("roofline measure: error: argument --device: --device cuda needs torch with a "
                   "CUDA device: torch is not installed")


def _numpy_torch():
    """Just enough of torch's API, backed by numpy, to run measure/gpu.py's control flow on a
    machine with no GPU (CI). It checks the plumbing, not torch's semantics."""
    import time
    import types

    import numpy as np

    class T:
        def __init__(self, a):
            self.a = a

        def copy_(self, o):
            self.a[...] = o.a
            return self

        def float(self):
            return self

        def to(self, dtype):
            return self

        def pow(self, k):
            return T(self.a ** k)

        def mean(self, dim, keepdim=False):
            return T(self.a.mean(axis=dim, keepdims=keepdim))

        def __add__(self, o):
            return T(self.a + (o.a if isinstance(o, T) else o))

        def __mul__(self, o):
            return T(self.a * (o.a if isinstance(o, T) else o))

    def put(result, target):
        target.a[...] = result
        return target

    class Event:
        def __init__(self, enable_timing=False):
            self.t = None

        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return (other.t - self.t) * 1e3

    randn = lambda *shape, device=None, dtype=None: T(  # noqa: E731
        np.random.default_rng(0).standard_normal(shape, dtype=np.float32))
    torch = types.SimpleNamespace(
        __version__="0-numpy", bfloat16="torch.bfloat16", float32="torch.float32",
        device=lambda name: name, randn=randn,
        full=lambda shape, v, device=None: T(np.full(shape, v, np.float32)),
        ones=lambda n, device=None, dtype=None: T(np.ones(n, np.float32)),
        empty=lambda *shape, device=None, dtype=None: T(np.empty(shape, np.float32)),
        mul=lambda a, s, out: put(a.a * s, out),
        add=lambda a, b, alpha=1.0, out=None: put(a.a + alpha * b.a, out),
        matmul=lambda a, b, out: put(a.a @ b.a, out),
        rsqrt=lambda x: T(1 / np.sqrt(x.a)),
        softmax=lambda x, dim: T(np.exp(x.a)),
        nn=types.SimpleNamespace(functional=types.SimpleNamespace(
            gelu=lambda x, approximate=None: T(np.tanh(x.a)))),
        version=types.SimpleNamespace(cuda="0-numpy"),
        cuda=types.SimpleNamespace(
            is_available=lambda: True, get_device_name=lambda i: "Numpy Stand-in GPU",
            get_device_properties=lambda i: types.SimpleNamespace(L2_cache_size=256 * 1024),
            synchronize=lambda: None, empty_cache=lambda: None, Event=Event))
    return torch


def test_gpu_path_runs_end_to_end_with_a_stand_in_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", _numpy_torch())
    assert gpu.available() == (True, "")
    doc = gpu.measure(PLANS["tiny"], label=None, progress=False, now=None)
    assert doc["device"] == "cuda" and doc["machine"]["gpu"] == "Numpy Stand-in GPU"
    assert doc["ceilings"]["memory_level"] == "HBM"
    assert {b["level"] for b in doc["ceilings"]["bandwidth"]} == {"HBM", "L2-GPU"}
    assert {c["precision"] for c in doc["ceilings"]["compute"]} == {"bf16", "fp32"}
    assert {o["precision"] for o in doc["ops"]} == {"bf16"}
    assert doc["versions"]["torch"] == "0-numpy"


def test_gpu_module_imports_without_torch():
    ok, why = gpu.available()
    assert isinstance(ok, bool) and (ok or why)


def test_cli_refuses_an_output_folder_that_does_not_exist(tmp_path, capsys):
    assert cli.main(["measure", "--out", str(tmp_path / "no" / "m.json")]) == 2
    assert "argument --out: folder '" in capsys.readouterr().err


# ---------------------------------------------------------------- predicted vs measured

def test_predicted_time_is_the_models_bound_with_the_measured_roofs():
    doc = load(BUNDLED)
    bw = next(b["bandwidth_bytes_per_s"] for b in doc["ceilings"]["bandwidth"]
              if b["level"] == "DRAM")
    peak = {c["precision"]: c["flops_per_s"] for c in doc["ceilings"]["compute"]}
    for chk, op in zip(op_checks(doc), doc["ops"]):
        expect = max(op["flops"] / peak[op["precision"]], op["bytes"] / bw)
        assert math.isclose(chk.predicted_s, expect, rel_tol=1e-12)
        assert math.isclose(chk.ratio, op["time_s"]["median"] / expect, rel_tol=1e-12)
    # Which ops are memory-bound follows from the measured ridge, not the catalog's.
    kinds = {c.kind: c.bound for c in op_checks(doc)}
    assert kinds["bias_add"] == "memory" and kinds["softmax"] == "memory"


def test_verdict_text_counts_ops_that_beat_their_bound():
    doc = copy.deepcopy(CASES["base"])
    fast = next(o for o in doc["ops"] if o["kind"] == "bias_add")
    fast["time_s"] = {**fast["time_s"], "median": 1e-12, "min": 1e-12}
    v = verdict(doc)
    assert fast["id"] in v.beaten
    assert verdict_sentences(doc).startswith(f"{v.total - len(v.beaten)} of {v.total} ops")


def test_verdict_text_says_why_a_gemv_can_land_under_its_bound():
    doc = copy.deepcopy(CASES["base"])
    for op in doc["ops"]:  # the tiny run's in-cache ops beat a DRAM roof: slow them down
        op["time_s"] = {**op["time_s"], "median": 1e3, "max": 1e3}
    gemv = next(o for o in doc["ops"] if o["kind"] == "gemv")
    gemv["time_s"] = {**gemv["time_s"], "median": 1e-12, "min": 1e-12}
    text = verdict_sentences(doc)
    assert f"{gemv['id']} ran faster: a GEMV only loads" in text
    # the case file's GEMV is far inside the last-level cache: the text says so, from the data
    llc = doc["checks"]["triad_vs_roof"]["last_level_cache_bytes"]
    assert gemv["bytes"] < 8 * llc and f"{gemv['id']} moves " in text
    assert "the cache may serve part of it" in text and "busy machine" not in text


def test_tables_render_every_op_and_kernel():
    doc = load(BUNDLED)
    assert len(ops_check_table(doc).rows) == len(doc["ops"])
    assert len(ceilings_table(doc).rows) == len(doc["ceilings"]["bandwidth"]) + len(
        doc["ceilings"]["compute"])
    text = stream_table(doc).as_markdown()
    assert "DRAM" in text and "Triad" in text


# ---------------------------------------------------------------- the overlay

def test_the_summary_line_is_the_browsers():
    """The measurement table's summary line is measure.mjs's summaryText, run at build time:
    the same sentence the live overlay's status line shows."""
    from roofline.widgets.measurement.block import summary_text
    text = summary_text(CASES["base"])
    assert text.startswith(f"Measured: {CASES['base']['label']} — ")
    assert text.endswith(f"{len(CASES['base']['ops'])} ops timed.")


def test_resolve_finds_package_data_and_names_where_it_looked(tmp_path):
    assert resolve("measurement-build-machine.json") == BUNDLED
    with pytest.raises(RooflineError, match=r"field 'measurement': no such file \(looked in: "):
        resolve("nope.json", docs_dir=tmp_path)


# ---------------------------------------------------------------- the fences

def test_measurement_fence_renders_each_table():
    from roofline.hosts.fences import FENCES
    from roofline.widgets.measurement.settings import TABLES
    measurement_fence = FENCES["roofline-measurement"]
    for show in TABLES:
        html = measurement_fence(f"file: measurement-build-machine.json\nshow: {show}\n",
                                 "roofline-measurement", "", {}, None)
        assert html.startswith("<table>" if show not in ("summary", "verdict", "check")
                               else "<p ")
    html = measurement_fence("file: measurement-build-machine.json\nshow: ops\n",
                             "roofline-measurement", "", {}, None)
    assert html.count("<tr>") == 1 + len(load(BUNDLED)["ops"])


@pytest.mark.parametrize("body, message", [
    ("show: ops\n", "option 'file': missing"),
    ("file: measurement-build-machine.json\nshow: everything\n",
     "option 'show': unknown table 'everything'"),
    ("file: nowhere.json\nshow: ops\n", "option 'file': nowhere.json: field 'measurement': no such"),
    ("file: measurement-build-machine.json\nshow: ops\ncolour: red\n", "option 'colour': unknown"),
])
def test_measurement_fence_errors_are_one_clear_line(body, message):
    from roofline.hosts.fences import FENCES
    measurement_fence = FENCES["roofline-measurement"]
    with pytest.raises(SuperFencesException) as err:
        measurement_fence(body, "roofline-measurement", "", {}, None)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_roofline_fence_draws_the_measurement_and_the_picker():
    from roofline.hosts.fences import roofline_fence
    html = roofline_fence("measurement: measurement-build-machine.json\n", "roofline", "", {},
                          None)
    for name in ("measured-roofs", "measured-points", "measurement-file",
                 "measurement-status"):
        assert f'"name":"{name}"' in html
    assert "built on" in html


def test_roofline_fence_rejects_a_bad_measurement_naming_its_field(tmp_path):
    from roofline.hosts.fences import roofline_fence
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(mutate(CASES["invalid"][4])), encoding="utf-8")
    with pytest.raises(SuperFencesException) as err:
        roofline_fence(f"measurement: {bad}\n", "roofline", "", {}, None)
    assert (f"option 'measurement': {bad}: field 'stream[0].time_s.median': must be > 0"
            in str(err.value))

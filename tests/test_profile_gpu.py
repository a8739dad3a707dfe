"""`roofline profile` on GPU traces (issue #45). The data files' rules are checked against their
own examples; every figure about a real trace is re-derived here from its raw events, read with
the json module (not with roofline.profile's reader or its JS). The real traces are public ones
(tests/fixtures/gpu-traces/README.md says where they are looked for, and why they are not in the
repository); without them those tests skip, saying where they looked."""

from __future__ import annotations

import copy
import functools
import gzip
import json
import re
from pathlib import Path

import pytest

from roofline import cli
from roofline.errors import RooflineError
from roofline.profile import kinds
from roofline.profile.analyse import GPU
from roofline.profile.analyse import TIMELINE
from roofline.profile.analyse import report as _report
from roofline.profile.ranks import ranks
from roofline.render.jsengine import call



@pytest.fixture(scope="module")
def traces(gpu_traces) -> Path:
    return gpu_traces


@functools.lru_cache(maxsize=None)
def report(path: Path, step=None, hardware=None) -> dict:
    """A trace's report, computed once per run (the tests only read it)."""
    return _report(path, step, hardware=hardware)


@functools.lru_cache(maxsize=None)
def _raw(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def raw(path: Path) -> dict:
    """A trace's JSON, decoded once per run (a test that edits it takes a copy)."""
    return copy.deepcopy(_raw(path))


def step_kernels(doc: dict, step: str) -> list[dict]:
    """The kernels, memcpys and memsets whose launch call ran inside the step's CPU span."""
    ann = next(e for e in doc["traceEvents"] if e.get("name") == step
               and e.get("cat") == "user_annotation")
    lo, hi = ann["ts"], ann["ts"] + ann["dur"]
    launched = {e["args"]["correlation"] for e in doc["traceEvents"]
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and lo <= e["ts"] <= hi
                and "correlation" in e.get("args", {})}
    return [e for e in doc["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
            and e["args"].get("correlation") in launched]


def union_us(events: list[dict]) -> float:
    total, end = 0.0, None
    for e in sorted(events, key=lambda e: e["ts"]):
        a, b = e["ts"], e["ts"] + e["dur"]
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


# --- the data files, against their own examples -------------------------------------------------
def test_every_kernel_rule_names_a_real_kernel_it_matches_first():
    k = kinds.kernel_kinds()
    for i, rule in enumerate(k["rules"]):
        cat = rule.get("categories", ["kernel"])[0]
        got = call(TIMELINE, "classifierFamilies", k["rules"], [[rule["example"], cat]])[0]
        assert got == rule["family"], f"rule #{i + 1}'s example is classed {got}"
    assert re.search(k["tf32"]["pattern"], k["tf32"]["example"], re.I)


def test_every_device_rule_names_a_catalog_chip_and_matches_its_example():
    from roofline.model.catalog import default_catalog
    rules = kinds.device_rules()
    chips = default_catalog().accelerators
    for r in rules:
        assert r["chip"] in chips
        props = [{"name": r["example"], "numSms": r.get("compute_units", 0),
                  "computeMajor": int(r.get("compute_capability", "0.0").split(".")[0]),
                  "computeMinor": int(r.get("compute_capability", "0.0").split(".")[1]),
                  "totalGlobalMem": sum(r["memory_bytes"]) / 2 if "memory_bytes" in r else 0}]
        assert call(GPU, "chipFor", props, rules)["chip"] == r["chip"], r["example"]


def test_bad_rule_files_name_the_file_entry_and_field(tmp_path):
    bad = tmp_path / "kernels.toml"
    text = (kinds._toml.DATA_DIR / "kernels.toml").read_text()
    bad.write_text(text.replace('pattern = "nccl|rccl|msccl"', 'pattern = "nccl(|"'))
    with pytest.raises(RooflineError, match=r"kernels.toml: entry 'rule #2': field 'pattern': "
                                            r"not a regular expression"):
        kinds.kernel_kinds(bad)
    devices = tmp_path / "devices.toml"
    devices.write_text((kinds._toml.DATA_DIR / "devices.toml").read_text()
                       .replace('chip = "h800-sxm"', 'chip = "h900"'))
    with pytest.raises(RooflineError, match=r"device #3': field 'chip': no chip 'h900'"):
        kinds.device_rules(devices)


# --- real traces --------------------------------------------------------------------------------
@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_a100_rank0_time_account_by_hand(traces):
    path = traces / "hta-a100-80gb-rank0-of-16.json.gz"
    doc = raw(path)
    r = report(path)
    assert r["chip"]["id"] == "a100-sxm-80gb" and r["rank"] == 0 and r["world_size"] == 16
    assert r["step"] == "ProfilerStep#554"
    ks = step_kernels(doc, "ProfilerStep#554")
    a = r["account"]
    # 1. the step's GPU time: from its first kernel's start to its last one's end
    span = max(e["ts"] + e["dur"] for e in ks) - min(e["ts"] for e in ks)
    assert r["wall_s"] == pytest.approx(span * 1e-6, rel=1e-12)
    # 2. busy: the union of every kernel's interval, all streams together
    assert a["busy_s"] == pytest.approx(union_us(ks) * 1e-6, rel=1e-12)
    # 3. communication: the union of the NCCL kernels
    nccl = [e for e in ks if "nccl" in e["name"].lower()]
    assert a["communication_s"] == pytest.approx(union_us(nccl) * 1e-6, rel=1e-12)
    # 4. the kernel count and the waterfall summing to the step
    assert a["launch"]["kernels"] == sum(e["cat"] == "kernel" for e in ks)
    assert sum(w["time_s"] for w in r["waterfall"]) == pytest.approx(r["wall_s"], rel=1e-9)
    assert a["busy_s"] + a["idle_s"] == pytest.approx(r["wall_s"], rel=1e-12)
    assert a["idle_host_s"] + a["idle_other_s"] == pytest.approx(a["idle_s"], rel=1e-9)


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_sampled_rank_matmul_flops_and_tf32_by_hand(traces):
    path = traces / "hta-sampled-rank-0-of-128.json.gz"
    r = report(path, hardware="a100-sxm-80gb")
    m = r["families"]["matmul"]
    assert m["precision"] == "tf32"   # fp32 ops, cutlass s1688 (TF32 tensor-core) kernels
    # every aten::addmm/mm/linear launched in the step that the model prices: 2·m·n·k FLOPs
    doc = raw(path)
    ann = next(e for e in doc["traceEvents"] if e.get("name") == "ProfilerStep#552"
               and e.get("cat") == "user_annotation")
    lo, hi = ann["ts"], ann["ts"] + ann["dur"]
    addmm = [e for e in doc["traceEvents"] if e.get("cat") == "cpu_op"
             and e["name"] == "aten::addmm" and lo <= e["ts"] <= hi]
    assert addmm
    ours = sum(2 * e["args"]["Input Dims"][1][0] * e["args"]["Input Dims"][2][1]
               * e["args"]["Input Dims"][1][1] for e in addmm)
    assert m["flops"] >= ours > 0
    assert r["mfu"] == pytest.approx(r["useful_flops"] / (r["wall_s"] * 156e12), rel=1e-9)


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_mi250_is_one_gcd_and_a_rocm_trace(traces):
    path = traces / "hta-mi250-minitoy-train.json.gz"
    r = report(path)
    assert r["chip"]["id"] == "mi250-gcd" and r["device"] == "rocm"
    doc = raw(path)
    ks = step_kernels(doc, r["step"])
    assert r["account"]["launch"]["kernels"] == sum(e["cat"] == "kernel" for e in ks)
    assert r["account"]["busy_s"] == pytest.approx(union_us(ks) * 1e-6, rel=1e-12)


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_a_trace_without_shapes_gets_its_time_account(traces, capsys):
    path = traces / "hta-v100-32gb-noshapes.json.gz"
    assert cli.main(["profile", str(path)]) == 0
    out = capsys.readouterr().out
    assert "V100 SXM2 32GB" in out and "No shapes recorded" in out
    r = report(path)
    assert r["mfu"] is None and r["families"] == {}
    ks = step_kernels(raw(path), r["step"])
    assert r["account"]["busy_s"] == pytest.approx(union_us(ks) * 1e-6, rel=1e-12)


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_many_ranks_merge_and_name_the_slowest(traces, capsys):
    files = [traces / "hta-sampled-rank-0-of-128.json.gz",
             traces / "hta-sampled-rank-1-of-128.json.gz"]
    m = ranks(files, hardware="a100-sxm-80gb")
    walls = {r["rank"]: r["wall_s"] for r in m["ranks"]}
    for f in files:
        doc = raw(f)
        ks = step_kernels(doc, "ProfilerStep#552")
        rank = doc["distributedInfo"]["rank"]
        span = max(e["ts"] + e["dur"] for e in ks) - min(e["ts"] for e in ks)
        assert walls[rank] == pytest.approx(span * 1e-6, rel=1e-12)
    assert m["slowest"] == max(walls, key=walls.get) and m["world_size"] == 128
    assert m["spread"] == pytest.approx((max(walls.values()) - min(walls.values()))
                                        / (sum(walls.values()) / 2), rel=1e-12)
    assert cli.main(["profile", *map(str, files), "--hardware", "a100-sxm-80gb",
                     "--jobs", "2"]) == 0
    assert f"Slowest: rank {m['slowest']}" in capsys.readouterr().out


@pytest.mark.parametrize("case", ["unknown-device", "world-sizes", "truncated-rank",
                                  "old-format", "no-device"])
@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_bad_gpu_input_is_one_line_and_exit_2(traces, tmp_path, capsys, case):
    a100 = traces / "hta-a100-80gb-rank0-of-16.json.gz"
    r0, r1 = (traces / f"hta-sampled-rank-{i}-of-128.json.gz" for i in (0, 1))
    if case == "unknown-device":
        doc = raw(a100)
        doc["deviceProperties"][0]["name"] = "NVIDIA B300"
        bad = tmp_path / "b300.json"
        bad.write_text(json.dumps(doc))
        args, message = [str(bad)], r'unknown device "NVIDIA B300".*--hardware CHIP'
    elif case == "world-sizes":
        doc = raw(r1)
        doc["distributedInfo"]["world_size"] = 64
        bad = tmp_path / "rank-1.json"
        bad.write_text(json.dumps(doc))
        args = [str(r0), str(bad), "--hardware", "a100-sxm-80gb"]
        message = r"ranks of different world sizes: .*rank-0-of-128.json.gz has 128, .*rank-1.json has 64"
    elif case == "truncated-rank":
        bad = tmp_path / "rank-1.json.gz"
        bad.write_bytes(r1.read_bytes()[:50_000])
        # read by a worker process (--jobs 2): its error still comes back as one line
        args = [str(r0), str(bad), "--hardware", "a100-sxm-80gb", "--jobs", "2"]
        message = r"rank-1.json.gz: truncated or corrupt gzip stream"
    elif case == "old-format":
        args = [str(traces / "hta-old-format-inference-rank-1.json.gz")]
        message = r"an older Kineto format .*torch 1.8 to 1.10"
    else:
        args, message = [str(r0)], r"no deviceProperties: name the chip .* --hardware CHIP"
    assert cli.main(["profile", *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert re.search(message, err), err


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_the_js_sweep_and_union_agree_with_python_on_a_real_step(traces):
    path = traces / "hta-a100-80gb-rank0-of-16.json.gz"
    ks = step_kernels(raw(path), "ProfilerStep#554")
    ivs = [[e["ts"], e["ts"] + e["dur"]] for e in ks]
    merged = call(TIMELINE, "union", ivs)
    assert sum(b - a for a, b in merged) == pytest.approx(union_us(ks), rel=1e-12)
    parts = call(TIMELINE, "sweep", [[a, b, "nccl" if "nccl" in e["name"].lower() else "other"]
                                for (a, b), e in zip(ivs, ks)], ["other", "nccl"])
    assert parts["other"] + parts["nccl"] == pytest.approx(union_us(ks), rel=1e-12)


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_a_step_range_is_one_window_from_the_first_start_to_the_last_end(traces):
    # HTA keeps every step but the last; --step 550-553 is the same window here
    path = traces / "hta-a100-80gb-rank0-of-16.json.gz"
    doc = raw(path)
    r = report(path, "550-553")
    ks = [e for n in range(550, 554) for e in step_kernels(doc, f"ProfilerStep#{n}")]
    span = max(e["ts"] + e["dur"] for e in ks) - min(e["ts"] for e in ks)
    assert r["step"] == "ProfilerStep#550–#553"
    assert r["wall_s"] == pytest.approx(span * 1e-6, rel=1e-12)
    assert r["account"]["busy_s"] == pytest.approx(union_us(ks) * 1e-6, rel=1e-12)
    with pytest.raises(RooflineError, match=r"no ProfilerStep#549-553; the trace has steps 550"):
        report(path, "549-553")


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
@pytest.mark.parametrize("name, hardware", [
    ("hta-a100-80gb-rank0-of-16.json.gz", None), ("hta-sampled-rank-0-of-128.json.gz", "a100-sxm-80gb"),
    ("hta-sampled-rank-1-of-128.json.gz", "a100-sxm-80gb"), ("hta-mi250-minitoy-train.json.gz", None),
    ("hta-v100-32gb-noshapes.json.gz", None), ("hta-a100-alexnet-noshapes.json.gz", None),
    ("hta-a100-triton.json.gz", None)])
def test_every_trace_s_span_busy_and_kernels_by_hand(traces, name, hardware):
    # three figures of each committed GPU trace from its raw events: the step's GPU time (first
    # start to last end), busy (the union over streams) and the number of kernels
    path = traces / name
    doc = raw(path)
    r = report(path, hardware=hardware)
    if r["step"] == "the whole trace":   # no ProfilerStep: every GPU event
        ks = [e for e in doc["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    else:
        ks = step_kernels(doc, r["step"])
    span = max(e["ts"] + e["dur"] for e in ks) - min(e["ts"] for e in ks)
    assert r["wall_s"] == pytest.approx(span * 1e-6, rel=1e-12)
    assert r["account"]["busy_s"] == pytest.approx(union_us(ks) * 1e-6, rel=1e-12)
    assert r["account"]["launch"]["kernels"] == sum(e["cat"] == "kernel" for e in ks)
    assert sum(w["time_s"] for w in r["waterfall"]) == pytest.approx(r["wall_s"], rel=1e-2)


@pytest.mark.slow   # reads the real traces (tens of MB of JSON)
def test_the_fence_draws_a_gpu_trace_and_a_folder_of_ranks(traces, tmp_path):
    # the same door as the CLI's: a GPU trace's report, a folder's ranks, and an option error
    # that names the page, line and option
    from roofline.errors import WidgetOptionError
    from roofline.hosts import door
    html = door.render_widget("roofline-profile",
                              {"trace": str(traces / "hta-mi250-minitoy-train.json.gz")})
    assert "AMD Instinct MI250 (one GCD)" in html and "Time account of" in html
    job = tmp_path / "job"
    job.mkdir()
    for i in (0, 1):
        (job / f"rank-{i}.json.gz").write_bytes(
            (traces / f"hta-sampled-rank-{i}-of-128.json.gz").read_bytes())
    html = door.render_widget("roofline-profile", {"trace": str(job), "hardware": "a100-sxm-80gb"})
    m = ranks([job], hardware="a100-sxm-80gb")
    assert f"the slowest is rank {m['slowest']}" in html and "2 ranks" in html
    with pytest.raises(WidgetOptionError, match=r"docs/p\.md:3: option 'hardware': .*"
                                                r"no deviceProperties"):
        door.settings("roofline-profile", {"trace": str(job)}, where="docs/p.md:3")
    with pytest.raises(WidgetOptionError, match=r"docs/p\.md:3: option 'hardware': .*h900"):
        door.settings("roofline-profile", {"trace": str(job), "hardware": "h900"},
                      where="docs/p.md:3")

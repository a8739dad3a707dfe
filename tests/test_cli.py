"""The `roofline` command: formats, JSON contract, and one-line errors with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from roofline.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "roofline", *args], capture_output=True, text=True)


def test_ops_json_contract(capsys):
    assert main(["ops", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows][:2] == ["rmsnorm", "layernorm"]
    for r in rows:
        assert {"name", "flops", "bytes", "intensity_flops_per_byte", "bound",
                "attainable_flops_per_s", "time_s"} <= set(r)
        assert r["bound"] in ("memory", "compute")


@pytest.mark.parametrize("phase, expected", [("decode", "memory"), ("prefill", "compute")])
def test_llama_linear_layers_bound_by_phase(capsys, phase, expected):
    assert main(["ops", "--model", "llama-2-7b", "--phase", phase, "--batch", "1", "--seq",
                 "1024", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    for proj in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
        assert rows[proj]["bound"] == expected, proj


def test_hardware_json_has_peaks_tiers_and_sources(capsys):
    assert main(["hardware", "--format", "json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    h100 = rows["h100-sxm"]
    assert h100["peaks_flops_per_s"]["bf16"] == pytest.approx(989.4e12)
    hbm = next(t for t in h100["tiers"] if t["kind"] == "hbm")
    assert hbm["capacity_bytes"] == 80e9 and hbm["bandwidth_bytes_per_s"] == 3.35e12
    assert h100["sources"]


@pytest.mark.parametrize("fmt", ["table", "csv", "md"])
def test_other_formats(capsys, fmt):
    assert main(["ops", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "rmsnorm" in out
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert float(rows[0]["intensity_flops_per_byte"]) == pytest.approx(1.0, rel=0.01)
    if fmt == "md":
        assert out.startswith("| Op |")


@pytest.mark.parametrize("args, needle", [
    (["ops", "--hardware", "h900"], "unknown hardware 'h900'"),
    (["ops", "--precision", "fp8", "--hardware", "a100-sxm-80gb"], "unknown precision 'fp8'"),
    (["ops", "--model", "gpt-9"], "unknown model 'gpt-9'"),
    (["hardware", "--catalog", "/nonexistent.toml"], "/nonexistent.toml: file not found"),
])
def test_bad_ids_give_one_line_and_exit_2(args, needle):
    proc = run(*args)
    assert proc.returncode == 2
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


@pytest.mark.parametrize("args", [["ops", "--batch", "0"], ["ops", "--seq", "-3"],
                                  ["ops", "--phase", "serve"], ["ops", "--format", "xml"]])
def test_bad_arguments_are_usage_errors(args):
    proc = run(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""

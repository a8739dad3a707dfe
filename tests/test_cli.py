"""The `roofline` command: formats, JSON contract, one-line errors with exit status 2, usage on a
misspelt flag, --version, complete --help, and text that fits the terminal. In-process
(`main([...])` with capsys): only the `python -m roofline` entry point needs a subprocess."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from roofline.model import datafile as _toml
from roofline.model.catalog import default_catalog
from roofline.cli import build_parser, main, subparsers
from roofline.cli._common import PIPED_WIDTH, terminal_columns
from roofline.render.table_value import Column, Table


def fails(capsys, args: list[str]) -> str:
    """Run a command that must fail: exit 2, nothing on stdout, one line on stderr naming the
    subcommand. Returns that line."""
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"roofline {args[0]}: error: "), lines[0]
    return lines[0]


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
    h100, acc = rows["h100-sxm"], default_catalog()["h100-sxm"]  # the catalog's own figures
    assert h100["peaks_flops_per_s"]["bf16"] == acc.peak_flops_per_s("bf16") > 9e14
    hbm = next(t for t in h100["tiers"] if t["kind"] == "hbm")
    assert hbm["capacity_bytes"] == acc.hbm.capacity_bytes > 79e9
    assert hbm["bandwidth_bytes_per_s"] == acc.hbm_bandwidth_bytes_per_s == 3.35e12
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


# --- one line, exit 2, naming the argument: one test per failure class ----------------------
# (output paths: tests/test_export.py, which owns `plot -o` and `export --out`)

@pytest.mark.parametrize("args, line", [
    (["ops", "--hardware", "h900"], "argument --hardware: unknown hardware 'h900' (valid: "),
    (["ops", "--precision", "fp8", "--hardware", "a100-sxm-80gb"],
     "argument --precision: hardware 'a100-sxm-80gb': unknown precision 'fp8' (valid: fp64, "),
    (["ops", "--model", "gpt-9"], "argument --model: unknown model 'gpt-9' (valid: "),
    (["budget", "--model", "gpt-9"], "argument --model: unknown model 'gpt-9' (valid: "),
    (["budget", "--fuse", "norm,glue"], "argument --fuse: unknown fusion 'glue' (valid: "),
    (["budget", "--phase", "serve"], "argument --phase: unknown phase 'serve' (valid: "),
    (["hardware", "--hardware", "h900"], "argument --hardware: unknown hardware 'h900'"),
    (["plot", "--ops", "rmsnorm,nope", "-o", "never-written.html"],
     "argument --ops: unknown op 'nope' (valid: rmsnorm, "),
    (["plot", "--ceilings", "l9", "-o", "never-written.html"],
     "argument --ceilings: unknown ceiling 'l9' (valid: "),
])
def test_unknown_id_is_one_line_naming_the_argument(capsys, args, line, tmp_path,
                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert f"roofline {args[0]}: error: {line}" in fails(capsys, args)
    assert not (tmp_path / "never-written.html").exists()


def test_bad_catalog_file_names_the_file(capsys):
    assert fails(capsys, ["hardware", "--catalog", "/nonexistent.toml"]) == (
        "roofline hardware: error: /nonexistent.toml: file not found")


@pytest.mark.parametrize("how", ["--catalog", "ROOFLINE_CATALOG"])
@pytest.mark.parametrize("command", [["hardware"], ["ops"], ["budget"],
                                     ["plot", "-o", "never-written.html"]])
def test_unreadable_catalog_is_one_line_naming_the_file(capsys, tmp_path, monkeypatch, how,
                                                        command):
    """A folder, or a file that is not UTF-8, given as the catalog (issue #29: both ended in a
    traceback, IsADirectoryError and UnicodeDecodeError)."""
    monkeypatch.chdir(tmp_path)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('version = "Caf\xe9"\n'.encode("latin-1"))
    for path, detail in ((tmp_path, "is a folder; name a TOML file"),
                         (latin1, "not UTF-8 text (byte 0xe9 at offset 14)")):
        args = command + (["--catalog", str(path)] if how == "--catalog" else [])
        if how == "ROOFLINE_CATALOG":
            monkeypatch.setenv("ROOFLINE_CATALOG", str(path))
        assert fails(capsys, args).startswith(
            f"roofline {command[0]}: error: {path}: {detail}")
    assert not (tmp_path / "never-written.html").exists()


def test_a_ceiling_the_chip_lacks_is_a_warning_and_none_drawable_an_error(capsys, tmp_path):
    """Issue #29: `--ceilings sram` on an L4 was dropped silently."""
    out = tmp_path / "l4.html"
    assert main(["plot", "--hardware", "l4", "--ceilings", "sram,host", "-o", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    others = sum(1 for a in default_catalog() if (t := a.tier("sram")) and t.bandwidth_bytes_per_s)
    assert err == ["roofline plot: warning: argument --ceilings: 'sram' is not drawn for l4: "
                   f"the catalog has no SRAM bandwidth for it ({others} other chips have one)"]
    assert out.exists()
    assert fails(capsys, ["plot", "--ceilings", "l2", "-o", str(tmp_path / "no.html")]) == (
        "roofline plot: error: argument --ceilings: nothing to draw: no chip in the catalog "
        "has an L2 bandwidth")


@pytest.mark.parametrize("args, line", [
    (["ops", "--model", "llama-2-7b", "--batch", "0"],
     "argument --batch: expected a positive integer, got '0'"),
    (["ops", "--model", "llama-2-7b", "--seq", "-3"],
     "argument --seq: expected a positive integer, got '-3'"),
    (["budget", "--batch", "-3"], "argument --batch: must be a positive integer, got '-3'"),
    (["budget", "--seq", "0"], "argument --seq: must be a positive integer, got '0'"),
    (["budget", "--dp", "0"], "argument --dp: must be a positive integer, got '0'"),
])
def test_zero_or_negative_shape_is_one_line(capsys, args, line):
    assert fails(capsys, args) == f"roofline {args[0]}: error: {line}"


@pytest.mark.parametrize("args, line", [
    (["ops", "--batch", "4"], "argument --batch: applies only with --model (the op zoo's "
                              "shapes are fixed)"),
    (["ops", "--seq", "512"], "argument --seq: applies only with --model"),
    (["ops", "--phase", "decode"], "argument --phase: applies only with --model"),
    (["ops", "--flash"], "argument --flash: applies only with --model"),
    (["budget", "--phase", "decode", "--dp", "4"],
     "argument --dp: applies only with --phase train (inference has no gradient all-reduce)"),
    (["budget", "--phase", "prefill", "--overlap", "0.5"],
     "argument --overlap: applies only with --phase train"),
])
def test_flag_that_does_not_apply_is_an_error_not_ignored(capsys, args, line):
    assert f"roofline {args[0]}: error: {line}" in fails(capsys, args)


def test_flags_that_apply_are_accepted(capsys):
    assert main(["ops", "--model", "llama-2-7b", "--phase", "decode", "--batch", "4",
                 "--seq", "512", "--flash", "--format", "json"]) == 0
    assert main(["budget", "--phase", "train", "--dp", "4", "--overlap", "0.5",
                 "--format", "json"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("args, line", [
    (["ops", "--phase", "serve"],
     "argument --phase: invalid choice: 'serve' (choose from 'train', 'prefill', 'decode')"),
    (["ops", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
])
def test_bad_choice_is_one_line(capsys, args, line):
    assert f"roofline ops: error: {line}" in fails(capsys, args)


def test_misspelt_flag_shows_the_subcommands_usage(capsys):
    assert main(["ops", "--btach", "4"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: roofline ops [-h]"), err
    assert err.splitlines()[-1] == ("roofline ops: error: unrecognized arguments: --btach 4 "
                                    "(did you mean --batch?)")


def test_missing_required_flag_shows_the_subcommands_usage(capsys):
    assert main(["plot"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: roofline plot ")
    assert err.splitlines()[-1] == ("roofline plot: error: the following arguments are "
                                    "required: -o/--output")


def test_unknown_command_shows_top_level_usage(capsys):
    assert main(["opz"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: roofline [-h] [--version] COMMAND")
    assert "invalid choice: 'opz'" in err.splitlines()[-1]


# --- --version -----------------------------------------------------------------------------

def test_version_prints_package_and_catalog_versions(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out.splitlines()
    catalog = _toml.load(_toml.DATA_DIR / "hardware.toml")["version"]
    assert out[0] == f"roofline {version('roofline-lesson')}"
    assert out[1].startswith(f"catalog {catalog} (") and out[1].endswith("hardware.toml)")


def test_version_follows_the_catalog_in_use(capsys, tmp_path, monkeypatch):
    text = (_toml.DATA_DIR / "hardware.toml").read_text(encoding="utf-8")
    edited = tmp_path / "hardware.toml"
    edited.write_text(text.replace('\nversion = "', '\nversion = "edited-', 1), encoding="utf-8")
    monkeypatch.setenv("ROOFLINE_CATALOG", str(edited))
    assert main(["--version"]) == 0
    assert "catalog edited-" in capsys.readouterr().out


def test_python_m_roofline_entry_point():
    """The one subprocess: `python -m roofline` passes main's status to the shell."""
    proc = subprocess.run([sys.executable, "-m", "roofline", "ops", "--batch", "4"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "argument --batch" in proc.stderr


# --- --help: every option of every subcommand is documented --------------------------------

HIDDEN = {("measure", "--plan")}  # the test suite's own size, deliberately undocumented


def undocumented(name: str, parser: argparse.ArgumentParser) -> list[str]:
    """Options of `parser` without help text, or missing from its --help output."""
    text = parser.format_help()
    problems = []
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        option = action.option_strings[-1]
        if (name, option) in HIDDEN:
            continue
        if not action.help or action.help == argparse.SUPPRESS:
            problems.append(f"{name} {option}: no help text")
        elif not all(o in text for o in action.option_strings):
            problems.append(f"{name} {option}: not in --help")
    if not parser.description and name != "roofline":
        problems.append(f"{name}: no description")
    return problems


def test_every_option_has_help_text():
    parser = build_parser()
    problems = undocumented("roofline", parser)
    for name, sub in subparsers(parser).items():
        problems += undocumented(name, sub)
    assert problems == []


def test_help_check_reports_an_undocumented_option():
    seeded = argparse.ArgumentParser(prog="x", description="seeded")
    seeded.add_argument("--documented", help="has help")
    seeded.add_argument("--bare")
    assert undocumented("x", seeded) == ["x --bare: no help text"]


@pytest.mark.parametrize("name", ["hardware", "ops", "budget", "measure", "plot", "export"])
def test_help_exits_0_with_usage(capsys, name):
    assert main([name, "--help"]) == 0
    assert capsys.readouterr().out.startswith(f"usage: roofline {name} ")


# --- text fits the terminal ----------------------------------------------------------------

def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_width_is_100_when_piped(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert not sys.__stdout__.isatty() or pytest.fail("run without -s: stdout must be piped")
    assert terminal_columns() == PIPED_WIDTH == 100


@pytest.mark.parametrize("args, covers", [
    (["ops"], "The lesson's op zoo, one kernel each"),
    (["ops", "--model", "llama-2-7b"], "One transformer layer of Llama 2 7B (32 per step)"),
    (["ops", "--model", "llama-2-7b", "--phase", "decode", "--batch", "1"],
     "One transformer layer of Llama 2 7B"),
    (["hardware"], "Hardware catalog (hardware.toml): "),
    (["budget"], "Where one step's time goes"),
])
@pytest.mark.parametrize("columns", [100, 72])
def test_text_fits_the_terminal_and_says_what_it_covers(capsys, monkeypatch, args, covers,
                                                        columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(args) == 0
    out = capsys.readouterr().out
    assert widest(out) <= columns, out
    assert covers in " ".join(out.split())


# A number at a line's end and its unit at the next line's start ("0" / "B").
_SPLIT_UNIT = re.compile(r"\d\n *(?:[kMGTP]?i?B|[kMGTPE]?FLOP|[µmn]?s|pt|%)\b")


@pytest.mark.parametrize("args", [["budget"], ["budget", "--phase", "decode", "--batch", "512"],
                                  ["budget", "--model", "llama-3-70b"]])
def test_budget_text_and_warning_fit_80_columns_and_keep_units_with_numbers(capsys,
                                                                            monkeypatch, args):
    """Issue #29: a 181-character warning overflowed 80 columns, and "0 B" split across
    lines; every width from 60 to 120 is checked, stdout and stderr."""
    for columns in range(60, 121):
        monkeypatch.setenv("COLUMNS", str(columns))
        assert main(args) == 0
        captured = capsys.readouterr()
        for text in (captured.out, captured.err):
            assert widest(text + "\n") <= columns, (columns, text)
            assert not _SPLIT_UNIT.search(text), (columns, text)


def test_wrap_never_breaks_between_a_number_and_its_unit():
    from roofline.cli._common import wrap
    assert wrap("KV cache 0 B, step 34.9 ms", 10) == ["KV cache", "0 B, step", "34.9 ms"]
    assert wrap("warning: a b c", 11, indent="  ") == ["warning: a", "  b c"]


def test_wide_table_notes_what_it_left_out(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["ops", "--model", "llama-2-7b"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == ("Left out to fit 100 columns: Attainable TFLOP/s, % of peak. "
                                    "--format csv or json lists every column.")
    assert "Attainable" not in out.split("Left out")[0]
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["ops", "--model", "llama-2-7b"]) == 0
    out = capsys.readouterr().out
    assert "Left out" not in out and "Attainable TFLOP/s" in out and widest(out) > 100


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_json_and_csv_stay_complete_in_a_narrow_terminal(capsys, monkeypatch, fmt):
    monkeypatch.setenv("COLUMNS", "40")
    assert main(["hardware", "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "csv":
        header = out.splitlines()[0].split(",")
        assert {"compute_units", "tdp_w", "fp64_flops_per_s", "ridge_bf16_flops_per_byte"} \
            <= set(header)
    else:
        assert "tiers" in json.loads(out)[0]
    assert "Left out" not in out


def test_table_width_gate_can_fail():
    """The seeded defect: the unfitted table is wider than the terminal; fitted, it is not."""
    rows = tuple({"name": f"op{i}", "shape": "batch=8 × heads=32 × head_dim=128 × len=4,096",
                  "a": 1.0 * i, "b": 2.0 * i, "c": 3.0 * i} for i in range(3))
    cols = (Column("name", "Op"), Column("shape", "Shape"),
            *(Column(k, f"TFLOP/s-per-chip-{k}", lambda x: f"{x:,.1f}", "right") for k in "abc"))
    t = Table(cols, rows, caption="Three ops, one layer.")
    assert widest(t.as_text()) > 60
    fitted = t.as_text(60, wrap=("shape",), drop=("c",), hint="See the CSV.")
    assert widest(fitted) <= 60, fitted
    assert fitted.splitlines()[0] == "Three ops, one layer."
    assert "     head_dim=128 ×\n" in fitted  # wrapped at a space, not mid-word
    assert fitted.rstrip().endswith("Left out to fit 60 columns: TFLOP/s-per-chip-c. See the CSV.")
    assert t.as_markdown() == Table(cols, rows).as_markdown()  # Markdown never changes
    assert t.as_text(200) == t.as_text()  # room enough: one line per row, as before


def test_measure_out_folder_must_exist(capsys, tmp_path):
    line = fails(capsys, ["measure", "--plan", "tiny", "--no-progress",
                          "--out", str(tmp_path / "nope" / "m.json")])
    assert line == (f"roofline measure: error: argument --out: folder '{tmp_path / 'nope'}' "
                    "does not exist")


def test_hardware_toml_has_a_data_version():
    assert isinstance(_toml.load(Path(_toml.DATA_DIR) / "hardware.toml").get("version"), str)

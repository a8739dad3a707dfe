"""`roofline compare`: one row per chip, the arithmetic of its figures, the least sharding that
fits, prices only from the reader, and bad input in one line."""

from __future__ import annotations

import json

import pytest

from roofline.cli import main
from roofline.model.budget import budget
from roofline.model.catalog import default_catalog
from roofline.model.chip_ranking import compare, running_example
from roofline.model.memory import sharding_text, what_fits
from roofline.model.transformer import get_model

CAT = default_catalog()
FIELDS = {"hardware", "step_time_s", "tokens_per_s", "mfu_upper_bound", "fits",
          "usd_per_million_tokens"}


def _run(capsys, *argv):
    rc = main(["compare", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_json_rows_carry_the_issue_s_fields_for_every_chip_with_the_precision(capsys):
    rc, out, err = _run(capsys, "--phase", "decode", "--format", "json")
    assert rc == 0 and not err
    doc = json.loads(out)
    # a chip without a bf16 peak (V100: FP16-only tensor cores) is left out, and said to be
    assert {r["hardware"] for r in doc["rows"]} == {a.id for a in CAT if "bf16" in a.peaks}
    assert doc["skipped"] == [{"hardware": a.id, "why": "no bf16 peak"}
                              for a in CAT if "bf16" not in a.peaks]
    for row in doc["rows"]:
        assert FIELDS <= set(row) and row["usd_per_million_tokens"] is None
    assert doc["params_total"] == get_model(running_example()["model"]).params


def test_a_row_is_the_budget_s_roofline_bound():
    c = compare(get_model("llama-2-7b"), "decode", 8, 4096, CAT, "bf16")
    row = next(r for r in c.rows if r.hardware == "h100-sxm")
    bg = budget(get_model("llama-2-7b"), "decode", 8, 4096, CAT["h100-sxm"], "bf16", 2.0,
                frozenset({"flash"}))
    assert row.step_time_s == bg.step_time_s and row.mfu_upper_bound == bg.mfu_upper_bound
    assert row.tokens_per_s == 8 / bg.step_time_s
    assert row.gpu_hours_per_billion_tokens == pytest.approx(bg.step_time_s / 8 * 1e9 / 3600)


def test_prices_come_from_the_reader_and_rank_the_rows(capsys):
    rc, out, _ = _run(capsys, "--phase", "decode", "--price", "h100-sxm=2.00",
                      "--price", "mi300x=3.00", "--format", "json")
    rows = json.loads(out)["rows"]
    priced = [r for r in rows if r["usd_per_million_tokens"] is not None]
    assert [r["hardware"] for r in priced] == [r["hardware"] for r in rows[:2]]
    h100 = next(r for r in rows if r["hardware"] == "h100-sxm")
    assert h100["usd_per_million_tokens"] == pytest.approx(
        2.00 * h100["step_time_s"] / h100["tokens_per_step"] * 1e6 / 3600)
    assert priced[0]["usd_per_million_tokens"] <= priced[1]["usd_per_million_tokens"]


def test_a_step_that_does_not_fit_gets_the_least_sharding_and_its_recomputation_is_timed():
    """The least sharding is memory.what_fits's over the data-parallel GPUs (for the running
    example on an 80 GiB H100, the budget page's stated run); where it recomputes, the
    recomputed forward kernels are added to the step's time."""
    cfg = get_model("llama-2-7b")
    c = compare(cfg, "train", 4, 4096, CAT, "bf16")
    h100 = next(r for r in c.rows if r.hardware == "h100-sxm")
    fix = what_fits(cfg, 4, 4096, 2.0, CAT["h100-sxm"].hbm.capacity_bytes, flash=True,
                    dp_degree=8)
    assert not h100.fits and h100.gpus == 8 and h100.sharding == f"{sharding_text(fix)} over 8 GPUs"
    recomputing = [r for r in c.rows if r.sharding and "full recomputation" in r.sharding]
    assert recomputing
    for row in recomputing:
        plain = budget(cfg, "train", 4, 4096, CAT[row.hardware], "bf16", 2.0,
                       frozenset({"flash"}))
        assert row.step_time_s > plain.step_time_s * 1.2  # a second forward pass, about 1/3


def test_a_model_too_big_for_one_chip_gets_tensor_parallel_gpus():
    c = compare(get_model("llama-3.1-405b"), "decode", 1, 4096, CAT, "bf16")
    row = next(r for r in c.rows if r.hardware == "h100-sxm")
    assert not row.fits and row.sharding == "tensor parallel over 16 GPUs" and row.gpus == 16
    assert row.memory_bytes / 16 <= row.capacity_bytes < row.memory_bytes / 8


def test_chips_without_the_precision_are_left_out_and_said(capsys):
    rc, out, _ = _run(capsys, "--phase", "decode", "--precision", "fp8")
    assert rc == 0 and "left out: a100-sxm-80gb (no fp8 peak)" in out
    assert "no prices given" in out


@pytest.mark.parametrize("argv, text", [
    (["--price", "h100=2"], "argument --price: unknown hardware 'h100'"),
    (["--price", "h100-sxm=-1"], "argument --price: a price must be a positive number"),
    (["--price", "h100-sxm"], "argument --price: expected ID=USD_PER_HOUR"),
    (["--price", "h100-sxm=1", "--price", "h100-sxm=2"], "priced twice"),
    (["--fuse", "bogus"], "argument --fuse: unknown fusion 'bogus'"),
    (["--model", "no-such-model"], "unknown model 'no-such-model'"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, text):
    rc, out, err = _run(capsys, *argv)
    assert rc == 2 and not out and text in err and err.count("\n") == 1


def test_models_command_reports_params_for_a_config_file(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({
        "model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144,
        "moe_intermediate_size": 768, "num_hidden_layers": 48, "num_attention_heads": 32,
        "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128,
        "num_experts_per_tok": 8, "vocab_size": 151936, "tie_word_embeddings": False}))
    assert main(["models", "--model", str(path), "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    bundled = get_model("qwen3-30b-a3b")
    assert (row["params_total"], row["params_active"]) == (bundled.params, bundled.params_active)
    assert row["decode_weight_bytes_batch1"] < row["params_active"] * 2


def test_a_launch_mode_adds_its_gap_per_kernel_and_the_figures_stop_being_bounds(capsys):
    # Llama 2 7B at batch 1 on the H100: 4.589 ms of roofline time and 419 launches; as CUDA
    # graphs (0.5 µs each) 4.589 + 0.2095 = 4.798 ms, eager (4 µs) 4.589 + 1.676 = 6.265 ms
    cfg = get_model("llama-2-7b")
    bg = budget(cfg, "decode", 1, 4096, CAT["h100-sxm"], "bf16", 2.0, frozenset({"flash"}))
    assert bg.launches == 419
    for mode, gap in ((None, 0.0), ("graphs", 0.5e-6), ("eager", 4e-6)):
        c = compare(cfg, "decode", 1, 4096, CAT, "bf16", launch=mode)
        row = next(r for r in c.rows if r.hardware == "h100-sxm")
        assert row.step_time_s == bg.step_time_s + 419 * gap and c.bounds == (mode is None)
    assert round(row.step_time_s * 1e3, 2) == 6.26
    rc, out, _ = _run(capsys, "--model", "llama-2-7b", "--phase", "decode", "--batch", "1",
                      "--launch", "graphs")
    flat = " ".join(out.split())
    assert rc == 0 and "CUDA graphs (0.5 µs per kernel)" in flat and "not bounds" in flat
    assert "≥" not in out and "≤" not in out
    rc, out, _ = _run(capsys, "--model", "llama-2-7b", "--phase", "decode", "--batch", "1")
    assert rc == 0 and "Step ≥" in out and "launch gaps not counted" in " ".join(out.split())
    assert main(["compare", "--launch", "warp"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--launch" in err


def test_a_batch_no_chip_can_hold_is_refused_naming_the_largest_that_fits_anywhere(capsys):
    # decode of the running example's model at 4,096 tokens: the largest batch that fits on some
    # chip of the catalog over 1,024 GPUs is found by bisection, and one more fits on none
    from roofline.model.chip_ranking import MAX_GPUS, _fits_somewhere
    for cmd in (["compare"], ["budget"]):
        assert main([*cmd, "--phase", "decode", "--batch", "1000000000000"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "--batch" in err and "1,000,000,000,000" in err, err
        largest = int(err.split("the largest that fits anywhere is ")[1].split()[0]
                      .replace(",", ""))
    cfg = get_model(running_example()["model"])
    b = CAT.precision("bf16").bytes_per_element
    args = ("decode", 4096, CAT, b, True, 8)
    assert _fits_somewhere(cfg, "decode", largest, *args[1:])
    assert _fits_somewhere(cfg, "decode", largest + 1, *args[1:]) is None
    assert MAX_GPUS == 1024
    # a batch that fits somewhere runs as before (the H100 row says what sharding it needs)
    assert main(["compare", "--phase", "decode", "--batch", "4096", "--format", "json"]) == 0
    capsys.readouterr()


def test_compare_help_and_notes_say_what_prices_are_bundled(capsys):
    from roofline.model.serving import load_prices
    bundled = load_prices(hardware_ids=set(CAT.accelerators))
    assert bundled  # the help must not say none is
    assert main(["compare", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "none is bundled" not in help_text
    assert "data/prices.toml bundles a default for some chips" in help_text
    assert main(["compare", "--phase", "decode"]) == 0
    notes = " ".join(capsys.readouterr().out.split())
    for hw, p in bundled.items():
        assert f"{hw}={p.usd_per_hour:.2f}" in notes

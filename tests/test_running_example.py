"""One running example, one set of MFU figures (issue #26): the lesson, the op zoo, the budget
page, the budget widget's opening state and `roofline budget` with no options all describe
roofline.model.example's run and print the same MFU bound (recomputation included), the same
bound without recomputation and the same estimate after overheads. The pages are read as
built."""

from __future__ import annotations

import html as _html
import json
import re
from pathlib import Path

import pytest

from roofline import fmt
from roofline.cli import main
from roofline.model.budget import example_budget
from roofline.model.example import EXAMPLE

CASES = Path(__file__).parent / "cases" / "budget_cases.jsonl"
PCT = r"([\d.]+%)"


def _text(path: Path) -> str:
    s = path.read_text(encoding="utf-8")
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", s, flags=re.S)
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", s)).split())


def _find(pattern: str, text: str, where: str) -> tuple[str, ...]:
    m = re.search(pattern, text)
    assert m, f"{where}: no match for {pattern!r}"
    return m.groups()


@pytest.fixture(scope="module")
def figures() -> dict[str, str]:
    """The running example's figures as every page prints them (fmt.percent, 3 digits)."""
    bg = example_budget()
    return {"bound": fmt.percent(bg.mfu_upper_bound, 3),
            "no_recompute": fmt.percent(bg.mfu_upper_bound_without_recompute, 3),
            "estimate": fmt.percent(bg.mfu_estimate, 3)}


def test_the_running_example_is_the_one_every_default_names():
    """Defaults that must be the example's: the widget's, the CLI's, the tables'."""
    from roofline.widgets.base import DEFAULT_HARDWARE, DEFAULT_PRECISION
    from roofline.widgets.budget.settings import BudgetSettings, BudgetTableSettings
    s = BudgetSettings()
    assert (s.model, s.phase, s.batch, s.fusions, s.hardware, s.precision, s.zero_stage,
            s.recompute) == (EXAMPLE.model, EXAMPLE.phase, EXAMPLE.batch, EXAMPLE.fusions,
                             EXAMPLE.hardware, EXAMPLE.precision, EXAMPLE.zero_stage,
                             EXAMPLE.recompute)
    t = BudgetTableSettings()
    assert (t.model, t.batch) == (EXAMPLE.model, EXAMPLE.batch)
    assert (DEFAULT_HARDWARE, DEFAULT_PRECISION) == (EXAMPLE.hardware, EXAMPLE.precision)
    bg = example_budget()
    assert bg.fits and bg.assumptions.dp_degree == EXAMPLE.dp_degree


def test_the_cli_and_the_widget_print_the_running_examples_figures(figures, capsys):
    """`roofline budget` with no options fits and prints the example; the widget's opening
    readout (the case file's first case, which node checks against budget_view.mjs) too."""
    assert main(["budget"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "DOES NOT FIT" not in captured.out
    out = " ".join(captured.out.split())
    got = _find(rf"MFU upper bound {PCT} \({PCT} without recomputation\); after overheads {PCT}",
                out, "roofline budget")
    assert got == (figures["bound"], figures["no_recompute"], figures["estimate"])
    first = json.loads(CASES.read_text(encoding="utf-8").splitlines()[1])
    assert first["why"] == "the running example, as the page opens"
    assert (f"MFU upper bound {figures['bound']}, after overheads {figures['estimate']}"
            in first["expected"]["readout"])


def test_the_built_pages_print_the_running_examples_figures(built_site, figures):
    """The lesson's §4, the op zoo's training row and the budget page's prose and configs
    table: the same bound, bound without recomputation and estimate as the CLI."""
    lesson = _text(built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html")
    got = _find(rf"could reach at most {PCT} MFU with FlashAttention and {PCT} unfused; "
                rf"without the recomputation \(if it fit\) {PCT} and {PCT}", lesson, "lesson")
    assert (got[0], got[2]) == (figures["bound"], figures["no_recompute"])

    zoo = (built_site / "op-zoo.html").read_text(encoding="utf-8")
    row = _find(r'data-label="Model">Llama 2 7B</th><td[^>]*data-label="Run">training step</td>'
                r'(.*?)</tr>', zoo, "op zoo")[0]
    assert _find(r'data-label="MFU bound">([^<]+)<', row, "op zoo row")[0] == figures["bound"]

    budget = _text(built_site / "budget.html")
    got = _find(rf"gives {PCT} of peak with GEMMs at the peak and {PCT} at the ceiling",
                budget, "budget page")
    assert got[1] == figures["estimate"]
    got = _find(rf"Its roofline bound is {PCT}, the recomputed forward pass included; without "
                rf"it the bound would be {PCT}", budget, "budget page")
    assert got == (figures["bound"], figures["no_recompute"])
    # The configs table's training row with FlashAttention is the running example.
    assert re.search(rf"train \(ZeRO-1, full recomputation\) 4 × 4,096 FlashAttention \S+ GB "
                     rf"\S+ s \S+ [kMGT]?B {re.escape(figures['bound'])} "
                     rf"{re.escape(figures['estimate'])}", budget), "configs table"


def _cli_waterfall(capsys, monkeypatch) -> tuple[dict[str, str], str]:
    """`roofline budget`'s waterfall as printed: points per cause (by key) and the MFU."""
    from roofline.model.waterfall import WATERFALL_LABELS
    monkeypatch.setenv("COLUMNS", "200")   # one line per cause
    assert main(["budget"]) == 0
    out = capsys.readouterr().out
    pts = {}
    for key, label in WATERFALL_LABELS.items():
        pts[key] = _find(rf"(?m)^{re.escape(label)}\s+\S+ \S+\s+-?([\d.]+) pt", out,
                         f"roofline budget: {label}")[0]
    mfu = _find(rf"after overheads {PCT}", out, "roofline budget")[0]
    return pts, mfu


def test_the_waterfall_is_one_account_on_the_lesson_the_budget_page_and_the_cli(
        built_site, capsys, monkeypatch):
    """#46: the running example's waterfall, with the H100's measured GEMM ceiling, gives the
    same points per cause and the same MFU in the lesson's ranking, the budget page's
    waterfall (its static first frame) and `roofline budget`. Seeded: a figure off by a digit
    is caught (the comparison is of printed strings)."""
    from roofline.model.waterfall import WATERFALL_LABELS
    from roofline.widgets.budget.payload import WATERFALL_ROWS
    cli, cli_mfu = _cli_waterfall(capsys, monkeypatch)

    page = (built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html").read_text(
        encoding="utf-8")
    keys = {label: key for key, label in WATERFALL_LABELS.items()}
    rows = re.findall(r'data-label="Leak">([^<]+)</td><td[^>]*data-label="Points, '
                      r'FlashAttention">([^<]+)<', page)
    lesson = {keys[_html.unescape(label)]: p for label, p in rows}
    lesson_mfu = _find(rf"What is left is an MFU of <strong>{PCT}</strong> with "
                       "FlashAttention", page, "lesson")[0]
    section5 = _find(rf"What is left is an MFU of {PCT}, (?:inside|above|below) the",
                     _text(built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html"),
                     "lesson §5")[0]

    budget = (built_site / "budget.html").read_text(encoding="utf-8")
    frame = budget[budget.index("= MFU estimate"):]
    labels = re.findall(r'class="rl-label"[^>]*>([^<]+)</text>', frame)[:len(WATERFALL_ROWS)]
    bars = dict(zip(WATERFALL_ROWS, labels, strict=True))
    page_pts = {k: "0" if bars[k] == "0 pt" else bars[k].removeprefix("−").removesuffix(" pt")
                for k in WATERFALL_LABELS}
    page_mfu = bars["mfu"]

    cli_pts = {k: "0" if float(v) == 0 else v for k, v in cli.items()}
    assert lesson == page_pts == cli_pts, (lesson, page_pts, cli_pts)
    assert lesson_mfu == section5 == page_mfu == cli_mfu
    assert cli_mfu == fmt.percent(example_budget().mfu_estimate, 3)
    # The efficiency row is the measured ceiling's, not a typed 0.7's.
    assert example_budget(kernel_efficiency=0.7).mfu_estimate != example_budget().mfu_estimate
    seeded = dict(page_pts, efficiency=page_pts["efficiency"] + "1")
    assert seeded != cli_pts


# The op zoo's training presets and the tokens each one's shape implies (#36: the training
# GEMM was 8 × 4,096 = 32,768 tokens while the budget priced 4 × 4,096).
TRAINING_TOKENS = {
    "rmsnorm": lambda s: s["rows"], "layernorm": lambda s: s["rows"],
    "bias-add": lambda s: s["rows"], "gemm-train": lambda s: s["m"],
    "gelu": lambda s: s["n"] / (4 * 4096),                      # a 4 × d_model FFN
    "softmax": lambda s: s["rows"] / 32,                         # 32 heads, a row per query
    "attention-train": lambda s: s["batch"] * s["q_len"],
}


def zoo_tokens_off(zoo, tokens: int) -> dict[str, float]:
    """The training presets whose shape is not `tokens` tokens, with what their shape says."""
    return {pid: f(zoo.preset(pid).shape) for pid, f in TRAINING_TOKENS.items()
            if f(zoo.preset(pid).shape) != tokens}


def test_the_op_zoos_training_shapes_are_the_running_examples_tokens():
    from roofline.model.ops import default_zoo
    assert zoo_tokens_off(default_zoo(), EXAMPLE.tokens) == {}
    # Seeded: the zoo as it was (8 sequences) is reported, preset by preset.
    assert set(zoo_tokens_off(default_zoo(), 2 * EXAMPLE.tokens)) == set(TRAINING_TOKENS)


def test_the_op_zoo_page_and_the_cli_name_the_running_examples_gemm(built_site, capsys):
    m, n, k = 16384, 11008, 4096
    assert m == EXAMPLE.tokens
    zoo = _text(built_site / "op-zoo.html")
    assert f"[{m} x {k}] x [{k} x {n}]" in zoo
    assert main(["ops", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    gemm = next(r for r in rows if r["context"].startswith("up_proj at training batch"))
    assert gemm["flops"] == 2 * m * n * k, gemm


def _decode_launch_share(capsys, fuse: str) -> float:
    """What `roofline budget --phase decode --batch 1 --fuse FUSE` says the launch gaps add:
    its MFU at efficiency 1 without them over its MFU with them, less one."""
    mfu = []
    for extra in ([], ["--launch-overhead", "0"]):
        assert main(["budget", "--phase", "decode", "--batch", "1", "--efficiency", "1",
                     "--fuse", fuse, "--format", "json", *extra]) == 0
        mfu.append(json.loads(capsys.readouterr().out)["mfu_estimate"])
    return mfu[1] / mfu[0] - 1


def test_the_lessons_decode_launch_figure_is_the_command_it_names(built_site, capsys):
    """#36: the lesson's batch-1 decode launch share (+42.0 %) is the unfused step, and the
    page says so and names the command; the command's default (FlashAttention) gives another
    figure, which the page must not be mistaken for."""
    lesson = _text(built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html")
    got = _find(r"as at batch-1 decode run unfused, as eager inference launches it "
                r"\(\+\s?([0-9.,]+)\s?%\s+on the roofline time;\s+roofline budget --phase "
                r"decode --batch 1 --fuse none", lesson, "lesson takeaway")[0]
    number = lambda share: re.sub(r"[^0-9.,]", "", fmt.percent(share))  # noqa: E731
    assert got == number(_decode_launch_share(capsys, "none"))
    assert got != number(_decode_launch_share(capsys, "flash"))  # a different workload

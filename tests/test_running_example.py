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
    got = _find(rf"whose MFU after overheads is {PCT}", budget, "budget page")
    assert got[0] == figures["estimate"]
    got = _find(rf"Its roofline bound is {PCT}, the recomputed forward pass included; without "
                rf"it the bound would be {PCT}", budget, "budget page")
    assert got == (figures["bound"], figures["no_recompute"])
    # The configs table's training row with FlashAttention is the running example.
    assert re.search(rf"train \(ZeRO-1, full recomputation\) 4 × 4,096 FlashAttention \S+ GB "
                     rf"\S+ s \S+ [kMGT]?B {re.escape(figures['bound'])} "
                     rf"{re.escape(figures['estimate'])}", budget), "configs table"


ACCOUNT_CELLS = ("Rank", "Leak", "Time per step", "Share of step time",
                 "Points of MFU recovered")


def _account_tables(page: str) -> list[list[tuple[str, ...]]]:
    """Every copy of the ranked account on a built page, as its rows of printed cells."""
    out = []
    for table in re.findall(r'aria-label="The step(?:&#x27;|\')s leaks, ranked".*?</table>',
                            page, re.S):
        rows = []
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S):
            cells = dict(re.findall(r'data-label="([^"]+)">([^<]*)<', row))
            if cells:
                rows.append(tuple(_html.unescape(cells[c]) for c in ACCOUNT_CELLS))
        out.append(rows)
    return out


def _cli_account(capsys, monkeypatch) -> tuple[list[tuple[str, ...]], str]:
    """`roofline budget`'s ranked account as printed (one line per leak at 200 columns), and
    its MFU after overheads."""
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["budget"]) == 0
    out = capsys.readouterr().out
    head = out.index("Points of MFU recovered")
    rows = re.findall(r"(?m)^ *(\d+|—)  (\S.*?\S) {2,}(\S+ \S?s) +(\S+%) +(\S+)$",
                      out[head:])
    mfu = _find(rf"after overheads {PCT}", out, "roofline budget")[0]
    return [tuple(r) for r in rows], mfu


def test_the_ranked_account_is_one_on_the_lesson_the_budget_page_and_the_cli(
        built_site, capsys, monkeypatch):
    """#46: the running example's leaks, with the H100's measured GEMM ceiling, are one
    account: the same ranked leaks, labels, seconds, shares of step time and points of MFU
    recovered in the lesson's §5 (its reveal, the interview answer and the printed answers),
    on the budget page and from `roofline budget`; its MFU is the lesson's §5, the budget
    waterfall's last bar and the CLI's; each waterfall bar is the leak's share of step time.
    Seeded: a figure off by a digit is caught (the comparison is of printed strings)."""
    from roofline.model.leaks import leak_account
    from roofline.widgets.budget.payload import WATERFALL_ROWS
    cli, cli_mfu = _cli_account(capsys, monkeypatch)
    acc = leak_account(example_budget())
    assert [r[1] for r in cli[:-1]] == [x.label for x in acc.leaks]
    assert [r[3] for r in cli[:-1]] == sorted((r[3] for r in cli[:-1]),
                                              key=lambda p: -float(p[:-1]))

    lesson_path = built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html"
    lesson_html = lesson_path.read_text(encoding="utf-8")
    lesson = _account_tables(lesson_html)
    assert len(lesson) == 2, "§5's reveal and the printed answers"
    # The interview answer: the same Table as Markdown (raw HTML cannot stand in its box).
    prompt = lesson_html[lesson_html.index('id="prompt-mfu"'):]
    prompt = prompt[:prompt.index('class="rl-prompt"')]
    head = re.findall(r"<th[^>]*>([^<]*)</th>", prompt)
    assert tuple(head) == ACCOUNT_CELLS, head
    lesson.append([tuple(_html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", r))
                   for r in re.findall(r"<tr>(.*?)</tr>", prompt, re.S)[1:]])
    budget_html = (built_site / "budget.html").read_text(encoding="utf-8")
    budget = _account_tables(budget_html)
    assert len(budget) == 1
    for copy in lesson + budget:
        assert copy == cli, (copy, cli)

    # The MFU: the account's last row, §5's sentence, the waterfall's last bar, the CLI.
    section5 = _find(rf"What is left is an MFU of {PCT}, (?:inside|above|below) the",
                     _text(lesson_path), "lesson §5")[0]
    frame = budget_html[budget_html.index("= MFU estimate"):]
    labels = re.findall(r'class="rl-label"[^>]*>([^<]+)</text>', frame)[:len(WATERFALL_ROWS)]
    bars = dict(zip(WATERFALL_ROWS, labels, strict=True))
    assert cli[-1][3] == section5 == bars["mfu"] == cli_mfu == fmt.percent(acc.mfu, 3)
    # Each bar is a share of step time: the account's share, in points.
    for rank, label, _, share, _ in cli[:-1]:
        key = next(x.key for x in acc.leaks if x.label == label)
        bar = "0" if bars[key] == "0 pt" else bars[key].removeprefix("−").removesuffix(" pt")
        assert float(bar) == pytest.approx(float(share[:-1]), abs=0.006), (key, bar, share)
    # The GEMM row is the measured ceiling's, not a typed 0.7's.
    assert example_budget(kernel_efficiency=0.7).mfu_estimate != example_budget().mfu_estimate
    seeded = [r if r[1] != acc.leaks[1].label else (*r[:4], r[4] + "1") for r in cli]
    assert seeded != budget[0]


def test_the_lessons_words_quote_the_account(built_site):
    """§5's paragraph and the budget page's GEMM paragraph quote the account's figures under
    their names: "of step time" for a share, "points of MFU" for what a leak gives back."""
    from roofline.model.leaks import leak_account
    acc = {x.key: x for x in leak_account(example_budget()).leaks}
    lesson = _text(built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html")
    assert (f"recomputed in the backward pass so that the step fits in memory "
            f"({fmt.percent(acc['recompute'].share, 3)} of step time") in lesson
    budget = _text(built_site / "budget.html")
    eff = acc["efficiency"]
    assert (f"take {fmt.percent(eff.share, 3)} of the step time (share of step time: the "
            f"waterfall's bar); at the peak they would recover "
            f"{fmt.num(eff.recovered * 100, 3)} points of MFU (points of MFU recovered") in budget


def test_recomputation_is_shown_as_a_choice(built_site):
    """#46: beside the running example (4 × 4,096, full recomputation) the lesson and the
    budget page show the largest batch that fits without recomputation, and its MFU, as the
    memory model finds it (not typed). Seeded: with recomputation the running example's own
    batch fits, so the alternative is a smaller batch; at a batch that fits without it, the
    alternative is that batch itself."""
    from roofline.model.leaks import recompute_choice, without_recompute
    bg = example_budget()
    alt = without_recompute(bg)
    assert alt is not None and alt.fits and alt.sharding.recompute == "none"
    assert alt.batch < bg.batch
    bigger = example_budget(batch=alt.batch + 1, recompute="none")
    assert not bigger.fits, "the alternative is the largest batch that fits"
    assert without_recompute(example_budget(batch=1)).batch == 1
    assert [b.batch for b in recompute_choice(bg)] == [bg.batch, bg.batch, alt.batch]
    want = (f"{alt.batch:,} × {alt.seq:,}, no recomputation", f"{alt.batch * alt.seq:,}",
            f"{fmt.capacity(alt.memory.total)}, fits", fmt.percent(alt.mfu_estimate, 3))
    cells = ("Batch × tokens, recomputation", "Tokens per GPU per step",
             f"Memory per GPU (of {fmt.capacity(bg.capacity_bytes)})", "MFU after overheads")
    for page in (built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html",
                 built_site / "budget.html"):
        s = page.read_text(encoding="utf-8")
        tables = re.findall(r'aria-label="Recomputation as a choice".*?</table>', s, re.S)
        assert tables, page.name
        for t in tables:
            rows = [dict(re.findall(r'data-label="([^"]+)">([^<]*)<', r))
                    for r in re.findall(r"<tr>(.*?)</tr>", t, re.S)]
            rows = [tuple(_html.unescape(r[c]) for c in cells) for r in rows if r]
            assert rows[-1] == want, (page.name, rows)
            assert rows[0][3] == fmt.percent(bg.mfu_estimate, 3)
            assert rows[1][2].endswith("over") and rows[1][3] == "—"  # does not fit: no MFU
    lesson = _text(built_site / "lessons" / "06-gpus-the-hardware-youre-renting.html")
    assert (f"without it the step fits only at {alt.batch:,} sequences per GPU, and the model "
            f"gives {fmt.percent(alt.mfu_estimate, 3)} there") in lesson


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


def block_in_paragraph(page: str) -> list[str]:
    """Block HTML that Markdown wrapped in a paragraph (raw HTML in an indented box is not
    parsed as a block): a browser closes the paragraph early and the box's end tags then close
    the page's columns, so the rest of the page leaves its article (seen on a phone: the
    lesson's interview prompts beside a half-width article)."""
    return re.findall(r"<p>\s*<(?:div|table)\b[^>]*>", page)


def test_no_account_is_wrapped_in_a_paragraph(built_site):
    """The account's three copies on the lesson (one in an interview answer's box) and the
    budget page's stay blocks. Seeded: the account's HTML form in an indented box is caught."""
    import markdown
    for page in ("lessons/06-gpus-the-hardware-youre-renting.html", "budget.html"):
        assert block_in_paragraph((built_site / page).read_text(encoding="utf-8")) == [], page
    seeded = markdown.markdown('??? question "Q"\n\n    text\n\n    <div class="rl-table">'
                               "<table><tr><td>1</td></tr></table></div>\n",
                               extensions=["pymdownx.details", "md_in_html"])
    assert block_in_paragraph(seeded)

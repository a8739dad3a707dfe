"""#46's wrong answers, each read back from the built page or the CLI, with the figure the model
gives: checkpoint Q2 uses the op zoo's own GEMM, Q3 compares two roofline times, the §4
caption is the running example's, P2's tokens/s is the serving window's, the op zoo quotes no
time for a run that does not fit, and the serving page's crossover sentence is what the
window computes. Each test also shows the old wrong figure would be caught."""

from __future__ import annotations

import html as _html
import json
import re

from roofline import fmt
from roofline.cli import main
from roofline.model.budget import example_budget
from roofline.model.example import EXAMPLE

LESSON = "lessons/06-gpus-the-hardware-youre-renting.html"


def _text(path) -> str:
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ",
                                          path.read_text(encoding="utf-8"))).split())


def _after(text: str, start: str, n: int = 600) -> str:
    i = text.find(start)
    assert i >= 0, f"not found: {start!r}"
    return text[i:i + n]


def _zoo_point(op: str):
    from roofline.model.catalog import default_catalog
    from roofline.model.maths import place
    from roofline.model.ops import default_zoo
    cat = default_catalog()
    b = cat.precision(EXAMPLE.precision).bytes_per_element
    return place(default_zoo().ops(b, [op])[0], cat[EXAMPLE.hardware], EXAMPLE.precision)


def test_q2_uses_the_op_zoos_gemm(built_site):
    answer = _after(_text(built_site / LESSON), "The same side as the forward")
    p = _zoo_point("gemm-train")
    want = [fmt.count(p.op.total_flops), fmt.capacity(p.op.total_bytes), fmt.seconds(p.time_s)]
    got = re.search(r"FLOPs = 2·k·m·n = (\S+ \S?)\s*, bytes = .*? = (\S+ \S+), so AI = .*?"
                    r"at least (\S+ \S+?)\.", answer)
    assert got, answer
    assert [got[1].strip(), got[2], got[3]] == [w.strip() for w in want], (got.groups(), want)
    # The lesson's op zoo table (§3) prints the same time.
    page = (built_site / LESSON).read_text(encoding="utf-8")
    assert f'data-label="Time ≥">{fmt.seconds(p.time_s)}<' in page
    # Seeded: the old k = 32,768 product (2.95 T, 2.99 ms) is not this answer's.
    assert "2.95 T" not in answer and "2.99 ms" not in answer


def test_q3_compares_two_roofline_times(built_site, capsys):
    answer = _after(_text(built_site / LESSON), "It becomes an [8 × 4,096]")
    got = re.search(r"Time ≥ (\S+ \S+) against (\S+ \S+) at batch 1", answer)
    assert got, answer
    gemv = _zoo_point("gemv-decode")
    assert got[2] == fmt.seconds(gemv.time_s)          # the zoo's roofline time, no launch
    from roofline.model.catalog import default_catalog
    hw = default_catalog()[EXAMPLE.hardware]
    m, k, n, b = 8, 4096, 11008, 2.0
    flops, bytes_ = 2 * m * k * n, (m * k + k * n + m * n) * b
    bound = max(flops / hw.peak_flops_per_s("bf16"), bytes_ / hw.hbm_bandwidth_bytes_per_s)
    assert got[1] == fmt.seconds(bound), (got[1], fmt.seconds(bound))
    # Seeded: the batch-8 time with its launch gap (the old 31 µs) differs from the bound.
    from roofline.model.launch import load_launch
    assert fmt.seconds(bound + load_launch().seconds) != got[1]


def test_the_section_4_caption_is_the_running_examples(built_site):
    caption = _after(_text(built_site / LESSON), "The fused run is the running example", 500)
    bg = example_budget()
    assert f"so it fits: {fmt.capacity(bg.memory.total)} of the" in caption, caption
    assert f"adds {fmt.seconds(bg.recompute_time_s)}:" in caption, caption
    # Seeded: the unfused run's figures (what the caption printed before) are other numbers.
    unfused = example_budget(fusions=())
    assert fmt.capacity(unfused.memory.total) != fmt.capacity(bg.memory.total)
    assert fmt.seconds(unfused.recompute_time_s) != fmt.seconds(bg.recompute_time_s)


def test_p2_gives_the_serving_windows_tokens_per_s(built_site, capsys):
    answer = _after(_text(built_site / LESSON), "These are ceilings.", 500)
    got = re.search(r"\(([\d,.]+) tokens/s, the serving window's figure at batch 1", answer)
    assert got, answer
    assert main(["window", "--model", EXAMPLE.model, "--launch", "eager",
                 "--format", "json"]) == 0
    window = json.loads(capsys.readouterr().out)["batch_one"]["tokens_per_s"]
    assert got[1] == fmt.num(window), (got[1], window)
    assert got[1] != "153"  # seeded: the unfused step's figure, which the window never gave


def test_the_op_zoo_quotes_no_time_for_a_run_that_does_not_fit(built_site, capsys):
    zoo = (built_site / "op-zoo.html").read_text(encoding="utf-8")
    rows = re.findall(r'data-label="Model">Llama 3 70B</th>(.*?)</tr>', zoo)
    assert len(rows) == 3, "the summary's three 70B runs"
    for row in rows:
        assert 'data-label="Time ≥">does not fit<' in row, row
        assert 'data-label="MFU bound">—<' in row, row
    # The caption says what each needs; the CLI says the same of the training step.
    assert main(["budget", "--model", "llama-3-70b"]) == 0
    out = capsys.readouterr().out
    need = re.search(r"DOES NOT FIT: (\S+ \S+) per GPU", out)[1]
    assert f"Llama 3 70B's training step does not fit: {need} per GPU against" in \
        _text(built_site / "op-zoo.html")
    # Its per-op tables have no time column (their caption says why).
    for phase in ("train", "prefill", "decode"):
        table = zoo[zoo.index(f'aria-label="Ops of llama-3-70b, {phase}"'):]
        table = table[:table.index("</table>")]
        assert "Time ≥" not in table, phase
    # Seeded: a fitting model's per-op table keeps its times.
    table = zoo[zoo.index('aria-label="Ops of llama-2-7b, train"'):]
    assert "Time ≥" in table[:table.index("</table>")]


def test_the_serving_pages_crossover_sentence_is_computed(built_site):
    page = _text(built_site / "serving.html")
    got = re.search(r"the first at which the running example turns compute-bound is "
                    r"([\d,]+) tokens \(from batch ([\d,]+)\)", page)
    assert got, "the crossover sentence"
    from roofline.hosts import door
    from roofline.widgets.window.figures import figures
    from roofline.widgets.window.settings import WindowSettings

    def crossover(context: int):
        s = door.settings("roofline-window", {"models": [WindowSettings.model],
                                               "chips": [WindowSettings.hardware],
                                               "controls": False, "context": context},
                          where="test")
        return figures(s)["figures"]["crossover"]["batch"]
    context = int(got[1].replace(",", ""))
    assert crossover(context) == int(got[2].replace(",", ""))
    assert crossover(context * 2) is None      # the first one halving finds
    # Seeded: the context the old sentence implied (1,024) does not cross.
    assert crossover(1024) is None
    assert "Shorten the context and the crossover appears" not in page


# ------------------------------------------------------------- exercises that test (#46)

def _problems(html: str) -> list[tuple[str, int, list[str]]]:
    """(title, offset of the question in the page's text, the figures the worked answer puts
    in bold) for each back-of-envelope problem, in page order."""
    text = _text_of(html)
    out = []
    for m in re.finditer(r'<div class="rl-problem" id="problem-([a-z0-9-]+)"(.*?)</details>',
                         html, re.S):
        body = m.group(2)
        title = _html.unescape(re.search(r"<strong>(P\d+\.[^<]*)</strong>", body).group(1))
        answer = body[body.index("<details"):]
        answer = answer[:answer.find("<table")] if "<table" in answer else answer
        # a bold figure: the strong text is a number, perhaps with ≈ and a unit
        bold = [m.group(1) for b in re.findall(r"<strong>([^<]*)</strong>", answer)
                if (m := re.fullmatch(r"[≈~]?\s*(\d[\d,]*(?:\.\d+)?)\s*\S{0,12}", b.strip()))]
        out.append((title, text.index(" ".join(title.split())), bold))
    return out


def _text_of(html: str) -> str:
    """What a reader can read: tags, scripts (the widgets' data) and drawings dropped."""
    html = re.sub(r"<(script|svg|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _answer_above(text: str, at: int, figures: list[str]) -> list[str]:
    above = text[:at]
    return [f for f in figures if re.search(rf"(?<![\d.,]){re.escape(f)}(?![\d,]|\.\d)", above)]


def test_no_problems_answer_is_printed_above_its_question(built_site):
    """P1 (the H200's tokens per step) and P4 (the A100's smallest compute-bound batch) were
    readable in §3's table above them; no worked answer's bold figure may be above its
    question. Seeded: the same check finds P4's answer when §3's table is put back above."""
    html = (built_site / LESSON).read_text(encoding="utf-8")
    problems = _problems(html)
    assert [t.split(".")[0] for t, _, _ in problems] == ["P1", "P2", "P3", "P4"]
    text = _text_of(html)
    for title, at, bold in problems:
        assert bold, title
        assert not _answer_above(text, at, bold), (title, _answer_above(text, at, bold))
    table = re.search(r'<table[^>]*>(?:(?!</table>).)*Tokens, bf16.*?</table>', html, re.S)
    assert table and table.start() > html.index('id="problem-a100-batch"')
    title, at, bold = problems[3]  # P4: the A100's 162, a cell of that table
    seeded = _text_of(table.group(0)) + " " + text
    assert _answer_above(seeded, at + len(seeded) - len(text), bold)


def test_q9_can_be_answered_from_its_givens(built_site):
    """Q9's givens hold the KV-cache formula and every figure it needs; worked from them
    alone, the largest batch that fits is the answer's memory wall."""
    html = (built_site / LESSON).read_text(encoding="utf-8")
    text = _text_of(html)
    q = text[text.index("Q9."):text.index("Q10.")]
    q = q[:q.index("Reveal the answer")]
    assert "KV cache is 2 (K and V) × layers × K/V heads × head size × context × 2 bytes" in q
    num = r"([\d,.]+)"
    params = float(re.search(rf"\({num} G parameters in bf16", q).group(1))
    layers, kv, hd = (int(x.replace(",", "")) for x in re.search(
        rf"{num} layers, each with {num} K/V heads of {num}\)", q).groups())
    context = int(re.search(rf"with {num} tokens of context", q).group(1).replace(",", ""))
    share, visible = re.search(rf"may fill {num}% of the {num} GiB", q).groups()
    assert re.search(rf"at {num} TB/s", q)
    kv_bytes = 2 * layers * kv * hd * context * 2
    free = float(share) / 100 * float(visible) * 2 ** 30 - params * 1e9 * 2
    batch = int(free // kv_bytes)
    answer = text[text.index("Q9."):][len(q):]
    wall = int(re.search(r"the memory wall is B = (\d+)", answer).group(1))
    assert batch == wall, (batch, wall)

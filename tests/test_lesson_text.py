"""The client's lesson text survives the build verbatim (issue #46): every paragraph of
tests/fixtures/lesson/06-gpus-the-hardware-youre-renting.txt appears on the built lesson page,
in order, with the client's own figures. Only whitespace, quotes and case are normalised. Where
the model's figure differs, a correction note sits beside the words (tests/test_departures.py);
the words themselves are never edited.

The one exception is the interview prompts: their answers are rendered from
data/prompts.toml with the model's figures, so there the numbers are masked and two answers
are held to their question only (see REWORDED)."""

from __future__ import annotations

import re

from site_helpers import LESSON, client_paragraphs, main_text, normalise

# Our answers to these prompts correct the seed (RMSNorm AI is 1 FLOP/byte in bf16 once the
# write-back is counted, not ≈ 2), so only the question and section are held to the text.
REWORDED = {"Estimate the best achievable throughput of an RMSNorm on an H100.":
            "Estimate the best achievable throughput of an RMSNorm on an H100. (§4 —",
            # Issue #13: a norm's AI counts the bytes read and written (RMSNorm 1, LayerNorm 2).
            "Why is a LayerNorm memory-bound and a large matmul compute-bound?":
            "Why is a LayerNorm memory-bound and a large matmul compute-bound? (§4 — a norm does"}
# The prompts' answers print the model's HBM capacity in binary units.
PROMPT_FIXES = (("HBM ≈80 GB @", "HBM ≈80 GiB @"),)
PROMPTS = "Interview prompts"


def _expected(paragraph: str) -> list[str]:
    """A paragraph, or for bulleted runs each bullet, as the text a reader sees."""
    for client, ours in PROMPT_FIXES:
        paragraph = paragraph.replace(client, ours)
    if paragraph.lstrip().startswith("•"):
        items = [line.strip().lstrip("•").strip() for line in paragraph.splitlines()]
        out = []
        for item in items:
            for question, kept in REWORDED.items():
                if item.startswith(question):
                    item = kept
            out.append(item)
        return out
    return [paragraph]


def _paragraphs():
    """(paragraph, in the prompts?) in the client's order, the ASCII pyramid apart."""
    prompts = False
    for p in client_paragraphs():
        prompts = prompts or p == PROMPTS
        if "<-" not in p:
            yield p, prompts


def test_every_paragraph_present_in_order_verbatim(built_site):
    text = main_text(built_site / LESSON)
    pages = {m: normalise(text, mask=m) for m in (False, True)}
    pos = {False: 0, True: pages[True].find(normalise(PROMPTS))}
    missing = []
    for paragraph, prompts in _paragraphs():
        page = pages[prompts]
        for chunk in _expected(paragraph):
            want = normalise(chunk, mask=prompts)
            found = page.find(want, pos[prompts])
            if found < 0:
                where = "out of order" if page.find(want) >= 0 else "missing or edited"
                missing.append(f"{where}: {chunk[:90]!r}")
            else:
                pos[prompts] = found + len(want)
    assert not missing, "\n".join(missing)


def test_paragraph_count_is_the_clients():
    # Guards the fixture: the lesson as supplied has 36 blank-line separated blocks.
    assert len(client_paragraphs()) == 36


def test_the_pyramid_is_the_clients_line_for_line(built_site):
    """The client's ASCII pyramid is the lesson's one view of the hierarchy, as typed."""
    html = (built_site / LESSON).read_text(encoding="utf-8")
    pre = re.search(r'<figure class="rl-pyramid"><pre><code>(.*?)</code></pre>', html, re.S)
    assert pre, "no pyramid figure"
    import html as h
    shown = h.unescape(pre.group(1)).splitlines()
    pyramid = next(p for p in client_paragraphs() if "<-" in p).splitlines()
    assert [line.rstrip() for line in shown] == [line.rstrip() for line in pyramid]


def test_a_silent_edit_is_caught(built_site):
    """The check above fails on a client sentence with one figure changed (20× → 10×)."""
    page = normalise(main_text(built_site / LESSON), mask=False)
    para = next(p for p, _ in _paragraphs() if "roughly 20× faster" in p)
    assert normalise(para, mask=False) in page
    assert normalise(para.replace("20×", "10×"), mask=False) not in page

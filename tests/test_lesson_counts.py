"""scripts/lesson-counts: words and numbers of a built page's <article>, with <details> closed
(the summary alone) and open; scripts, plots' SVG and hidden text not counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "lesson-counts"

PAGE = """<html><body><nav>Menu 1 2 3</nav><article>
<p>Peak is 989 TFLOP/s and 3.35 TB/s, a ridge of 295.</p>
<details><summary>Answer 1</summary><p>It takes 1,480 µs at 4 × 4 tokens.</p>
<details><summary>More</summary><p>deeper 7</p></details></details>
<script>var x = 12345;</script><svg><text>100</text></svg><span aria-hidden="true">9 9</span>
</article><footer>Footer 2026</footer></body></html>"""


def _run(site: Path, *args: str) -> dict:
    out = subprocess.run([sys.executable, str(SCRIPT), str(site), "--page", "p.html",
                          "--client", "", "--format", "json", *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_counts_closed_and_open(tmp_path):
    (tmp_path / "p.html").write_text(PAGE, encoding="utf-8")
    got = _run(tmp_path)
    # closed: "Peak is 989 TFLOP/s and 3.35 TB/s, a ridge of 295." + "Answer 1"
    assert got["closed"] == {"words": 13, "numbers": 4}
    # open adds "More", "It takes 1,480 µs at 4 × 4 tokens." and "deeper 7"
    assert got["open"] == {"words": 13 + 1 + 8 + 2, "numbers": 4 + 3 + 1}
    # Seeded: the same answer outside <details> counts as closed text too.
    (tmp_path / "p.html").write_text(PAGE.replace("<details>", "<div>").replace(
        "</details>", "</div>"), encoding="utf-8")
    assert _run(tmp_path)["closed"] == _run(tmp_path)["open"]


def test_a_missing_page_is_named(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                         text=True)
    assert out.returncode == 2 and "no such page" in out.stderr


LIMIT_WORDS = 5500
"""Issue #46: the lesson on screen, answers closed, at most 5,500 words (≤ 2.5× the client's)."""


def test_the_built_lesson_is_short_enough(built_site):
    out = subprocess.run([sys.executable, str(SCRIPT), str(built_site), "--client", "",
                          "--format", "json"], capture_output=True, text=True, check=True)
    words = json.loads(out.stdout)["closed"]["words"]
    assert words <= LIMIT_WORDS, f"{words} words on screen with the answers closed"

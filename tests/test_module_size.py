"""No module over 400 lines (issue 12's structure gate): every Python and JavaScript file of ours
under site_src/ and hooks/, vendored files excepted. A module that grows past it is split by
concern (as budget.py -> budget_kernels.py and budget.mjs -> budget_view.mjs were)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 400
SUFFIXES = (".py", ".mjs", ".js")
SKIP_DIRS = {"vendor", "node_modules", "__pycache__"}
# Over the limit while their split is in flight; each entry names who removes it. An entry
# whose module is back under the limit fails test_the_allow_list_is_current, so it cannot stay.
ALLOWED: dict[str, str] = {}


def line_counts(root: Path, tops: tuple[str, ...] = ("site_src", "hooks")) -> dict[str, int]:
    """Lines of each of our modules under `tops`, by path relative to `root`."""
    out = {}
    for top in tops:
        for path in sorted((root / top).rglob("*")):
            rel = path.relative_to(root)
            if (path.suffix in SUFFIXES and path.is_file()
                    and not SKIP_DIRS.intersection(rel.parts) and ".egg-info" not in str(rel)):
                out[rel.as_posix()] = len(path.read_text(encoding="utf-8").splitlines())
    return out


def oversize(root: Path, allowed: dict[str, str] | None = None) -> list[str]:
    return [f"{p}: {n} lines" for p, n in sorted(line_counts(root).items())
            if n > LIMIT and p not in (allowed or {})]


def test_no_module_is_over_400_lines():
    counts = line_counts(ROOT)
    assert ("site_src/roofline/model/budget.py" in counts
            and "site_src/roofline/widgets/budget/budget.mjs" in counts
            and "site_src/lesson_site/markers.py" in counts)
    assert not any("vendor/" in p for p in counts)
    found = oversize(ROOT, ALLOWED)
    assert not found, f"over {LIMIT} lines (split by concern): " + "; ".join(found)


def stale(root: Path, allowed: dict[str, str]) -> list[str]:
    """Allowed modules that are no longer over the limit (or gone)."""
    counts = line_counts(root)
    return [f"{p} ({counts.get(p, 'gone')})" for p in allowed if counts.get(p, 0) <= LIMIT]


def test_the_allow_list_is_current():
    found = stale(ROOT, ALLOWED)
    assert not found, "no longer over the limit, remove from ALLOWED: " + ", ".join(found)


def test_seeded_an_oversize_module_and_a_stale_allowance_are_reported(tmp_path):
    def write(rel: str, lines: int) -> None:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"x = {i}\n" for i in range(lines)), encoding="utf-8")

    write("site_src/pkg/big.py", LIMIT + 1)
    write("site_src/pkg/plot/js/big.mjs", LIMIT + 40)
    write("hooks/big.js", LIMIT + 1)
    write("site_src/pkg/at_limit.py", LIMIT)
    write("site_src/pkg/vendor/bundle.js", 10 * LIMIT)
    write("site_src/pkg/data/table.toml", 10 * LIMIT)
    write("tests/test_big.py", 10 * LIMIT)
    assert oversize(tmp_path) == [f"hooks/big.js: {LIMIT + 1} lines",
                                  f"site_src/pkg/big.py: {LIMIT + 1} lines",
                                  f"site_src/pkg/plot/js/big.mjs: {LIMIT + 40} lines"]
    assert oversize(tmp_path, {"site_src/pkg/big.py": "someone"}) == [
        f"hooks/big.js: {LIMIT + 1} lines", f"site_src/pkg/plot/js/big.mjs: {LIMIT + 40} lines"]
    assert stale(tmp_path, {"site_src/pkg/big.py": "a", "site_src/pkg/at_limit.py": "b",
                            "site_src/pkg/gone.py": "c"}) == [
        f"site_src/pkg/at_limit.py ({LIMIT})", "site_src/pkg/gone.py (gone)"]

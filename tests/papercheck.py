"""Paper checks: how much of each printed sheet is blank, and which sheets open with a caption
cut off from its figure. Reads a PDF through poppler (pdftoppm, pdftotext), no browser.

blank_shares(pdf) -> [share per sheet]: the share of the sheet's printable height (inside
`margin_mm`) taken by empty bands: runs of pixel rows with no ink (nothing darker than INK),
rasterised at `dpi`, at least GAP_MM tall (the space between lines and paragraphs is not blank
paper; the empty foot of a sheet that pushed a figure over is).
sheet_texts(pdf) -> [text per sheet] (pdftotext -layout).
paper_faults(pdf, exempt=...) -> [message]: sheets more than `limit` blank, other than the
last and those followed by a sheet that opens with one of `exempt` (the start of a section
the print stylesheet puts on a new sheet); sheets whose first line is a figure caption."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

INK = 235          # a pixel darker than this (0-255 grey) is ink; page white is 255
BLANK_LIMIT = 0.40
GAP_MM = 8.0      # an empty band this tall or taller counts as blank (two lines of text)
CAPTION = re.compile(r"^\s*(Figure|Fig\.|Table)\s+\d+[.:]")


def _pgm(path: Path) -> tuple[int, int, bytes]:
    data = path.read_bytes()
    parts = data.split(maxsplit=4)  # P5, width, height, maxval, pixels
    assert parts[0] == b"P5", path
    width, height = int(parts[1]), int(parts[2])
    return width, height, data[len(data) - width * height:]


def blank_shares(pdf: Path, *, dpi: int = 36, margin_mm: float = 12.0) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(pdf), f"{tmp}/s"],
                       check=True, capture_output=True)
        sheets = sorted(Path(tmp).glob("s-*.pgm"), key=lambda p: int(p.stem.split("-")[-1]))
        out = []
        for sheet in sheets:
            width, height, px = _pgm(sheet)
            m = round(margin_mm / 25.4 * dpi)
            rows = range(m, height - m)
            least = GAP_MM / 25.4 * dpi
            blank = run = 0
            for y in rows:
                if min(px[y * width + m:(y + 1) * width - m]) > INK:
                    run += 1
                    continue
                blank += run if run >= least else 0
                run = 0
            blank += run if run >= least else 0
            out.append(blank / len(rows))
        return out


def sheet_texts(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")


def paper_faults(pdf: Path, *, exempt: tuple[str, ...] = (), limit: float = BLANK_LIMIT,
                 **raster) -> list[str]:
    shares = blank_shares(pdf, **raster)
    texts = sheet_texts(pdf)
    faults = []
    for i, share in enumerate(shares):
        last = i == len(shares) - 1
        opens_section = (i + 1 < len(texts) and any(
            texts[i + 1].lstrip().startswith(e) for e in exempt))
        if share > limit and not last and not opens_section:
            faults.append(f"{pdf.name} sheet {i + 1}: {share:.0%} blank")
        lines = [ln for ln in (texts[i] if i < len(texts) else "").splitlines() if ln.strip()]
        if i and lines and CAPTION.match(lines[0]):
            faults.append(f"{pdf.name} sheet {i + 1} opens with a caption cut off from its "
                          f"figure: {lines[0].strip()[:60]!r}")
    return faults

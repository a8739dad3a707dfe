"""`mkdocs serve` renders every fence again in the same process: each must render twice, and
follow an edit of each data file it reads (no module-level Bokeh objects, no process-lifetime
caches of data files). In-process Markdown conversion, no site build."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import markdown
import pytest

from roofline.model import datafile as _toml
from roofline.hosts import fences

DATA = Path(_toml.DATA_DIR)
MEASUREMENT = "measurement-build-machine.json"

# Every fence kind, with the data files it reads.
FENCE_BODIES = {
    "roofline": ("hardware: h100-sxm\nprecision: bf16\nops: [rmsnorm, gemm-train]\n",
                 {"hardware.toml", "precisions.toml", "ops.toml"}),
    "roofline-overlay": (f"measurement: {MEASUREMENT}\n",
                         {"hardware.toml", "precisions.toml", "ops.toml", MEASUREMENT}),
    "roofline-measurement": (f"file: {MEASUREMENT}\nshow: summary\n", {MEASUREMENT}),
    "roofline-budget": ("model: llama-2-7b\nphase: train\nbatch: 4\n",
                        {"hardware.toml", "precisions.toml", "models.toml"}),
    "roofline-budget-table": ("table: configs\nmodel: llama-2-7b\nbatch: 4\n",
                              {"hardware.toml", "precisions.toml", "models.toml"}),
}


def _scale_h100_hbm(text: str) -> str:
    start = text.index('id = "h100-sxm"')
    hbm = text.index('kind = "hbm"', start)
    found = re.compile(r"bandwidth_bytes_per_s = ([0-9.e_]+)").search(text, hbm)
    value = float(found.group(1).replace("_", "")) * 0.9
    return text[:found.start(1)] + repr(value) + text[found.end(1):]


def _bf16_bytes(text: str) -> str:
    start = text.index("[precision.bf16]")
    return text[:start] + text[start:].replace("bytes_per_element = 2.0",
                                               "bytes_per_element = 2.5", 1)


def _more_layers(text: str) -> str:
    start = text.index("[model.llama-2-7b]")
    return text[:start] + re.sub(r"layers = (\d+)", lambda m: f"layers = {int(m[1]) + 1}",
                                 text[start:], count=1)


def _rmsnorm_flops(text: str) -> str:
    return re.sub(r"rmsnorm_flops_per_element = [0-9.]+", "rmsnorm_flops_per_element = 6.0",
                  text, count=1)


def _relabel(text: str) -> str:
    doc = json.loads(text)
    doc["label"] = "edited in place"
    return json.dumps(doc, indent=1)


EDITS = {"hardware.toml": _scale_h100_hbm, "precisions.toml": _bf16_bytes,
         "models.toml": _more_layers, "ops.toml": _rmsnorm_flops, MEASUREMENT: _relabel}


def render(kind: str, body: str) -> str:
    name = "roofline" if kind == "roofline-overlay" else kind
    md = markdown.Markdown(extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": fences.custom_fences()}})
    text = f"# Page\n\n```{name}\n{body}```\n"
    token = fences.PAGE.set(("page.md", text))
    try:
        html = md.convert(text)
    finally:
        fences.PAGE.reset(token)
    assert 'class="roofline-block"' in html or "<table>" in html or "<p class" in html, html[:300]
    return html


class Renders:
    """One copy of the package data the fences read instead of the installed files, and the
    latest HTML of each fence kind (each test compares against it, then updates it)."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.latest = {kind: render(kind, body) for kind, (body, _) in FENCE_BODIES.items()}


@pytest.fixture(scope="module")
def renders(tmp_path_factory) -> Renders:
    copy = tmp_path_factory.mktemp("reload") / "data"
    shutil.copytree(DATA, copy)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_toml, "DATA_DIR", copy)
        mp.delenv("ROOFLINE_CATALOG", raising=False)
        mp.setenv("ROOFLINE_CACHE", "0")  # the cold path each time: that is what broke
        yield Renders(copy)


@pytest.mark.parametrize("kind", list(FENCE_BODIES))
def test_every_fence_renders_twice_in_one_process(kind, renders):
    assert render(kind, FENCE_BODIES[kind][0]) == renders.latest[kind]


@pytest.mark.parametrize("data_file", list(EDITS))
def test_an_edited_data_file_reaches_the_next_render(data_file, renders):
    readers = [kind for kind, (_, files) in FENCE_BODIES.items() if data_file in files]
    path = renders.data / data_file
    text = path.read_text(encoding="utf-8")
    edited = EDITS[data_file](text)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    for kind in readers:
        html = render(kind, FENCE_BODIES[kind][0])
        assert html != renders.latest[kind], f"{kind} ignored the edit of {data_file}"
        renders.latest[kind] = html


def test_no_module_holds_a_bokeh_model():
    """A Bokeh model belongs to one document: one made at import breaks the second render."""
    import importlib
    import pkgutil

    from bokeh.model import Model

    import roofline
    for info in pkgutil.walk_packages(roofline.__path__, "roofline."):
        if info.ispkg or info.name.endswith("__main__"):  # __main__ runs the CLI
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            values = value if isinstance(value, (list, tuple)) else [value]
            assert not any(isinstance(v, Model) for v in values), f"{info.name}.{name}"

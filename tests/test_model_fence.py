"""The roofline widget's `model` option: a bundled name or a Hugging Face config.json relative
to the docs folder, in the fence (a fresh MkDocs site), the Sphinx directive and figure()."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import build_site
from roofline.errors import WidgetOptionError
from roofline.hosts import door
from roofline.widgets import model_option
from roofline.widgets.roofline.settings import RooflineSettings

MOE = {"_name_or_path": "reader/tiny-moe", "model_type": "mixtral", "hidden_size": 1024,
       "intermediate_size": 2816, "num_hidden_layers": 4, "num_attention_heads": 8,
       "num_key_value_heads": 2, "num_local_experts": 16, "num_experts_per_tok": 2,
       "vocab_size": 32000, "tie_word_embeddings": False}


def _docs(tmp_path: Path, config: dict) -> Path:
    docs = tmp_path / "docs"
    (docs / "models").mkdir(parents=True)
    (docs / "models" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return docs


def test_a_bundled_moe_moves_its_experts_on_the_tokens_slider():
    s = RooflineSettings.from_options({"tokens": 64, "model": "mixtral-8x7b"})
    tokens = s.payload()["tokens"]
    assert tokens["model"] == "Mixtral 8x7B"
    experts = next(o for o in tokens["ops"] if o["id"] == "experts_gate_proj")
    assert len(experts["cost"]["bf16"]) == 7  # [f0, f1, b0, b1, w, E, k]
    assert experts["cost"]["bf16"][5:] == [8.0, 2.0]


def test_a_config_path_is_relative_to_the_docs_folder(tmp_path):
    docs = _docs(tmp_path, MOE)
    token = model_option.DOCS_DIR.set(docs)
    try:
        s = door.settings("roofline", {"tokens": 8, "model": "models/config.json"})
        assert s.payload()["tokens"]["model"] == "reader/tiny-moe"
        assert s.data_files() == [str(docs / "models" / "config.json")]
    finally:
        model_option.DOCS_DIR.reset(token)
    with pytest.raises(WidgetOptionError) as err:  # from the working directory: not there
        door.settings("roofline", {"tokens": 8, "model": "models/config.json"}, where="p.md:3")
    assert err.value.option == "model" and "no such file" in str(err.value)


def test_a_bad_config_is_reported_against_the_model_option(tmp_path):
    bad = {k: v for k, v in MOE.items() if k != "num_local_experts"}
    path = _docs(tmp_path, bad) / "models" / "config.json"
    with pytest.raises(WidgetOptionError) as err:
        door.settings("roofline", {"tokens": 8, "model": str(path)}, where="page.md:7")
    text = str(err.value)
    assert err.value.option == "model" and text.startswith("page.md:7: option 'model': ")
    assert "field 'num_local_experts': missing" in text and "\n" not in text
    with pytest.raises(WidgetOptionError, match="unknown model 'gpt-9'.*deepseek-v3"):
        door.settings("roofline", {"tokens": 8, "model": "gpt-9"})


def test_figure_takes_a_bundled_model():
    import roofline
    fig = roofline.figure(tokens=16, model="deepseek-v3")
    assert "DeepSeek-V3" in fig.html()


FENCE = """# A reader's model

```roofline
tokens: 256
model: models/config.json
op: experts_gate_proj
```
"""


@pytest.mark.slow
def test_fence_with_a_config_path_builds_in_a_fresh_mkdocs_site(tmp_path):
    """A new project, its config.json beside its pages, built from another working directory:
    the path is read relative to the docs folder, and the plot carries the model's experts."""
    _docs(tmp_path, MOE)
    (tmp_path / "docs" / "index.md").write_text(FENCE, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Fresh\nuse_directory_urls: false\nplugins:\n  - roofline\n",
        encoding="utf-8")
    site = tmp_path / "site"
    proc = build_site(site, config=tmp_path / "mkdocs.yml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (site / "index.html").read_text(encoding="utf-8")
    (src,) = re.findall(r'class="roofline-item" data-roofline-item="\w+" data-src="([^"]+)"',
                        html)
    item = (site / src).read_text(encoding="utf-8")
    assert "reader/tiny-moe" in item and "experts_gate_proj" in item

    # The same page with an MoE config that lacks its expert count fails the build in one line.
    bad = {k: v for k, v in MOE.items() if k != "num_local_experts"}
    (tmp_path / "docs" / "models" / "config.json").write_text(json.dumps(bad), encoding="utf-8")
    proc = build_site(tmp_path / "site2", config=tmp_path / "mkdocs.yml")
    assert proc.returncode != 0
    assert re.search(r"docs/index\.md:5: ```roofline fence: option 'model': \S*config\.json: "
                     r"field 'num_local_experts': missing", proc.stderr), proc.stderr[-2000:]


@pytest.mark.slow
def test_sphinx_directive_reads_the_config_beside_its_source(tmp_path):
    pytest.importorskip("sphinx")
    from test_sphinx import sphinx_build
    src = tmp_path / "src"
    (src / "models").mkdir(parents=True)
    (src / "models" / "config.json").write_text(json.dumps(MOE), encoding="utf-8")
    (src / "conf.py").write_text('extensions = ["roofline.sphinx"]\n', encoding="utf-8")
    (src / "index.rst").write_text("MoE\n===\n\n.. roofline::\n   :tokens: 64\n"
                                   "   :model: models/config.json\n", encoding="utf-8")
    status, log = sphinx_build(src, tmp_path / "html")
    assert status == 0, log
    built = " ".join(p.read_text(encoding="utf-8") for p in (tmp_path / "html").rglob("*")
                     if p.suffix in (".html", ".js") and p.is_file())
    assert "reader/tiny-moe" in built and "experts_gate_proj" in built

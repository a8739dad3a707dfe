"""The budget widget's Python side: every figure the payload carries is the model's (Python is
the one copy of every formula; the JS only selects and sums), the case file node checks the JS
against is current, the JS has no twin of a Python function, and bad fence options name their
field."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from roofline import RooflineError, default_catalog
from roofline.model.budget import FUSIONS, Assumptions, budget, example_budget
from roofline.model.example import EXAMPLE
from roofline.model.memory import RECOMPUTE, ZERO_STAGES, Sharding, step_memory
from roofline.model.transformer import default_models, get_model
from roofline.model.waterfall import knob_factors, term_times
from roofline.widgets.budget import layout as pb
from roofline.widgets.budget import payload as bp

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "budget_cases.jsonl"
H100 = default_catalog()["h100-sxm"]


@pytest.fixture(scope="module")
def data() -> dict:
    return bp.payload("h100-sxm", "bf16")


def _budget(model, phase, batch, mask=0, dp=8, zero=0, recompute="none", **assumptions):
    return budget(get_model(model), phase, batch, bp.SEQ[phase], H100, "bf16", 2.0,
                  bp.fusions_of(mask), Assumptions(dp_degree=dp, **assumptions),
                  Sharding(zero, recompute))


def _parts(data, key, mask, dp, zero, recompute) -> dict:
    """A setting's components as budget_view.mjs selects them (partsAt)."""
    model, phase, _ = key.split("|")
    sharded = data["sharded"][phase]
    di = data["dp_options"].index(dp) if sharded else 0
    zi = data["zero"].index(zero) if sharded else 0
    ri = data["recompute"].index(recompute) if sharded else 0
    e = data["combos"][key][mask]
    parts = {k: v[ri] if isinstance(v, list) else v for k, v in e["c"].items()}
    parts.update(zip(data["shard_keys"], data["shard"][f"{model}|{phase}"][di][zi]))
    return parts


def test_every_precomputed_setting_is_the_models_waterfall(data):
    """For every model, phase, batch and fusion set (and, for the running example's step, every
    recomputation, ZeRO stage and a spread of degrees), WATERFALL_TERMS over the payload's
    components gives roofline.model.budget's waterfall, and the step parts add up to its
    roofline step time. Seeded defect: the payload's optimizer left unsharded."""
    a = Assumptions()
    factors = knob_factors(a, data["efficiency"])
    settings = [(key, mask, 8, 1, "full") for key in data["combos"] for mask in (0, 5, 8, 15)]
    example = f"{EXAMPLE.model}|train|{EXAMPLE.batch}"
    settings += [(example, 8, dp, z, r) for dp in (1, 8, 1024) for z in ZERO_STAGES
                 for r in RECOMPUTE]
    for key, mask, dp, zero, rec in settings:
        model, phase, batch = key.split("|")
        bg = _budget(model, phase, int(batch), mask, dp, zero, rec)
        parts = _parts(data, key, mask, dp, zero, rec)
        for (k, t), want in zip(term_times(parts, factors), bg.waterfall(), strict=True):
            assert k == want.key and t == pytest.approx(want.time_s, rel=1e-9, abs=1e-15), \
                (key, mask, dp, zero, rec, k)
        step = sum(parts[k] for k in data["step_parts"])
        assert step == pytest.approx(bg.step_time_s, rel=1e-9), (key, mask, dp, zero, rec)
        assert data["combos"][key][mask]["ideal"] == pytest.approx(bg.ideal_time_s, rel=1e-11)
    seeded = dict(_parts(data, example, 8, 8, 1, "full"))
    seeded["optimizer"] *= 8
    bg = _budget(EXAMPLE.model, "train", EXAMPLE.batch, 8, 8, 1, "full")
    assert dict(term_times(seeded, factors))["memory"] != pytest.approx(
        dict((t.key, t.time_s) for t in bg.waterfall())["memory"], rel=1e-6)


def _reachable():
    for model in default_models():
        for phase, batches in bp.BATCHES.items():
            for batch in batches:
                for flash in (False, True):
                    if phase != "train":
                        yield model, phase, batch, flash, 1, 0, "none"
                        continue
                    for dp in bp.DP_OPTIONS:
                        for zero in ZERO_STAGES:
                            for rec in RECOMPUTE:
                                yield model, phase, batch, flash, dp, zero, rec


def test_every_reachable_memory_state_is_the_models(data):
    """Every state of the controls that changes what a step holds: the payload's parts add up
    to roofline.model.memory's total, the verdict against the usable capacity is its verdict,
    and the fix sentence is the one fix_sentence gives (issue #13's sweep, now over the one
    copy)."""
    cap = H100.hbm.visible_capacity_bytes
    assert data["hbm"] == cap
    misfits = 0
    fixes: dict[tuple, str] = {}
    for model, phase, batch, flash, dp, zero, rec in _reachable():
        key, shard = f"{model}|{phase}|{batch}", f"{model}|{phase}"
        train = phase == "train"
        di = data["dp_options"].index(dp) if train else 0
        zi, ri = (data["zero"].index(zero), data["recompute"].index(rec)) if train else (0, 0)
        total = (sum(data["state"][shard][di][zi].values()) + data["acts"][key][int(flash)][ri]
                 + data["kv"][key])
        m = step_memory(get_model(model), phase, batch, bp.SEQ[phase], 2.0, cap, flash=flash,
                        dp_degree=dp, sharding=Sharding(zero, rec) if train else Sharding())
        assert total == pytest.approx(m.total, rel=1e-12), (key, flash, dp, zero, rec)
        assert (total <= cap) == m.fits
        misfits += not m.fits
        fixes[(key, flash, dp)] = data["fix_texts"][data["fix"][key][int(flash)][di]]
    assert misfits > 500
    for (key, flash, dp), text in list(fixes.items())[::7]:
        model, phase, batch = key.split("|")
        bg = _budget(model, phase, int(batch), bp.mask_of({"flash"} if flash else ()), dp)
        assert text == bp.fix_sentence(bg), (key, flash, dp)


def test_knob_tables_are_the_assumptions_factors(data):
    """Each slider position's factor is knob_factors at that value; the defaults are
    positions (the page opens exactly on the model's figures: the GEMM efficiency is the
    chip's measured ceiling ÷ peak, a position between the steps)."""
    a = Assumptions()
    measured = example_budget().gemm_efficiency
    assert data["efficiency"] == measured
    for name, value in (("efficiency", measured),
                        ("launch_us", a.launch_overhead_s * 1e6),
                        ("overlap", a.overlap_fraction)):
        knob = data["knobs"][name]
        assert value in knob["values"], name
        i = knob["values"].index(value)
        assert knob["table"][i] == pytest.approx(knob_factors(a, measured)[knob["factor"]]), name
    eff = data["knobs"]["efficiency"]
    assert eff["table"][eff["values"].index(0.5)] == pytest.approx(1.0)  # 1 / 0.5 - 1


def test_case_file_is_current():
    """Regenerate: PYTHONPATH=site_src python3 tests/cases/make_budget_cases.py >
    tests/cases/budget_cases.jsonl. Under 100 KB, one case per line."""
    spec = importlib.util.spec_from_file_location("make_budget_cases",
                                                  ROOT / "tests" / "cases" / "make_budget_cases.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    lines = CASES.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in lines] == [json.loads(x) for x in make.lines()]
    assert CASES.stat().st_size < 100_000 and len(lines) >= 11
    whys = [json.loads(x)["why"] for x in lines[1:]]
    assert len(set(whys)) == len(whys)  # each case pins its own behaviour


def test_embedded_points_are_the_fused_kernels(data):
    row = data["combos"][f"{EXAMPLE.model}|train|{EXAMPLE.batch}"]
    assert len(row) == 16 and len(data["ops"]) == len(row[0]["x"]) == len(row[0]["y"]) == 15
    norm = data["ops"].index("input_layernorm")
    # fusing the norm into the QKV GEMM moves its point from AI ≈ 1 to the GEMM's
    assert row[0]["x"][norm] < 2 and row[bp.mask_of({"norm"})]["x"][norm] > 1000
    softmax = data["ops"].index("attn_softmax")
    assert row[bp.mask_of({"flash"})]["x"][softmax] > 10 * row[0]["x"][softmax]
    for e in row:  # y is the roofline at x, computed here so the JS does not
        for x, y in zip(e["x"], e["y"]):
            assert y == pytest.approx(min(data["peak"], x * data["bw"]) / 1e12, rel=1e-4)
    for mask, e in enumerate(row):
        assert (e["saved"] > 0) == (mask > 0)


def _py_defs() -> set[str]:
    out: set[str] = set()
    for p in (ROOT / "site_src").rglob("*.py"):
        out |= set(re.findall(r"^\s*def\s+(\w+)", p.read_text(encoding="utf-8"), re.M))
    return out


def _js_names(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"function\s+(\w+)|(?:const|let)\s+(\w+)\s*=\s*(?:\([^)]*\)|\w+)\s*=>",
                       text)
    return {a or b for a, b in found}


def twins(js_files, py_defs: set[str]) -> list[str]:
    """JS function names that, camelCase to snake_case, are also a Python def (a mirror)."""
    snake = lambda n: re.sub(r"(?<!^)(?=[A-Z])", "_", n).lower()  # noqa: E731
    return sorted(f"{p.name}:{n}" for p in js_files for n in _js_names(p) if snake(n) in py_defs)


def test_the_budget_widget_js_has_no_python_twin(tmp_path):
    """Python is the one copy of the budget's formulas (issue #25): no function of
    widgets/budget/*.mjs shares its name with a Python def. Seeded: a module defining
    stepMemory against a Python step_memory is caught."""
    files = sorted((ROOT / "site_src" / "roofline" / "widgets" / "budget").glob("*.mjs"))
    assert len(files) >= 3
    assert twins(files, _py_defs()) == []
    seeded = tmp_path / "seeded.mjs"
    seeded.write_text("export function stepMemory(P) { return P; }\n", encoding="utf-8")
    assert twins([seeded], _py_defs()) == ["seeded.mjs:stepMemory"]


def test_figure_names_its_parts_and_is_deterministic():
    from roofline.render.embed import item_json
    lay = pb.figure()
    for name in ("budget-model", "budget-phase", "budget-batch", "budget-fusions",
                 "budget-efficiency", "budget-launch", "budget-dp", "budget-overlap",
                 "budget-zero", "budget-recompute", "budget-readout", "budget-waterfall-text",
                 "budget-classes", "budget-waterfall", "budget-roofline", "budget-class-bars",
                 "budget-waterfall-bars", "budget-points"):
        assert lay.select_one({"name": name}) is not None, name
    assert item_json(pb.figure()) == item_json(pb.figure())
    # It opens on the running example (BudgetSettings' defaults are roofline.model.example's).
    assert lay.select_one({"name": "budget-fusions"}).active == [FUSIONS.index("flash")]
    assert lay.select_one({"name": "budget-zero"}).value == str(EXAMPLE.zero_stage)
    assert lay.select_one({"name": "budget-recompute"}).value == EXAMPLE.recompute
    assert lay.select_one({"name": "budget-batch"}).value == str(EXAMPLE.batch)


@pytest.mark.parametrize("kwargs, option", [
    ({"model": "gpt"}, "model"), ({"phase": "serve"}, "phase"), ({"batch": 3}, "batch"),
    ({"fuse": ["warp"]}, "fuse"), ({"hardware": "h900"}, "hardware"),
    ({"precision": "fp3"}, "precision"), ({"height": 20}, "height"),
    ({"zero": 4}, "zero"), ({"recompute": "some"}, "recompute"),
])
def test_bad_options_name_the_field(kwargs, option):
    """The settings object (roofline.widgets.budget.settings.BudgetSettings) names the option."""
    with pytest.raises(RooflineError, match=f"option '{option}'"):
        pb.figure(**kwargs)


# ---------------------------------------------------------------- the fences

def _md(text: str) -> str:
    import markdown
    from roofline.hosts.fences import custom_fences
    return markdown.markdown(text, extensions=["pymdownx.superfences"], extension_configs={
        "pymdownx.superfences": {"custom_fences": custom_fences()}})


def test_budget_fence_renders_a_block():
    html = _md("```roofline-budget\nmodel: llama-3-8b\nphase: decode\nbatch: 32\n"
               "fuse: [flash]\n```\n")
    assert 'class="roofline-block"' in html and "budget-fusions" in html
    assert 'min-height:1500px' in html  # 3 × 300 + the controls' 600 (ZeRO, recompute)


def test_budget_table_fence_is_the_model():
    """The configs table's training rows are the running example's step."""
    from roofline import fmt
    from roofline.model.budget import example_budget
    html = _md("```roofline-budget-table\ntable: configs\n```\n")
    bg = example_budget()
    assert "<table" in html and fmt.percent(bg.mfu_upper_bound, 3) in html
    assert fmt.percent(bg.mfu_estimate, 3) in html and fmt.capacity(bg.memory.total) in html
    assert "does not fit" not in html
    ceilings = _md("```roofline-budget-table\ntable: ceilings\n```\n")
    assert "NVLink 4 diagonal" in ceilings and "BF16 vector roof" in ceilings


@pytest.mark.parametrize("body, key", [
    ("fuse: [warp]", "fuse"), ("model: gpt", "model"), ("batch: 3", "batch"),
    ("colour: red", "colour"), ("fuse: flash", "fuse"),
])
def test_budget_fence_errors_name_the_key(body, key):
    from pymdownx.superfences import SuperFencesException
    with pytest.raises(SuperFencesException, match=f"roofline-budget fence: option '{key}'"):
        _md(f"```roofline-budget\n{body}\n```\n")


@pytest.mark.parametrize("body, key, says", [
    ("table: all", "table", "unknown table 'all'"), ("batch: 0", "batch", "positive integer"),
    ("hardware: h900", "hardware", "h900"), ("model: gpt", "model", "unknown model"),
    ("colour: red", "colour", "unknown option"), ("batch: two", "batch", "an integer"),
])
def test_budget_table_fence_errors_name_the_key(body, key, says):
    """BudgetTableSettings parses the table fence (one settings class per kind)."""
    from pymdownx.superfences import SuperFencesException
    with pytest.raises(SuperFencesException,
                       match=f"roofline-budget-table fence: option '{key}': .*{says}"):
        _md(f"```roofline-budget-table\n{body}\n```\n")


def test_budget_table_settings_are_registered_in_the_one_door():
    from roofline.hosts.door import KINDS as WIDGETS
    from roofline.widgets.budget.settings import BudgetTableSettings
    assert WIDGETS["roofline-budget-table"].settings_class() is BudgetTableSettings
    s = BudgetTableSettings.from_options({"table": "memory"})
    assert (s.model, s.batch) == (EXAMPLE.model, EXAMPLE.batch) and s.options() == {
        "table": "memory"}
    from roofline.widgets.budget.block import budget_table_block
    assert "<table" in budget_table_block(s)

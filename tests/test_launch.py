"""The launch overhead, one model (roofline.model.launch): a gap added to every launched kernel,
its basis and range from NVIDIA's CUDA Graphs walkthrough (data/overhead.toml), and the one
figure the budget, the lesson and the roofline widget's payload all use."""

from __future__ import annotations

import json

import pytest

from roofline.errors import RooflineError
from roofline.model import launch
from roofline.model.budget import Assumptions, example_budget

H100_PEAK, H100_BW = 989.4e12, 3.35e12


def test_the_range_is_the_walkthroughs_and_the_default_sits_inside_it():
    """A. Gray, 'Getting Started with CUDA Graphs' (NVIDIA, 2019): a ~2.9 µs kernel takes
    3.8 µs per launch overlapped, 9.6 µs synchronised, 3.4 µs as a graph: gaps of 0.9, 6.7
    and 0.5 µs. The 4 µs default is a round figure inside [0.9, 6.7] µs."""
    o = launch.load_launch()
    assert o.overlapped_s == pytest.approx(0.9e-6) and o.synchronised_s == pytest.approx(6.7e-6)
    assert o.graph_s == pytest.approx(0.5e-6)
    assert o.overlapped_s < o.seconds < o.synchronised_s and o.seconds == 4e-6
    assert [s for _, s in o.launch_range()] == [o.overlapped_s, o.seconds, o.synchronised_s]
    assert o.url.startswith("https://developer.nvidia.com/") and o.basis == "estimate"


def test_a_gap_is_added_to_every_kernel_not_a_floor_under_it():
    """The walkthrough's own numbers: its 2.9 µs kernel at 0.9 µs of gap takes 3.8 µs, as
    measured; a floor max(2.9, 0.9) would say 2.9 µs. A big kernel pays the gap too."""
    kernel_s = 2.9e-6
    flops = kernel_s * H100_PEAK  # a compute-bound kernel of exactly 2.9 µs
    t = launch.kernel_time(flops, 1.0, H100_PEAK, H100_BW, 0.9e-6)
    assert t == pytest.approx(3.8e-6)
    assert launch.kernel_time(1e15, 1e6, H100_PEAK, H100_BW, 4e-6) == pytest.approx(
        1e15 / H100_PEAK + 4e-6)
    # Attainable: under both the roofline and the launch ceiling, above half the lower one.
    for flops, bytes_ in ((4e6, 2e6), (1e9, 1e7), (1e13, 1e9)):
        att = launch.attainable_flops_per_s(flops, bytes_, H100_PEAK, H100_BW, 4e-6)
        roof = min(H100_PEAK, flops / bytes_ * H100_BW)
        ceiling = flops / 4e-6
        assert att < min(roof, ceiling) and att >= min(roof, ceiling) / 2


def test_regime_is_overhead_when_the_gap_outlasts_the_roofline_time():
    # RMSNorm of one token row (4,096 × bf16): ≈ 5 ns of bytes against a 4 µs gap.
    assert launch.regime(4 * 4096, (2 * 4096 + 4096) * 2, H100_PEAK, H100_BW, 4e-6) == "overhead"
    assert launch.regime(4 * 4096, (2 * 4096 + 4096) * 2, H100_PEAK, H100_BW, 0) == "memory"
    big = 2 * 8192 * 4096 * 11008
    assert launch.regime(big, 2 * (8192 * 4096 + 4096 * 11008), H100_PEAK, H100_BW,
                         4e-6) == "compute"


def test_the_budget_charges_every_launch_recomputed_ones_included():
    """The budget's launch term is the same gap × every launched kernel of the step as run
    (its recomputed forward pass launches again), and its default is data/overhead.toml's."""
    bg = example_budget()
    assert Assumptions().launch_overhead_s == launch.load_launch().seconds
    assert bg.recompute_launches > 0 and bg.step_launches == bg.launches + bg.recompute_launches
    assert bg.overhead_times_s["launch"] == pytest.approx(bg.step_launches * 4e-6)
    share = launch.launch_share(bg.step_launches, 4e-6, bg.step_time_s)
    assert share == pytest.approx(bg.overhead_times_s["launch"] / bg.step_time_s)


def test_decode_launch_share_moves_across_the_range():
    """The lesson's +42 % (483 launches × 4 µs on a 4.6 ms roofline step of unfused batch-1
    decode) is the same model: +9.5 % at 0.9 µs and +70.4 % at 6.7 µs."""
    o = launch.load_launch()
    shares = []
    for seconds in (o.overlapped_s, o.seconds, o.synchronised_s):
        bg = example_budget(phase="decode", batch=1, fusions=(), launch_overhead_s=seconds)
        assert bg.step_launches == 483
        shares.append(launch.launch_share(bg.step_launches, seconds, bg.step_time_s))
    assert [round(s * 100, 1) for s in shares] == [9.5, 42.0, 70.4]


def test_the_widget_payload_carries_the_same_model():
    from roofline.widgets.roofline.payload import launch_payload
    p, o = launch_payload(), launch.load_launch()
    assert (p["seconds"], p["model"]) == (o.seconds, "gap")
    assert (p["low"], p["high"]) == (o.overlapped_s, o.synchronised_s)


def test_bad_overhead_data_names_its_field(tmp_path):
    good = launch.OVERHEAD_PATH.read_text(encoding="utf-8")
    bad = tmp_path / "overhead.toml"
    for old, new, field in (("seconds = 4e-6", "seconds = 4", "seconds"),
                            ('source = "CUDAGRAPHS"', 'source = "NOPE"', "source"),
                            ("overlapped_seconds = 3.8e-6", "overlapped_seconds = 1e-6",
                             "measured.overlapped_seconds"),
                            ("graph_seconds = 3.4e-6", "graph_seconds = 3.4e-6\nextra = 1",
                             "measured.extra")):
        bad.write_text(good.replace(old, new), encoding="utf-8")
        with pytest.raises(RooflineError, match=field.replace(".", r"\.")):
            launch.load_launch(bad)


def test_the_graphs_gap_is_a_data_entry_that_must_agree_with_what_was_measured(tmp_path):
    """[launch.graphs] is 3.4 µs − 2.9 µs = 0.5 µs per kernel (CUDAGRAPHS); seeded: an entry of
    0.4 µs is refused in one line naming the field."""
    o = launch.load_launch()
    assert o.mode_seconds("graphs") == 5e-7 and o.graphs_basis == "derived"
    assert o.mode_seconds("eager") == o.seconds == 4e-6
    with pytest.raises(RooflineError, match="unknown launch mode"):
        o.mode_seconds("warp")
    bad = tmp_path / "overhead.toml"
    bad.write_text(launch.OVERHEAD_PATH.read_text(encoding="utf-8")
                   .replace("seconds = 5e-7", "seconds = 4e-7"), encoding="utf-8")
    with pytest.raises(RooflineError, match=r"graphs\.seconds") as e:
        launch.load_launch(bad)
    assert "\n" not in str(e.value)


def test_cli_budget_says_its_launch_mode_and_takes_graphs(capsys):
    from roofline.cli import main
    assert main(["budget", "--phase", "decode", "--format", "json"]) == 0
    a = json.loads(capsys.readouterr().out)["assumptions"]
    assert (a["launch_mode"], a["launch_overhead_s"]) == ("eager", 4e-6)
    assert main(["budget", "--phase", "decode", "--launch", "graphs", "--format", "json"]) == 0
    a = json.loads(capsys.readouterr().out)["assumptions"]
    assert (a["launch_mode"], a["launch_overhead_s"]) == ("graphs", 5e-7)
    assert main(["budget", "--phase", "decode", "--launch", "graphs"]) == 0
    assert "launches: CUDA graphs (0.5 µs per kernel)" in " ".join(capsys.readouterr().out.split())
    assert main(["budget", "--launch-overhead", "1e-6", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["assumptions"]["launch_mode"] == "given"
    assert main(["budget", "--launch", "graphs", "--launch-overhead", "1e-6"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--launch" in err

"""The serving window against measured servers (data/measured_servers.toml; #47).

The window's step is a lower bound on a server's decode step: roofline times for every kernel
plus the CUDA-graph launch gap. Each entry is priced at its own chip, model, weight and KV
precisions, tensor-parallel degree and batch, launched as CUDA graphs (how the servers run
decode), at context = input + output / 2: a step reads the KV cache of every token so far, one
more each step, and the window's cost is linear in the context, so the mean step over the
output is the step at the mean context. The measured figure must be at least the window's
(else the bound is broken or the entry is not what it says) and the window at least half of it
(else the bound is too loose to say anything). An entry that fails is a finding: the data file
says why it was dropped, or the model is fixed; the bounds here are not loosened.
"""

from __future__ import annotations

import dataclasses

import pytest

from roofline.errors import RooflineError
from roofline.widgets.window import measured
from roofline.widgets.window.measured import (FLOOR, comparisons, finding, load_measured,
                                              window_seconds_per_token)

ENTRIES = load_measured()


def test_the_file_has_entries_from_more_than_one_chip_and_release():
    assert 4 <= len(ENTRIES) <= 8
    assert len({e.hardware for e in ENTRIES}) >= 2
    assert len({e.server for e in ENTRIES}) >= 2
    assert len({e.id for e in ENTRIES}) == len(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_a_derived_time_per_token_is_the_printed_throughput_s_arithmetic(entry):
    # batch sequences decode in step on tp chips: one step yields `batch` tokens, one per
    # sequence, so a sequence's time per output token is batch / (throughput per chip x tp)
    if entry.output_tokens_per_s_per_chip is None:
        pytest.skip("measured per token as printed")
    assert entry.seconds_per_token == pytest.approx(
        entry.batch / (entry.output_tokens_per_s_per_chip * entry.tp), rel=1e-12)
    assert "Derived" in entry.note


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_the_window_bounds_each_measured_server_from_below_within_half(entry):
    ours = window_seconds_per_token(entry)
    assert finding(entry, ours) is None
    assert FLOOR * entry.seconds_per_token <= ours <= entry.seconds_per_token


def test_the_context_is_the_prompt_plus_half_the_output():
    e = ENTRIES[0]
    assert e.context == e.input_tokens + e.output_tokens // 2


def test_a_measured_time_below_the_bound_is_caught():
    e = ENTRIES[0]
    ours = window_seconds_per_token(e)
    seeded = dataclasses.replace(e, id="seeded-below", seconds_per_token=ours * 0.9)
    message = finding(seeded, window_seconds_per_token(seeded))
    assert message is not None and "not a lower bound" in message and "seeded-below" in message


def test_a_bound_below_half_the_measured_time_is_caught():
    e = ENTRIES[0]
    ours = window_seconds_per_token(e)
    seeded = dataclasses.replace(e, id="seeded-loose", seconds_per_token=ours / 0.4)
    message = finding(seeded, ours)
    assert message is not None and "below 0.5" in message


def _seeded_file(tmp_path, **changes) -> str:
    text = measured.PATH.read_text()
    first = text.index("[[entry]]")
    second = text.index("[[entry]]", first + 1)
    block = text[first:second]
    for key, value in changes.items():
        lines = [ln for ln in block.splitlines() if not ln.startswith(f"{key} =")]
        if value is not None:
            lines.append(f"{key} = {value}")
        block = "\n".join(lines) + "\n"
    path = tmp_path / "measured_servers.toml"
    path.write_text(text[:first] + block)
    return path


def test_a_seeded_file_whose_server_beats_the_bound_fails_the_comparison(tmp_path):
    path = _seeded_file(tmp_path, seconds_per_token="0.005", output_tokens_per_s_per_chip=None)
    [(entry, ours, ratio)] = comparisons(path)
    assert ratio > 1
    assert "not a lower bound" in finding(entry, ours)


def test_the_loader_refuses_an_unknown_source_field_or_basis(tmp_path):
    with pytest.raises(RooflineError, match="unknown source"):
        load_measured(_seeded_file(tmp_path, source='"NOPE"'))
    with pytest.raises(RooflineError, match="unknown field"):
        load_measured(_seeded_file(tmp_path, seconds_per_tokn="0.01"))
    with pytest.raises(RooflineError, match="basis"):
        load_measured(_seeded_file(tmp_path, basis='"estimate"'))
    with pytest.raises(RooflineError, match="above 0"):
        load_measured(_seeded_file(tmp_path, seconds_per_token="0.0"))

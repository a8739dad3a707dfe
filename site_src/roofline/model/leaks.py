"""Where a step's MFU leaks, as one ranked account, and recomputation as a choice.

Two quantities, each with one definition and one name wherever a page or the CLI prints it:

- **share of step time**: a leak's seconds ÷ the step's seconds (t / T). It is the leak's bar
  in the waterfall (roofline.model.waterfall): the shares and the MFU add up to 100 %.
- **points of MFU recovered**: the MFU with that leak alone removed (its seconds taken out of
  the step, all else unchanged) minus today's MFU: ideal / (T - t) - ideal / T, which is
  MFU × share ÷ (1 - share). It is less than the share whenever another leak remains (MFU +
  share < 1), so the two differ and are never printed under one name.

The account ranks the leaks by their seconds, largest first (ties keep the waterfall's order);
both quantities grow with the seconds, so either gives the same order.

The recomputation choice: a training step recomputes its forward pass to fit in memory; the
alternative is a smaller batch that fits without it. without_recompute() asks the memory model
(roofline.model.memory) for the largest batch, no larger than the step's, that fits with no
recomputation, its ZeRO stage and fusions unchanged; nothing here is typed."""

from __future__ import annotations

from dataclasses import dataclass

from roofline.model.budget import Budget, budget
from roofline.model.memory import Sharding


@dataclass(frozen=True)
class Leak:
    key: str
    label: str
    time_s: float
    """The leak's seconds per step."""
    share: float
    """Share of step time: time_s ÷ the step's seconds."""
    mfu_without: float
    """The MFU with this leak alone removed."""
    recovered: float
    """Points of MFU recovered (as a fraction): mfu_without − today's MFU."""


@dataclass(frozen=True)
class LeakAccount:
    leaks: tuple[Leak, ...]
    """Largest first."""
    ideal_time_s: float
    """The useful FLOPs at peak: the part of the step that is no leak."""
    step_time_s: float
    mfu: float
    """ideal_time_s ÷ step_time_s: the useful work's share of step time, which is the MFU."""


def leak_account(bg: Budget) -> LeakAccount:
    """The step's leaks from its waterfall, ranked by their seconds, each with its share of
    step time and the points of MFU removing it alone would recover."""
    terms = bg.waterfall()
    ideal = bg.ideal_time_s
    step = ideal + sum(t.time_s for t in terms)
    mfu = ideal / step
    leaks = [Leak(t.key, t.label, t.time_s, t.time_s / step, ideal / (step - t.time_s),
                  ideal / (step - t.time_s) - mfu) for t in terms]
    leaks.sort(key=lambda x: -x.time_s)
    return LeakAccount(tuple(leaks), ideal, step, mfu)


def without_recompute(bg: Budget) -> Budget | None:
    """The largest batch, no larger than `bg`'s, whose training step fits with no
    recomputation (same model, chip, fusions, assumptions and ZeRO stage), or None: none fits,
    or `bg` is no training step."""
    if bg.phase != "train":
        return None
    for batch in range(bg.batch, 0, -1):
        other = budget(bg.model, bg.phase, batch, bg.seq, bg.hardware, bg.precision,
                       bg.bytes_per_element, bg.fusions, bg.assumptions,
                       Sharding(bg.sharding.zero_stage, "none"))
        if other.fits:
            return other
    return None


def recompute_choice(bg: Budget) -> tuple[Budget, ...]:
    """The step as given, the same batch without recomputation (when `bg` recomputes: it may
    not fit) and the largest batch that fits without it (when that is another batch)."""
    if bg.phase != "train" or bg.sharding.recompute == "none":
        return (bg,)
    same = budget(bg.model, bg.phase, bg.batch, bg.seq, bg.hardware, bg.precision,
                  bg.bytes_per_element, bg.fusions, bg.assumptions,
                  Sharding(bg.sharding.zero_stage, "none"))
    fitting = without_recompute(bg)
    out = [bg, same]
    if fitting is not None and fitting.batch != same.batch:
        out.append(fitting)
    return tuple(out)

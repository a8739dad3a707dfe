"""`roofline budget`: where one training or inference step's time goes, and the MFU it allows."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from roofline import fmt
from roofline.model.budget import FUSIONS, TYPICAL, Assumptions, Budget, budget
from roofline.model.catalog import default_catalog
from roofline.errors import RooflineError
from roofline.model.memory import RECOMPUTE, ZERO_STAGES, Sharding, describe
from roofline.render.table import Column, Table
from roofline.model.transformer import get_model
from roofline.cli._common import add_catalog, only_with, text_width, wrap, write

# The assumptions' typed defaults; the launch overhead's is data/overhead.toml's launch floor,
# read in run() (building the parser reads no data file, so a bad one is one error line).
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Assumptions)
             if f.default is not dataclasses.MISSING}
# The model's field names for the options they come from, so errors name the option.
FIELD_ALIASES = {"kernel_efficiency": "efficiency", "launch_overhead_s": "launch-overhead",
                 "dp_degree": "dp", "overlap_fraction": "overlap"}


def add_parser(sub) -> None:
    p = sub.add_parser("budget", help="time budget of a model step, fusion what-ifs, MFU bound",
                       description="Where one training or inference step's time goes on one "
                       "chip: every kernel at its roofline bound, then the losses from peak to "
                       "the MFU a real run could reach.")
    # Values are checked in run() so that bad input ends in one RooflineError line, exit 2.
    p.add_argument("--model", default=TYPICAL["model"], metavar="NAME",
                   help=f"a transformer config, e.g. llama-2-7b (default: {TYPICAL['model']})")
    p.add_argument("--phase", default=TYPICAL["phase"], metavar="train|prefill|decode",
                   help="a training step (forward, backward, optimizer), a prompt's prefill or "
                        f"one decode step (default: {TYPICAL['phase']})")
    p.add_argument("--batch", default=str(TYPICAL["batch"]), metavar="B",
                   help=f"sequences per GPU per step (default: {TYPICAL['batch']})")
    p.add_argument("--seq", default=str(TYPICAL["seq"]), metavar="S",
                   help="sequence length (train/prefill) or KV-cache length (decode) "
                        f"(default: {TYPICAL['seq']})")
    p.add_argument("--hardware", default=TYPICAL["hardware"], metavar="ID",
                   help=f"accelerator id from the catalog (default: {TYPICAL['hardware']})")
    p.add_argument("--precision", default=TYPICAL["precision"], metavar="P",
                   help=f"precision of the matmuls (default: {TYPICAL['precision']})")
    add_catalog(p)
    p.add_argument("--fuse", default="", metavar="LIST",
                   help=f"comma-separated fusions: {','.join(FUSIONS)} (or 'all')")
    p.add_argument("--efficiency", default=str(_DEFAULTS["kernel_efficiency"]), metavar="F",
                   help="share of its roofline bound a kernel reaches, (0, 1] "
                        f"(default: {_DEFAULTS['kernel_efficiency']})")
    p.add_argument("--launch-overhead", default=None, metavar="S",
                   help="seconds lost per kernel launch (default: the launch floor in "
                        "data/overhead.toml)")
    p.add_argument("--dp", default=None, metavar="N",
                   help="with --phase train: data-parallel degree of the gradient all-reduce "
                        f"(default: {_DEFAULTS['dp_degree']})")
    p.add_argument("--overlap", default=None, metavar="F",
                   help="with --phase train: share of the all-reduce hidden behind the "
                        f"backward pass, [0, 1] (default: {_DEFAULTS['overlap_fraction']})")
    p.add_argument("--zero", default=None, metavar="0-3",
                   help="with --phase train: ZeRO stage sharding optimizer state (1), gradients "
                        "(2) and weights (3) over the data-parallel GPUs (default: 0)")
    p.add_argument("--recompute", default=None, metavar="|".join(RECOMPUTE),
                   help="with --phase train: activation recomputation in the backward pass "
                        "(default: none)")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table: text that fits the terminal; json: every figure, SI units "
                        "(default: table)")


def _number(text: str, field: str, kind=float):
    try:
        return kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise RooflineError(f"expected {noun}, got {text!r}", field=field) from None


def _positive_int(text: str, field: str) -> int:
    value = _number(text, field, int)
    if value <= 0:
        raise RooflineError(f"must be a positive integer, got {text!r}", field=field)
    return value


def parse_fusions(text: str) -> frozenset[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return frozenset(FUSIONS)
    for n in names:
        if n not in FUSIONS:
            raise RooflineError(f"unknown fusion {n!r}", field="fuse", valid=list(FUSIONS))
    return frozenset(names)


def from_args(args: argparse.Namespace) -> Budget:
    only_with(args, {"dp": "--dp", "overlap": "--overlap", "zero": "--zero",
                     "recompute": "--recompute"}, args.phase == "train",
              "with --phase train (inference has no gradient all-reduce)")
    dp = args.dp if args.dp is not None else str(_DEFAULTS["dp_degree"])
    overlap = args.overlap if args.overlap is not None else str(_DEFAULTS["overlap_fraction"])
    catalog = default_catalog(args.catalog)
    hw = catalog[args.hardware]
    b = catalog.precision(args.precision).bytes_per_element
    assumptions = Assumptions(
        kernel_efficiency=_number(args.efficiency, "efficiency"),
        **({} if args.launch_overhead is None else
           {"launch_overhead_s": _number(args.launch_overhead, "launch-overhead")}),
        dp_degree=_positive_int(dp, "dp"),
        overlap_fraction=_number(overlap, "overlap"))
    zero = _number(args.zero, "zero", int) if args.zero is not None else 0
    if zero not in ZERO_STAGES:
        raise RooflineError(f"must be 0, 1, 2 or 3, got {args.zero!r}", field="zero")
    recompute = args.recompute or "none"
    if recompute not in RECOMPUTE:
        raise RooflineError(f"unknown recomputation {recompute!r}", field="recompute",
                            valid=list(RECOMPUTE))
    return budget(get_model(args.model), args.phase, _positive_int(args.batch, "batch"),
                  _positive_int(args.seq, "seq"), hw, args.precision, b,
                  parse_fusions(args.fuse), assumptions, Sharding(zero, recompute))


def fit_warning(bg: Budget) -> str | None:
    """One line when the step does not fit in the chip's memory: total, capacity, overflow,
    and the sharding that would fit (or that none does)."""
    m = bg.memory
    if m.fits:
        return None
    line = (f"warning: does not fit: this step needs {fmt.capacity(m.total)} per GPU, the "
            f"{bg.hardware.name} has {fmt.memory_and_bytes(m.capacity)}: "
            f"{fmt.capacity(m.overflow)} over")
    fix = bg.fitting_sharding()
    if bg.phase != "train":
        if m.weights > m.capacity:
            gpus = -(-m.weights // m.capacity)
            return line + (f"; the weights alone are {fmt.capacity(m.weights)}: shard them over "
                           f"at least {gpus:.0f} GPUs (tensor parallelism).")
        return line + (f"; the KV cache is {fmt.capacity(m.kv_cache)}: fewer sequences or a "
                       "shorter context would fit.")
    if fix is None:
        return line + (f"; no ZeRO stage or recomputation fits it on {bg.assumptions.dp_degree}"
                       " GPUs: it needs more GPUs or model parallelism.")
    return (line + f"; {describe(fix)} would fit (--zero {fix.zero_stage} --recompute "
            f"{fix.recompute}).")


def class_table(bg: Budget) -> Table:
    step = bg.step_time_s
    rows = tuple({"class": c, "time_s": v["time_s"], "share": v["time_s"] / step,
                  "flops": v["flops"], "bytes": v["bytes"], "launches": v["launches"]}
                 for c, v in bg.by_class().items() if v["launches"])
    cols = (Column("class", "Class"), Column("time_s", "Time", fmt.seconds, "right"),
            Column("share", "Share", fmt.percent, "right"),
            Column("flops", "FLOPs", fmt.count, "right"),
            Column("bytes", "Bytes", fmt.capacity, "right"),
            Column("launches", "Kernels", lambda x: f"{x:,}", "right"))
    return Table(cols, rows, caption="Where one step's time goes, by kernel class (all layers, "
                                     "forward to optimizer):")


def waterfall_table(bg: Budget) -> Table:
    rows = [{"term": "peak", "time_s": bg.ideal_time_s, "loss": None, "level": 1.0}]
    rows += [{"term": t.label, "time_s": t.time_s, "loss": -t.loss, "level": t.level_after}
             for t in bg.waterfall()]
    cols = (Column("term", "From 100 % of peak"),
            Column("time_s", "Time", fmt.seconds, "right"),
            Column("loss", "Change", lambda x: f"{x * 100:+.1f} pt", "right"),
            Column("level", "MFU after", fmt.percent, "right"))
    return Table(cols, tuple(rows), caption="From peak to the MFU estimate, one step:")


def run(args: argparse.Namespace) -> int:
    bg = from_args(args)
    warning = fit_warning(bg)
    if warning:  # exit 0: the figures are still printed, under a plain warning
        print("\n".join(wrap(warning, text_width(), indent="  ")), file=sys.stderr)
    if args.format == "json":
        write(json.dumps(bg.as_dict(), indent=2, ensure_ascii=False) + "\n")
        return 0
    fused = ", ".join(sorted(bg.fusions)) or "none"
    m = bg.memory
    fit = ([f"DOES NOT FIT: {fmt.capacity(m.total)} per GPU against "
            f"{fmt.memory_and_bytes(m.capacity)}; {fmt.capacity(m.overflow)} over. The times "
            "below are what it would take if it fit.", ""] if not m.fits else [])
    lines = fit + [f"{bg.model.name}, {bg.phase}, batch {bg.batch} × seq {bg.seq} on "
             f"{bg.hardware.name} ({bg.precision}); fused: {fused}",
             f"step {fmt.seconds(bg.step_time_s)} at the roofline, one layer "
             f"{fmt.seconds(bg.layer_time_s)}; {fmt.count(bg.flops)}FLOP, "
             f"{fmt.capacity(bg.bytes)} moved",
             f"MFU upper bound {fmt.percent(bg.mfu_upper_bound, 3)}; "
             f"after overheads {fmt.percent(bg.mfu_estimate, 3)}",
             f"memory per GPU {fmt.capacity(m.total)} of {fmt.memory_and_bytes(m.capacity)}, "
             f"{'fits' if m.fits else 'does not fit'}: weights {fmt.capacity(m.weights)}, "
             f"gradients {fmt.capacity(m.gradients)}, optimizer {fmt.capacity(m.optimizer)}, "
             f"activations {fmt.capacity(m.activations)}, KV cache {fmt.capacity(m.kv_cache)}",
             ""]
    width = text_width()
    hint = "--format json has every figure."
    lines = [part for line in lines for part in wrap(line, width)]
    out = ("\n".join(lines) + class_table(bg).as_text(width, hint=hint) + "\n"
           + waterfall_table(bg).as_text(width, wrap=("term",), hint=hint))
    saved = bg.bytes_saved()
    if saved:
        out += "\nbytes kept off HBM per step: " + ", ".join(
            f"{k} {fmt.capacity(v)}" for k, v in saved.items()) + "\n"
    write(out)
    return 0

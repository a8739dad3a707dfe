"""`roofline budget`: where one training or inference step's time goes, and the MFU it allows."""

from __future__ import annotations

import argparse
import json
import sys

from roofline import fmt
from roofline.model.budget import FUSIONS, Assumptions, Budget, budget
from roofline.model.example import EXAMPLE
from roofline.model.catalog import default_catalog
from roofline.errors import RooflineError
from roofline.model.launch import LAUNCH_MODES, MODE_LABELS, load_launch
from roofline.model.memory import RECOMPUTE, ZERO_STAGES, Sharding, sharding_text
from roofline.render.table_value import Column, Table
from roofline.model.chip_ranking import check_batch_fits_somewhere
from roofline.model.transformer import check_run, get_model
from roofline.widgets.budget.tables import efficiency_words, leak_table
from roofline.cli._common import add_catalog, only_with, terminal_columns, wrap, write

# Building the parser reads no data file (the launch gap and the all-reduce overlap default to
# data/overhead.toml's and data/overlap.toml's, read in run()), so a bad one is one error line.
# The model's field names for the options they come from, so errors name the option.
FIELD_ALIASES = {"kernel_efficiency": "efficiency", "launch_overhead_s": "launch-overhead",
                 "dp_degree": "dp", "overlap_fraction": "overlap"}


def add_parser(sub) -> None:
    p = sub.add_parser("budget", help="time budget of a model step, fusion what-ifs, MFU bound",
                       description="Where one training or inference step's time goes on one "
                       "chip: every kernel at its roofline bound, then the losses from peak to "
                       "the MFU a real run could reach.")
    # Values are checked in run() so that bad input ends in one RooflineError line, exit 2.
    # Every default is the running example's (roofline.model.example).
    p.add_argument("--model", default=EXAMPLE.model, metavar="NAME|FILE",
                   help="a bundled model (`roofline models` lists them) or a Hugging Face "
                        f"config.json (default: {EXAMPLE.model})")
    p.add_argument("--phase", default=EXAMPLE.phase, metavar="train|prefill|decode",
                   help="a training step (forward, backward, optimizer), a prompt's prefill or "
                        f"one decode step (default: {EXAMPLE.phase})")
    p.add_argument("--batch", default=str(EXAMPLE.batch), metavar="B",
                   help=f"sequences per GPU per step (default: {EXAMPLE.batch})")
    p.add_argument("--seq", default=str(EXAMPLE.seq), metavar="S",
                   help="sequence length (train/prefill) or KV-cache length (decode) "
                        f"(default: {EXAMPLE.seq})")
    p.add_argument("--hardware", default=EXAMPLE.hardware, metavar="ID",
                   help=f"accelerator id from the catalog (default: {EXAMPLE.hardware})")
    p.add_argument("--precision", default=EXAMPLE.precision, metavar="P",
                   help=f"precision of the matmuls (default: {EXAMPLE.precision})")
    add_catalog(p)
    p.add_argument("--fuse", default=",".join(EXAMPLE.fusions), metavar="LIST",
                   help=f"comma-separated fusions: {','.join(FUSIONS)}, 'all' or 'none' "
                        f"(default: {','.join(EXAMPLE.fusions) or 'none'})")
    p.add_argument("--efficiency", default=None, metavar="F",
                   help="share of its roofline bound a GEMM reaches, (0, 1] (default: the "
                        "chip's measured matmul ceiling ÷ its peak, data/ceilings.toml; the "
                        "roofline bound where the chip has no measurement)")
    p.add_argument("--launch", default=None, choices=LAUNCH_MODES,
                   help="how the kernels are launched, each mode with its gap per kernel in "
                        "data/overhead.toml: graphs (replayed as a CUDA graph, as serving "
                        "stacks run decode) or eager (one by one from the host) (default: "
                        "eager)")
    p.add_argument("--launch-overhead", default=None, metavar="S",
                   help="seconds lost per kernel launch, instead of a mode's gap (default: "
                        "the --launch mode's)")
    p.add_argument("--dp", default=None, metavar="N",
                   help="with --phase train: data-parallel degree of the gradient all-reduce "
                        f"(default: {EXAMPLE.dp_degree})")
    p.add_argument("--overlap", default=None, metavar="F",
                   help="with --phase train: share of the all-reduce hidden behind the "
                        "backward pass, [0, 1] (default: data/overlap.toml's, an assumption)")
    p.add_argument("--zero", default=None, metavar="0-3",
                   help="with --phase train: ZeRO stage sharding optimizer state (1), gradients "
                        f"(2) and weights (3) over the data-parallel GPUs (default: "
                        f"{EXAMPLE.zero_stage})")
    p.add_argument("--recompute", default=None, metavar="|".join(RECOMPUTE),
                   help="with --phase train: activation recomputation in the backward pass "
                        f"(default: {EXAMPLE.recompute})")
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
    if names == ["none"]:
        return frozenset()
    for n in names:
        if n not in FUSIONS:
            raise RooflineError(f"unknown fusion {n!r}", field="fuse", valid=list(FUSIONS))
    return frozenset(names)


def from_args(args: argparse.Namespace) -> Budget:
    only_with(args, {"dp": "--dp", "overlap": "--overlap", "zero": "--zero",
                     "recompute": "--recompute"}, args.phase == "train",
              "with --phase train (inference has no gradient all-reduce)")
    dp = args.dp if args.dp is not None else str(EXAMPLE.dp_degree)
    catalog = default_catalog(args.catalog)
    hw = catalog[args.hardware]
    b = catalog.precision(args.precision).bytes_per_element
    if args.launch is not None and args.launch_overhead is not None:
        raise RooflineError("give --launch or --launch-overhead, not both", field="launch")
    launch_s = (_number(args.launch_overhead, "launch-overhead")
                if args.launch_overhead is not None
                else load_launch().mode_seconds(args.launch or "eager"))
    overlap = ({} if args.overlap is None else
               {"overlap_fraction": _number(args.overlap, "overlap")})
    assumptions = Assumptions(
        kernel_efficiency=(None if args.efficiency is None
                           else _number(args.efficiency, "efficiency")),
        launch_overhead_s=launch_s,
        dp_degree=_positive_int(dp, "dp"), **overlap)
    zero = _number(args.zero, "zero", int) if args.zero is not None else EXAMPLE.zero_stage
    if zero not in ZERO_STAGES:
        raise RooflineError(f"must be 0, 1, 2 or 3, got {args.zero!r}", field="zero")
    recompute = args.recompute or EXAMPLE.recompute
    if recompute not in RECOMPUTE:
        raise RooflineError(f"unknown recomputation {recompute!r}", field="recompute",
                            valid=list(RECOMPUTE))
    cfg, batch, seq = get_model(args.model), _positive_int(args.batch, "batch"), \
        _positive_int(args.seq, "seq")
    fusions = parse_fusions(args.fuse)
    check_run(args.phase, batch, seq)
    # a batch no chip could hold even sharded is refused, not printed as petabytes
    check_batch_fits_somewhere(cfg, args.phase, batch, seq, catalog, b,
                               flash="flash" in fusions, dp_degree=assumptions.dp_degree)
    return budget(cfg, args.phase, batch, seq, hw, args.precision, b, fusions, assumptions,
                  Sharding(zero, recompute))


def launch_mode(args: argparse.Namespace) -> str:
    """The launch mode the budget's gap is (LAUNCH_MODES), or "given" (--launch-overhead)."""
    return "given" if args.launch_overhead is not None else args.launch or "eager"


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
    return (line + f"; {sharding_text(fix)} would fit (--zero {fix.zero_stage} --recompute "
            f"{fix.recompute}).")


def class_table(bg: Budget) -> Table:
    step = bg.pass_time_s
    rows = tuple({"class": c, "time_s": v["time_s"], "share": v["time_s"] / step,
                  "flops": v["flops"], "bytes": v["bytes"], "launches": v["launches"]}
                 for c, v in bg.by_class().items() if v["launches"])
    cols = (Column("class", "Class"), Column("time_s", "Time", fmt.seconds, "right"),
            Column("share", "Share", fmt.percent, "right"),
            Column("flops", "FLOPs", fmt.count, "right"),
            Column("bytes", "Bytes", fmt.capacity, "right"),
            Column("launches", "Kernels", lambda x: f"{x:,}", "right"))
    return Table(cols, rows, caption="Where one step's time goes, by kernel class (all layers, "
                                     "forward to optimizer, once; without the recomputed "
                                     "forward):")


def overlap_words(bg: Budget) -> str | None:
    """The all-reduce line of a data-parallel training step: the GPUs, the share hidden behind
    the backward pass and its basis (data/overlap.toml's is an assumption, said so)."""
    a = bg.assumptions
    if bg.phase != "train" or a.dp_degree == 1:
        return None
    from roofline.model.overlap import load_overlap
    o = load_overlap()
    basis = (f"an {o.basis}, data/overlap.toml" if a.overlap_fraction == o.fraction
             else "as given")
    return (f"gradient all-reduce over {a.dp_degree:,} GPUs, "
            f"{fmt.num(a.overlap_fraction * 100, 3)} % of it hidden behind the backward pass "
            f"({basis})")


def as_json(bg: Budget) -> dict:
    """Every figure of a budget, SI units: what --format json prints."""
    from roofline.model.leaks import leak_account
    classes = bg.by_class()
    terms = bg.waterfall()
    return {
        "model": bg.model.id, "phase": bg.phase, "batch": bg.batch, "seq": bg.seq,
        "params_total": bg.model.params, "params_active": bg.model.params_active,
        "flops_per_token": bg.model.flops_per_token, "model_notes": list(bg.model.notes),
        "hardware": bg.hardware.id, "precision": bg.precision,
        "fusions": sorted(bg.fusions),
        "assumptions": {"kernel_efficiency": bg.gemm_efficiency,
                        "kernel_efficiency_basis": bg.efficiency_basis,
                        "launch_overhead_s": bg.assumptions.launch_overhead_s,
                        "dp_degree": bg.assumptions.dp_degree,
                        "overlap_fraction": bg.assumptions.overlap_fraction,
                        "grad_bytes_per_element": bg.assumptions.grad_bytes_per_element},
        "peak_flops_per_s": bg.peak_flops_per_s,
        "bandwidth_bytes_per_s": bg.bandwidth_bytes_per_s,
        "useful_flops": bg.useful_flops, "total_flops": bg.flops,
        "total_bytes": bg.bytes, "launches": bg.launches,
        "step_launches": bg.step_launches,
        "sharding": {"zero_stage": bg.sharding.zero_stage,
                     "recompute": bg.sharding.recompute},
        "memory": bg.memory.as_dict(), "fits": bg.fits,
        "fits_with": (None if bg.fits or bg.fitting_sharding() is None else
                      {"zero_stage": bg.fitting_sharding().zero_stage,
                       "recompute": bg.fitting_sharding().recompute}),
        "ideal_time_s": bg.ideal_time_s, "step_time_s": bg.step_time_s,
        "pass_time_s": bg.pass_time_s, "recompute_time_s": bg.recompute_time_s,
        "layer_time_s": bg.layer_time_s,
        "mfu_upper_bound": bg.mfu_upper_bound,
        "mfu_upper_bound_without_recompute": bg.mfu_upper_bound_without_recompute,
        "mfu_estimate": bg.mfu_estimate, "capacity_bytes": bg.capacity_bytes,
        "time_s": {c: v["time_s"] for c, v in classes.items()},
        "flops": {c: v["flops"] for c, v in classes.items()},
        "bytes": {c: v["bytes"] for c, v in classes.items()},
        "launches_by_class": {c: v["launches"] for c, v in classes.items()},
        "bytes_saved": bg.bytes_saved(),
        "allreduce_time_s": bg.allreduce_time_s,
        "communication_time_s": bg.communication_time_s,
        "waterfall": [{"key": t.key, "label": t.label, "time_s": t.time_s,
                       "loss": t.loss, "level_after": t.level_after} for t in terms],
        # The ranked account (roofline.model.leaks): share of step time and points of MFU
        # recovered (as fractions), largest first.
        "leaks": [{"key": x.key, "label": x.label, "time_s": x.time_s,
                   "share_of_step_time": x.share, "mfu_recovered": x.recovered,
                   "mfu_without": x.mfu_without} for x in leak_account(bg).leaks],
        "layer_ops": [{"op": name, "class": cls, "kernel": k.name,
                       "intensity_flops_per_byte": k.intensity_flops_per_byte}
                      for name, cls, k in bg.layer_map],
        "kernels": [{"name": k.name, "pass": k.pass_, "class": k.op_class,
                     "count": k.count, "flops": k.flops, "bytes": k.bytes,
                     "unfused_bytes": k.unfused_bytes,
                     "intensity_flops_per_byte": k.intensity_flops_per_byte,
                     "time_s": bg.kernel_time_s(k)} for k in bg.kernels],
    }


def run(args: argparse.Namespace) -> int:
    bg = from_args(args)
    mode = launch_mode(args)
    warning = fit_warning(bg)
    if warning:  # exit 0: the figures are still printed, under a plain warning
        print("\n".join(wrap(warning, terminal_columns(), indent="  ")), file=sys.stderr)
    if args.format == "json":
        doc = as_json(bg)
        doc["assumptions"]["launch_mode"] = mode
        write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return 0
    gap = f"{fmt.num(bg.assumptions.launch_overhead_s * 1e6, 3)} µs per kernel"
    launches = (f"launches: {MODE_LABELS[mode]} ({gap})" if mode in MODE_LABELS
                else f"launches: {gap}, as given")
    fused = ", ".join(sorted(bg.fusions)) or "none"
    m = bg.memory
    fit = ([f"DOES NOT FIT: {fmt.capacity(m.total)} per GPU against "
            f"{fmt.memory_and_bytes(m.capacity)}; {fmt.capacity(m.overflow)} over. The times "
            "below are what it would take if it fit.", ""] if not m.fits else [])
    lines = fit + [f"note: {n}" for n in bg.model.notes] + [
             f"{bg.model.name}, {bg.phase}, batch {bg.batch} × seq {bg.seq} on "
             f"{bg.hardware.name} ({bg.precision}); fused: {fused}; {launches}",
             efficiency_words(bg),
             *filter(None, [overlap_words(bg)]),
             f"step {fmt.seconds(bg.step_time_s)} at the roofline"
             + (f" ({fmt.seconds(bg.recompute_time_s)} of it recomputation)"
                if bg.recompute_time_s else "")
             + f", one layer {fmt.seconds(bg.layer_time_s)}; {fmt.count(bg.flops)}FLOP, "
             f"{fmt.capacity(bg.bytes)} moved",
             f"MFU upper bound {fmt.percent(bg.mfu_upper_bound, 3)}"
             + (f" ({fmt.percent(bg.mfu_upper_bound_without_recompute, 3)} without "
                "recomputation)" if bg.recompute_time_s else "")
             + f"; after overheads {fmt.percent(bg.mfu_estimate, 3)}",
             f"memory per GPU {fmt.capacity(m.total)} of {fmt.memory_and_bytes(m.capacity)}, "
             f"{'fits' if m.fits else 'does not fit'}: weights {fmt.capacity(m.weights)}, "
             f"gradients {fmt.capacity(m.gradients)}, optimizer {fmt.capacity(m.optimizer)}, "
             f"activations {fmt.capacity(m.activations)}, KV cache {fmt.capacity(m.kv_cache)}",
             ""]
    width = terminal_columns()
    hint = "--format json has every figure."
    lines = [part for line in lines for part in wrap(line, width)]
    out = ("\n".join(lines) + class_table(bg).as_text(width, hint=hint) + "\n"
           + leak_table(bg).as_text(width, wrap=("leak",), hint=hint))
    saved = bg.bytes_saved()
    if saved:
        out += "\nbytes kept off HBM per step: " + ", ".join(
            f"{k} {fmt.capacity(v)}" for k, v in saved.items()) + "\n"
    write(out)
    return 0

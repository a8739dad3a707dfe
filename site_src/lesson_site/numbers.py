"""Inline markers: one number each, no unit (the prose keeps the client's unit words), in the
lesson's rounding style: `digits=3` significant figures by default, `digits=approx` for the
"call it ~300" one-figure rounding."""

from __future__ import annotations

from roofline import fmt
from roofline.errors import RooflineError
from lesson_site.context import LESSON_HW, LESSON_PRECISION, Context
from lesson_site.markers import marker

OP_FIELDS = ("ai", "flops", "bytes", "attainable_tflops", "percent", "bound", "time")


def number(x: float, digits: str) -> str:
    if digits == "approx":
        return fmt.approx(x)
    try:
        n = int(digits)
    except ValueError:
        raise RooflineError(f"digits must be an integer or 'approx', got {digits!r}",
                            field="digits") from None
    if not 1 <= n <= 6:
        raise RooflineError(f"digits must be 1..6, got {n}", field="digits")
    return fmt.num(x, n)


def _tier_value(ctx: Context, hw: str, tier: str, attr: str) -> float:
    t = ctx.hw(hw).tier(tier)
    value = getattr(t, attr) if t is not None else None
    if value is None:
        raise RooflineError(f"hardware '{hw}' has no {attr} for tier '{tier}'",
                            field=f"tiers.{tier}.{attr}")
    return value


@marker("hbm_tbps")
def hbm_tbps(ctx: Context, *, hw: str = LESSON_HW, digits: str = "3") -> str:
    """HBM bandwidth in TB/s."""
    return number(ctx.hw(hw).hbm_bandwidth_bytes_per_s / 1e12, digits)


@marker("hbm_gb")
def hbm_gb(ctx: Context, *, hw: str = LESSON_HW, digits: str = "3") -> str:
    """HBM capacity in decimal GB: 85.9 for the H100's 80 GiB (HBM is binary)."""
    return number(_tier_value(ctx, hw, "hbm", "capacity_bytes") / 1e9, digits)


@marker("hbm_gib")
def hbm_gib(ctx: Context, *, hw: str = LESSON_HW, digits: str = "3") -> str:
    """HBM capacity in GiB, as the hardware has it (the "80" of an H100 80GB)."""
    return number(_tier_value(ctx, hw, "hbm", "capacity_bytes") / 2 ** 30, digits)


@marker("hbm_visible")
def hbm_visible(ctx: Context, *, hw: str = LESSON_HW, unit: str = "MiB",
                digits: str = "3") -> str:
    """What nvidia-smi shows as the HBM total (after the driver's reservation), in MiB (as
    nvidia-smi prints it, exact) or GiB."""
    value = _tier_value(ctx, hw, "hbm", "visible_capacity_bytes")
    if unit == "MiB":
        return f"{value / 2 ** 20:,.0f}"
    if unit == "GiB":
        return number(value / 2 ** 30, digits)
    raise RooflineError(f"unknown unit {unit!r}", field="unit", valid=["MiB", "GiB"])


@marker("tier_kib_per_unit")
def tier_kib_per_unit(ctx: Context, *, hw: str = LESSON_HW, tier: str = "sram",
                      what: str = "capacity", digits: str = "3") -> str:
    """A per-SM array in KiB: the whole array (capacity) or the most of it one SM can use as
    shared memory (max_shared)."""
    attr = {"capacity": "per_unit_capacity_bytes",
            "max_shared": "max_shared_per_unit_bytes"}.get(what)
    if attr is None:
        raise RooflineError(f"unknown quantity {what!r}", field="what",
                            valid=["capacity", "max_shared"])
    return number(_tier_value(ctx, hw, tier, attr) / 2 ** 10, digits)


@marker("sram_estimate")
def sram_estimate(ctx: Context, *, hw: str = LESSON_HW, field: str = "bytes_per_clock",
                  digits: str = "3") -> str:
    """The parts of the SRAM bandwidth estimate (units x bytes per clock x clock): the bytes per
    clock per unit it assumes, the clock in GHz, or the total in TB/s."""
    acc = ctx.hw(hw)
    bw = _tier_value(ctx, hw, "sram", "bandwidth_bytes_per_s")
    clock = acc.facts.get("boost_clock_hz", (None,))[0]
    if clock is None:
        raise RooflineError(f"hardware '{hw}' has no boost clock", field="boost_clock_hz")
    if field == "bytes_per_clock":
        return number(bw / (acc.compute_units * clock), digits)
    if field == "clock_ghz":
        return number(clock / 1e9, digits)
    if field == "tbps":
        return number(bw / 1e12, digits)
    raise RooflineError(f"unknown field {field!r}", field="field",
                        valid=["bytes_per_clock", "clock_ghz", "tbps"])


@marker("tier_kb_per_unit")
def tier_kb_per_unit(ctx: Context, *, hw: str = LESSON_HW, tier: str = "sram",
                     digits: str = "3") -> str:
    return number(_tier_value(ctx, hw, tier, "per_unit_capacity_bytes") / 1e3, digits)


@marker("tier_mb")
def tier_mb(ctx: Context, *, hw: str = LESSON_HW, tier: str = "l2", digits: str = "3") -> str:
    return number(_tier_value(ctx, hw, tier, "capacity_bytes") / 1e6, digits)


@marker("tier_gbps")
def tier_gbps(ctx: Context, *, hw: str = LESSON_HW, tier: str = "host", digits: str = "3") -> str:
    return number(_tier_value(ctx, hw, tier, "bandwidth_bytes_per_s") / 1e9, digits)


@marker("sram_speedup")
def sram_speedup(ctx: Context, *, hw: str = LESSON_HW, digits: str = "approx") -> str:
    """How many times faster on-chip SRAM is than HBM, per byte."""
    acc = ctx.hw(hw)
    return number(_tier_value(ctx, hw, "sram", "bandwidth_bytes_per_s")
                  / acc.hbm_bandwidth_bytes_per_s, digits)


PEAK_DIGITS = ("3", "approx")


@marker("peak_tflops")
def peak_tflops(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                digits: str = "3") -> str:
    """A peak in TFLOP/s. One rounding rule for a peak everywhere on the site: three
    significant figures (989), as every table prints it, or the lesson's "call it" figure
    (~1,000); two figures would print 990 beside the tables' 989."""
    if digits not in PEAK_DIGITS:
        raise RooflineError(f"a peak prints with digits=3 (as every table) or digits=approx, "
                            f"got {digits!r}", field="digits", valid=list(PEAK_DIGITS))
    return number(ctx.hw(hw).peak_flops_per_s(precision) / 1e12, digits)


@marker("peak_pflops")
def peak_pflops(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                digits: str = "approx") -> str:
    return number(ctx.hw(hw).peak_flops_per_s(precision) / 1e15, digits)


@marker("vector_tflops")
def vector_tflops(ctx: Context, *, hw: str = LESSON_HW, precision: str = "fp32",
                  digits: str = "3") -> str:
    """The vector (CUDA-core) roof for math that runs in `precision`: fp32, or packed bf16."""
    peak = ctx.hw(hw).vector_peak_for(precision)
    if peak is None:
        raise RooflineError(f"hardware '{hw}' has no {precision} vector (CUDA-core) peak",
                            field="vector_peaks")
    return number(peak.flops_per_s / 1e12, digits)


@marker("ridge")
def ridge(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
          digits: str = "approx") -> str:
    """The ridge point, FLOP per byte of HBM traffic."""
    return number(ctx.hw(hw).ridge_flops_per_byte(precision), digits)


@marker("peak_ratio")
def peak_ratio(ctx: Context, *, hw: str = LESSON_HW, a: str = "fp8", b: str = LESSON_PRECISION,
               digits: str = "approx") -> str:
    acc = ctx.hw(hw)
    return number(acc.peak_flops_per_s(a) / acc.peak_flops_per_s(b), digits)


@marker("compute_units")
def compute_units(ctx: Context, *, hw: str = LESSON_HW) -> str:
    return f"{ctx.hw(hw).compute_units:,}"


@marker("flops_per_element")
def flops_per_element(ctx: Context, *, op: str = "rmsnorm") -> str:
    """The counting convention for an elementwise/reduction op (ops.toml [conventions])."""
    key = f"{op}_flops_per_element"
    if not hasattr(ctx.zoo.conventions, key):
        raise RooflineError(f"no convention {key!r}", field=f"conventions.{key}")
    return fmt.num(getattr(ctx.zoo.conventions, key), 3)


@marker("op")
def op_value(ctx: Context, *, op: str, field: str, hw: str = LESSON_HW,
             precision: str = LESSON_PRECISION, dtype: str = "", digits: str = "3") -> str:
    """One figure of one op-zoo preset placed on a chip: ai, flops, bytes, attainable_tflops,
    percent (of peak), bound, time. `dtype` (default: the precision) is the type its data is
    stored in, e.g. an RMSNorm that stays bf16 in an fp8 run: dtype=bf16 precision=fp8."""
    if dtype:
        from roofline.model.maths import place
        b = ctx.catalog.precision(dtype).bytes_per_element
        p = place(ctx.zoo.ops(b, [op])[0], ctx.hw(hw), precision)
    else:
        p = ctx.point(op, hw, precision)
    if field == "ai":
        return number(p.intensity_flops_per_byte, digits)
    if field == "flops":
        return fmt.count(p.op.total_flops)
    if field == "bytes":
        return fmt.count(p.op.total_bytes)
    if field == "attainable_tflops":
        return number(p.attainable_flops_per_s / 1e12, digits)
    if field == "percent":
        return fmt.percent(p.fraction_of_peak)
    if field == "bound":
        return f"{p.bound}-bound"
    if field == "time":
        return fmt.seconds(p.time_s)
    raise RooflineError(f"unknown op field {field!r}", field="field", valid=list(OP_FIELDS))


@marker("hw_name")
def hw_name(ctx: Context, *, hw: str = LESSON_HW) -> str:
    return ctx.hw(hw).name


@marker("attainable_at")
def attainable_at(ctx: Context, *, ai: str, field: str = "tflops", hw: str = LESSON_HW,
                  precision: str = LESSON_PRECISION, digits: str = "3") -> str:
    """The roof at a given intensity: field tflops or percent (of the precision's peak)."""
    from roofline.model.maths import attainable
    try:
        x = float(ai)
    except ValueError:
        raise RooflineError(f"ai must be a number, got {ai!r}", field="ai") from None
    acc = ctx.hw(hw)
    peak = acc.peak_flops_per_s(precision)
    value = float(attainable(x, peak, acc.hbm_bandwidth_bytes_per_s))
    if field == "tflops":
        return number(value / 1e12, digits)
    if field == "percent":
        return fmt.percent(value / peak)
    raise RooflineError(f"unknown field {field!r}", field="field", valid=["tflops", "percent"])


@marker("hbm_sweep_ms")
def hbm_sweep_ms(ctx: Context, *, hw: str = LESSON_HW, digits: str = "3") -> str:
    """Milliseconds to read the whole HBM once at full bandwidth."""
    acc = ctx.hw(hw)
    return number(acc.hbm.capacity_bytes / acc.hbm_bandwidth_bytes_per_s * 1e3, digits)


@marker("binary")
def hbm_binary(ctx: Context, *, what: str = "hbm_bw", hw: str = LESSON_HW,
               digits: str = "3") -> str:
    """The same HBM figure in binary units: hbm_bw in TiB/s, hbm_capacity in GiB."""
    acc = ctx.hw(hw)
    if what == "hbm_bw":
        return number(acc.hbm_bandwidth_bytes_per_s / 2 ** 40, digits)
    if what == "hbm_capacity":
        return number(acc.hbm.capacity_bytes / 2 ** 30, digits)
    raise RooflineError(f"unknown quantity {what!r}", field="what",
                        valid=["hbm_bw", "hbm_capacity"])


@marker("sparse_peak_tflops")
def sparse_peak_tflops(ctx: Context, *, hw: str = LESSON_HW, precision: str = LESSON_PRECISION,
                       digits: str = "3") -> str:
    """2:4 structured sparsity skips half the multiplies, so datasheets print twice the dense
    peak; the catalog keeps dense figures only."""
    return number(2 * ctx.hw(hw).peak_flops_per_s(precision) / 1e12, digits)


@marker("reads_only_ai")
def reads_only_ai(ctx: Context, *, op: str = "rmsnorm", precision: str = LESSON_PRECISION,
                  field: str = "ai", hw: str = LESSON_HW, digits: str = "3") -> str:
    """An elementwise/norm op's AI if one forgets the bytes it writes back (field=ai), or the
    throughput that AI would promise on the chip's HBM (field=tflops)."""
    b = ctx.catalog.precision(precision).bytes_per_element
    o = ctx.zoo.ops(b, [op])[0]
    s = o.shape
    out_elems = (s.get("rows", 0) * s.get("d", s.get("cols", 0))) or s.get("n", 0)
    if not out_elems or o.op_class not in ("norm", "elementwise", "softmax"):
        raise RooflineError(f"op {op!r} is not an elementwise or norm op", field="op")
    ai = o.flops / (o.bytes - out_elems * b)
    if field == "ai":
        return number(ai, digits)
    if field == "tflops":
        return number(ai * ctx.hw(hw).hbm_bandwidth_bytes_per_s / 1e12, digits)
    raise RooflineError(f"unknown field {field!r}", field="field", valid=["ai", "tflops"])


@marker("one_flop_mac_ai")
def one_flop_mac_ai(ctx: Context, *, op: str = "gemm-train", precision: str = LESSON_PRECISION,
                    digits: str = "3") -> str:
    """A GEMM's AI counted at one FLOP per multiply-add (half the convention's)."""
    b = ctx.catalog.precision(precision).bytes_per_element
    return number(ctx.zoo.ops(b, [op])[0].intensity_flops_per_byte / 2, digits)


@marker("sm_fill")
def sm_fill(ctx: Context, *, m: int, n: int, tile: int = 128, hw: str = LESSON_HW,
            field: str = "percent") -> str:
    """Output tiles of an m x n GEMM at tile x tile, against the chip's SMs: one tile per SM
    at best, so fewer tiles than SMs leaves SMs idle however fast each one is."""
    import math
    tiles = math.ceil(m / tile) * math.ceil(n / tile)
    units = ctx.hw(hw).compute_units
    if field == "tiles":
        return f"{tiles:,}"
    if field == "percent":
        return fmt.percent(min(1.0, tiles / units))
    raise RooflineError(f"unknown field {field!r}", field="field", valid=["tiles", "percent"])


@marker("unfused_attention_ratio")
def unfused_attention_ratio(ctx: Context, *, op: str = "attention-train",
                            precision: str = LESSON_PRECISION, field: str = "bytes",
                            digits: str = "approx") -> str:
    """Unfused (QKᵀ, softmax, S·V as separate kernels) over fused attention: bytes ratio, or
    the unfused AI (field=ai)."""
    from roofline.model.ops import attention_unfused
    b = ctx.catalog.precision(precision).bytes_per_element
    fused = ctx.zoo.ops(b, [op])[0]
    s = fused.shape
    parts = attention_unfused(s["batch"], s["heads"], s["kv_heads"], s["head_dim"], s["q_len"],
                              s["kv_len"], b, conv=ctx.zoo.conventions)
    flops, bytes_ = sum(p.flops for p in parts), sum(p.bytes for p in parts)
    if field == "bytes":
        return number(bytes_ / fused.bytes, digits)
    if field == "ai":
        return number(flops / bytes_, digits)
    raise RooflineError(f"unknown field {field!r}", field="field", valid=["bytes", "ai"])


@marker("bytes_per_element")
def bytes_per_element(ctx: Context, *, precision: str = LESSON_PRECISION) -> str:
    return fmt.num(ctx.catalog.precision(precision).bytes_per_element, 3)


@marker("op_shape")
def op_shape(ctx: Context, *, op: str) -> str:
    """A preset's shape as the op zoo states it, e.g. rows=32,768 × d=4,096."""
    return ctx.zoo.ops(2.0, [op])[0].shape_text()


@marker("decimal_binary_gap")
def decimal_binary_gap(ctx: Context, *, prefix: str = "T") -> str:
    """How far apart a decimal and a binary unit are, in percent (TB vs TiB: 2^40 / 10^12)."""
    powers = {"K": 1, "M": 2, "G": 3, "T": 4}
    if prefix not in powers:
        raise RooflineError(f"unknown prefix {prefix!r}", field="prefix", valid=list(powers))
    return fmt.percent(2 ** (10 * powers[prefix]) / 10 ** (3 * powers[prefix]) - 1)

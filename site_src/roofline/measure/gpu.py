"""The GPU measurements with torch on a CUDA device: the same kernels and ops as the CPU
path, in bf16 (the lesson's precision) and fp32, timed with CUDA events after warm-up.

torch is imported inside the functions: the package must import, and the CPU path run, on a
machine without it. Nothing here runs in CI; `available()` says why it cannot run."""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from roofline.model import ops as costs
from roofline.errors import RooflineError
from roofline.model.ops import default_zoo
from roofline.measure import machine
from roofline.measure.checks import DRAM_ARRAY_MULTIPLE
from roofline.measure.plan import Plan
from roofline.measure.timing import Progress, time_call

MiB = 1024 * 1024
LABELS = {"rmsnorm": "RMSNorm", "softmax": "Softmax", "gelu": "GELU", "bias_add": "Bias add",
          "gemv": "GEMV", "gemm": "GEMM"}


def available() -> tuple[bool, str]:
    try:
        import torch
    except ImportError:
        return False, "torch is not installed (pip install torch with CUDA support)"
    try:
        if not torch.cuda.is_available():
            return False, f"torch {torch.__version__} sees no CUDA device"
        torch.cuda.get_device_name(0)
    except Exception as exc:  # a broken driver raises many types; report it, never guess
        return False, f"CUDA device did not answer: {exc}"
    return True, ""


def _clock(torch):
    """A clock in seconds whose readings are CUDA events, so queued kernels are counted."""
    origin = torch.cuda.Event(enable_timing=True)
    origin.record()

    def now() -> float:
        ev = torch.cuda.Event(enable_timing=True)
        ev.record()
        ev.synchronize()
        return origin.elapsed_time(ev) / 1e3
    return now


def measure(plan: Plan, *, label: str | None, progress: bool,
            now: Callable[[], _dt.datetime] | None) -> dict:
    ok, why = available()
    if not ok:
        raise RooflineError(f"--device cuda needs torch with a CUDA device: {why}",
                            field="device")
    import torch

    from roofline.measure.document import document
    from roofline.measure.schema import validate

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 50 * MiB))
    sync, clock = torch.cuda.synchronize, _clock(torch)
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32}
    kernels: list[tuple[str, str, Callable[[], Callable], dict]] = []

    # L2-resident (three arrays in a quarter of it), and past it by the CPU's rule: each array
    # DRAM_ARRAY_MULTIPLE × the L2, the GPU's last-level cache
    for n in (l2 // 4 // (3 * 4), DRAM_ARRAY_MULTIPLE * l2 // 4):
        level = "L2-GPU" if 3 * n * 4 < l2 else "HBM"
        for name, counted in (("copy", 2), ("scale", 2), ("add", 3), ("triad", 3)):
            kernels.append(("stream", f"{name} {n * 4 // MiB} MiB per array",
                            _stream(torch, dev, name, n),
                            {"kernel": name, "dtype": "float32", "elements": n, "threads": 1,
                             "working_set_bytes": float(counted * n * 4),
                             "array_bytes": float(n * 4), "level": level,
                             "bytes": float(counted * n * 4)}))
    # A GPU needs far bigger problems than a CPU to leave its caches and fill its cores.
    sizes = {"full": ((4096, 8192), 32768, (512, 2048, 8192), (11008, 4096)),
             "quick": ((4096,), 8192, (2048, 8192), (11008, 4096)),
             "tiny": ((128,), 64, (64,), (512, 512))}[plan.name]
    matmul_n, rows, gemm_n, (gemv_n, gemv_k) = sizes
    for precision, dt in dtypes.items():
        for n in matmul_n:
            kernels.append(("matmul", f"matmul {precision} n={n}", _mm(torch, dev, n, n, n, dt),
                            {"precision": precision, "dtype": str(dt).removeprefix("torch."),
                             "n": n, "flops": costs.gemm(n, n, n, 2.0).flops}))
    conv = default_zoo().conventions
    d = plan.hidden
    b = 2.0  # bf16
    bf = torch.bfloat16
    for op, make, how in (
        (costs.rmsnorm(rows, d, b, "rmsnorm", conv), _unary(torch, dev, (rows, d), bf, "rms"),
         "torch eager: pow, mean, rsqrt, two multiplies"),
        (costs.softmax(rows, d, b, "softmax", conv), _unary(torch, dev, (rows, d), bf, "sm"),
         "torch.softmax (one fused kernel)"),
        (costs.activation(rows * d, b, "gelu", "gelu", conv),
         _unary(torch, dev, (rows * d,), bf, "gelu"), "torch gelu, tanh form (one kernel)"),
        (costs.bias_add(rows, d, b, "bias-add"), _unary(torch, dev, (rows, d), bf, "bias"),
         "x + bias (one kernel)"),
        (costs.gemv(gemv_n, gemv_k, b, "gemv"), _mm(torch, dev, gemv_n, 1, gemv_k, bf),
         "cuBLAS"),
        *((costs.gemm(n, n, n, b, "gemm"), _mm(torch, dev, n, n, n, bf), "cuBLAS")
          for n in gemm_n),
    ):
        dims = "x".join(str(int(v)) for v in op.shape.values())
        kernels.append(("ops", f"{op.name} {dims}", make, {
            "id": f"{op.name}-{dims}", "label": LABELS.get(op.kind, op.name), "kind": op.kind,
            "precision": "bf16",
            "dtype": "bfloat16", "bytes_per_element": b, "shape": dict(op.shape),
            "flops": op.flops, "bytes": op.bytes, "implementation_bytes": None,
            "implementation": how}))

    from roofline.measure.document import _finish
    results: dict[str, list[dict]] = {"stream": [], "matmul": [], "ops": []}
    bar = Progress(len(kernels), enabled=progress)
    for group, text, make, record in kernels:
        bar.step(text)
        fn = make()
        results[group].append(_finish(group, record, time_call(fn, plan.method, clock, sync)))
        del fn
        torch.cuda.empty_cache()
    bar.close()
    gpu_name = torch.cuda.get_device_name(0)
    desc = machine.machine_record(gpu=gpu_name)
    return validate(document(
        device="cuda", plan=plan, machine_desc=desc,
        versions=machine.versions({"torch": torch.__version__, "cuda": torch.version.cuda}),
        results=results, memory_level="HBM", label=label, now=now,
        last_level_cache_bytes=l2,
        notes=["CUDA events around each sample, after torch.cuda.synchronize().",
               "STREAM kernels in fp32 torch ops; ops in bf16."]), where="measurement just taken")


def _stream(torch, dev, name: str, n: int):
    def make():
        a, b, c = (torch.full((n,), v, device=dev) for v in (1.0, 2.0, 0.5))
        return {"copy": lambda: c.copy_(a), "scale": lambda: torch.mul(c, 3.0, out=b),
                "add": lambda: torch.add(a, b, out=c),
                "triad": lambda: torch.add(b, c, alpha=3.0, out=a)}[name]
    return make


def _mm(torch, dev, m: int, n: int, k: int, dt):
    def make():
        a = torch.randn(m, k, device=dev, dtype=dt)
        b = torch.randn(k, n, device=dev, dtype=dt)
        out = torch.empty(m, n, device=dev, dtype=dt)
        return lambda: torch.matmul(a, b, out=out)
    return make


def _unary(torch, dev, shape, dt, which: str):
    def make():
        x = torch.randn(*shape, device=dev, dtype=dt)
        g = torch.ones(shape[-1], device=dev, dtype=dt)
        return {"rms": lambda: x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True)
                                                + 1e-6).to(dt) * g,
                "sm": lambda: torch.softmax(x, dim=-1),
                "gelu": lambda: torch.nn.functional.gelu(x, approximate="tanh"),
                "bias": lambda: x + g}[which]
    return make

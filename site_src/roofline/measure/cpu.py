"""The CPU measurements, in numpy: STREAM-style bandwidth, matmul FLOP/s, and the lesson's ops.

Bytes follow two counts. `bytes` is the model's: STREAM's convention for the kernels (each
array read or written once) and roofline.model.ops' cost functions for the ops, so a measured op
lands on the chart exactly where the lesson's model puts it. `implementation_bytes` is what
these numpy lines actually stream: numpy runs one pass per ufunc and cannot fuse, so a
softmax reads and writes its rows several times. The ratio of the two explains most of the
gap between measured time and the model's lower bound. Write-allocate traffic (a store that
first reads its cache line) is in neither count."""

from __future__ import annotations

import math
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np

from roofline.model import ops as costs
from roofline.model.ops import default_zoo
from roofline.measure.plan import Plan

F64, F32 = np.dtype(np.float64), np.dtype(np.float32)
PRECISION = {F64: "fp64", F32: "fp32"}


@dataclass(frozen=True)
class Kernel:
    """One timed thing and what it is worth. `make` allocates its arrays and returns the
    zero-argument callable to time, so only one kernel's arrays are alive at a time."""
    group: str          # "stream", "matmul" or "ops"
    label: str          # shown on the progress bar
    make: Callable[[], Callable[[], object]]
    record: dict        # everything but the timing


def level_of(working_set: float, sizes: dict[str, int]) -> str:
    """The cache level a working set lives in, with a factor 2 of headroom either side (a
    set near a cache's size is partly evicted by everything else running)."""
    for level in sorted(sizes):
        if working_set <= sizes[level] / 2:
            return level
    return "DRAM" if working_set >= 2 * max(sizes.values()) else "between"


def stream_sizes(plan: Plan, sizes: dict[str, int]) -> list[int]:
    llc = max(sizes.values())
    return sorted(set(plan.stream_cache_sets) | {m * llc for m in plan.dram_multiples})


def stream_kernels(plan: Plan, sizes: dict[str, int], threads: int = 1) -> list[Kernel]:
    """STREAM's four kernels plus a read-only max-reduction, each size on one thread (as
    numpy's own ufuncs run); sizes past the last-level cache also on `threads` threads, each
    streaming its own slice, because one core rarely saturates DRAM."""
    kernels = []
    llc = max(sizes.values())
    for working_set in stream_sizes(plan, sizes):
        counts = (1, threads) if threads > 1 and working_set > llc else (1,)
        for t in counts:
            # (kernel, arrays STREAM counts, arrays numpy actually streams); every kernel's
            # arrays together fill the same working set, so a row is one level of the hierarchy
            for name, counted, streamed in (("read", 1, 1), ("copy", 2, 2), ("scale", 2, 2),
                                            ("add", 3, 3), ("triad", 3, 5)):
                n = max(1, working_set // (counted * F64.itemsize))
                ws = counted * n * F64.itemsize
                kernels.append(Kernel("stream", f"{name} {_mib(ws)} ×{t} thread{'s' * (t > 1)}",
                                      _stream_maker(name, n, t), {
                    "kernel": name, "dtype": F64.name, "elements": int(n), "threads": t,
                    "working_set_bytes": float(ws), "level": level_of(ws, sizes),
                    "bytes": float(counted * n * F64.itemsize),
                    "implementation_bytes": float(streamed * n * F64.itemsize)}))
    return kernels


def _stream_maker(name: str, n: int, threads: int) -> Callable[[], Callable[[], object]]:
    scalar = 3.0

    def kernel(a, b, c):
        def triad():
            # numpy cannot fuse b + s·c: two passes, the first writes a, the second re-reads it
            np.multiply(c, scalar, out=a)
            np.add(a, b, out=a)
        # read: a max-reduction streams `a` once and stores nothing (so no write-allocate
        # traffic either): the memory system's read rate, which copy cannot show.
        return {"read": lambda: np.maximum.reduce(a),
                "copy": lambda: np.copyto(c, a),
                "scale": lambda: np.multiply(c, scalar, out=b),
                "add": lambda: np.add(a, b, out=c),
                "triad": triad}[name]

    def make():
        a, b, c = (np.full(n, v, dtype=F64) for v in (1.0, 2.0, 0.5))  # touched: no page faults
        if threads == 1:
            return kernel(a, b, c)
        # numpy releases the GIL inside a ufunc on large arrays, so slices run in parallel
        edges = np.linspace(0, n, threads + 1).astype(int)
        parts = [kernel(a[i:j], b[i:j], c[i:j]) for i, j in zip(edges[:-1], edges[1:])]
        pool = ThreadPoolExecutor(threads)
        run = lambda: list(pool.map(lambda f: f(), parts))  # noqa: E731
        weakref.finalize(run, pool.shutdown)
        return run
    return make


def matmul_kernels(plan: Plan) -> list[Kernel]:
    kernels = []
    for dtype in (F64, F32):
        for n in plan.matmul_n:
            cost = costs.gemm(n, n, n, float(dtype.itemsize), f"matmul-{n}")
            kernels.append(Kernel("matmul", f"matmul {PRECISION[dtype]} n={n}",
                                  _matmul_maker(n, n, n, dtype),
                                  {"precision": PRECISION[dtype], "dtype": dtype.name, "n": n,
                                   "flops": cost.flops}))
    return kernels


def _matmul_maker(m: int, n: int, k: int, dtype: np.dtype) -> Callable[[], Callable]:
    def make():
        rng = np.random.default_rng(m)
        a = rng.standard_normal((m, k), dtype=dtype)
        b = rng.standard_normal((k, n), dtype=dtype)
        out = np.empty((m, n), dtype=dtype)
        return lambda: np.matmul(a, b, out=out)
    return make


# ---------------------------------------------------------------- the lesson's ops in numpy
# Each builder returns (model cost, bytes numpy streams, how, make); `make` allocates.

def _normal(shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=F32)


def _rmsnorm(rows: int, d: int, conv):
    def make():
        x, gamma, y = _normal((rows, d), 1), np.ones(d, dtype=F32), np.empty((rows, d), F32)

        def run():
            mean_sq = np.einsum("ij,ij->i", x, x) / d           # reads x
            scale = 1.0 / np.sqrt(mean_sq + 1e-6, dtype=F32)
            np.multiply(x, scale[:, None], out=y)               # reads x, writes y
            np.multiply(y, gamma, out=y)                        # reads y, writes y
        return run
    op = costs.rmsnorm(rows, d, float(F32.itemsize), "rmsnorm", conv)
    return op, 5.0 * rows * d * F32.itemsize, "einsum for Σx², then two multiplies", make


def _softmax(rows: int, d: int, conv):
    def make():
        x, y = _normal((rows, d), 2), np.empty((rows, d), F32)

        def run():
            np.subtract(x, x.max(axis=1, keepdims=True), out=y)  # reads x twice, writes y
            np.exp(y, out=y)                                     # reads y, writes y
            np.divide(y, y.sum(axis=1, keepdims=True), out=y)    # reads y twice, writes y
        return run
    op = costs.softmax(rows, d, float(F32.itemsize), "softmax", conv)
    return op, 8.0 * rows * d * F32.itemsize, "max, subtract, exp, sum, divide: five passes", make


def _gelu(n: int, conv):
    k = np.float32(math.sqrt(2.0 / math.pi))
    c, one, half = np.float32(0.044715), np.float32(1.0), np.float32(0.5)

    def make():
        x, t = _normal(n, 3), np.empty(n, F32)

        def run():  # 0.5·x·(1 + tanh(√(2/π)·x·(1 + 0.044715·x²))), one ufunc per step
            np.multiply(x, x, out=t)      # 2 (x read once, t written)
            np.multiply(t, c, out=t)      # 2
            np.add(t, one, out=t)         # 2
            np.multiply(t, x, out=t)      # 3
            np.multiply(t, k, out=t)      # 2
            np.tanh(t, out=t)             # 2
            np.add(t, one, out=t)         # 2
            np.multiply(t, x, out=t)      # 3
            np.multiply(t, half, out=t)   # 2
        return run
    op = costs.activation(n, float(F32.itemsize), "gelu", "gelu", conv)
    return op, 20.0 * n * F32.itemsize, "tanh form, nine ufunc passes", make


def _bias_add(rows: int, cols: int):
    def make():
        x, bias, y = _normal((rows, cols), 4), np.ones(cols, F32), np.empty((rows, cols), F32)
        return lambda: np.add(x, bias, out=y)
    op = costs.bias_add(rows, cols, float(F32.itemsize), "bias-add")
    return op, op.bytes, "one np.add: exactly what the model counts", make


def _gemv(n: int, k: int):
    def make():
        w, x, y = _normal((n, k), 5), np.ones(k, F32), np.empty(n, F32)
        return lambda: np.matmul(w, x, out=y)
    op = costs.gemv(n, k, float(F32.itemsize), "gemv")
    return op, op.bytes, "BLAS sgemv: reads W once", make


def _gemm(n: int):
    op = costs.gemm(n, n, n, float(F32.itemsize), "gemm")
    return (op, None, "BLAS sgemm: blocked for cache, traffic not counted",
            _matmul_maker(n, n, n, F32))


def op_kernels(plan: Plan) -> list[Kernel]:
    conv = default_zoo().conventions
    d = plan.hidden
    built: list[tuple[str, str, tuple]] = []
    for rows in plan.norm_rows:
        built.append(("rmsnorm", "RMSNorm", _rmsnorm(rows, d, conv)))
        built.append(("softmax", "Softmax", _softmax(rows, d, conv)))
        built.append(("bias-add", "Bias add", _bias_add(rows, d)))
    for n in plan.gelu_n:
        built.append(("gelu", "GELU", _gelu(n, conv)))
    for n, k in plan.gemv_nk:
        built.append(("gemv", "GEMV", _gemv(n, k)))
    for n in plan.gemm_n:
        built.append(("gemm", "GEMM", _gemm(n)))
    kernels = []
    for family, label, (op, impl_bytes, how, make) in built:
        dims = "x".join(str(int(v)) for v in op.shape.values())
        kernels.append(Kernel("ops", f"{family} {dims}", make, {
            "id": f"{family}-{dims}", "label": label, "kind": op.kind, "precision": "fp32",
            "dtype": F32.name, "bytes_per_element": op.bytes_per_element,
            "shape": dict(op.shape), "flops": op.flops, "bytes": op.bytes,
            "implementation_bytes": impl_bytes, "implementation": how}))
    return kernels


def _mib(n: float) -> str:
    return f"{n / 1024:.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.0f} MiB"

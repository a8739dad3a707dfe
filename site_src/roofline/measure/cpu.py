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
from roofline.measure.checks import DRAM_ARRAY_MULTIPLE
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


# (kernel, arrays STREAM counts, arrays the numpy code streams from memory); a kernel's
# working set is its arrays together
_KERNELS = (("read", 1, 1), ("copy", 2, 2), ("scale", 2, 2), ("add", 3, 3), ("triad", 3, 3))


@dataclass(frozen=True)
class Batch:
    """Kernels timed together, interleaved (timing.time_interleaved), on arrays they share:
    `make` allocates once and returns one callable per record."""
    group: str
    label: str
    make: Callable[[], list[Callable[[], object]]]
    records: tuple[dict, ...]


def level_of(working_set: float, sizes: dict[str, int], array_bytes: float | None = None) -> str:
    """The memory level a kernel's arrays live in. A cache level when the whole working set
    fits in half of it (a set near a cache's size is partly evicted by everything else
    running); DRAM only when each array is DRAM_ARRAY_MULTIPLE × the last-level cache;
    "between" otherwise, which sets no roof."""
    for level in sorted(sizes):
        if working_set <= sizes[level] / 2:
            return level
    array = working_set if array_bytes is None else array_bytes
    return "DRAM" if array >= DRAM_ARRAY_MULTIPLE * max(sizes.values()) else "between"


def dram_array_bytes(sizes: dict[str, int]) -> int:
    """Bytes of each array of a DRAM run: DRAM_ARRAY_MULTIPLE (4) × the last-level cache.
    STREAM asks 4 × all the caches together; where the last level holds most of the cache
    (say a 32 MiB L3 beside two 1 MiB L2s: 128 MiB against STREAM's 136 MiB) the two are a
    few percent apart, and this needs no count of cache instances the OS may not report."""
    return DRAM_ARRAY_MULTIPLE * max(sizes.values())


def triad_block(sizes: dict[str, int]) -> int:
    """Doubles per block of the triad: a temporary the size of the L2. Smaller blocks pay
    numpy's per-call cost (and, threaded, turns at the GIL) more often; what of it the L2
    cannot keep stays in the last-level cache, never in memory."""
    return max(4096, sizes.get("L2", 1024 * 1024) // F64.itemsize)


def stream_kernels(plan: Plan, sizes: dict[str, int], threads: int = 1) -> list[Kernel | Batch]:
    """STREAM's four kernels plus a read-only max-reduction. In-cache sizes (the plan's) run on
    one thread, each kernel's arrays together filling the working set. At the DRAM size (each
    array DRAM_ARRAY_MULTIPLE × the last-level cache) the five share three arrays and are
    timed interleaved, so the roof and the triad it is checked against meet the same load;
    once on one thread and once on `threads`, each thread streaming its own slice: one core
    rarely saturates DRAM, and numpy's ufuncs use one thread each."""
    out: list[Kernel | Batch] = []
    block = triad_block(sizes)
    for working_set in plan.stream_cache_sets:
        for name, counted, streamed in _KERNELS:
            n = max(1, working_set // (counted * F64.itemsize))
            out.append(Kernel("stream", f"{name} {_mib(counted * n * F64.itemsize)}",
                              _stream_maker((name,), n, 1, block),
                              _stream_record(name, n, 1, sizes)))
    n = dram_array_bytes(sizes) // F64.itemsize
    names = tuple(name for name, _, _ in _KERNELS)
    for t in sorted({1, threads}):
        records = tuple(_stream_record(name, n, t, sizes) for name in names)
        make = _stream_maker(names, n, t, block)
        out.append(Batch("stream", f"{', '.join(names)}: {_mib(n * F64.itemsize)} arrays "
                         f"×{t} thread{'s' * (t > 1)}", make, records))
    return out


def _stream_record(name: str, n: int, threads: int, sizes: dict[str, int]) -> dict:
    counted, streamed = next((c, s) for k, c, s in _KERNELS if k == name)
    array = n * F64.itemsize
    return {"kernel": name, "dtype": F64.name, "elements": int(n), "threads": threads,
            "working_set_bytes": float(counted * array), "array_bytes": float(array),
            "level": level_of(counted * array, sizes, array),
            "bytes": float(counted * array), "implementation_bytes": float(streamed * array)}


def blocked_triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, scalar: float,
                  block: int) -> Callable[[], None]:
    """STREAM's triad, a = b + s·c, as a call. numpy cannot fuse it into one pass: done whole,
    s·c would be written to memory and read back (five arrays' traffic, not three). Done a
    block at a time into a temporary that stays in cache, memory sees what STREAM's triad moves:
    b and c read, a written."""
    tmp = np.empty(min(block, len(a)))
    views = [(a[i:i + block], b[i:i + block], c[i:i + block], tmp[:min(block, len(a) - i)])
             for i in range(0, len(a), block)]

    def triad() -> None:
        for a_i, b_i, c_i, t in views:
            np.multiply(c_i, scalar, out=t)
            np.add(b_i, t, out=a_i)
    return triad


def _stream_maker(names: tuple[str, ...], n: int, threads: int,
                  block: int) -> Callable[[], object]:
    """make() for one kernel (a callable) or, given several names, for a Batch (a list)."""
    scalar = 3.0

    def kernel(name, a, b, c):
        # read: a max-reduction streams `a` once and stores nothing (so no write-allocate
        # traffic either): the memory system's read rate, which copy cannot show.
        if name == "triad":
            return blocked_triad(a, b, c, scalar, block)
        return {"read": lambda: np.maximum.reduce(a),
                "copy": lambda: np.copyto(c, a),
                "scale": lambda: np.multiply(c, scalar, out=b),
                "add": lambda: np.add(a, b, out=c)}[name]

    def make():
        a, b, c = (np.full(n, v, dtype=F64) for v in (1.0, 2.0, 0.5))  # touched: no page faults
        if threads == 1:
            fns = [kernel(name, a, b, c) for name in names]
        else:
            fns = [_threaded(threads, [kernel(name, a[i:j], b[i:j], c[i:j])
                                       for i, j in _slices(n, threads)]) for name in names]
        return fns[0] if len(names) == 1 else fns
    return make


def _slices(n: int, parts: int) -> list[tuple[int, int]]:
    edges = np.linspace(0, n, parts + 1).astype(int)
    return list(zip(edges[:-1].tolist(), edges[1:].tolist()))


def _threaded(threads: int, parts: list[Callable[[], object]]) -> Callable[[], object]:
    # numpy releases the GIL inside a ufunc, so slices run in parallel on real cores; the
    # Python between ufunc calls still takes turns, which is why the triad's blocks are as
    # large as L2 allows
    pool = ThreadPoolExecutor(threads)
    run = lambda: list(pool.map(lambda f: f(), parts))  # noqa: E731
    weakref.finalize(run, pool.shutdown)
    return run


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


# ---------------------------------------------------------------- how long a plan will take

def probe_rates(seconds: float = 0.05) -> dict[str, float]:
    """A rough copy bandwidth and matmul rate of this machine, in about `seconds` each: only
    for estimating a plan's wall time before it starts, never recorded as a figure."""
    import time
    rates = {}
    src, dst = np.ones(4 * 1024 * 1024), np.zeros(4 * 1024 * 1024)     # 32 MiB each
    dst.fill(1.0)                                     # touched: no page faults in the probe
    a = np.ones((512, 512))
    for key, fn, worth in (("bytes_per_s", lambda: np.copyto(dst, src), 2 * src.nbytes),
                           ("flops_per_s", lambda: a @ a, 2 * 512 ** 3)):
        fn()
        calls, t0 = 0, time.perf_counter()
        while calls < 1 or time.perf_counter() - t0 < seconds:
            fn()
            calls += 1
        rates[key] = worth * calls / (time.perf_counter() - t0)
    return rates


def estimate_seconds(kernels: list[Kernel | Batch], method, rates: dict[str, float]) -> float:
    """Seconds a plan should take at `rates` (probe_rates): per kernel, its arrays filled once,
    then one sizing call, the warm-ups and the timed repeats, each sample lasting at least
    `method.min_sample_s` (timing.time_call's rule)."""
    total = 0.0
    calls = 1 + max(0, method.warmup - 1) + method.repeats
    for k in kernels:
        records = k.records if isinstance(k, Batch) else (k.record,)
        if k.group == "stream":   # three arrays filled by np.full
            total += 3 * records[0]["array_bytes"] / rates["bytes_per_s"]
        for r in records:
            moved = r.get("implementation_bytes") or r.get("bytes") or 0.0
            flops = r.get("flops") or 0.0
            call = max(moved / rates["bytes_per_s"], flops / rates["flops_per_s"])
            total += calls * max(call, method.min_sample_s)
    return total

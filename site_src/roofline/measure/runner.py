"""Run a plan on a device and assemble the measurement document (see schema.py)."""

from __future__ import annotations

import datetime as _dt
import gc
from typing import Callable

from roofline.measure import cpu, machine
# The document's assembly is shared with gpu.py (which runner imports lazily): in its own
# module, so neither imports the other. ceilings stays importable from here.
from roofline.measure.document import _finish, ceilings, document
from roofline.measure.plan import PLANS, Plan
from roofline.measure.schema import validate
from roofline.measure.timing import Progress, time_call


def measure(device: str = "cpu", plan: Plan | str = "full", *, label: str | None = None,
            progress: bool = True, now: Callable[[], _dt.datetime] | None = None) -> dict:
    """Measure this machine; returns a validated measurement document."""
    plan = PLANS[plan] if isinstance(plan, str) else plan
    if device == "cuda":
        from roofline.measure import gpu
        return gpu.measure(plan, label=label, progress=progress, now=now)
    found, _ = machine.caches()
    sizes = machine.cache_sizes(found)
    desc = machine.describe()
    kernels = (cpu.stream_kernels(plan, sizes, threads=desc["usable_cpus"])
               + cpu.matmul_kernels(plan) + cpu.op_kernels(plan))
    results: dict[str, list[dict]] = {"stream": [], "matmul": [], "ops": []}
    bar = Progress(len(kernels), enabled=progress)
    for k in kernels:
        bar.step(k.label)
        fn = k.make()
        results[k.group].append(_finish(k.group, k.record, time_call(fn, plan.method)))
        del fn
        gc.collect()
    bar.close()
    return validate(document(
        device="cpu", plan=plan, machine_desc=desc, versions=machine.versions(),
        results=results, memory_level="DRAM", label=label, now=now, cache_bytes=sizes,
        notes=["Ceilings (bandwidth, FLOP/s) use each kernel's fastest sample, as STREAM "
               "reports its best rate; op times are medians. The DRAM roof may come from a "
               "GEMV op and the compute roofs from a GEMM op: each roof is the best rate seen.",
               "Elementwise ops run on one thread (numpy ufuncs); matmul, GEMV and GEMM run on "
               "every thread the BLAS uses; STREAM past the last-level cache runs on one thread "
               "and on every usable core.",
               "bytes: the model's count (STREAM convention; roofline.model.ops cost functions). "
               "implementation_bytes: what the numpy code streams, one pass per ufunc."]),
        where="measurement just taken")

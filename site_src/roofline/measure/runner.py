"""Run a plan on a device and assemble the measurement document (see schema.py)."""

from __future__ import annotations

import datetime as _dt
import gc
import sys
from typing import Callable

from roofline.measure import cpu, machine
# The document's assembly is shared with gpu.py (which runner imports lazily): in its own
# module, so neither imports the other. ceilings stays importable from here.
from roofline.measure.document import _finish, ceilings, document
from roofline.measure.plan import PLANS, Plan
from roofline.measure.schema import validate
from roofline.measure.timing import Progress, time_call, time_interleaved


def measure(device: str = "cpu", plan: Plan | str = "full", *, label: str | None = None,
            progress: bool = True, now: Callable[[], _dt.datetime] | None = None) -> dict:
    """Measure this machine; returns a validated measurement document."""
    plan = PLANS[plan] if isinstance(plan, str) else plan
    if device == "cuda":
        from roofline.measure import gpu
        return gpu.measure(plan, label=label, progress=progress, now=now)
    found, _ = machine.caches()
    sizes = machine.cache_sizes(found)
    desc = machine.machine_record()
    kernels = (cpu.stream_kernels(plan, sizes, threads=desc["usable_cpus"])
               + cpu.matmul_kernels(plan) + cpu.op_kernels(plan))
    results: dict[str, list[dict]] = {"stream": [], "matmul": [], "ops": []}
    if progress:
        dram = cpu.dram_array_bytes(sizes)
        estimate = cpu.estimate_seconds(kernels, plan.method, cpu.probe_rates())
        print(f"roofline measure: plan {plan.name}, {len(kernels)} kernels, "
              f"{plan.method.warmup} warm-up + {plan.method.repeats} timed runs each; DRAM "
              f"arrays {cpu.DRAM_ARRAY_MULTIPLE} × the {cpu._mib(max(sizes.values()))} "
              f"last-level cache = {cpu._mib(dram)} each; about {estimate:.0f} s on this "
              f"machine (a 0.1 s probe of its copy and matmul rates)",
              file=sys.stderr, flush=True)
    bar = Progress(len(kernels), enabled=progress)
    for k in kernels:
        bar.step(k.label)
        if isinstance(k, cpu.Batch):
            fns = k.make()
            for record, timing in zip(k.records, time_interleaved(fns, plan.method)):
                results[k.group].append(_finish(k.group, record, timing))
            del fns
        else:
            fn = k.make()
            results[k.group].append(_finish(k.group, k.record, time_call(fn, plan.method)))
            del fn
        gc.collect()
    bar.close()
    desc["load_average_end"] = machine.load_average()
    return validate(document(
        device="cpu", plan=plan, machine_desc=desc, versions=machine.versions(),
        results=results, memory_level="DRAM", label=label, now=now,
        last_level_cache_bytes=max(sizes.values()),
        notes=([f"Basis: a quick measurement (`roofline measure --quick`): "
                f"{plan.method.repeats} repeats, {len(kernels)} kernels, DRAM arrays still "
                f"{cpu.DRAM_ARRAY_MULTIPLE} × the last-level cache; take `--full` for figures "
                f"to publish."] if plan.name == "quick" else []) + ["Ceilings (bandwidth, FLOP/s) use each kernel's fastest sample, as STREAM "
               "reports its best rate; op times are medians. Roofs come from the dedicated "
               "kernels only (STREAM's copy, scale, add and triad; matmul), never from the "
               "ops they judge.",
               f"DRAM: each array is {cpu.DRAM_ARRAY_MULTIPLE} × the last-level cache "
               f"({max(sizes.values())} B), run on one thread and on all "
               f"{desc['usable_cpus']} usable CPUs, each thread streaming its own slice "
               "(numpy releases the GIL inside a ufunc); the DRAM roof is the all-thread "
               "best. checks.triad_vs_roof holds it to the triad of the same run.",
               "The triad runs in blocks the size of the L2 so numpy's two passes (s·c, then "
               "b + that) meet in cache and memory sees STREAM's three arrays.",
               "Elementwise ops run on one thread (numpy ufuncs); matmul, GEMV and GEMM run on "
               "every thread the BLAS uses.",
               "STREAM's byte counts: copy and scale 2 words per element, add and triad 3 "
               "(each array read or written once). Write-allocate traffic is not counted, as "
               "STREAM does not count it: a cache that reads each stored line before writing "
               "it moves one word more per element per stored array, so memory can carry up "
               "to 3/2 (copy, scale) or 4/3 (add, triad) of the reported rate.",
               "bytes: the model's count (STREAM convention; roofline.model.ops cost functions). "
               "implementation_bytes: what the numpy code streams, one pass per ufunc."]),
        where="measurement just taken")

"""How much to measure. `full` is what the bundled measurement uses; `quick` must finish in
15 s on the 2-core machine (BENCHMARKS.md); `tiny` exists so the test suite can run the whole pipeline
in seconds (its numbers mean little)."""

from __future__ import annotations

from dataclasses import dataclass

from roofline.measure.timing import Method

KiB, MiB = 1024, 1024 * 1024


@dataclass(frozen=True)
class Plan:
    name: str
    method: Method
    # In-cache STREAM working sets (bytes of one kernel's arrays together). The DRAM size is
    # not a plan's choice: each array is cpu.DRAM_ARRAY_MULTIPLE × the last-level cache,
    # found at run time, in every plan, so even `tiny` measures the same roof.
    stream_cache_sets: tuple[int, ...]
    matmul_n: tuple[int, ...]
    norm_rows: tuple[int, ...]        # rows × 4096 for RMSNorm, softmax, bias add
    gelu_n: tuple[int, ...]
    gemv_nk: tuple[tuple[int, int], ...]
    gemm_n: tuple[int, ...]
    hidden: int = 4096


PLANS = {
    "full": Plan("full", Method(warmup=2, repeats=9, min_sample_s=0.03),
                 stream_cache_sets=(12 * KiB, 48 * KiB, 192 * KiB, 768 * KiB, 3 * MiB,
                                    12 * MiB),
                 matmul_n=(1024, 2048), norm_rows=(2048, 8192), gelu_n=(8 * MiB, 32 * MiB),
                 gemv_nk=((4096, 4096), (11008, 4096)), gemm_n=(128, 256, 512, 1024, 2048)),
    "quick": Plan("quick", Method(warmup=1, repeats=5, min_sample_s=0.01),
                  stream_cache_sets=(12 * KiB, 192 * KiB, 3 * MiB),
                  matmul_n=(1024,), norm_rows=(4096,), gelu_n=(16 * MiB,),
                  gemv_nk=((11008, 4096),), gemm_n=(256, 1024)),
    "tiny": Plan("tiny", Method(warmup=1, repeats=3, min_sample_s=0.001),
                 stream_cache_sets=(12 * KiB,),
                 matmul_n=(128,), norm_rows=(64,), gelu_n=(64 * KiB,),
                 gemv_nk=((512, 512),), gemm_n=(64,), hidden=512),
}

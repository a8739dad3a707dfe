// gpu.mjs's pure parts, worked by hand on small interval sets: the union, the sweep that gives
// each instant to the first class running, the idle split at the next launch, the kernel
// families' first-match rule, kernel names without their argument lists, the chip rules and the
// ranks' merge. (The real traces are in tests/test_profile_gpu.py.)
import { test } from "node:test";
import assert from "node:assert/strict";

import * as gpu from "../../site_src/roofline/profile/gpu.mjs";
import * as timeline from "../../site_src/roofline/profile/timeline.mjs";

const g = { ...gpu, ...timeline };

const near = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);

test("union merges overlapping and touching intervals", () => {
  assert.deepEqual(g.union([[5, 7], [0, 2], [1, 3], [3, 4], [9, 9]]), [[0, 4], [5, 7]]);
});

test("the sweep gives each instant to the first class running, and sums to the union", () => {
  // compute 0–10, communication 5–15, memory 12–20
  const t = g.sweep([[0, 10, "compute"], [5, 15, "communication"], [12, 20, "memory"]],
                    ["compute", "communication", "memory"]);
  assert.deepEqual(t, { compute: 10, communication: 5, memory: 5 });
});

test("the time account by hand: busy, exposed communication, idle split at the launch", () => {
  const families = [{ id: "gemm", label: "GEMM" }, { id: "communication", label: "comm" },
                    { id: "memory", label: "mem" }, { id: "other", label: "other" }];
  // [ts, dur, stream, corr, ext, name, cat, family, launch [ts, dur]]
  const K = [
    [0, 10, 7, 1, null, "gemm_a", "kernel", "gemm", [-5, 2]],
    [4, 8, 9, 2, null, "nccl_x", "kernel", "communication", [-4, 1]],
    // a gap 12–20: the next kernel was launched at 16 (host wait 4 µs, other 4 µs)
    [20, 5, 7, 3, null, "gemm_b", "kernel", "gemm", [16, 3]],
    // a gap 25–30: launched at 10, long before (all "other")
    [30, 2, 7, 4, null, "Memcpy DtoD", "gpu_memcpy", "memory", [10, 1]],
  ];
  const a = g.timeAccount(K, families);
  near(a.span_s, 32e-6);
  near(a.busy_s, 19e-6);           // 0–12, 20–25, 30–32
  near(a.idle_s, 13e-6);
  near(a.idle_host_s, 4e-6);
  near(a.idle_other_s, 9e-6);
  near(a.compute_s, 15e-6);        // gemm 0–10 and 20–25
  near(a.communication_s, 8e-6);
  near(a.communication_exposed_s, 2e-6);   // 10–12
  near(a.communication_overlapped_s, 6e-6);
  near(a.memory_only_s, 2e-6);
  assert.equal(a.launch.kernels, 3);
  assert.equal(a.launch.shorter_than_launch, 0);
  assert.deepEqual(a.streams.map((s) => s.stream), [7, 9]);
  assert.equal(a.top[0].name, "gemm_a");
});

test("the first matching rule wins; a kernel nothing matches is other", () => {
  const rules = [{ family: "memory", categories: ["gpu_memcpy"] },
                 { family: "communication", pattern: "nccl" },
                 { family: "gemm", pattern: "gemm" }];
  assert.deepEqual(g.classifierFamilies(rules, [["ncclKernel_gemm", "kernel"],
    ["ampere_sgemm_128x64_nn", "kernel"], ["Memcpy", "gpu_memcpy"], ["mystery", "kernel"]]),
  ["communication", "gemm", "memory", "other"]);
});

test("a kernel's bare name drops its return type and its argument list, not its template", () => {
  assert.equal(g.bareName("void at::native::elementwise_kernel<128, 2, at::native::f(" +
                          "at::TensorIteratorBase&)::{lambda()#1}>(int, float)"),
  "at::native::elementwise_kernel<128, 2, at::native::f(at::TensorIteratorBase&)::{lambda()#1}>");
  assert.equal(g.bareName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"),
               "ncclKernel_AllReduce_RING_LL_Sum_float");
});

test("the chip comes from the first device rule that holds, or an error asks for --hardware", () => {
  const rules = [{ chip: "mi250-gcd", name: "^AMD Radeon Graphics$", compute_units: 104, why: "a" },
                 { chip: "mi250x-gcd", name: "^AMD Radeon Graphics$", compute_units: 110, why: "b" }];
  assert.equal(g.chipFor([{ name: "AMD Radeon Graphics", numSms: 110 }], rules).chip, "mi250x-gcd");
  assert.match(g.chipFor([{ name: "AMD Radeon Graphics", numSms: 96 }], rules).error,
               /unknown device "AMD Radeon Graphics" \(96 compute units.*--hardware CHIP/);
  assert.match(g.chipFor(undefined, rules).error, /no deviceProperties/);
});

test("ranks merge: the slowest, the spread, and ranks that do not belong together", () => {
  const row = (rank, wall, world = 4) => ({ trace: `r${rank}`, rank, world_size: world,
                                            wall_s: wall });
  const m = g.mergeRanks([row(2, 3), row(0, 1), row(1, 2), row(3, 2)]);
  assert.deepEqual(m.ranks.map((r) => r.rank), [0, 1, 2, 3]);
  assert.equal(m.slowest, 2);
  near(m.median_wall_s, 2);
  near(m.spread, 1);
  assert.match(g.mergeRanks([row(0, 1), row(1, 1, 8)]).error, /different world sizes: r0 has 4, r1 has 8/);
  assert.match(g.mergeRanks([row(0, 1), row(0, 2)]).error, /rank 0 twice/);
});

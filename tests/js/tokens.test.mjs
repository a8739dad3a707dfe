// Tokens per step against the shared case file (pytest checks the same
// file against roofline/tokens.py): the file a page would run is the file imported here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as tk from "../../site_src/lesson_site/js/tokens.mjs";

const CASES = JSON.parse(readFileSync(new URL("../cases/tokens_cases.json", import.meta.url)));

function close(actual, expected, what) {
  if (expected === null) {
    assert.ok(actual === null || actual === Infinity, `${what}: ${actual} != none`);
    return;
  }
  const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} != ${expected}`);
}

test("the case file covers every section", () => {
  for (const key of ["tokens", "intensity", "projections"]) {
    assert.ok(CASES[key].length >= 4, `${key}: ${CASES[key].length} cases`);
  }
});

test("critical tokens per step, with and without activation bytes", () => {
  for (const c of CASES.tokens) {
    const what = `${c.hardware}/${c.mode}/${c.model}`;
    close(tk.criticalTokens(c.peak, c.bw, c.bytes_per_weight), c.critical, `${what} critical`);
    close(tk.criticalTokensWithActivations(c.peak, c.bw, c.d, c.f, c.bytes_per_weight,
                                           c.bytes_per_activation),
          c.critical_with_activations, `${what} with activations`);
    assert.equal(tk.minComputeBoundTokens(c.peak, c.bw, c.d, c.f, c.bytes_per_weight,
                                          c.bytes_per_activation), c.min_tokens, `${what} min`);
  }
});

test("matmul cost and intensity", () => {
  for (const c of CASES.intensity) {
    const what = `T=${c.tokens} ${c.d}x${c.f} ${c.bytes_per_weight}/${c.bytes_per_activation}`;
    const [flops, bytes] = tk.matmulCost(c.tokens, c.d, c.f, c.bytes_per_weight,
                                         c.bytes_per_activation);
    close(flops, c.cost[0], `${what} flops`);
    close(bytes, c.cost[1], `${what} bytes`);
    close(tk.matmulIntensity(c.tokens, c.d, c.f, c.bytes_per_weight, c.bytes_per_activation),
          c.ai, `${what} ai`);
  }
});

test("projection points for the tokens explorer", () => {
  for (const c of CASES.projections) {
    const got = tk.projectionPoints(c.tokens, c.peak, c.bw, c.shapes, 2, 2);
    c.points.forEach((p, i) => {
      const what = `T=${c.tokens} ${c.shapes[i]}`;
      close(got[i].ai, p.ai, `${what} ai`);
      close(got[i].attainable, p.attainable, `${what} attainable`);
      close(got[i].fraction, p.fraction, `${what} fraction`);
      assert.equal(got[i].bound, p.bound, `${what} bound`);
      assert.equal(got[i].min_tokens, p.min_tokens, `${what} min`);
    });
  }
});

test("slider positions are log2 of whole tokens", () => {
  for (const t of [1, 8, 64, 256, 4096, 32768]) assert.equal(tk.tokensAt(tk.positionOf(t)), t);
  assert.equal(tk.tokensAt(-3), 1);
});

test("explainTokens says both families' bound and where they reach the roof", () => {
  const fams = [{ label: "q/k/v/o (4,096 × 4,096)", short: "q/k/v/o", shape: [4096, 4096] },
                { label: "gate/up/down (4,096 × 11,008)", short: "MLP", shape: [4096, 11008] }];
  const pts = tk.projectionPoints(64, 989.4e12, 3.35e12, fams.map((f) => f.shape), 2, 2);
  const text = tk.explainTokens(64, "H100", fams, pts);
  assert.match(text, /^64 tokens per step on the H100: q\/k\/v\/o \(4,096 × 4,096\): AI 62\.1?[0-9]*, memory-bound/);
  assert.match(text, /reach the roof at [0-9,]+ \(q\/k\/v\/o\) and 328 \(MLP\) tokens\.$/);
});

test("one token is singular, in the sentence and the slider's value text", () => {
  assert.equal(tk.perStep(1), "1 token per step");
  assert.equal(tk.perStep(32768), "32,768 tokens per step");
});

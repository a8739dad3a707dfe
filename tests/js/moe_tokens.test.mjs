// The tokens slider's cost of a routed experts' GEMM (scene_tokens.mjs tokensCost with the
// [w, E, k] tail) against the Python model's layer ops, tests/cases/moe_tokens_cases.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { tokensCost } from "../../site_src/roofline/widgets/roofline/scene_tokens.mjs";

const DATA = JSON.parse(readFileSync(new URL("../cases/moe_tokens_cases.json", import.meta.url)));

function close(a, b) { return Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b)); }

test("routed experts cost what layer_ops says at every batch", () => {
  assert.equal(DATA.cases.length, 36);
  for (const c of DATA.cases) {
    const [flops, bytes] = tokensCost(c.coeffs, c.tokens);
    assert.ok(close(flops, c.cost[0]) && close(bytes, c.cost[1]),
              `${c.model} ${c.op} T=${c.tokens}: ${flops}, ${bytes} vs ${c.cost}`);
  }
});

test("a plain affine cost is unchanged by the experts' tail", () => {
  assert.deepEqual(tokensCost([1, 2, 3, 4], 5), [11, 23]);
});

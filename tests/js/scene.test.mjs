// The scene the live plot draws (scene.mjs `scene`, `marker`) against
// tests/cases/scene_cases.json, written by its Python mirror (roofline.plot.scene, which draws
// the build-time SVG): the two agree to 1e-9 on every number and exactly on every text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as rl from "../../site_src/roofline/plot/js/scene.mjs";

const DATA = JSON.parse(readFileSync(new URL("../cases/scene_cases.json", import.meta.url)));

function same(actual, expected, path) {
  if (typeof expected === "number") {
    assert.equal(typeof actual, "number", `${path}: ${actual}`);
    const tol = 1e-9 * Math.max(Math.abs(expected), Math.abs(actual));
    assert.ok(Math.abs(actual - expected) <= tol, `${path}: ${actual} != ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: not a list`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => same(actual[i], e, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === "object") {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${path}: keys`);
    for (const k of Object.keys(expected)) same(actual[k], expected[k], `${path}.${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

test("the scene case file covers states, frames and label layouts", () => {
  assert.ok(DATA.cases.length >= 20);
  const labels = DATA.cases.flatMap((c) => c.scene.labels);
  assert.ok(labels.length >= 300 && labels.some((l) => !l.shown));
});

test("scene() and marker() equal the Python mirror", () => {
  for (const c of DATA.cases) {
    const P = { ...DATA.payload, ceilings: c.ceilings, y_extra: c.y_extra };
    const what = `${JSON.stringify(c.state)} ${c.frame} ${c.ceilings}`;
    same(rl.scene(P, c.state, c.frame), c.scene, what);
    [0.5, 10, 5000].forEach((ai, i) => same(rl.marker(P, c.state, ai), c.markers[i], what));
  }
});

test("shown labels stay inside the frame and never overlap", () => {
  for (const c of DATA.cases) {
    const P = { ...DATA.payload, ceilings: c.ceilings, y_extra: c.y_extra };
    const boxes = rl.scene(P, c.state, c.frame).labels.filter((l) => l.shown).map((l) => l.box);
    for (const [i, b] of boxes.entries()) {
      assert.ok(b[0] >= 0 && b[1] >= 0 && b[2] <= c.frame[0] && b[3] <= c.frame[1]);
      for (const o of boxes.slice(i + 1)) assert.ok(!rl.overlaps(b, o, 0), `${b} ~ ${o}`);
    }
  }
});

test("a seeded collision is caught by the overlap check the layout relies on", () => {
  const a = rl.labelBox("GEMM (training)", 11, 100, 100, { dx: 6, dy: 7, align: "left",
                                                          baseline: "bottom" });
  const b = rl.labelBox("Softmax", 11, 120, 100, { dx: 6, dy: 7, align: "left",
                                                  baseline: "bottom" });
  assert.ok(rl.overlaps(a, b, 0));
  const [l1, l2] = rl.layoutLabels(
    [{ x: 1, y: 1, text: "aaaa", size: 11, at: [{ dx: 0, dy: 0, align: "left", baseline: "top" }] },
     { x: 1, y: 1, text: "bbbb", size: 11, at: [{ dx: 0, dy: 0, align: "left", baseline: "top" }] }],
    [0.1, 10], [0.1, 10], 200, 200);
  assert.equal(l1.shown, true);
  assert.equal(l2.shown, false);
});

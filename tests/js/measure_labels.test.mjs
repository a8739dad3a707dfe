// The measurement overlay's labels are laid out by the scene's own label layout (labels.mjs):
// measure.mjs's layoutOverlay against the Python mirror (roofline.widgets.measurement.overlay.layout_overlay)
// in tests/cases/measure_cases.json, and a seeded collision the layout must avoid.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { labelColumns, layoutOverlay, overlayData } from "../../site_src/roofline/widgets/measurement/measure.mjs";
import { overlaps } from "../../site_src/roofline/render/js/labels.mjs";

const cases = JSON.parse(readFileSync(new URL("../cases/measure_cases.json", import.meta.url)));

function near(actual, expected, where) {
  if (typeof expected === "number") {
    assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
              `${where}: ${actual} vs ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, `${where}: length`);
    expected.forEach((e, i) => near(actual[i], e, `${where}[${i}]`));
  } else if (expected !== null && typeof expected === "object") {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${where}: keys`);
    for (const k of Object.keys(expected)) near(actual[k], expected[k], `${where}.${k}`);
  } else {
    assert.equal(actual, expected, where);
  }
}

test("overlay labels are placed as the Python side places them", () => {
  const o = cases.overlay;
  const overlay = overlayData(cases.base, o.x0, o.x1);
  assert.ok(o.layouts.length >= 2);
  for (const c of o.layouts) {
    const got = layoutOverlay(overlay, [o.x0, o.x1], c.y, c.frame[0], c.frame[1], c.taken);
    near(got, c.expected, `frame ${c.frame}`);
    const shown = got.filter((l) => l.shown).map((l) => l.box);
    assert.ok(shown.length >= 8);
    for (const [i, b] of shown.entries()) {
      assert.ok(b[0] >= 0 && b[1] >= 0 && b[2] <= c.frame[0] && b[3] <= c.frame[1]);
      for (const t of c.taken) assert.ok(!overlaps(b, t, 0), `${b} on taken ${t}`);
      for (const other of shown.slice(i + 1)) assert.ok(!overlaps(b, other, 0), `${b} ~ ${other}`);
    }
    assert.equal(labelColumns(got).text.length, shown.length);
  }
});

test("seeded: a label whose only place is taken is left out, never drawn on top", () => {
  const overlay = { labels: { x: [], y: [], text: [], align: [], dy: [] },
                    points: { x: [1], y: [1], text: ["RMSNorm"] } };
  const free = layoutOverlay(overlay, [0.1, 10], [0.1, 10], 200, 200, []);
  assert.equal(free[0].shown, true);
  // Take the whole frame: every candidate collides, so the label must not be shown.
  const none = layoutOverlay(overlay, [0.1, 10], [0.1, 10], 200, 200, [[0, 0, 200, 200]]);
  assert.equal(none[0].shown, false);
});

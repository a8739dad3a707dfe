// predict.mjs: its formatting (format.mjs, the one copy: tests/js/shared_helpers.test.mjs)
// agrees with roofline.fmt, and every draw's answer, both from the case file pytest builds from
// the Python model (tests/cases/predict_cases.jsonl, one record a line); grading says whether
// a guess is within the tolerance and how far off it is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as pr from "../../site_src/lesson_site/js/predict.mjs";
import * as fmt from "../../site_src/roofline/render/js/format.mjs";

const LINES = readFileSync(new URL("../cases/predict_cases.jsonl", import.meta.url), "utf8")
  .split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const FORMAT = LINES.filter((c) => c.fn);
const DRAWS = LINES.filter((c) => c.case);

test("the case file holds the formatting cases and every draw, one a line", () => {
  assert.ok(FORMAT.length >= 40 && DRAWS.length >= 30);
  assert.equal(FORMAT.length + DRAWS.length, LINES.length);
  // The draws cover the three regimes, the overhead-bound one included.
  assert.deepEqual([...new Set(DRAWS.map((d) => d.regime))].sort(), ["compute", "memory", "overhead"]);
});

test("formatting matches roofline.fmt", () => {
  for (const c of FORMAT) {
    assert.equal(fmt[c.fn](c.x, c.digits), c.expected, `${c.fn}(${c.x}, ${c.digits})`);
  }
});

test("parseGuess: a limit and a time in µs above 0", () => {
  assert.deepEqual(pr.parseGuess("memory", "5"), { bound: "memory", time_s: 5e-6 });
  assert.deepEqual(pr.parseGuess("overhead", " 4 µs ".trim()), { bound: "overhead", time_s: 4e-6 });
  assert.deepEqual(pr.parseGuess("compute", "0,5"), { bound: "compute", time_s: 0.5e-6 });
  for (const [b, t] of [[null, "5"], ["memory", ""], ["memory", "abc"], ["memory", "-1"],
                        ["memory", "0"], ["fast", "5"], ["memory", "Infinity"]]) {
    assert.ok(pr.parseGuess(b, t).error, `${b} ${t} should be refused`);
  }
});

test("grade: within the tolerance either way, and no further", () => {
  const a = { regime: "memory", time_s: 100e-6, percent: 0.3 };
  let g = pr.grade({ bound: "memory", time_s: 100e-6 }, a, 0.25);
  assert.ok(g.boundRight && g.within); assert.equal(g.direction, "exact");
  g = pr.grade({ bound: "memory", time_s: 125e-6 }, a, 0.25);
  assert.ok(g.within); assert.equal(g.direction, "long");
  g = pr.grade({ bound: "memory", time_s: 80e-6 }, a, 0.25);  // 1.25× too short
  assert.ok(g.within); assert.equal(g.direction, "short");
  g = pr.grade({ bound: "memory", time_s: 126e-6 }, a, 0.25);  // seeded: just outside
  assert.ok(!g.within);
  g = pr.grade({ bound: "compute", time_s: 100e-6 }, a, 0.25);
  assert.ok(!g.boundRight && g.within);
});

test("describe: the limit first, then the time, in the page's number style", () => {
  const a = { regime: "overhead", time_s: 4e-6, percent: 0.000103 };
  assert.equal(pr.describe(pr.grade({ bound: "overhead", time_s: 4e-6 }, a, 0.25), a),
               "Right: it is overhead-bound. You said 4 µs; the model says at least 4 µs (0.0001% of peak) — spot on.");
  const m = { regime: "memory", time_s: 105e-6, percent: 0.057 };
  assert.equal(pr.describe(pr.grade({ bound: "memory", time_s: 120e-6 }, m, 0.25), m),
               "Right: it is memory-bound. You said 120 µs; the model says at least 105 µs (0.057% of peak) — within 25%, right.");
  assert.match(pr.describe(pr.grade({ bound: "compute", time_s: 1e-6 }, m, 0.25), m),
               /^Not quite: it is memory-bound\. You said 1 µs; .* — [0-9,]+× too short\.$/);
});

test("nextDraw cycles through a case's draws", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => pr.nextDraw(i, 6)), [1, 2, 3, 4, 5, 0]);
});

test("every draw's own answer grades as right, and twice it as wrong", () => {
  for (const d of DRAWS) {
    const what = `${d.case}#${d.draw}`;
    assert.ok(pr.REGIMES.includes(d.regime), what);
    assert.ok(d.time_s > 0 && d.percent > 0 && d.percent <= 100, what);
    const g = pr.grade({ bound: d.regime, time_s: d.time_s }, d, d.tolerance);
    assert.ok(g.boundRight && g.within && g.direction === "exact", what);
    assert.ok(!pr.grade({ bound: d.regime, time_s: 2 * d.time_s }, d, d.tolerance).within, what);
  }
});

// predict.mjs: its formatting (format.mjs, the one copy: tests/js/shared_helpers.test.mjs)
// agrees with roofline.fmt (cases built by pytest from Python), and scoring says how far off a
// guess is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as pr from "../../site_src/lesson_site/js/predict.mjs";
import * as fmt from "../../site_src/roofline/render/js/format.mjs";

const CASES = JSON.parse(readFileSync(new URL("../cases/predict_cases.json", import.meta.url)));

test("formatting matches roofline.fmt", () => {
  for (const c of CASES.format) {
    assert.equal(fmt[c.fn](c.x, c.digits), c.expected, `${c.fn}(${c.x}, ${c.digits})`);
  }
});

test("parseGuess: a bound and a share of peak between 0 and 100", () => {
  assert.deepEqual(pr.parseGuess("memory", "5"), { bound: "memory", percent: 5 });
  assert.deepEqual(pr.parseGuess("compute", " 0,5 % ".trim()), { bound: "compute", percent: 0.5 });
  assert.deepEqual(pr.parseGuess("compute", "100%"), { bound: "compute", percent: 100 });
  for (const [b, p] of [[null, "5"], ["memory", ""], ["memory", "abc"], ["memory", "-1"],
                        ["memory", "101"], ["fast", "5"], ["memory", "Infinity"]]) {
    assert.ok(pr.parseGuess(b, p).error, `${b} ${p} should be refused`);
  }
});

test("score: exact, close, an order off and far, in both directions", () => {
  const a = { bound: "memory", percent: 0.34 };
  let s = pr.score({ bound: "memory", percent: 0.34 }, a);
  assert.equal(s.direction, "exact"); assert.equal(s.rating, "close"); assert.ok(s.boundRight);
  s = pr.score({ bound: "compute", percent: 0.5 }, a);
  assert.equal(s.rating, "close"); assert.equal(s.direction, "high"); assert.ok(!s.boundRight);
  s = pr.score({ bound: "memory", percent: 3 }, a);
  assert.equal(s.rating, "order"); assert.ok(Math.abs(s.factor - 3 / 0.34) < 1e-12);
  s = pr.score({ bound: "memory", percent: 50 }, a);
  assert.equal(s.rating, "far");
  s = pr.score({ bound: "memory", percent: 0 }, a);  // floored: a finite factor, too low
  assert.equal(s.direction, "low"); assert.ok(Number.isFinite(s.factor));
});

test("describe: the verdict first, then the distance, in the page's number style", () => {
  const a = { bound: "memory", percent: 0.6771574225253925 };
  const text = pr.describe(pr.score({ bound: "memory", percent: 5 }, a), "memory");
  assert.equal(text, "Right: it is memory-bound. You guessed 5% of peak; the model says 0.68% — 7.4× too high.");
  const wrong = pr.describe(pr.score({ bound: "compute", percent: 100 }, { bound: "compute", percent: 100 }), "compute");
  assert.equal(wrong, "Right: it is compute-bound. You guessed 100% of peak; the model says 100% — spot on.");
  assert.match(pr.describe(pr.score({ bound: "compute", percent: 1 }, a), "memory"),
               /^Not quite: it is memory-bound, not compute-bound\./);
});

test("the page's answers score an exact guess as exact and right", () => {
  for (const [key, a] of Object.entries(CASES.answers)) {
    const s = pr.score({ bound: a.bound, percent: a.percent }, a);
    assert.ok(s.boundRight && s.direction === "exact", key);
    assert.ok(a.percent > 0 && a.percent <= 100, key);
  }
});

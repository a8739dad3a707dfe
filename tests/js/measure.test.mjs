// The browser half of the measurement overlay, checked against the case file pytest checks
// the Python half against (tests/cases/measure_cases.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { overlayData, summaryText, yBounds } from "../../site_src/roofline/widgets/measurement/measure.mjs";
import {
  decodeBase64, parseMeasurement, validate,
} from "../../site_src/roofline/widgets/measurement/schema.mjs";
import { si } from "../../site_src/roofline/render/js/format.mjs";

const cases = JSON.parse(readFileSync(new URL("../cases/measure_cases.json", import.meta.url)));
const schema = JSON.parse(readFileSync(
  new URL("../../site_src/roofline/data/measurement-schema.json", import.meta.url)));
const bundled = JSON.parse(readFileSync(
  new URL("../../site_src/roofline/data/measurement-build-machine.json", import.meta.url)));

function mutate(c) {
  if (c.replace !== undefined) return c.replace;
  const doc = structuredClone(cases.base);
  for (const [path, value] of c.set || []) {
    let at = doc;
    for (const k of path.slice(0, -1)) at = at[k];
    at[path[path.length - 1]] = value;
  }
  for (const path of c.delete || []) {
    let at = doc;
    for (const k of path.slice(0, -1)) at = at[k];
    delete at[path[path.length - 1]];
  }
  return doc;
}

function close(actual, expected, where) {
  if (typeof expected === "number") {
    const scale = Math.max(Math.abs(expected), 1e-300);
    assert.ok(Math.abs(actual - expected) / scale <= 1e-12, `${where}: ${actual} vs ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, `${where}: length`);
    expected.forEach((e, i) => close(actual[i], e, `${where}[${i}]`));
  } else if (expected !== null && typeof expected === "object") {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${where}: keys`);
    for (const k of Object.keys(expected)) close(actual[k], expected[k], `${where}.${k}`);
  } else {
    assert.equal(actual, expected, where);
  }
}

test("the case file's base document and the bundled measurement are valid", () => {
  assert.deepEqual(validate(cases.base, schema), { ok: true });
  assert.deepEqual(validate(bundled, schema), { ok: true });
});

test("at least five kinds of bad file, each rejected at the field Python names", () => {
  assert.ok(cases.invalid.length >= 5);
  for (const c of cases.invalid) {
    const r = validate(mutate(c), schema, "bad.json");
    assert.equal(r.ok, false, c.name);
    assert.equal(r.field, c.field, c.name);
    assert.ok(r.text.startsWith(`bad.json: field '${c.field}': `), r.text);
    assert.ok(r.message.length > 5, c.name);
  }
});

test("a newer schema version says what to do", () => {
  const r = validate({ ...cases.base, schema_version: 3 }, schema, "new.json");
  assert.match(r.text, /reads version 2.*version 3.*roofline measure/);
});

test("text that is not JSON is refused naming the file", () => {
  const r = parseMeasurement("{not json", schema, "notes.txt");
  assert.equal(r.ok, false);
  assert.match(r.text, /^notes\.txt: not valid JSON/);
  assert.equal(parseMeasurement(JSON.stringify(cases.base), schema, "x").ok, true);
});

test("FileInput's base64 decodes as UTF-8", () => {
  const text = '{"label": "Müller’s box — 2 cores"}';
  const b64 = Buffer.from(text, "utf-8").toString("base64");
  assert.equal(decodeBase64(b64), text);
});

test("the summary names the machine, the memory roof, every compute roof and the op count", () => {
  const text = summaryText(cases.base);
  const c = cases.base.ceilings;
  assert.ok(text.startsWith(`Measured: ${cases.base.label} — ${cases.base.machine.description}`), text);
  assert.ok(text.includes(c.memory_level), text);
  for (const p of c.compute) assert.ok(text.includes(p.precision.toUpperCase()), text);
  assert.ok(text.endsWith(`${cases.base.ops.length} ops timed.`), text);
});

test("the overlay of the bundled measurement covers every op and every roof", () => {
  const got = overlayData(bundled, 0.01, 10000);
  assert.equal(got.points.x.length, bundled.ops.length);
  assert.equal(got.roofs.xs.length, 2 + bundled.ceilings.compute.length);
  const labelled = got.points.text.filter((t) => t);
  assert.deepEqual(labelled, [...new Set(bundled.ops.map((op) => op.label))]);
  const [lo, hi] = yBounds(got);
  for (const y of got.points.y.concat(got.roofs.ys.flat())) assert.ok(lo < y && y < hi);
});

test("si formats like roofline.fmt.si", () => {
  assert.equal(si(22.6e9, "B/s"), "22.6 GB/s");
  assert.equal(si(1.42e11, "FLOP/s"), "142 GFLOP/s");
  assert.equal(si(0, "B/s"), "0 B/s");
});

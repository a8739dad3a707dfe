// jsonArg (render/js/jsonarg.mjs): a payload handed over as JSON text is parsed once per text;
// a value passed as is (a test's, an older item's) comes back unchanged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonArg } from "../../site_src/roofline/render/js/jsonarg.mjs";

test("JSON text is parsed, and the same text gives the same object", () => {
  const text = JSON.stringify({ limits: { eff: [0.5, 1] }, rows: [1, 2, 3] });
  const first = jsonArg(text);
  assert.deepEqual(first, { limits: { eff: [0.5, 1] }, rows: [1, 2, 3] });
  assert.equal(jsonArg(text), first); // not parsed again on the next change
  assert.notEqual(jsonArg(JSON.stringify({ rows: [] })), first);
});

test("a value that is not text passes through", () => {
  const value = { rows: [1] };
  assert.equal(jsonArg(value), value);
  assert.equal(jsonArg(null), null);
});

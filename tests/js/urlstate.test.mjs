// urlstate.mjs: the URL reading and writing both widgets share (each widget's parser is run
// against hostile URLs in hostile_urls.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";

import { queryParams, plainNumber, withQuery } from "../../site_src/roofline/render/js/urlstate.mjs";

test("queryParams: decoded pairs; no key, a malformed escape or no '=' is skipped", () => {
  assert.deepEqual(queryParams("?a=1&b=x+y&=z&c&d=%E0%A4%A&e=%2F"), { a: "1", b: "x y", e: "/" });
  assert.deepEqual(queryParams("#ai=3"), { ai: "3" });
  assert.deepEqual(queryParams(undefined), {});
});

test("plainNumber: plain decimals only", () => {
  for (const [s, x] of [["12", 12], [" .5 ", 0.5], ["4e-6", 4e-6], ["1E3", 1000]]) {
    assert.equal(plainNumber(s), x, s);
  }
  for (const s of ["-1", "+1", "0x10", "Infinity", "NaN", "1,5", "", "1e", 3]) {
    assert.equal(plainNumber(s), null, String(s));
  }
});

test("withQuery keeps the page's own parameters first and encodes ours", () => {
  assert.equal(withQuery("?lang=en&ai=5&x=%26", ["ai", "op"], [["ai", "10"], ["op", "a b&c"]]),
               "?lang=en&x=%26&ai=10&op=a%20b%26c");
  assert.equal(withQuery("", ["ai"], [["ai", "1"]]), "?ai=1");
});

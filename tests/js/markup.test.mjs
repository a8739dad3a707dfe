// markup.mjs: a Div's text and classes go into its views' DOM and the model silently, or, where
// that cannot be done safely, through the plain assignment Bokeh renders itself. The models and
// views here are stand-ins with the few members markup.mjs touches (a Bokeh model's setv, a
// DivView's markup_el and _apply_html_attributes); the browser test on the lesson
// (tests/test_widget_browser.py) checks the real ones.
import { test } from "node:test";
import assert from "node:assert/strict";

import { setMarkup } from "../../site_src/roofline/render/js/markup.mjs";

function div({ text = "", css_classes = [], render_as_text = true } = {}) {
  const model = { text, css_classes, render_as_text, setvCalls: [], assigned: [] };
  model.setv = (props, opts) => { model.setvCalls.push([props, opts]); Object.assign(model, props); };
  return new Proxy(model, {
    set(target, key, value) {
      if (key === "text" || key === "css_classes") target.assigned.push(key);
      target[key] = value;
      return true;
    },
  });
}

function view() {
  const v = { markup_el: { textContent: "" }, applied: 0 };
  v._apply_html_attributes = () => { v.applied += 1; };
  return v;
}

const indexOf = (model, views) => ({ find_all: (m) => (m === model ? views : []) });

test("setMarkup: the views' DOM and a silent model change, one pass for both props", () => {
  const model = div({ text: "old", css_classes: ["rl-memory"] });
  const views = [view(), view()];
  const how = setMarkup(indexOf(model, views), model,
                        { text: "new", css_classes: ["rl-compute"] });
  assert.equal(how, "direct");
  assert.deepEqual(model.setvCalls, [[{ text: "new", css_classes: ["rl-compute"] }, { silent: true }]]);
  assert.deepEqual(model.assigned, []); // no loud assignment: no re-render, no re-layout
  for (const v of views) {
    assert.equal(v.markup_el.textContent, "new");
    assert.equal(v.applied, 1);
  }
});

test("setMarkup: only what changed; the classes untouched when only the text moves", () => {
  const model = div({ text: "a", css_classes: ["rl-memory"] });
  const v = view();
  assert.equal(setMarkup(indexOf(model, [v]), model, { text: "b", css_classes: ["rl-memory"] }),
               "direct");
  assert.deepEqual(model.setvCalls, [[{ text: "b" }, { silent: true }]]);
  assert.equal(v.applied, 0);
  assert.equal(setMarkup(indexOf(model, [v]), model, { text: "b" }), "same");
  assert.equal(model.setvCalls.length, 1);
});

test("setMarkup: no view yet (the first frame, node) is the plain assignment", () => {
  const model = div({ text: "a" });
  assert.equal(setMarkup(undefined, model, { text: "b" }), "model");
  assert.equal(setMarkup(indexOf(model, []), model, { text: "c" }), "model");
  assert.deepEqual(model.assigned, ["text", "text"]);
  assert.equal(model.text, "c");
  assert.deepEqual(model.setvCalls, []);
});

test("setMarkup: a Div that renders HTML, or a view without the members, is left to Bokeh", () => {
  const html = div({ text: "a", render_as_text: false });
  const v = view();
  assert.equal(setMarkup(indexOf(html, [v]), html, { text: "<b>b</b>" }), "model");
  assert.equal(v.markup_el.textContent, ""); // never written as text into an HTML Div
  const other = div({ text: "a" });
  assert.equal(setMarkup(indexOf(other, [{}]), other, { text: "b" }), "model");
  assert.deepEqual(other.assigned, ["text"]);
});

// The budget roofline's op names (budget_labels.mjs) go through labels.mjs's layout: for the
// case file's layer (every op of the Llama layer, many at one intensity) in a desktop and a
// phone frame, no two names overlap and none leaves the frame; a seeded copy that skips the
// layout (every name at its first place) is caught by the same check.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZE, nameColumns, layoutPoints, pointLabels } from "../../site_src/roofline/widgets/budget/budget_labels.mjs";
import { labelBox, overlaps, toPx } from "../../site_src/roofline/render/js/labels.mjs";

// One Llama-2-7B training layer's ops as the budget draws them: AI (FLOP/byte), TFLOP/s.
const NAMES = ["input_layernorm", "q_proj", "k_proj", "v_proj", "attn_qk", "attn_softmax",
               "attn_sv", "o_proj", "attn_residual", "post_attention_layernorm", "gate_proj",
               "up_proj", "act_fn", "down_proj", "mlp_residual"];
const AI = [0.9, 2400, 2400, 2400, 1900, 1.1, 1900, 2400, 0.17, 0.9, 2700, 2700, 0.8, 2700, 0.17];
const POINTS = { x: AI, y: AI.map((a) => Math.min(989, a * 3.35)), text: NAMES };
const XR = [0.1, 10000];
const YR = [0.1 * 3.35 / 2, 989 * 3];

function problems(placed, w, h) {
  const boxes = placed.filter((l) => l.shown).map((l) => l.box);
  const out = [];
  boxes.forEach((b, i) => {
    if (b[0] < 0 || b[1] < 0 || b[2] > w || b[3] > h) out.push(`out: ${b}`);
    for (const o of boxes.slice(i + 1)) if (overlaps(b, o, 0)) out.push(`${b} ~ ${o}`);
  });
  return out;
}

test("op names never overlap or leave the frame, desktop and phone", () => {
  for (const [w, h] of [[560, 300], [240, 300]]) {
    const placed = layoutPoints(POINTS, XR, YR, w, h);
    assert.deepEqual(problems(placed, w, h), [], `${w}×${h}`);
    const shown = placed.filter((l) => l.shown).length;
    assert.ok(shown >= (w > 400 ? 15 : 10), `${w}: ${shown} of 15 shown`);
    assert.equal(nameColumns(placed).text.length, shown);
    assert.ok(placed.every((l) => l.size === SIZE && SIZE >= 11));
  }
});

test("seeded: names drawn at their first place, without the layout, are caught", () => {
  const [w, h] = [240, 300];
  const naive = pointLabels(POINTS).map((l) => {
    const [sx, sy] = toPx(l.x, l.y, XR, YR, w, h);
    return { ...l, box: labelBox(l.text, l.size, sx, sy, l.at[0]), shown: true };
  });
  assert.ok(problems(naive, w, h).length > 0);
});

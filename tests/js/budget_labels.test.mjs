// The budget roofline's op names (budget_labels.mjs) go through labels.mjs's layout: for the
// case file's layer (every op of the Llama layer, many at one intensity) in a desktop and a
// phone frame, ops whose markers touch share one label, every group is named, no two names
// overlap, read as one or leave the frame, and none lies nearer another mark than its own
// (labelgate.mjs); seeded copies that skip the layout or the grouping are caught by the same
// checks.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZE, groupName, groupPoints, nameColumns, layoutPoints, pointLabels } from "../../site_src/roofline/widgets/budget/budget_labels.mjs";
import { labelBox, overlaps, toPx } from "../../site_src/roofline/render/js/labels.mjs";
import { nearerOtherMark, readAsOne } from "./labelgate.mjs";

// One Llama-2-7B training layer's ops as the budget draws them: AI (FLOP/byte), TFLOP/s.
const NAMES = ["input_layernorm", "q_proj", "k_proj", "v_proj", "attn_qk", "attn_softmax",
               "attn_sv", "o_proj", "attn_residual", "post_attention_layernorm", "gate_proj",
               "up_proj", "act_fn", "down_proj", "mlp_residual"];
const AI = [0.9, 2400, 2400, 2400, 1900, 1.1, 1900, 2400, 0.17, 0.9, 2700, 2700, 0.8, 2700, 0.17];
const POINTS = { x: AI, y: AI.map((a) => Math.min(989, a * 3.35)), text: NAMES };
const XR = [0.1, 10000];
const YR = [0.1 * 3.35 / 2, 989 * 3];

const FRAMES = [[560, 300], [240, 300]];

function problems(placed, w, h) {
  const shown = placed.filter((l) => l.shown);
  const boxes = shown.map((l) => l.box);
  const out = [];
  boxes.forEach((b, i) => {
    if (b[0] < 0 || b[1] < 0 || b[2] > w || b[3] > h) out.push(`out: ${b}`);
    for (const o of boxes.slice(i + 1)) if (overlaps(b, o, 0)) out.push(`${b} ~ ${o}`);
  });
  const marks = POINTS.x.map((x, i) => toPx(x, POINTS.y[i], XR, YR, w, h));
  const named = shown.map((l) => ({ text: l.text, box: l.box, mark: toPx(...l.mark, XR, YR, w, h),
                                    marks: l.members && l.members.map((m) => toPx(m.x, m.y, XR, YR, w, h)) }));
  return out.concat(nearerOtherMark(named, marks), readAsOne(named));
}

test("one name per group of touching ops, none overlapping, read as one or out, desktop and phone", () => {
  for (const [w, h] of FRAMES) {
    const placed = layoutPoints(POINTS, XR, YR, w, h);
    assert.deepEqual(problems(placed, w, h), [], `${w}×${h}`);
    const groups = groupPoints(POINTS, XR, YR, w, h);
    assert.ok(groups.length < POINTS.x.length, `${w}: ${groups.length} groups`);
    const shown = placed.filter((l) => l.shown).length;
    assert.equal(shown, groups.length, `${w}: ${shown} of ${groups.length} groups named`);
    assert.equal(nameColumns(placed).text.length, shown);
    assert.ok(placed.every((l) => l.size === SIZE && SIZE >= 11));
  }
});

test("a group's name: one op's own, heads over a shared tail, or a count", () => {
  assert.equal(groupName(["q_proj"]), "q_proj");
  assert.equal(groupName(["q_proj", "k_proj", "v_proj", "o_proj"]), "q/k/v/o_proj");
  assert.equal(groupName(["attn_qk", "attn_sv"]), "attn_qk/attn_sv");
  assert.equal(groupName(["input_layernorm", "post_attention_layernorm", "act_fn"]), "3 ops");
  // points far apart in the frame are not grouped
  const two = { x: [1, 1000], y: [1, 100], text: ["a", "b"] };
  assert.equal(groupPoints(two, XR, YR, 560, 300).length, 2);
});

test("seeded: names drawn at their first place, without the layout, are caught", () => {
  const [w, h] = FRAMES[1];
  const naive = pointLabels(POINTS, XR, YR, w, h).map((l) => {
    const [sx, sy] = toPx(l.x, l.y, XR, YR, w, h);
    return { ...l, mark: [l.x, l.y], box: labelBox(l.text, l.size, sx, sy, l.at[0]), shown: true };
  });
  assert.ok(problems(naive, w, h).length > 0);
});

test("seeded: a name moved beside another group's points, and two names abutting, are caught", () => {
  const [w, h] = FRAMES[0];
  const placed = layoutPoints(POINTS, XR, YR, w, h);
  const [first, last] = [placed[0], placed[placed.length - 1]];
  const [sx, sy] = toPx(...last.mark, XR, YR, w, h);
  const moved = placed.map((l) => (l === first ? { ...l, box: labelBox(l.text, SIZE, sx, sy,
    { dx: -6, dy: 30, align: "right", baseline: "bottom" }) } : l));
  assert.match(problems(moved, w, h).join(), /nearer another mark/);
  const b = last.box;
  const abut = placed.concat([{ ...last, text: "9", box: [b[2] + 3, b[1], b[2] + 11, b[3]] }]);
  assert.match(problems(abut, w, h).join(), /read as one/);
});

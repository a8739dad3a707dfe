// The label gate's two reader's-eye checks, written apart from the layout (labels.mjs) that
// they judge, shared by the node walks over every state (scene.test.mjs, budget_labels.test.mjs,
// measure_labels.test.mjs); tests/svgcheck.py runs their twins on the drawn SVG.
//   nearerOtherMark: a label naming a point lies nearer another mark than its own (marks
//     closer than MERGE px to its own overlap it: one mark to a reader, named once);
//   readAsOne: two labels on one baseline band with less than GAP px between them read as
//     one phrase ("BF16 roof 989 8").
export const GAP = 6; // px: a word space at 11-12 px is ~3.5 px; the layout keeps 8
export const MERGE = 10; // px between mark centres: markers (r 4-4.5) this close overlap, one mark to a reader

const clamp = (v, a, b) => Math.min(Math.max(v, a), b);
const dist = (p, b) => Math.hypot(p[0] - clamp(p[0], b[0], b[2]), p[1] - clamp(p[1], b[1], b[3]));

// labels: [{text, box, mark: [px, py], marks?: [[px, py], ...] (a group's points)}] (mark
// null for a line's label); marks: [[px, py]].
export function nearerOtherMark(labels, marks) {
  const out = [];
  for (const l of labels) {
    if (!l.mark) continue;
    const mine = l.marks || [l.mark]; // a group's label names each of its points
    const own = Math.min(...mine.map((p) => dist(p, l.box)));
    const other = marks.filter((m) => mine.every((p) => Math.hypot(m[0] - p[0], m[1] - p[1]) >= MERGE))
      .map((m) => dist(m, l.box)).reduce((a, b) => Math.min(a, b), Infinity);
    if (other + 1 < own) {
      out.push(`'${l.text}' is nearer another mark (${other.toFixed(0)} px) than its own ` +
               `(${own.toFixed(0)} px)`);
    }
  }
  return out;
}

// labels: [{text, box}]
export function readAsOne(labels) {
  const out = [];
  labels.forEach((a, i) => labels.slice(i + 1).forEach((c) => {
    const [p, q] = [a.box, c.box];
    const v = Math.min(p[3], q[3]) - Math.max(p[1], q[1]);
    if (v < 0.5 * Math.min(p[3] - p[1], q[3] - q[1])) return;
    const gap = Math.max(p[0], q[0]) - Math.min(p[2], q[2]);
    if (gap >= 0 && gap < GAP) {
      const [l, r] = p[0] <= q[0] ? [a, c] : [c, a];
      out.push(`'${l.text}' and '${r.text}' read as one (${gap.toFixed(1)} px apart on a baseline)`);
    }
  }));
  return out;
}

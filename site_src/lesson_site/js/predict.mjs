// Predict, then reveal: the Checkpoint's guess form. Progressive enhancement, no dependencies,
// no outside request: the page holds a native <form> (hidden until this runs) and, as JSON,
// every case's draws that the model computed at build time: the givens (shape, counting rule,
// the chip's peak, bandwidth and launch time), the answer and its derivation. The reader picks
// an op, asks for new numbers if they like, commits a guess (what limits it, and the least
// time it takes), and only then sees the model's answer and how far off the guess was,
// announced through a polite live region.
//
// Pure named exports (parseGuess, grade, describe, nextDraw) are checked by
// `node --test tests/js/predict.test.mjs` against tests/cases/predict_cases.jsonl, which pytest
// builds from the Python model. The page inlines this file as a module and calls enhanceAll.

import { num, percent, seconds } from "../../roofline/render/js/format.mjs";

// ---------------------------------------------------------------- grading (pure)

export const REGIMES = ["memory", "compute", "overhead"];

// {bound, time_s} from the form's raw values (the time in µs), or {error} naming what is
// missing.
export function parseGuess(bound, timeText) {
  if (!REGIMES.includes(bound)) {
    return { error: "Choose what limits it first: memory, compute or the launch." };
  }
  const text = String(timeText ?? "").trim().replace(/\s*µs$/, "").replace(",", ".");
  const value = Number(text);
  if (text === "" || !Number.isFinite(value) || value <= 0) {
    return { error: "Enter the least time it takes, in µs, as a number above 0." };
  }
  return { bound, time_s: value / 1e6 };
}

// How far off a guess was: the limit right or wrong; the time's ratio to the answer (>= 1),
// too long or too short; and whether it is within the tolerance (a relative distance: 0.25
// accepts a time up to 1.25× either way).
export function grade(guess, answer, tolerance) {
  const factor = Math.max(guess.time_s, answer.time_s) / Math.min(guess.time_s, answer.time_s);
  const direction = factor < 1.0000001 ? "exact" : guess.time_s > answer.time_s ? "long" : "short";
  return { boundRight: guess.bound === answer.regime, factor, direction,
           within: factor <= 1 + tolerance + 1e-12, guess: guess.time_s, tolerance };
}

const LIMIT = { memory: "memory-bound", compute: "compute-bound", overhead: "overhead-bound" };

// The sentence a reader hears: the limit first, then the time.
export function describe(g, answer) {
  const bound = g.boundRight
    ? `Right: it is ${LIMIT[answer.regime]}.`
    : `Not quite: it is ${LIMIT[answer.regime]}.`;
  const time = `You said ${seconds(g.guess)}; the model says at least ${seconds(answer.time_s)}` +
    ` (${percent(answer.percent / 100)} of peak)`;
  let off;
  if (g.direction === "exact") off = " — spot on.";
  else if (g.within) off = ` — within ${percent(g.tolerance)}, right.`;
  else off = ` — ${num(g.factor, 2)}× too ${g.direction}.`;
  return `${bound} ${time}${off}`;
}

// The next draw of a case: the build drew `count` of them; after the last comes the first.
export function nextDraw(index, count) { return (index + 1) % count; }

// ---------------------------------------------------------------- the page (progressive)

export function enhance(root) {
  const dataEl = root.querySelector("script.rl-predict-data");
  const form = root.querySelector("form");
  const result = root.querySelector(".rl-predict-result");
  const givens = root.querySelector(".rl-predict-givens");
  if (!dataEl || !form || !result || !givens || root.dataset.rlReady) return false;
  const data = JSON.parse(dataEl.textContent);
  root.dataset.rlReady = "1";
  form.hidden = false;
  const note = root.querySelector(".rl-predict-nojs");
  if (note) note.hidden = true;
  const answerBox = root.querySelector(".rl-predict-answer");
  const counter = root.querySelector(".rl-predict-draw-n");
  const state = { c: 0, d: 0 };
  const current = () => data.cases[state.c].draws[state.d];
  const clear = () => {
    result.textContent = "";
    delete result.dataset.rating;
    if (answerBox) { answerBox.hidden = true; answerBox.innerHTML = ""; }
  };
  const show = () => {
    givens.innerHTML = current().givens;  // built at build time from the model, escaped there
    if (counter) counter.textContent = `draw ${state.d + 1} of ${data.cases[state.c].draws.length}`;
    clear();
  };
  form.addEventListener("change", (ev) => {
    // A new op is a new question: its first draw, the old answer hidden until the next guess.
    if (ev.target && ev.target.name === "case") {
      state.c = Math.max(0, data.cases.findIndex((c) => c.id === ev.target.value));
      state.d = 0;
      show();
    }
  });
  const draw = root.querySelector(".rl-predict-draw");
  if (draw) {
    draw.addEventListener("click", () => {
      state.d = nextDraw(state.d, data.cases[state.c].draws.length);
      show();
    });
  }
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const fd = new FormData(form);
    const guess = parseGuess(fd.get("bound"), fd.get("time"));
    if (guess.error) {
      result.textContent = guess.error;
      result.dataset.rating = "wrong";
      if (answerBox) answerBox.hidden = true;
      return;
    }
    const d = current();
    const g = grade(guess, d.answer, data.tolerance);
    result.textContent = describe(g, d.answer);
    result.dataset.rating = g.boundRight && g.within ? "close" : "wrong";
    if (answerBox) {
      answerBox.innerHTML = d.reveal;  // built at build time from the model, escaped there
      answerBox.hidden = false;
    }
  });
  return true;
}

export function enhanceAll(doc) {
  let n = 0;
  for (const root of doc.querySelectorAll("[data-rl-predict]")) if (enhance(root)) n += 1;
  return n;
}

// Predict, then reveal: the Checkpoint's guess form. Progressive enhancement, no dependencies,
// no outside request: the page holds a native <form> (hidden until this runs) and the answers
// the model computed at build time as JSON. The reader picks an op and a chip, commits a guess
// (memory- or compute-bound, and a % of peak), and only then sees the model's answer and how
// far off the guess was, announced through a polite live region.
//
// Pure named exports (parseGuess, score, describe) are checked by
// `node --test tests/js/predict.test.mjs` against tests/cases/predict_cases.json, which pytest
// builds from the Python model. The page inlines this file as a module and calls enhanceAll.

import { num, percent } from "../../roofline/render/js/format.mjs";

// ---------------------------------------------------------------- scoring (pure)

// A guess below this share of peak is scored as this share: the ratio stays finite.
export const PERCENT_FLOOR = 0.01;

// {bound, percent} from the form's raw values, or {error} naming what is missing.
export function parseGuess(bound, percentText) {
  if (bound !== "memory" && bound !== "compute") {
    return { error: "Choose memory-bound or compute-bound first." };
  }
  const text = String(percentText ?? "").trim().replace(/%$/, "").replace(",", ".");
  const value = Number(text);
  if (text === "" || !Number.isFinite(value) || value < 0 || value > 100) {
    return { error: "Enter a share of peak between 0 and 100 %." };
  }
  return { bound, percent: value };
}

// How far off a guess was: bound right or wrong; the guess and the answer in % of peak; the
// ratio between them (>= 1) and whether the guess was too high or too low; a rating.
export function score(guess, answer) {
  const g = Math.max(guess.percent, PERCENT_FLOOR);
  const a = Math.max(answer.percent, PERCENT_FLOOR);
  const factor = Math.max(g, a) / Math.min(g, a);
  const direction = factor < 1.0000001 ? "exact" : g > a ? "high" : "low";
  const rating = factor <= 2 ? "close" : factor <= 10 ? "order" : "far";
  return { boundRight: guess.bound === answer.bound, guess: guess.percent,
           answer: answer.percent, points: guess.percent - answer.percent, factor, direction,
           rating };
}

// The sentence a reader hears: verdict first, then the distance.
export function describe(s, answerBound) {
  const other = answerBound === "memory" ? "compute" : "memory";
  const bound = s.boundRight
    ? `Right: it is ${answerBound}-bound.`
    : `Not quite: it is ${answerBound}-bound, not ${other}-bound.`;
  const yours = `You guessed ${num(s.guess)}% of peak; the model says ${percent(s.answer / 100)}`;
  let off;
  if (s.direction === "exact") off = " — spot on.";
  else if (s.rating === "close") {
    off = ` — within a factor of 2 (${num(s.factor, 2)}× too ${s.direction}).`;
  }
  else off = ` — ${num(s.factor, 2)}× too ${s.direction}.`;
  return `${bound} ${yours}${off}`;
}

// ---------------------------------------------------------------- the page (progressive)

export function enhance(root) {
  const dataEl = root.querySelector("script.rl-predict-data");
  const form = root.querySelector("form");
  const result = root.querySelector(".rl-predict-result");
  if (!dataEl || !form || !result || root.dataset.rlReady) return false;
  const data = JSON.parse(dataEl.textContent);
  root.dataset.rlReady = "1";
  form.hidden = false;
  const note = root.querySelector(".rl-predict-nojs");
  if (note) note.hidden = true;
  const answerBox = root.querySelector(".rl-predict-answer");
  const clear = () => {
    result.textContent = "";
    if (answerBox) { answerBox.hidden = true; answerBox.innerHTML = ""; }
  };
  form.addEventListener("change", (ev) => {
    // A new op or chip is a new question: hide the old answer until the next guess.
    if (ev.target && (ev.target.name === "op" || ev.target.name === "hw")) clear();
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const fd = new FormData(form);
    const guess = parseGuess(fd.get("bound"), fd.get("percent"));
    if (guess.error) {
      result.textContent = guess.error;
      if (answerBox) answerBox.hidden = true;
      return;
    }
    const answer = data.answers[`${fd.get("op")}|${fd.get("hw")}`];
    if (!answer) { result.textContent = "No answer for that pair."; return; }
    const s = score(guess, answer);
    result.textContent = describe(s, answer.bound);
    result.dataset.rating = s.boundRight ? s.rating : "wrong";
    if (answerBox) {
      answerBox.innerHTML = answer.html;  // built at build time from the model, escaped there
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

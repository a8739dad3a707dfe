// The drop page: a reader drops (or chooses) a torch.profiler trace and it is read here, in the
// browser, with nothing uploaded — the file is streamed from disk (gunzipped by the browser's
// DecompressionStream when it is .json.gz), cut into events by reader.mjs and analysed by
// analyse.mjs, the code `roofline profile` runs; the report is drawn by profile.mjs, as the
// build draws a fence's. A `roofline measure` JSON dropped beside it moves the trace onto that
// CPU's roofline. Works from file:// (the module is inlined; no request is made).
//
// Pure steps are exported for node's tests; mount() is the page's entry.
import { TraceInputError, TraceReader } from "../../profile/reader.mjs";
import { cpuRoof, deviceOf, finishSurvey, newSurvey, pickStep } from "../../profile/analyse.mjs";
import { stepEvents, stepReport, surveyEvents } from "../../profile/analyse.mjs";
import { chipFor, gpuReport, gpuStepEvents, newGpuParts } from "../../profile/gpu.mjs";
import { mergeRanks, rankSummary } from "../../profile/gpu.mjs";
import { reportHtml } from "./profile.mjs";

// The file's text, piece by piece (a ReadableStream of strings), gunzipped when it is gzip.
export async function textStream(file) {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gz = head[0] === 0x1f && head[1] === 0x8b;
  let bytes = file.stream();
  if (gz) bytes = bytes.pipeThrough(new DecompressionStream("gzip"));
  return { gz, text: bytes.pipeThrough(new TextDecoderStream("utf-8", { fatal: true })) };
}

// One pass over the trace: onChunk(events, meta) per piece of text read.
export async function readTrace(file, onChunk) {
  const { gz, text } = await textStream(file);
  const r = new TraceReader(), reader = text.getReader();
  for (;;) {
    let piece;
    try {
      piece = await reader.read();
    } catch (e) {
      throw new TraceInputError(gz ? `truncated or corrupt gzip stream (${e.message})`
        : `not UTF-8 text: not a Chrome trace (${e.message})`);
    }
    if (piece.done) break;
    const { events, meta } = r.push(piece.value);
    onChunk(events, meta);
  }
  const { events, meta } = r.end();
  onChunk(events, meta);
}

// The report of a GPU trace's step (null: the last that ran kernels) on its chip's roofline: the
// chip from the trace's deviceProperties, or `chipId` (the reader's choice), or { error, field }.
async function analyseGpu(file, info, P, step, chipId) {
  let id = chipId, found = null;
  if (!id) {
    found = chipFor(info.meta.deviceProperties, P.devices);
    if (found.error) return found;
    id = found.chip;
  }
  // the same words as roofline profile's (analyse.py gpu_analyse)
  const chip = { ...P.chips[id], source: chipId ? `chosen: ${chipId}`
    : `deviceProperties "${info.meta.deviceProperties[0].name}": ${found.rule}` };
  const tries = step !== null ? [step]
    : Object.keys(info.steps).map(Number).sort((a, b) => b - a);
  if (!tries.length) tries.push(null);
  let R = null;
  for (const n of tries) {
    const w = pickStep(info, n);
    if (w.error) return w;
    const parts = newGpuParts();
    await readTrace(file, (events) => gpuStepEvents(parts, w, events));
    R = gpuReport({ info, window: w, parts, chip, kinds: P.kinds, terms: P.terms,
                    trace: file.name });
    if (!R.error) return R;
  }
  return R;
}

// The report of `file`'s step `step` (null: the last) on `roof`, or { error, field }.
export async function analyseFile(file, P, step = null, chipId = null) {
  const { roof, terms } = P;
  try {
    const s = newSurvey();
    await readTrace(file, (events, meta) => surveyEvents(s, events, meta));
    const info = finishSurvey(s);
    if (info.error) return info;
    if (deviceOf(info) === "gpu") return await analyseGpu(file, info, P, step, chipId);
    const w = pickStep(info, step);
    if (w.error) return w;
    const nodes = [];
    await readTrace(file, (events) => { for (const n of stepEvents(w, events)) nodes.push(n); });
    return stepReport({ info, window: w, nodes, roof, terms, trace: file.name });
  } catch (e) {
    if (e instanceof TraceInputError) return { error: e.message };
    throw e;
  }
}

// A dropped file's roof if it is a `roofline measure` JSON (a small .json whose text has
// "ceilings"), read once: the roof, { error }, or null for any other file (a trace).
export async function measurementRoof(file) {
  if (!/\.json$/i.test(file.name) || file.size > 4 << 20) return null;
  const text = await file.text();
  if (!/"ceilings"\s*:/.test(text)) return null;
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON (${e.message})` };
  }
  return cpuRoof(doc);
}

// Several traces: the ranks of one job, each read in turn (one rank's step in memory at a time).
export async function analyseRanks(files, P, chipId = null) {
  const rows = [];
  let slowest = null;
  for (const f of files) {
    const R = await analyseFile(f, P, null, chipId);
    if (R.error) return { ...R, error: `${f.name}: ${R.error}` };
    if (R.kind !== "gpu") return { error: `${f.name}: a CPU trace among GPU ranks` };
    rows.push(rankSummary(R));
    if (!slowest || R.wall_s > slowest.wall_s) slowest = R;
  }
  const M = mergeRanks(rows);
  return M.error ? M : { kind: "ranks", ...M, slowest_report: slowest };
}

function chipPicker(P, chosen) {
  const opts = Object.entries(P.chips).map(([id, c]) => `<option value="${id}"` +
    `${id === chosen ? " selected" : ""}>${c.label}</option>`).join("");
  return `<label class="rl-drop-step rl-controls">Chip <select name="chip"><option value="">` +
    `from the trace</option>${opts}</select></label>`;
}

function stepPicker(R) {
  if (!R.steps || R.steps.length < 2) return "";
  const opts = R.steps.map((n) => `<option value="${n}"${`ProfilerStep#${n}` === R.step
    ? " selected" : ""}>ProfilerStep#${n}</option>`).join("");
  return `<label class="rl-drop-step rl-controls">Step <select name="step">${opts}</select></label>`;
}

export function mount(root) {
  const P = JSON.parse(root.querySelector(".rl-drop-data").textContent);
  const zone = root.querySelector(".rl-drop-zone");
  const input = root.querySelector('input[name="trace"]');
  const status = root.querySelector(".rl-drop-status");
  const out = root.querySelector(".rl-profile-report");
  const state = { trace: null, traces: [], roof: P.roof, roofName: "", chip: null };
  const say = (text, error = false) => {
    status.textContent = text;
    status.classList.toggle("rl-drop-error", error);
  };
  const show = async (step = null) => {
    if (!state.traces.length) return;
    const many = state.traces.length > 1;
    const what = many ? `${state.traces.length} traces` : state.traces[0].name;
    root.setAttribute("data-rl-drop-state", "reading");
    say(`Reading ${what} in this browser (nothing is uploaded)…`);
    const opts = { ...P, roof: state.roof };
    const R = many ? await analyseRanks(state.traces, opts, state.chip)
      : await analyseFile(state.traces[0], opts, step, state.chip);
    if (R.error) {
      say(many ? R.error : `${what}: ${R.error}`, true);
      out.innerHTML = R.field === "hardware" ? chipPicker(P, state.chip) : "";
      root.setAttribute("data-rl-drop-state", "error");
    } else {
      const gpu = R.kind === "gpu" || R.kind === "ranks";
      out.innerHTML = (many ? "" : stepPicker(R)) + (gpu ? chipPicker(P, state.chip) : "") +
        reportHtml(R);
      say(many ? `${what}: ${R.ranks.length} ranks, read in this browser.`
        : `${what}: ${R.step}, read in this browser` +
          (!gpu && state.roofName ? `, on the roofline of ${state.roofName}.` : "."));
      root.setAttribute("data-rl-drop-state", "shown");
    }
    const pick = out.querySelector('select[name="step"]');
    if (pick) pick.addEventListener("change", () => show(Number(pick.value)));
    const chip = out.querySelector('select[name="chip"]');
    if (chip) {
      chip.addEventListener("change", () => {
        state.chip = chip.value || null;
        show();
      });
    }
  };
  const take = async (files) => {
    const traces = [];
    for (const f of files) {
      const roof = await measurementRoof(f);
      if (roof !== null) {
        if (roof.error) {
          say(`${f.name}: ${roof.error}`, true);
          root.setAttribute("data-rl-drop-state", "error");
          return;
        }
        state.roof = roof;
        state.roofName = f.name;
      } else {
        traces.push(f);
      }
    }
    if (traces.length) {
      state.traces = traces;
      state.chip = null;
    }
    if (!state.traces.length) {
      say(`Roofline set from ${state.roofName}; now drop a trace.`);
      return;
    }
    await show();
  };
  input.addEventListener("change", () => take([...input.files]));
  zone.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("rl-drop-over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("rl-drop-over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("rl-drop-over");
    take([...e.dataTransfer.files]);
  });
  root.querySelector(".rl-drop-form").hidden = false;
  root.setAttribute("data-rl-drop-state", "ready");
}

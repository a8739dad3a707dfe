// Build the lesson's trimmed BokehJS: core + widgets with only the models our widgets
// serialize registered, and only the modules those models reach.
//
//   node scripts/trim-bokehjs.mjs            # reads the pip-installed bokeh, writes the vendor dir
//
// Inputs, all local (no network, no npm packages):
// - the installed bokeh wheel's bokeh.min.js and bokeh-widgets.min.js (the shipped code, module
//   by module) and bokeh.js / bokeh-widgets.js (the same modules unminified, read only for which
//   module defines each model). The wheel ships no compiled ES modules (lib/ holds .d.ts only),
//   so the shipped bundles are the source: their modules are kept byte for byte.
// - site_src/roofline/vendor/bokehjs/models.json: the model names to register (written by
//   `python -m roofline.render.bokehjs models`, which walks the widgets' documents).
// Outputs, in site_src/roofline/vendor/bokehjs/: the bundle and manifest.json (bokeh version,
// sha256 of every input and of this script, the models, the output's sha256), which
// tests/test_bokehjs_bundle.py checks against the installed bokeh.
//
// How: BokehJS bundles are a module table (core: an array indexed by id; a plugin: an object
// keyed by id, sharing core's ids) run by a small loader. Both `models/main` modules (core's
// registers every model, widgets' every widget) are replaced by one that registers only the
// listed models, and every module no kept module requires is dropped.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
// BOKEHJS_VENDOR_DIR: another folder (models.json in, bundle and manifest out), for the test
// that regenerates the bundle and compares.
const VENDOR = process.env.BOKEHJS_VENDOR_DIR || join(ROOT, "site_src", "roofline", "vendor", "bokehjs");
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

function bokehDir() {
  if (process.env.BOKEH_JS_DIR) return process.env.BOKEH_JS_DIR;
  const py = process.env.PYTHON || "python3";
  const code = "import importlib.util as u,pathlib as p;" +
    "print(p.Path(u.find_spec('bokeh').submodule_search_locations[0])/'server'/'static'/'js')";
  return execFileSync(py, ["-c", code], { encoding: "utf8" }).trim();
}

// The bundle's module table, entry and aliases, captured by making its loader hand them over
// instead of running anything (so no DOM is needed).
function capture(text, isPlugin) {
  const ctx = {};
  if (isPlugin) {
    // A plugin's wrapper calls factory(root.Bokeh, version): give it a Bokeh whose
    // register_plugin keeps its arguments.
    const version = /factory\(root\["Bokeh"\], "([^"]+)"\)/.exec(text)[1];
    ctx.Bokeh = { [version]: { register_plugin: (modules, entry, aliases) => {
      ctx.table = { modules, entry, aliases };
    } } };
    vm.runInNewContext(text, ctx, { filename: "bokeh-plugin.js" });
    return ctx.table;
  }
  const open = "return (function(modules, entry, aliases, externals) {";
  const at = text.indexOf(open);
  if (at < 0 || text.indexOf(open, at + 1) >= 0) throw new Error("unexpected bundle shape");
  vm.runInNewContext(text.slice(0, at + open.length) + "return {modules, entry, aliases};" +
    text.slice(at + open.length), ctx, { filename: "bokeh.js" });
  return ctx.Bokeh;
}

// Which module defines each exported model: read from the unminified index modules
// (`var x_1 = require(N) /* ./x */; __esExport("Name", x_1.Name);` and __exportStar).
function definitions(modules, start) {
  const where = new Map();
  const seen = new Set();
  const visit = (id) => {
    if (seen.has(id)) return;
    seen.add(id);
    const src = modules[id].toString();
    const bound = new Map();
    for (const m of src.matchAll(/(?:var|const|let) (\w+) = require\((\d+)\)/g)) bound.set(m[1], Number(m[2]));
    for (const m of src.matchAll(/__esExport\("(\w+)", (\w+)\.(\w+)\)/g)) {
      if (bound.has(m[2]) && !where.has(m[1])) where.set(m[1], bound.get(m[2]));
    }
    // A module re-exported whole defines its models itself: `exports.Name = Name;`.
    for (const m of src.matchAll(/exports\.(\w+) = \1;/g)) if (!where.has(m[1])) where.set(m[1], id);
    for (const m of src.matchAll(/__exportStar\(require\((\d+)\)/g)) visit(Number(m[1]));
  };
  for (const id of start) visit(id);
  return where;
}

function requires(fn) {
  const src = fn.toString();
  const param = /^function\s*\w*\s*\(\s*(\w+)/.exec(src)[1];
  const re = new RegExp(`(?<![\\w$.])${param}\\((\\d+)\\)`, "g");
  return [...src.matchAll(re)].map((m) => Number(m[1]));
}

// A model's name as serialized: "Slider", or "bokeh.models.dom.Div" outside bokeh.models.
const exported = (name) => name.slice(name.lastIndexOf(".") + 1);

// A models/main module registering only `names` (force: DocumentConfig is registered by
// document/index as well). `base`: the id of core's base module, which owns the registry.
function registration(names, where, base, extra) {
  const body = names.map((n) => `${JSON.stringify(n)}:r(${where(n)}).${exported(n)}`).join(",");
  return `function _(r,m,e,esm,exp){esm();const M={${body}};${extra}r(${base}).register_models(M,true)}`;
}

function emitTable(text, table, keep, isPlugin) {
  // Everything before the module table (license, wrapper, loader) is kept as shipped.
  const first = Object.keys(table.modules).map(Number).sort((a, b) => a - b)[0];
  const at = text.indexOf(table.original[first]);
  const head = text.slice(0, at).replace(/\s*(?:\d+:\s*)?$/, "");
  const ids = [...keep].sort((a, b) => a - b);
  let body;
  if (isPlugin) {
    body = ids.map((id) => `\n${id}: ${table.modules[id].toString()}`).join(",");
  } else {
    const slots = [];
    for (let id = 0; id <= ids[ids.length - 1]; id++) {
      slots.push(keep.has(id) ? "\n" + table.modules[id].toString() : "");
    }
    body = slots.join(",");
  }
  const aliases = Object.fromEntries(Object.entries(table.aliases).filter(([, id]) => keep.has(id)));
  const close = isPlugin ? "}" : "]";
  return `${head}${body}\n${close}, ${JSON.stringify(table.entry)}, ${JSON.stringify(aliases)}, {});});\n`;
}

// Module id -> source path, from the unminified bundles' `/* path */` comments.
function paths(coreText, widgetsText, coreCount) {
  const out = new Map();
  let id = 0;
  for (const m of coreText.matchAll(/^\/\* (\S+) \*\/ function _\(/gm)) out.set(id++, m[1]);
  // Core's modules are an array: the n-th commented module is id n, if none was missed.
  if (out.get(0) !== "main.js" || id !== coreCount) throw new Error("unexpected bokeh.js shape");
  for (const m of widgetsText.matchAll(/^(\d+): \/\* (\S+) \*\/ function _\(/gm)) out.set(Number(m[1]), m[2]);
  return out;
}

// Five kept modules serve only features no page of ours uses; each becomes a stub that says
// so if it is ever reached (tests/test_bokehjs_bundle.py checks the widgets' documents use
// none of them):
// - core/util/projections (and proj4 behind it): web-mercator maps (GMapPlot, tiles), whose
//   models are not registered here;
// - fflate (gzip): arrays sent as compressed binary buffers; our documents send none;
// - embed/server (and the client and protocol code only it needs): a Bokeh server session;
//   our pages embed standalone documents;
// - core/util/svg (canvas2svg): output_backend="svg"; our plots draw on canvas;
// - styles/icons.css: every tool's icon; kept are the rules for icons a kept module names.
const STUB_ERROR = (what) => `throw new Error("roofline's trimmed BokehJS has no ${what} ` +
  `(roofline/vendor/bokehjs/README.md)")`;
const STUBS = {
  "fflate/esm/browser.js": "function _(r,m,e,esm){esm();const no=()=>{" +
    STUB_ERROR("gzip: a plot sent compressed arrays") + "};e.gzipSync=no;e.gunzipSync=no}",
  "embed/server.js": "function _(r,m,e,esm){esm();const no=()=>{" +
    STUB_ERROR("Bokeh server: a page embedded a server session") + "};" +
    "e._get_ws_url=no;e.add_document_from_session=no}",
  "core/util/projections.js": "function _(r,m,e,esm){esm();const no=()=>{" +
    STUB_ERROR("map projections: a plot asked for use_map") + "};" +
    "e.clip_mercator=e.in_bounds=e.project_xy=e.project_xsys=no;" +
    "e.wgs84_mercator={compute:no,invert:no};e.inplace={project_xy:no,project_xsys:no}}",
  "core/util/svg.js": "function _(r,m,e,esm){esm();e.SVGRenderingContext2D=class{constructor(){" +
    STUB_ERROR("SVG output: a plot asked for the svg output_backend") + "}}}",
};

// Before the walk, so what only a stub's original required is dropped too.
function stub(core, widgets, where) {
  const byPath = new Map([...where].map(([id, p]) => [p, id]));
  for (const [path, code] of Object.entries(STUBS)) {
    const id = byPath.get(path);
    if (id === undefined) throw new Error(`no module ${path}`);
    (core.modules[id] ? core : widgets).modules[id] = code;
  }
}

function leanIcons(core, widgets, keep, where) {
  const byPath = new Map([...where].map(([id, p]) => [p, id]));
  const table = (id) => (core.modules[id] ? core : widgets).modules;
  const icons = byPath.get("styles/icons.css.js");
  if (!keep.has(icons)) return;
  const others = [...keep].filter((id) => id !== icons).map((id) => table(id)[id].toString()).join("\n");
  const named = new Set([...others.matchAll(/tool_icon_(\w+)/g)].map((m) => m[1].replaceAll("_", "-")));
  for (const m of others.matchAll(/bk-tool-icon-([a-z-]+)/g)) named.add(m[1]);
  const src = table(icons)[icons].toString();
  let css = src.replace(/\.bk-tool-icon-([a-z-]+)\{[^}]*\}/g, (rule, name) => named.has(name) ? rule : "");
  const vars = new Set([...(css + others).matchAll(/var\(--bokeh-icon-([a-z-]+)\)/g)].map((m) => m[1]));
  css = css.replace(/--bokeh-icon-([a-z-]+):url\("[^"]*"\);?/g, (decl, name) => vars.has(name) ? decl : "");
  table(icons)[icons] = css;
}

function main() {
  const dir = bokehDir();
  const read = (name) => readFileSync(join(dir, name), "utf8");
  const inputs = ["bokeh.min.js", "bokeh-widgets.min.js", "bokeh.js", "bokeh-widgets.js"];
  const texts = Object.fromEntries(inputs.map((n) => [n, read(n)]));
  const version = /exports\.version = "([^"]+)"/.exec(texts["bokeh.js"])[1];
  const core = capture(texts["bokeh.min.js"], false);
  const widgets = capture(texts["bokeh-widgets.min.js"], true);
  const coreFull = capture(texts["bokeh.js"], false);
  const widgetsFull = capture(texts["bokeh-widgets.js"], true);
  for (const t of [core, widgets]) t.original = Object.fromEntries(
    Object.entries(t.modules).filter(([, f]) => f).map(([id, f]) => [id, f.toString()]));

  const CORE_MAIN = core.aliases["models/main"];
  const WIDGETS_MAIN = widgets.entry;
  const tables = {
    // DocumentConfig is registered by document/index too: registering it again (force) is
    // a no-op that keeps this list the whole story.
    core: definitions(coreFull.modules, [core.aliases["models/index"], core.aliases["document/config"]]),
    dom: definitions(coreFull.modules, [core.aliases["models/dom/index"]]),
    widgets: definitions(widgetsFull.modules, [widgets.aliases["models/widgets/index"]]),
  };
  const tableOf = (name) => name.startsWith("bokeh.models.dom.") ? "dom"
    : name.includes(".") ? null
    : ["widgets", "core", "dom"].find((t) => tables[t].has(name)) ?? null;
  const where = (name) => tables[tableOf(name)].get(exported(name));

  const models = JSON.parse(readFileSync(join(VENDOR, "models.json"), "utf8"));
  const unknown = models.filter((n) => !tableOf(n) || where(n) === undefined);
  if (unknown.length) throw new Error(`not a BokehJS core or widgets model: ${unknown.join(", ")}`);
  const widgetNames = models.filter((n) => tableOf(n) === "widgets");
  const coreNames = models.filter((n) => tableOf(n) !== "widgets");
  core.modules[CORE_MAIN] = registration(coreNames, where, core.aliases.base, "");
  widgets.modules[WIDGETS_MAIN] = registration(widgetNames, where, core.aliases.base, "e.Widgets=M;");

  const sources = paths(texts["bokeh.js"], texts["bokeh-widgets.js"], coreFull.modules.length);
  stub(core, widgets, sources);
  // The modules the two entries reach, across both tables (a plugin requires core's ids).
  const all = new Map();
  for (const t of [core, widgets]) {
    for (const [id, fn] of Object.entries(t.modules)) if (fn) all.set(Number(id), fn);
  }
  const keep = new Set();
  const todo = [core.entry, WIDGETS_MAIN];
  while (todo.length) {
    const id = todo.pop();
    if (keep.has(id)) continue;
    // An id in neither table is another plugin's (mathjax's), loaded lazily and optionally
    // by the full bundle too.
    if (!all.has(id)) continue;
    keep.add(id);
    todo.push(...requires(all.get(id)));
  }
  leanIcons(core, widgets, keep, sources);
  const inTable = (t) => new Set([...keep].filter((id) => t.modules[id]));
  const out = emitTable(texts["bokeh.min.js"], core, inTable(core), false) +
    emitTable(texts["bokeh-widgets.min.js"], widgets, inTable(widgets), true);

  const digest = sha256(out);
  const name = `bokeh-roofline-${version}.${digest.slice(0, 10)}.min.js`;
  for (const f of readdirSync(VENDOR)) if (/^bokeh-roofline-.*\.min\.js$/.test(f)) unlinkSync(join(VENDOR, f));
  writeFileSync(join(VENDOR, name), out);
  const manifest = {
    bokeh_version: version,
    generator: { path: "scripts/trim-bokehjs.mjs", sha256: sha256(readFileSync(fileURLToPath(import.meta.url))) },
    inputs: Object.fromEntries(inputs.map((n) => [n, sha256(texts[n])])),
    models,
    modules_kept: keep.size,
    modules_total: all.size,
    output: { name, sha256: digest, bytes: Buffer.byteLength(out) },
  };
  writeFileSync(join(VENDOR, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  console.log(`${name}: ${manifest.output.bytes} bytes, ${keep.size}/${all.size} modules, ` +
    `${coreNames.length} core + ${widgetNames.length} widget models`);
}

main();

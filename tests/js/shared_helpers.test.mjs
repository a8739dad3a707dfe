// One copy of the formatting: format.mjs. Every other script of ours imports what it uses from
// it (roofline.render.jsmodule.bundle() inlines it in front of them for Bokeh and the page), so a
// module that declares its own num() — under that name or pasted under another — or calls one
// without importing it fails here. The two last tests seed both defects into a made-up module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import * as fmt from "../../site_src/roofline/render/js/format.mjs";

const DIR = new URL("../../site_src/roofline/render/js/", import.meta.url);
const SITE_SRC = fileURLToPath(new URL("../../site_src/", import.meta.url));

// Every script of ours under site_src/ (the widgets' folders, the shared render/js, the
// lesson's own), by file name -> path.
function ourScripts(dir = SITE_SRC, out = new Map()) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory() && !["vendor", "node_modules", "__pycache__"].includes(e.name)) ourScripts(path, out);
    else if (e.isFile() && /\.m?js$/.test(e.name)) out.set(e.name, path);
  }
  return out;
}
const SCRIPTS = ourScripts();
const SHARED = Object.keys(fmt).filter((k) => typeof fmt[k] === "function");

// Top-level function declarations: name -> body with the name taken out (so a renamed copy
// reads the same). A declaration runs from `function` at column 0 to the next `}` at column 0.
function functions(source) {
  const found = new Map();
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:export\s+)?(?:default\s+)?function\s*(\w*)\s*\(/.exec(lines[i]);
    if (!m) continue;
    let j = i;
    if (!/\}\s*$/.test(lines[i]) || /\{\s*$/.test(lines[i])) {
      while (j < lines.length && lines[j] !== "}") j++;
    }
    const body = lines.slice(i, j + 1).join("\n").replace(/^(?:export\s+)?(?:default\s+)?function\s*\w*/, "");
    found.set(m[1] || "default", body.replace(/\s+/g, " ").trim());
    i = j;
  }
  return found;
}

function imported(source) {
  const names = new Set();
  for (const m of source.matchAll(/^import\s*\{([^}]*)\}\s*from\s*"(?:\.{1,2}\/)+(?:[\w-]+\/)*format\.mjs";/gm)) {
    for (const n of m[1].split(",")) if (n.trim()) names.add(n.trim());
  }
  return names;
}

const SHARED_BODIES = new Map([...functions(readFileSync(new URL("format.mjs", DIR), "utf8"))]
  .map(([name, body]) => [body, name]));

// What is wrong with one module's text, as sentences naming it (empty = fine).
function problems(file, source) {
  const out = [];
  const own = functions(source);
  for (const [name, body] of own) {
    if (SHARED.includes(name)) out.push(`${file} declares its own ${name}(); import it from ./format.mjs`);
    else if (SHARED_BODIES.has(body)) {
      out.push(`${file}'s ${name}() is a copy of format.mjs's ${SHARED_BODIES.get(body)}()`);
    }
  }
  const has = imported(source);
  const code = source.replace(/\/\/.*$/gm, "").replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  for (const name of SHARED) {
    if (own.has(name) || has.has(name)) continue;
    if (new RegExp(`(?<![\\w.])${name}\\(`).test(code)) {
      out.push(`${file} calls ${name}() without importing it from ./format.mjs`);
    }
  }
  return out;
}

test("format.mjs holds the one copy of the formatting helpers", () => {
  assert.ok(SHARED.includes("num") && SHARED.includes("si") && SHARED.includes("seconds"), SHARED.join());
  const files = [...SCRIPTS.keys()].filter((f) => f !== "format.mjs");
  assert.ok(files.includes("budget.mjs") && files.includes("roofline.mjs") && files.includes("measure.mjs"));
  const found = files.flatMap((f) => problems(f, readFileSync(SCRIPTS.get(f), "utf8")));
  assert.deepEqual(found, []);
});

test("the modules that format numbers import format.mjs", () => {
  for (const f of ["budget.mjs", "roofline.mjs", "measure.mjs", "scene.mjs", "predict.mjs"]) {
    assert.ok(imported(readFileSync(SCRIPTS.get(f), "utf8")).size > 0, f);
  }
});

test("seeded: a pasted copy is found, renamed or not", () => {
  const num = readFileSync(new URL("format.mjs", DIR), "utf8").match(/^export function num\([\s\S]*?\n\}$/m)[0];
  assert.match(problems("x.mjs", `import { sig } from "./format.mjs";\n${num}\n`).join(),
               /x\.mjs declares its own num\(\)/);
  const renamed = num.replace("export function num(", "function fmtNum(");
  assert.match(problems("x.mjs", `import { sig, num } from "./format.mjs";\n${renamed}\n`).join(),
               /x\.mjs's fmtNum\(\) is a copy of format\.mjs's num\(\)/);
});

test("seeded: a call without the import is found; a method or a string is not a call", () => {
  const src = 'import { num } from "./format.mjs";\nexport const a = (x) => num(x) + percent(x);\n';
  assert.deepEqual(problems("y.mjs", src), ["y.mjs calls percent() without importing it from ./format.mjs"]);
  const fine = 'import { num } from "./format.mjs";\nconst t = "si(x)"; // seconds(x)\nobj.si(1); num(2);\n';
  assert.deepEqual(problems("z.mjs", fine), []);
});

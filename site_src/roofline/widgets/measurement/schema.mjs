// The measurement file's checker, the browser's twin of roofline.measure.schema: it reads the
// same JSON Schema file (data/measurement-schema.json) and rejects the same files with the
// same field paths and words. Pure helpers only (no Bokeh, no DOM but atob/TextDecoder), so
// node --test imports this very file; measure.mjs imports it and jsmodule.bundle() joins the
// two into the one module BokehJS runs.

export const FORMAT = "roofline-measurement";
export const SCHEMA_VERSION = 2;
const KEYWORDS = new Set(["$comment", "$defs", "$ref", "type", "properties", "required",
  "additionalProperties", "items", "minItems", "minLength", "enum", "const", "minimum",
  "exclusiveMinimum"]);

// ---------------------------------------------------------------- the schema checker

class Mismatch extends Error {
  constructor(message, path) { super(message); this.path = path; }
}

function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

function typeOk(value, kind) {
  switch (kind) {
    case "null": return value === null;
    case "boolean": return typeof value === "boolean";
    case "integer": return Number.isInteger(value);
    case "number": return typeof value === "number" && Number.isFinite(value);
    case "string": return typeof value === "string";
    case "array": return Array.isArray(value);
    case "object": return isObject(value);
    default: throw new Error(`schema names unknown type ${kind}`);
  }
}

function shortValue(value) {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length <= 40 ? text : text.slice(0, 37) + "...";
}

function fieldPath(path, key) { return path ? `${path}.${key}` : key; }

function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

export function checkRule(value, rule, path, root) {
  for (const k of Object.keys(rule)) {
    if (!KEYWORDS.has(k)) throw new Error(`schema uses unsupported keyword ${k}`);
  }
  if (rule.$ref !== undefined) {
    checkRule(value, root.$defs[rule.$ref.replace("#/$defs/", "")], path, root);
    return;
  }
  if ("const" in rule && !same(value, rule.const)) {
    throw new Mismatch(`must be ${shortValue(rule.const)}, got ${shortValue(value)}`, path);
  }
  if (rule.enum !== undefined && !rule.enum.some((e) => same(e, value))) {
    throw new Mismatch(`must be one of ${rule.enum.join(", ")}; got ${shortValue(value)}`, path);
  }
  if (rule.type !== undefined) {
    const kinds = Array.isArray(rule.type) ? rule.type : [rule.type];
    if (!kinds.some((k) => typeOk(value, k))) {
      throw new Mismatch(`expected ${kinds.join(" or ")}, got ${shortValue(value)}`, path);
    }
  }
  if (typeOk(value, "number")) {
    if (rule.minimum !== undefined && value < rule.minimum) {
      throw new Mismatch(`must be ≥ ${rule.minimum}, got ${shortValue(value)}`, path);
    }
    if (rule.exclusiveMinimum !== undefined && !(value > rule.exclusiveMinimum)) {
      throw new Mismatch(`must be > ${rule.exclusiveMinimum}, got ${shortValue(value)}`, path);
    }
  }
  if (typeof value === "string" && value.length < (rule.minLength || 0)) {
    throw new Mismatch("must not be empty", path);
  }
  if (Array.isArray(value)) {
    if (value.length < (rule.minItems || 0)) {
      throw new Mismatch(`needs at least ${rule.minItems} item(s), got ${value.length}`, path);
    }
    if (rule.items !== undefined) {
      value.forEach((item, i) => checkRule(item, rule.items, `${path}[${i}]`, root));
    }
  }
  if (isObject(value)) {
    for (const key of rule.required || []) {
      if (!(key in value)) throw new Mismatch("missing", fieldPath(path, key));
    }
    const props = rule.properties || {};
    const extra = rule.additionalProperties === undefined ? true : rule.additionalProperties;
    for (const [key, item] of Object.entries(value)) {
      const at = fieldPath(path, key);
      if (Object.prototype.hasOwnProperty.call(props, key)) checkRule(item, props[key], at, root);
      else if (extra === false) {
        throw new Mismatch(`unknown field (known: ${Object.keys(props).join(", ")})`, at);
      } else if (isObject(extra)) checkRule(item, extra, at, root);
    }
  }
}

function consistency(doc) {
  for (const group of ["stream", "matmul", "ops"]) {
    doc[group].forEach((entry, i) => {
      const t = entry.time_s;
      if (!(t.min <= t.median && t.median <= t.max)) {
        throw new Mismatch(`needs min ≤ median ≤ max, got ${t.min}, ${t.median}, ${t.max}`,
                           `${group}[${i}].time_s`);
      }
    });
  }
  const c = doc.ceilings;
  const levels = c.bandwidth.map((b) => b.level);
  if (!levels.includes(c.memory_level)) {
    throw new Mismatch(`no bandwidth ceiling for memory_level "${c.memory_level}" `
                       + `(have: ${levels.join(", ")})`, "ceilings.bandwidth");
  }
  const roofs = c.compute.map((p) => p.precision);
  doc.ops.forEach((op, i) => {
    if (!roofs.includes(op.precision)) {
      throw new Mismatch(`no compute ceiling for precision "${op.precision}" `
                         + `(have: ${roofs.join(", ")})`, `ops[${i}].precision`);
    }
  });
}

// {ok: true} or {ok: false, field, message, text}; text is the one line a reader sees, in
// the form of the Python side's RooflineError: "FILE: field 'PATH': MESSAGE".
export function validate(doc, schema, where = "measurement") {
  try {
    if (isObject(doc) && doc.format === FORMAT && "schema_version" in doc
        && doc.schema_version !== SCHEMA_VERSION) {
      throw new Mismatch(`this site reads version ${SCHEMA_VERSION}, the file is version `
                         + `${shortValue(doc.schema_version)}: re-run \`roofline measure\``,
                         "schema_version");
    }
    checkRule(doc, schema, "", schema);
    consistency(doc);
  } catch (e) {
    if (!(e instanceof Mismatch)) throw e;
    const field = e.path || "(top level)";
    const text = `${where}: field '${field}': ${e.message}`;
    return { ok: false, field, message: e.message, text };
  }
  return { ok: true };
}

// Text to a measurement document, or the reader's one-line reason it is not one.
export function parseMeasurement(text, schema, where) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, field: "", message: `not valid JSON: ${e.message}`,
             text: `${where}: not valid JSON: ${e.message}` };
  }
  const result = validate(doc, schema, where);
  return result.ok ? { ok: true, doc } : result;
}

// FileInput's value is base64; the file is UTF-8 text.
export function decodeBase64(b64) {
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  return new TextDecoder("utf-8").decode(bytes);
}

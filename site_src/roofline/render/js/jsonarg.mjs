// A large payload reaches a callback as JSON text rather than as a nested value: Bokeh's Python
// side walks and encodes a nested value element by element (the budget widget's 240 KB payload
// cost half its block's drawing), and BokehJS decodes it the same way on every load. Text is one
// string each way; it is parsed here once per text (the same text on every later change).
// Python hands it over with roofline.render.embed.as_json_text.

const parsed = new Map();

export function jsonArg(value) {
  if (typeof value !== "string") return value; // a value passed as is (tests, older items)
  let v = parsed.get(value);
  if (v === undefined) {
    v = JSON.parse(value);
    parsed.set(value, v);
  }
  return v;
}

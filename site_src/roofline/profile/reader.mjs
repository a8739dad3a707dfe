// Reading a Chrome trace in the browser, one event at a time (the Python hosts read it with
// trace.py): text goes in in pieces of any size, the trace's top-level fields and each element
// of its traceEvents array come out, so a trace of several hundred MB is read in memory bounded
// by one piece and one event, never the whole text. Each value is cut out by scanning its
// brackets and strings (resumed where it stopped when a value spans pieces) and decoded by
// JSON.parse.
//
//     const r = new TraceReader();
//     for (const piece of pieces) { const { events, meta } = r.push(piece); ... }
//     const { events, meta } = r.end();     // throws TraceInputError on a truncated trace
//
// Bad input throws TraceInputError with one line saying what is wrong and where.

export class TraceInputError extends Error {
  constructor(message) {
    super(message);
    this.name = "TraceInputError";
  }
}

const WS = new Set([" ", "\t", "\r", "\n"]);

export class TraceReader {
  constructor() {
    this.buf = "";
    this.pos = 0;
    this.offset = 0;        // characters consumed before buf[0]
    this.state = "start";
    this.key = null;
    this.scan = null;       // the value being cut out: { start, i, depth, str, esc }
    this.sawEvents = false;
  }

  push(text) {
    this.offset += this.pos;
    this.buf = this.buf.slice(this.pos) + text;
    if (this.scan) {
      this.scan.i -= this.pos;
      this.scan.start -= this.pos;
    }
    this.pos = 0;
    return this.run(false);
  }

  end() {
    const out = this.run(true);
    if (this.state !== "done") {
      if (this.state === "start") throw new TraceInputError("the file is empty: not a Chrome trace");
      throw new TraceInputError(`truncated JSON at character ${this.offset + this.buf.length}: ` +
                                "the file ends inside the trace");
    }
    if (!this.sawEvents) {
      throw new TraceInputError("no traceEvents array: not a PyTorch profiler trace");
    }
    return out;
  }

  fail(what) {
    const c = this.buf[this.pos];
    throw new TraceInputError(`not a Chrome trace: expected ${what} at character ` +
                              `${this.offset + this.pos}, found ${JSON.stringify(c)}`);
  }

  // The next non-blank character, or "" when this piece has no more.
  peek() {
    while (this.pos < this.buf.length && WS.has(this.buf[this.pos])) this.pos += 1;
    return this.pos < this.buf.length ? this.buf[this.pos] : "";
  }

  // The value starting at pos, decoded; undefined while it runs past the text so far.
  value(last) {
    if (!this.scan) this.scan = { start: this.pos, i: this.pos, depth: 0, str: false, esc: false };
    const sc = this.scan, b = this.buf;
    let i = sc.i, depth = sc.depth, str = sc.str, esc = sc.esc, end = -1;
    const scalar = depth === 0 && !str && b[sc.start] !== "{" && b[sc.start] !== "[" &&
                   b[sc.start] !== '"';
    for (; i < b.length; i++) {
      const c = b[i];
      if (str) {
        if (esc) esc = false;
        else if (c === "\\") esc = true;
        else if (c === '"') {
          str = false;
          if (depth === 0) { end = i + 1; break; }
        }
      } else if (scalar) {
        if (c === "," || c === "}" || c === "]" || WS.has(c)) { end = i; break; }
      } else if (c === '"') str = true;
      else if (c === "{" || c === "[") depth += 1;
      else if (c === "}" || c === "]") {
        depth -= 1;
        if (depth === 0) { end = i + 1; break; }
      }
    }
    if (end < 0) {
      if (scalar && last && i > sc.start) end = i;
      else {
        Object.assign(sc, { i, depth, str, esc });
        if (last) {
          throw new TraceInputError(`truncated JSON at character ${this.offset + b.length}: ` +
                                    "the file ends inside a value");
        }
        return undefined;
      }
    }
    const text = b.slice(sc.start, end);
    this.scan = null;
    this.pos = end;
    try {
      return { v: JSON.parse(text) };
    } catch (e) {
      throw new TraceInputError(`not JSON at character ${this.offset + sc.start}: ${e.message}`);
    }
  }

  run(last) {
    const events = [], meta = [];
    for (;;) {
      if (this.state === "done") {
        if (this.peek() !== "") this.fail("nothing after the closing '}'");
        return { events, meta };
      }
      const c = this.scan ? this.buf[this.scan.start] : this.peek();
      if (c === "" || c === undefined) return { events, meta };
      switch (this.state) {
        case "start":
          if (c !== "{") this.fail("'{' (a trace is one JSON object)");
          this.pos += 1;
          this.state = "first-key";
          break;
        case "first-key":
          if (c === "}") { this.pos += 1; this.state = "done"; break; }
        // falls through: a key
        case "key": {
          if (c !== '"') this.fail("a key (a string)");
          const got = this.value(last);
          if (got === undefined) return { events, meta };
          this.key = got.v;
          this.state = "colon";
          break;
        }
        case "colon":
          if (c !== ":") this.fail("':'");
          this.pos += 1;
          this.state = this.key === "traceEvents" ? "events-open" : "meta-value";
          break;
        case "events-open":
          if (c !== "[") this.fail("'[' (traceEvents is an array)");
          this.pos += 1;
          this.sawEvents = true;
          this.state = "first-event";
          break;
        case "first-event":
          if (c === "]") { this.pos += 1; this.state = "after-value"; break; }
        // falls through: an event
        case "event": {
          const got = this.value(last);
          if (got === undefined) return { events, meta };
          if (got.v !== null && typeof got.v === "object" && !Array.isArray(got.v)) {
            events.push(got.v);
          }
          this.state = "after-event";
          break;
        }
        case "after-event":
          if (c !== "," && c !== "]") this.fail("',' or ']' in traceEvents");
          this.pos += 1;
          this.state = c === "," ? "event" : "after-value";
          break;
        case "meta-value": {
          const got = this.value(last);
          if (got === undefined) return { events, meta };
          meta.push([this.key, got.v]);
          this.state = "after-value";
          break;
        }
        case "after-value":
          if (c !== "," && c !== "}") this.fail("',' or '}'");
          this.pos += 1;
          this.state = c === "," ? "key" : "done";
          break;
        default:
          throw new Error(`TraceReader: unknown state ${this.state}`);
      }
    }
  }
}

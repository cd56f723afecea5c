// A reader for the Prometheus text exposition format (version 0.0.4), the format of vLLM's `/metrics`.
//
// The npm parsers were tried first and are not fit: parse-prometheus-text-format 1.1.1 merges every labelled
// histogram into one series without labels, count or sum (vLLM labels all of its histograms with
// model_name); exposition 1.2.0 returns no samples for labelled histograms; prom2javascript 0.2.0 imports
// Node's readline, and serve-kit's library code must also run in a browser. So this is a small strict line
// reader: it returns flat samples, and the callers group histograms by name and labels themselves.

/** One sample line: `name{label="value",...} value [timestamp]`. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export type ParsedExposition =
  | { readonly ok: true; readonly samples: readonly MetricSample[] }
  | { readonly ok: false; readonly reason: string };

export interface ExpositionLimits {
  /** Characters of text read at most. Default 8 MiB worth. */
  maxChars?: number;
  /** Samples read at most. Default 200,000 (a vLLM server sends a few hundred to a few thousand). */
  maxSamples?: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const MAX_SHOWN = 60;

/** Parses exposition text into samples, or says why it is not that format. Never throws. */
export function parseExposition(text: string, limits: ExpositionLimits = {}): ParsedExposition {
  const maxChars = limits.maxChars ?? 8 * 1024 * 1024;
  const maxSamples = limits.maxSamples ?? 200_000;
  if (typeof text !== "string") return { ok: false, reason: "the metrics page is not text" };
  if (text.length > maxChars) {
    return { ok: false, reason: `the metrics page is larger than ${maxChars} characters` };
  }
  const samples: MetricSample[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? "").replace(/\r$/, "");
    if (line.trim() === "" || line.startsWith("#")) continue;
    const sample = parseSampleLine(line);
    if (typeof sample === "string") {
      return { ok: false, reason: `line ${index + 1} is not a metric sample (${sample}): ${shown(line)}` };
    }
    if (samples.length >= maxSamples) {
      return { ok: false, reason: `the metrics page holds more than ${maxSamples} samples` };
    }
    samples.push(sample);
  }
  return { ok: true, samples };
}

/** A sample, or the reason the line is not one. */
function parseSampleLine(line: string): MetricSample | string {
  let rest = line.trimStart();
  const name = METRIC_NAME.exec(rest)?.[0];
  if (name === undefined) return "no metric name";
  rest = rest.slice(name.length);
  const labels: Record<string, string> = Object.create(null);
  if (rest.startsWith("{")) {
    const read = readLabels(rest.slice(1), labels);
    if (typeof read !== "number") return read.error;
    rest = rest.slice(1 + read);
  }
  const fields = rest.trim().split(/[ \t]+/);
  if (rest !== "" && !/^[ \t]/.test(rest)) return "no space before the value";
  if (fields.length < 1 || fields.length > 2 || fields[0] === "")
    return "expected a value and an optional timestamp";
  const value = parseNumber(fields[0] ?? "");
  if (value === undefined) return "the value is not a number";
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) return "the timestamp is not an integer";
  return { name, labels: { ...labels }, value };
}

/** Reads `name="value",...}` into `labels`; returns how many characters it used, or an error. */
function readLabels(text: string, labels: Record<string, string>): number | { error: string } {
  let at = 0;
  for (;;) {
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] === "}") return at + 1;
    const name = LABEL_NAME.exec(text.slice(at))?.[0];
    if (name === undefined) return { error: "a label name is missing or malformed" };
    at += name.length;
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] !== "=") return { error: `label ${name} has no '='` };
    at++;
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] !== '"') return { error: `label ${name} has no quoted value` };
    at++;
    let value = "";
    for (;;) {
      const char = text[at];
      if (char === undefined) return { error: `label ${name} has no closing quote` };
      at++;
      if (char === '"') break;
      if (char === "\\") {
        const escaped = text[at];
        at++;
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else return { error: `label ${name} holds an unknown escape` };
      } else {
        value += char;
      }
    }
    if (name in labels) return { error: `label ${name} repeats` };
    labels[name] = value;
    while (text[at] === " " || text[at] === "\t") at++;
    if (text[at] === ",") at++;
    else if (text[at] !== "}") return { error: "labels are not closed with '}'" };
  }
}

/** A sample value as Prometheus writes it: a float, NaN, +Inf or -Inf. */
export function parseNumber(text: string): number | undefined {
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

function shown(line: string): string {
  return JSON.stringify(line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN)}…` : line);
}

/** A piece of code to print as is inside a literal, such as a variable name. */
export class SourceCode {
  constructor(readonly code: string) {}
}

/**
 * Prints a JSON-like value as a TypeScript literal the way a person (and Biome) would write it: unquoted
 * keys, double-quoted strings, short values on one line, trailing commas when split. Generated snippets use
 * it so the options they show are the very options the build passed to serve-kit.
 */
export function tsLiteral(value: unknown, indent = ""): string {
  if (value instanceof SourceCode) return value.code;
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value.map((item) => tsLiteral(item, inner));
    const oneLine = `[${items.join(", ")}]`;
    if (oneLine.length + indent.length <= 80 && !oneLine.includes("\n")) return oneLine;
    return `[\n${items.map((item) => `${inner}${item},\n`).join("")}${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value).filter(([, entry]) => entry !== undefined);
    if (entries.length === 0) return "{}";
    const fields = entries.map(([key, entry]) =>
      entry instanceof SourceCode && entry.code === key
        ? key
        : `${propertyKey(key)}: ${tsLiteral(entry, inner)}`,
    );
    const oneLine = `{ ${fields.join(", ")} }`;
    if (oneLine.length + indent.length <= 80 && !oneLine.includes("\n")) return oneLine;
    return `{\n${fields.map((field) => `${inner}${field},\n`).join("")}${indent}}`;
  }
  throw new Error(`cannot print ${typeof value} as a TypeScript literal`);
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

import type { CheckStatus } from "./smoke/checks.js";

const marks: Record<CheckStatus, string> = { pass: "ok", fail: "FAIL", skipped: "skip" };

export function statusMark(status: CheckStatus): string {
  return marks[status];
}

/** A plain-text table with a header rule; every column padded to its widest cell. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const rule = `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

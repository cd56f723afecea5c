// Markdown tables, padded so they read as well in a terminal as rendered.

export type Align = "left" | "right";

export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly Align[],
): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const alignOf = (column: number): Align => align?.[column] ?? (column === 0 ? "left" : "right");
  const cell = (text: string, column: number) =>
    alignOf(column) === "right" ? text.padStart(widths[column] ?? 0) : text.padEnd(widths[column] ?? 0);
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, column) => cell(text, column)).join(" | ")} |`;
  const rule = widths.map((width, column) =>
    alignOf(column) === "right" ? `${"-".repeat(width - 1)}:` : "-".repeat(width),
  );
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map((row) => line(row))].join("\n");
}

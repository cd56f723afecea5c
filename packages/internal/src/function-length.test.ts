import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The house rule (DEVELOPERS.md): no function in the published packages' source runs past 60 lines, from its
// first line to its last, its JSDoc excluded. Biome's noExcessiveLinesPerFunction counts only the lines
// inside the braces (a 10-line function is 6 to it), so the count is made here, with the TypeScript parser.

const MAX_LINES = 60;
const ROOT = new URL("../../..", import.meta.url).pathname;
const PACKAGES = ["cli", "client", "serve-kit", "types", "internal"];
/** Tests, their helpers and fixtures, and generated code are not the packages' own source. */
const SKIPPED_DIRS = new Set(["generated", "test", "fixtures", "node_modules"]);

interface LongFunction {
  where: string;
  name: string;
  lines: number;
}

/** Every function-like node of `text` longer than `max` lines, first line to last, JSDoc excluded. */
function longFunctions(fileName: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      // getStart skips leading trivia, JSDoc included; the end is the closing brace (or an arrow's expression).
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ where: `${fileName}:${first + 1}`, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `runFleet`, `send`, `createCore.request`: a function's own name, else the name it is bound to. */
function nameOf(node: ts.Node): string {
  const named = (node as { name?: ts.Node }).name;
  if (named !== undefined && (ts.isIdentifier(named) || ts.isPrivateIdentifier(named))) return named.text;
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    if (ts.isIdentifier(parent.name)) return parent.name.text;
  }
  return "(anonymous)";
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(path);
    const isSource = /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name);
    return isSource ? [path] : [];
  });
}

describe(`no function of the published packages runs past ${MAX_LINES} lines`, () => {
  it("counts from the first line to the last, JSDoc excluded, blank lines and comments included", () => {
    const body = (inside: number) =>
      Array.from({ length: inside }, (_, i) => (i % 3 ? "  a;" : "")).join("\n");
    const declared = (inside: number) =>
      `/** doc */\nexport function f(\n  a: number,\n) {\n${body(inside)}\n}\n`;
    // 3 lines of signature, the body, and the closing brace: 56 inside make 60, 57 make 61.
    expect(longFunctions("a.ts", declared(56))).toEqual([]);
    expect(longFunctions("a.ts", declared(57))).toEqual([{ where: "a.ts:2", name: "f", lines: 61 }]);
    const arrow = `const g = (a: number) => {\n${body(59)}\n};\n`;
    expect(longFunctions("b.ts", arrow)).toEqual([{ where: "b.ts:1", name: "g", lines: 61 }]);
    const method = `const o = {\n  m(a: number) {\n${body(59)}\n  },\n};\n`;
    expect(longFunctions("c.ts", method)).toEqual([{ where: "c.ts:2", name: "m", lines: 61 }]);
  });

  it("holds for packages/{cli,client,serve-kit,types,internal}/src, tests and generated code aside", () => {
    const files = PACKAGES.flatMap((name) => sourceFiles(join(ROOT, "packages", name, "src")));
    expect(files.length).toBeGreaterThan(100);
    const long = files.flatMap((path) => longFunctions(relative(ROOT, path), readFileSync(path, "utf8")));
    const listed = long.map((f) => `${f.where} ${f.name}: ${f.lines} lines`);
    expect(listed, `split these into functions of at most ${MAX_LINES} lines`).toEqual([]);
  });
});

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { decodeHtml } from "../../src/build/html.js";

export interface CodeBlock {
  readonly file: string;
  readonly code: string;
}

const tsBlock = /<code class="language-ts" data-lang="ts"(?: data-file="([^"]*)")?>([\s\S]*?)<\/code>/g;

/** The TypeScript blocks of a built page, with the file names their captions give them. */
export function typeScriptBlocks(html: string): CodeBlock[] {
  return [...html.matchAll(tsBlock)].map((match, index) => ({
    file: decodeHtml(match[1] ?? `snippet-${index + 1}.ts`),
    code: decodeHtml(match[2] ?? ""),
  }));
}

/**
 * Compiles a page's blocks together, as the files a reader would copy them into (`./studio.js` in one block
 * is `studio.ts` in another), against the packages installed for the docs. Returns the diagnostics as text.
 * `dir` must sit inside apps/docs, so that the real @finetune-studio packages resolve and files are ES modules.
 */
export function compileBlocks(blocks: readonly CodeBlock[], dir: string): string[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((block) => {
    const path = join(dir, block.file);
    writeFileSync(path, block.code);
    return path;
  });
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName.slice(dir.length + 1)}:${line + 1}:${character + 1} ${message}`;
  });
}

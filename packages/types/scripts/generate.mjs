// Regenerates everything in this package that derives from the hand-written OpenAPI documents:
// the bundled documents (openapi/*.openapi.json), their TypeScript types (src/generated/*.ts) and the
// limits a client checks before sending (src/generated/limits.ts).
// `--check` regenerates in memory and fails when a committed file differs (the drift check).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { limitsFromDocument, renderLimitsModule } from "./limits.mjs";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = resolve(packageDir, "../..");
const check = process.argv.includes("--check");
const require = createRequire(import.meta.url);
const redoclyBin = join(dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");

const apis = [
  {
    api: "studio",
    source: "openapi/studio.yaml",
    json: "studio.openapi.json",
    types: "studio.ts",
    limits: "studioLimits",
  },
  {
    api: "chat-completions",
    source: "openapi/chat-completions.yaml",
    json: "chat-completions.openapi.json",
    types: "chat-completions.ts",
    limits: "chatLimits",
  },
];

function bundle(api) {
  const outDir = mkdtempSync(join(tmpdir(), "finetune-studio-bundle-"));
  try {
    const out = join(outDir, "bundle.json");
    execFileSync(
      process.execPath,
      [redoclyBin, "bundle", api, "--output", out, "--config", join(repoRoot, "redocly.yaml")],
      {
        cwd: repoRoot,
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    return JSON.parse(readFileSync(out, "utf8"));
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

async function render({ api, source }) {
  const document = {
    "x-generated": `from ${source} by packages/types/scripts/generate.mjs: do not edit`,
    ...bundle(api),
  };
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const ast = await openapiTS(structuredClone(document), { alphabetize: false, immutable: false });
  return { json, types: generatedHeader(source) + astToString(ast), limits: limitsFromDocument(document) };
}

function generatedHeader(source) {
  return `// Generated from ${source} by packages/types/scripts/generate.mjs: do not edit.\n// Run \`pnpm generate\` to regenerate.\n\n`;
}

const outputs = [];
const limitsByExport = {};
for (const entry of apis) {
  const { json, types, limits } = await render(entry);
  outputs.push([join(packageDir, "openapi", entry.json), json]);
  outputs.push([join(packageDir, "src", "generated", entry.types), types]);
  limitsByExport[entry.limits] = { source: entry.source, limits };
}
const limitsSources = apis.map((entry) => entry.source).join(" and ");
outputs.push([
  join(packageDir, "src", "generated", "limits.ts"),
  renderLimitsModule(generatedHeader(limitsSources), limitsByExport),
]);

if (check) {
  const stale = outputs.filter(([path, content]) => {
    try {
      return readFileSync(path, "utf8") !== content;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    const names = stale.map(([path]) => relative(repoRoot, path)).join(", ");
    console.error(
      `Generated files are out of date with openapi/: ${names}. Run \`pnpm generate\` and commit.`,
    );
    process.exit(1);
  }
  console.log(`Generated files match openapi/ (${outputs.length} files checked).`);
} else {
  for (const [path, content] of outputs) writeFileSync(path, content);
  console.log(`Wrote ${outputs.map(([path]) => relative(repoRoot, path)).join(", ")}`);
}

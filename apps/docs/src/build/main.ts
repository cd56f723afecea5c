import { relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { distDir } from "./paths.js";
import { buildSite } from "./site.js";

// `pnpm build`: writes the static site to dist/ (or to --out, which the dev server's test uses).
const { values } = parseArgs({ options: { out: { type: "string" } } });
const outDir = values.out ? resolve(values.out) : distDir;
const { files } = await buildSite(outDir);
console.log(`docs: wrote ${files.length} files to ${relative(process.cwd(), outDir) || "."}/`);
for (const file of files) console.log(`  ${file}`);

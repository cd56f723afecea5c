import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { distDir } from "./build/paths.js";
import { startStaticServer } from "./server/static-server.js";

// `pnpm --filter @finetune-studio/docs serve [--port 4000] [--host 127.0.0.1]`: serves the built site as it
// is, without rebuilding (run `pnpm build` first). Loopback by default: pass --host to expose it.

const { values } = parseArgs({
  options: { port: { type: "string", default: process.env.PORT ?? "4321" }, host: { type: "string" } },
});
if (!existsSync(`${distDir}/index.html`)) {
  console.error(`docs: nothing to serve in ${distDir}: run \`pnpm build\` first`);
  process.exit(1);
}
const server = await startStaticServer({
  root: distDir,
  host: values.host ?? "127.0.0.1",
  port: Number(values.port),
});
console.log(`docs: serving ${distDir} at ${server.url}`);

const stop = () => void server.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * What `studio-serve status` prints for two instances and a port nothing listens on: the real CLI, run at
 * build time against stand-ins (status-stand-ins.mjs). Their random ports become the ports the guide uses,
 * padded so the columns stay aligned.
 */
export function statusExample(cliEntry: string): { command: string; output: string } {
  const script = fileURLToPath(new URL("./status-stand-ins.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [script, cliEntry], { encoding: "utf8", timeout: 90_000 });
  if (run.status !== 0) throw new Error(`the status example failed: ${run.stderr || run.error?.message}`);
  const { output, ports } = JSON.parse(run.stdout) as { output: string; ports: Record<string, number> };
  let shown = output;
  for (const [port, guidePort] of Object.entries(ports)) {
    const pad = " ".repeat(Math.max(0, port.length - String(guidePort).length));
    shown = shown.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${guidePort}${pad}`);
  }
  const shownUrls = Object.values(ports).map((port) => `http://127.0.0.1:${port}`);
  return {
    command: `studio-serve status ${shownUrls.join(" ")}`,
    output: shown
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n"),
  };
}

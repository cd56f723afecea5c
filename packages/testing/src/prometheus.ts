import { join } from "node:path";
import { getFreePort } from "./ports.js";
import { type ManagedProcess, startProcess } from "./process.js";
import { requireSystemTool } from "./system-tools.js";
import { waitForHttp } from "./wait.js";

/**
 * Debian's Prometheus on 127.0.0.1 (a free port) with `dir`'s prometheus.yml, its data in `dir` too; resolves
 * once it is ready. Stop the process when done.
 */
export async function startPrometheus(dir: string): Promise<{ process: ManagedProcess; url: string }> {
  const webPort = await getFreePort();
  const url = `http://127.0.0.1:${webPort}`;
  const process = startProcess(
    requireSystemTool("prometheus"),
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${webPort}`,
    ],
    { cwd: dir },
  );
  await waitForHttp(`${url}/-/ready`, { timeoutMs: 90_000, isReady: (status) => status === 200, process });
  return { process, url };
}

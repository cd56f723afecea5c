// The ceiling of `studio-serve bench` itself: how many requests and streamed chunks per second it can drive on
// this machine, against a stand-in that answers at once (stream-server.ts, its own process). Each row runs the
// built CLI as a user does and reads its --json; a bench run below these rates measures the server, above
// them this machine. The CLI also warns, in every run, when it falls behind its own schedule.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { STUDIO_SERVE } from "../cli-path.js";
import type { Section } from "../report.js";
import { startServerProcess } from "../server/start-answering-server.js";
import { markdownTable } from "../table.js";

interface Row {
  load: string[];
  outputTokens: number;
  requests: number;
}

const ROWS: Row[] = [
  { load: ["--concurrency", "16"], outputTokens: 16, requests: 2000 },
  { load: ["--concurrency", "64"], outputTokens: 16, requests: 3000 },
  { load: ["--concurrency", "256"], outputTokens: 16, requests: 3000 },
  { load: ["--concurrency", "64"], outputTokens: 512, requests: 600 },
  { load: ["--rate", "500"], outputTokens: 16, requests: 2500 },
  { load: ["--rate", "2000"], outputTokens: 16, requests: 4000 },
];

interface CliLevel {
  metrics: { requestThroughput: number; outputThroughput: number; completed: number; failed: number };
  generatorLate: { count: number; worstMs: number };
}

function runCli(url: string, row: Row, quick: boolean): Promise<CliLevel> {
  const requests = String(quick ? Math.ceil(row.requests / 10) : row.requests);
  const args = [STUDIO_SERVE, "bench", url, ...row.load, "--requests", requests, "--input-tokens", "8"];
  args.push("--output-tokens", String(row.outputTokens), "--json");
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024, timeout: 300_000 }, (error, stdout) => {
      if (error) return reject(new Error(`studio-serve bench failed: ${error.message}`));
      const level = (JSON.parse(stdout) as { levels: CliLevel[] }).levels[0];
      if (level === undefined) return reject(new Error("studio-serve bench measured nothing"));
      resolve(level);
    });
  });
}

export async function measureLoadGenerator(
  quick: boolean,
  step: (message: string) => void,
): Promise<Section> {
  const server = await startServerProcess(fileURLToPath(new URL("./stream-server.js", import.meta.url)));
  const rows: string[][] = [];
  try {
    for (const row of ROWS) {
      step(`load generator: ${row.load.join(" ")}, ${row.outputTokens} chunks each`);
      const { metrics, generatorLate } = await runCli(server.url, row, quick);
      const total = metrics.completed + metrics.failed;
      rows.push([
        `${row.load.join(" ")}, ${row.outputTokens} chunks`,
        metrics.requestThroughput.toFixed(0),
        metrics.outputThroughput.toFixed(0),
        `${metrics.failed} of ${total}`,
        row.load[0] === "--rate"
          ? `${generatorLate.count} (worst ${generatorLate.worstMs.toFixed(0)} ms)`
          : "-",
      ]);
    }
  } finally {
    await server.stop();
  }
  return {
    title: "Load generator ceiling: studio-serve bench against a stand-in that answers at once",
    method: `The built CLI (\`studio-serve bench URL ... --json\`), one process, drives stream-server.js (its own process) which answers each streamed chat request at once with max_tokens token chunks and the usage. Requests per second and streamed chunks per second are what the generator itself can drive on this machine: a served model measured below these rates is measured, above them this machine sets the pace. For rate rows, "late" counts requests sent more than 10 ms after their scheduled time (the CLI warns past 5% of them). Target (issue #25): the generator is not the bottleneck for one vLLM instance (hundreds of requests and tens of thousands of tokens per second).`,
    table: markdownTable(["load", "requests/s", "chunks/s", "failed", "late (rate runs)"], rows),
  };
}

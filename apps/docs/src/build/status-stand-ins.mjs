// Run by status-example.ts in a child process: two stand-in vLLM instances (node:http serving /health,
// /v1/models and a /metrics page in vLLM's format) and a port nothing listens on, then the real
// `studio-serve status` against the three. Prints the CLI's output with each random port mapped to the
// port the guide shows, as JSON on stdout.
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { VllmMetricsPage } from "@finetune-studio/testing";

const [cliEntry] = process.argv.slice(2);

const instances = [
  {
    shownPort: 8001,
    models: [{ id: "support-assistant", parent: null }],
    page: new VllmMetricsPage({ models: ["support-assistant"] }),
    scheduler: { running: 3, waiting: 0, kvCacheUsage: 0.31 },
    // Each read of /metrics finds this many more finished requests: the load the example shows.
    perRead: { count: 6, promptTokens: 180, generationTokens: 96, ttft: 0.07, e2e: 1.4 },
  },
  {
    shownPort: 8002,
    models: [
      { id: "meta-llama/Llama-3.1-8B-Instruct", parent: null },
      { id: "support-assistant", parent: "meta-llama/Llama-3.1-8B-Instruct" },
    ],
    page: new VllmMetricsPage({ models: ["meta-llama/Llama-3.1-8B-Instruct"], maxLoras: 2 }),
    scheduler: { running: 8, waiting: 2, kvCacheUsage: 0.62 },
    perRead: { count: 9, promptTokens: 240, generationTokens: 128, ttft: 0.3, e2e: 2.6 },
    adapters: ["support-assistant"],
  },
];

const servers = [];
const ports = new Map();
for (const instance of instances) {
  instance.page.setScheduler(instance.scheduler);
  const server = createServer((request, response) => {
    if (request.url === "/health") return response.writeHead(200).end();
    if (request.url === "/v1/models") {
      const data = instance.models.map((model) => ({ ...model, object: "model", owned_by: "vllm" }));
      return response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data }));
    }
    if (request.url === "/metrics") {
      const { count, promptTokens, generationTokens, ttft, e2e } = instance.perRead;
      for (let i = 0; i < count; i++) {
        instance.page.recordRequest({
          promptTokens,
          generationTokens,
          timeToFirstTokenSeconds: ttft,
          e2eLatencySeconds: e2e,
        });
      }
      if (instance.adapters) instance.page.setLoraAdapters(instance.adapters, [], Date.now() / 1000);
      return response.writeHead(200, { "content-type": "text/plain" }).end(instance.page.render());
    }
    response.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  ports.set(server.address().port, instance.shownPort);
}
const dead = createNetServer();
await new Promise((resolve) => dead.listen(0, "127.0.0.1", resolve));
const deadPort = dead.address().port;
await new Promise((resolve) => dead.close(resolve));
ports.set(deadPort, 8003);

const urls = [...ports.keys()].map((port) => `http://127.0.0.1:${port}`);
execFile(
  process.execPath,
  [cliEntry, "status", ...urls, "--interval", "1"],
  { timeout: 60_000 },
  (error, stdout) => {
    for (const server of servers) server.close();
    if (error && typeof error.code !== "number") {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify({ output: stdout, ports: Object.fromEntries(ports) }));
  },
);

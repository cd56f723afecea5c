import { createServer, type Server } from "node:http";
import { getFreePort, VllmMetricsPage } from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runCapture } from "./test/run-cli.js";

// `status --slo`: each instance's SLO attainment between its two reads, from vLLM's histogram buckets, on
// both engines' metric names, against stand-ins whose /metrics pages (testing's VllmMetricsPage, vLLM's own
// text) gain ten finished requests on every read: nine within the targets, one past them.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function standIn(deprecatedNames: boolean): Promise<string> {
  const page = new VllmMetricsPage({ models: ["support"], deprecatedNames });
  const server = createServer((request, response) => {
    if (request.url === "/health") return response.end();
    if (request.url === "/v1/models") {
      response.setHeader("content-type", "application/json");
      return response.end(JSON.stringify({ object: "list", data: [{ id: "support", object: "model" }] }));
    }
    if (request.url === "/metrics") {
      for (let i = 0; i < 9; i++) {
        page.recordRequest({
          promptTokens: 10,
          generationTokens: 5,
          timeToFirstTokenSeconds: 0.2,
          e2eLatencySeconds: 2,
          timePerOutputTokenSeconds: 0.04,
        });
      }
      page.recordRequest({
        promptTokens: 10,
        generationTokens: 5,
        timeToFirstTokenSeconds: 0.9,
        e2eLatencySeconds: 2,
        timePerOutputTokenSeconds: 0.04,
      });
      response.setHeader("content-type", "text/plain; version=0.0.4");
      return response.end(page.render());
    }
    response.statusCode = 404;
    response.end();
  });
  servers.push(server);
  const port = await getFreePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return `http://127.0.0.1:${port}`;
}

describe("studio-serve status --slo", () => {
  it("shows each instance's share of requests within each target between its reads, on V1 and V0 names", async () => {
    const urls = [await standIn(false), await standIn(true)];
    const slo = ["--slo", "ttft=500ms,tpot=50ms", "--objective", "0.95", "--interval", "1"];
    const json = await runCapture(["status", ...urls, ...slo, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.sloObjective).toBe(0.95);
    for (const instance of report.instances) {
      // Each look reads /metrics twice: 20 requests finished between the two looks' last reads, 18 in time.
      expect(instance.metrics.sloAttainment).toEqual([
        { slo: "ttft", targetMs: 500, countedUpToSeconds: 0.5, requests: 20, within: 18, share: 0.9 },
        { slo: "tpot", targetMs: 50, countedUpToSeconds: 0.05, requests: 20, within: 20, share: 1 },
      ]);
    }
    const table = await runCapture(["status", ...urls, ...slo]);
    expect(table.stdout).toContain(
      "SLO between reads: ttft<=500ms 90.0% (18 of 20), tpot<=50ms 100.0% (20 of 20); objective 0.95: missed",
    );
  });

  it("says where a target is counted from when it falls between vLLM's buckets", async () => {
    const url = await standIn(false);
    const table = await runCapture(["status", url, "--slo", "ttft=600ms", "--interval", "1"]);
    expect(table.stdout).toContain("ttft<=600ms 90.0% (18 of 20, counted up to 500 ms)");
  });

  it.each([
    [["--slo", "ttft=fast"], "--slo:"],
    [["--slo", "ttft=0.5ms"], "--slo: ttft must be at least"],
    [["--objective", "0.99"], "--objective: goes with --slo"],
    [["--slo", "ttft=500ms", "--objective", "2"], "--objective: must be a share above"],
  ])("refuses %j before reading any instance, naming the flag", async (args, message) => {
    const result = await runCapture(["status", "http://127.0.0.1:9", ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

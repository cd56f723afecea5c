import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  getFreePortFollowedBy,
  requireSystemTool,
  startPrometheus,
  waitForOutput,
} from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fakeVllmEnv, tempDir } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// A running launch --instances 2 of the stand-in vLLM: its front door's own HAProxy metrics on 127.0.0.1,
// `prometheus --launch P` scraping the instances and the front door, promtool accepting the files, and
// Debian's Prometheus finding both jobs up.

const PROMTOOL = requireSystemTool("promtool");
const running = stoppedAfterEach();

function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(PROMTOOL, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({
        code: typeof error?.code === "number" ? error.code : error ? 1 : 0,
        output: `${stdout}${stderr}`,
      });
    });
  });
}

async function upByJob(prometheusUrl: string): Promise<Record<string, number[]>> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=up`, {
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as {
    data: { result: { metric: { job: string }; value: [number, string] }[] };
  };
  const byJob: Record<string, number[]> = {};
  for (const row of body.data.result) {
    byJob[row.metric.job] = [...(byJob[row.metric.job] ?? []), Number(row.value[1])];
  }
  return byJob;
}

describe("monitoring a running launch", { timeout: 240_000 }, () => {
  it("serves the front door's metrics on loopback, and prometheus --launch scrapes it and the instances", async () => {
    const port = await getFreePortFollowedBy(3);
    const metricsPort = port + 3; // after the two instances' ports
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const proc = startFleet(running, port, fake.env);
    await waitForOutput(proc, FLEET_READY, 120_000);
    expect(proc.output()).toContain(
      `front door metrics (Prometheus): http://127.0.0.1:${metricsPort}/metrics`,
    );

    // HAProxy's own exporter answers there, with the launch's backend and its two servers.
    const page = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(page).toMatch(/^haproxy_server_status\{proxy="vllm",server="vllm-0",state="UP"\} 1$/m);
    expect(page).toMatch(/^haproxy_server_status\{proxy="vllm",server="vllm-1",state="UP"\} 1$/m);

    const status = await runCapture(["status", "--launch", String(port), "--interval", "1"], fake.env);
    expect(status.stderr).toContain(
      `front door's own metrics (HAProxy's, for Prometheus): http://127.0.0.1:${metricsPort}/metrics`,
    );

    const out = join(tempDir("monitoring-"), "monitoring");
    const written = await runCapture(
      [
        "prometheus",
        "--launch",
        String(port),
        "--scrape-interval",
        "1",
        "--slo",
        "ttft=500ms,tpot=50ms",
        "--out",
        out,
      ],
      fake.env,
    );
    expect(written.code, written.stderr).toBe(0);
    const config = parse(readFileSync(join(out, "prometheus.yml"), "utf8"));
    expect(config.scrape_configs).toEqual([
      expect.objectContaining({
        job_name: "vllm",
        static_configs: [{ targets: [`127.0.0.1:${port + 1}`, `127.0.0.1:${port + 2}`] }],
      }),
      expect.objectContaining({
        job_name: "front-door",
        static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }],
      }),
    ]);
    const checked = await promtool(["check", "config", "prometheus.yml"], out);
    expect(checked.code, checked.output).toBe(0);

    const { process: prometheus, url: prometheusUrl } = await startPrometheus(out);
    running.push(prometheus);
    // Scraped every second; polled until both jobs report, on a loaded machine.
    const deadline = Date.now() + 90_000;
    let up: Record<string, number[]> = {};
    while (Date.now() < deadline) {
      up = await upByJob(prometheusUrl);
      if (up.vllm?.length === 2 && up["front-door"]?.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(up).toEqual({ vllm: [1, 1], "front-door": [1] });
  });

  it("prometheus --launch on a port no launch serves says so, and writes nothing", async () => {
    const port = await getFreePortFollowedBy(3);
    const out = join(tempDir("monitoring-"), "monitoring");
    const result = await runCapture(
      ["prometheus", "--launch", String(port), "--out", out],
      fakeVllmEnv().env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--launch: no launch runs on port ${port} for this user`);
    expect(() => readFileSync(join(out, "prometheus.yml"))).toThrow();
  });
});

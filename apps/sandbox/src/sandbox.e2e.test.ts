import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import {
  getFreePort,
  type ManagedProcess,
  requireSystemTool,
  startProcess,
  waitForOutput,
} from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { isFree } from "./port-check.js";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
let sandbox: ManagedProcess | undefined;

afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
});

async function freePorts() {
  return { studio: await getFreePort(), chat: await getFreePort(), docs: await getFreePort() };
}

function startSandbox(ports: { studio: number; chat: number; docs: number }): ManagedProcess {
  const args = ["--studio-port", String(ports.studio), "--chat-port", String(ports.chat)];
  return startProcess(process.execPath, [main, ...args], {
    env: { ...process.env, SANDBOX_DOCS_PORT: String(ports.docs) },
  });
}

/** Processes still running with one of these ports in their command line. */
function processesUsing(ports: number[]): string[] {
  const table = execFileSync(requireSystemTool("ps"), ["-eo", "pid=,args="], { encoding: "utf8" });
  return table
    .split("\n")
    .filter((line) => ports.some((port) => new RegExp(`--port[ =]${port}\\b`).test(line)));
}

describe("pnpm start (the sandbox)", () => {
  it("walks through the SDK, serves the three URLs, and stops every child on Ctrl-C", async () => {
    const ports = await freePorts();
    sandbox = startSandbox(ports);
    await waitForOutput(sandbox, "Serving until Ctrl-C.");
    const output = sandbox.output();

    expect(output).toContain("Support assistant (project)");
    expect(output).toMatch(/└─ Experiment #2 \(experiment\) \[succeeded\]/);
    expect(output).toMatch(/poll 1: processing[\s\S]*recommendations completed/);
    expect(output).toContain("base model      llama-3.1-8b-instruct");
    expect(output).toContain(
      "vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.1 --port 8000 --enable-lora --lora-modules support-lora=./adapters/support-lora",
    );
    expect(output).toMatch(/sent {4}score 0\.9/);
    expect(output).toContain('model: Open Settings, choose Security, then select "Reset password".');
    expect(output).toContain(`createStudioClient({ baseUrl: "http://127.0.0.1:${ports.studio}"`);

    // The chat mock streams: a reply arrives as several chunks, then [DONE].
    const streamed = await fetch(`http://127.0.0.1:${ports.chat}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "support-lora",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      }),
    });
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await streamed.text()).split("\n\n").filter(Boolean);
    expect(events.length).toBeGreaterThan(3);
    expect(events.at(-1)).toBe("data: [DONE]");

    const tree = await fetch(
      `http://127.0.0.1:${ports.studio}/api/v1/public/projects/6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45`,
      {
        headers: { Authorization: "Bearer token" },
      },
    );
    expect(tree.status).toBe(200);
    expect((await tree.json()).project.type).toBe("project");
    const health = await fetch(`http://127.0.0.1:${ports.chat}/health`);
    expect(health.status).toBe(200);
    const docs = await fetch(`http://127.0.0.1:${ports.docs}/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("<html");

    expect(processesUsing(Object.values(ports)).length).toBeGreaterThanOrEqual(3);
    sandbox.child.kill("SIGINT");
    expect(await sandbox.exited).toBe(0);
    expect(processesUsing(Object.values(ports))).toEqual([]);
    for (const port of Object.values(ports)) expect(await isFree(port), `port ${port}`).toBe(true);
  });

  it("goes down with a child that dies, showing its last lines, and leaves nothing behind", async () => {
    const ports = await freePorts();
    sandbox = startSandbox(ports);
    await waitForOutput(sandbox, "Serving until Ctrl-C.");
    const [studioMock] = processesUsing([ports.studio]);
    const pid = Number(studioMock?.trim().split(/\s+/)[0]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");

    expect(await sandbox.exited).toBe(1);
    expect(sandbox.output()).toMatch(
      /sandbox: the Studio API mock stopped \(exit SIGKILL\)\. Its last lines:\n.*\[HTTP SERVER\]/s,
    );
    expect(processesUsing(Object.values(ports))).toEqual([]);
  });

  it("refuses a busy port in one line that names it and how to choose another", async () => {
    const ports = await freePorts();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(ports.docs, "127.0.0.1", resolve));
    try {
      sandbox = startSandbox(ports);
      expect(await sandbox.exited).toBe(2);
      expect(sandbox.output()).toBe(
        `sandbox: port ${ports.docs} for the docs site is busy: stop what uses it, or choose another with --docs-port <port> (or SANDBOX_DOCS_PORT)\n`,
      );
      expect(processesUsing([ports.studio, ports.chat])).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  getFreePort,
  type ManagedProcess,
  requireSystemTool,
  startProcess,
  waitForHttp,
} from "@finetune-studio/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type HaproxyConfigOptions, haproxyConfig, ServeConfigError } from "../index.js";

// Real HAProxy with haproxyConfig's session and prefix routing in front of four servers that answer with
// their own index, so each test sees which instance took each request.

const INSTANCES = 4;
const dir = mkdtempSync(join(tmpdir(), "haproxy-routing-"));
const instances: Server[] = [];
const ports: number[] = [];
/** Requests an instance holds open until the test releases them, with the instance's index. */
const held: { res: ServerResponse; index: number }[] = [];

beforeAll(async () => {
  for (let index = 0; index < INSTANCES; index += 1) {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on("end", () => {
        if (req.url === "/hold") {
          held.push({ res, index });
          return;
        }
        res.end(String(index));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    instances.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
});

afterAll(async () => {
  for (const { res } of held.splice(0)) res.end();
  for (const server of instances) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Door {
  url: string;
  socket: string;
  haproxy: ManagedProcess;
}
const doors: ManagedProcess[] = [];
afterEach(async () => {
  for (const { res } of held.splice(0)) res.end();
  await Promise.all(doors.splice(0).map((door) => door.stop()));
});

async function startDoor(options: Partial<HaproxyConfigOptions>): Promise<Door> {
  const listen = await getFreePort();
  const socket = join(dir, `admin-${listen}.sock`);
  const file = join(dir, `haproxy-${listen}.cfg`);
  const servers = ports.map((port) => `127.0.0.1:${port}`);
  const config = haproxyConfig({ servers, listen, runtimeSocket: socket, maxConnections: 1000, ...options });
  writeFileSync(file, config);
  const haproxy = startProcess(requireSystemTool("haproxy"), ["-db", "-f", file]);
  doors.push(haproxy);
  const url = `http://127.0.0.1:${listen}`;
  await waitForHttp(`${url}/health`, { process: haproxy, timeoutMs: 30_000 });
  return { url, socket, haproxy };
}

/**
 * The index of the instance that answered. It waits until HAProxy counts no request in flight first: its
 * bounded load counts a request until it has closed the stream, a moment after the caller has the answer,
 * and a key whose instance still counts one may spill (what HAProxy does under load; not what these tests
 * look at).
 */
async function served(
  door: Door,
  init: { header?: string; body?: unknown; held?: number } = {},
): Promise<number> {
  await expect.poll(() => requestsInFlight(door), { interval: 5 }).toBe(init.held ?? 0);
  const response = await fetch(`${door.url}/v1/chat/completions`, {
    method: "POST",
    headers: init.header === undefined ? {} : { "x-session-id": init.header },
    body: JSON.stringify(init.body ?? {}),
  });
  expect(response.status).toBe(200);
  return Number(await response.text());
}

/**
 * With one request held at an instance (`holding`, sent by the caller), 2 x INSTANCES requests without a
 * session header all go elsewhere; then the held one is let go and finishes.
 */
async function expectUnkeyedAvoidTheHeld(door: Door, holding: Promise<unknown>): Promise<void> {
  await expect.poll(() => held.length).toBe(1);
  const busy = held[0]?.index;
  const chosen = [];
  for (let i = 0; i < 2 * INSTANCES; i += 1) chosen.push(await served(door, { held: 1 }));
  expect(chosen).not.toContain(busy);
  for (const { res } of held.splice(0)) res.end("held");
  await holding;
}

/** One command on HAProxy's runtime API. */
function runtime(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    const client = connect(socket, () => client.end(`${command}\n`));
    client.setEncoding("utf8");
    client.on("data", (text: string) => {
      answer += text;
    });
    client.on("end", () => resolve(answer));
    client.on("error", reject);
  });
}

/** Requests the instances serve now, in both backends, from HAProxy's `show stat` (its scur column). */
async function requestsInFlight(door: Door): Promise<number> {
  const rows = (await runtime(door.socket, "show stat")).split("\n").filter((row) => /^vllm/.test(row));
  return rows
    .map((row) => row.split(","))
    .filter(([, server]) => server !== "BACKEND")
    .reduce((sum, columns) => sum + Number(columns[4]), 0);
}

/** Requests HAProxy holds in its queues (the backend's and each server's), from `show stat` (qcur). */
async function queuedRequests(door: Door): Promise<number> {
  const rows = (await runtime(door.socket, "show stat")).split("\n").filter((row) => /^vllm,/.test(row));
  return rows.map((row) => row.split(",")).reduce((sum, columns) => sum + Number(columns[2]), 0);
}

const conversation = (id: number, turns: number, system: boolean) => {
  const messages: { role: string; content: string }[] = system
    ? [{ role: "system", content: "You are a helpful assistant for the support team." }]
    : [];
  messages.push({ role: "user", content: `Question number ${id}: how do I reset my password?` });
  for (let turn = 1; turn < turns; turn += 1) {
    messages.push(
      { role: "assistant", content: `Answer ${turn}` },
      { role: "user", content: `More ${turn}` },
    );
  }
  return { model: "m", messages };
};

describe("haproxyConfig routing through real HAProxy", { timeout: 60_000 }, () => {
  it("session: every request of a session goes to one instance, and sessions spread over the instances", async () => {
    const door = await startDoor({ routing: "session" });
    const home = new Map<string, number>();
    for (let session = 0; session < 48; session += 1) {
      const key = `session-${session}-of-the-routing-test`;
      home.set(key, await served(door, { header: key }));
    }
    // Asked again in another order: a rotation (round robin, or least-busy among idle instances) would differ.
    for (const [key, instance] of [...home].reverse())
      expect(await served(door, { header: key })).toBe(instance);
    const counts = new Set(home.values());
    expect(counts.size).toBe(INSTANCES);
  });

  it("session: a request without the header goes to the least busy instance, as least-busy routing does", async () => {
    const door = await startDoor({ routing: "session" });
    // One instance holds an open request; round robin would still send it every fourth request.
    const hold = fetch(`${door.url}/hold`, { method: "POST", body: "{}" }).catch(() => undefined);
    await expectUnkeyedAvoidTheHeld(door, hold);
  });

  it("prefix: each turn of a conversation lands where its first turn did, with or without a system prompt", async () => {
    const door = await startDoor({ routing: "prefix" });
    for (const system of [true, false]) {
      const home = new Map<number, number>();
      for (let id = 0; id < 32; id += 1)
        home.set(id, await served(door, { body: conversation(id, 1, system) }));
      for (const [id, instance] of home) {
        for (const turns of [2, 3])
          expect(await served(door, { body: conversation(id, turns, system) })).toBe(instance);
      }
      expect(new Set(home.values()).size).toBe(INSTANCES);
    }
  });

  it("one bound per instance: keyed and unkeyed requests together never pass --max-num-seqs at an instance", async () => {
    const door = await startDoor({ routing: "session", maxNumSeqs: 2 });
    // Eight held requests, half of one session and half without a header, onto 4 instances of 2 slots.
    const hold = (header?: string) =>
      fetch(`${door.url}/hold`, {
        method: "POST",
        headers: header === undefined ? {} : { "x-session-id": header },
        body: "{}",
      }).then((response) => response.text());
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(hold("one-busy-session"), hold());
    await expect.poll(async () => held.length + (await queuedRequests(door)), { interval: 20 }).toBe(8);
    const perInstance = new Map<number, number>();
    for (const { index } of held) perInstance.set(index, (perInstance.get(index) ?? 0) + 1);
    expect(Math.max(...perInstance.values())).toBeLessThanOrEqual(2);
    // Each request a slot frees is served next; all of them finish.
    while (answers.length > 0) {
      await expect.poll(() => held.length, { interval: 20 }).toBeGreaterThan(0);
      for (const { res } of held.splice(0)) res.end("held");
      await Promise.race([Promise.all(answers), new Promise((resolve) => setTimeout(resolve, 50))]);
      if ((await requestsInFlight(door)) + (await queuedRequests(door)) === 0) break;
    }
    expect(await Promise.all(answers)).toEqual(Array(8).fill("held"));
  });

  it("session: a request without the header avoids the instance that serves keyed requests", async () => {
    const door = await startDoor({ routing: "session" });
    const keyed = fetch(`${door.url}/hold`, {
      method: "POST",
      headers: { "x-session-id": "a-long-session" },
      body: "{}",
    });
    await expectUnkeyedAvoidTheHeld(door, keyed);
  });

  it("prefix: a conversation whose body passes HAProxy's buffer (a 40 KB system prompt) keeps one instance", async () => {
    const door = await startDoor({ routing: "prefix" });
    const long = (id: number, turns: number) => {
      const body = conversation(id, turns, true);
      const system = body.messages[0];
      if (system !== undefined)
        system.content = `Conversation ${id}. ${"Answer as the manual says. ".repeat(1500)}`;
      return body;
    };
    expect(JSON.stringify(long(0, 1)).length).toBeGreaterThan(40_000);
    const home = new Map<number, number>();
    for (let id = 0; id < 12; id += 1) home.set(id, await served(door, { body: long(id, 1) }));
    for (const [id, instance] of home) {
      for (const turns of [2, 3]) expect(await served(door, { body: long(id, turns) })).toBe(instance);
    }
    expect(new Set(home.values()).size).toBeGreaterThan(1);
  });

  it("prefix: a session header still wins over the body", async () => {
    const door = await startDoor({ routing: "prefix" });
    const byHeader = await served(door, {
      header: "one-session-key-for-all",
      body: conversation(1, 1, true),
    });
    for (let id = 2; id < 12; id += 1) {
      expect(await served(door, { header: "one-session-key-for-all", body: conversation(id, 1, true) })).toBe(
        byHeader,
      );
    }
  });

  it("draining one instance moves only its own sessions; the others stay where they were", async () => {
    const door = await startDoor({ routing: "session" });
    const keys = Array.from({ length: 64 }, (_, i) => `drain-test-session-${i}`);
    const before = new Map<string, number>();
    for (const key of keys) before.set(key, await served(door, { header: key }));
    const drained = before.get(keys[0] ?? "") ?? 0;
    expect(await runtime(door.socket, `set server vllm/vllm-${drained} state drain`)).toBe("\n");
    for (const key of keys) {
      const now = await served(door, { header: key });
      if (before.get(key) === drained) expect(now).not.toBe(drained);
      else expect(now).toBe(before.get(key));
    }
  });

  it("serves HAProxy's own Prometheus metrics on the metrics port only", async () => {
    const metricsPort = await getFreePort();
    const door = await startDoor({ routing: "session", metricsPort });
    await served(door, { header: "a-session-for-the-metrics" });
    const page = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(page).toMatch(/^haproxy_backend_http_responses_total\{proxy="vllm",code="2xx"\} [1-9]/m);
    expect(page).toMatch(/^haproxy_server_status\{proxy="vllm",server="vllm-0"/m);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
    // The front door's own port passes /metrics on to the instances, as vLLM serves it.
    expect(await (await fetch(`${door.url}/metrics`)).text()).not.toMatch(/haproxy_/);
  });
});

describe("haproxyConfig routing options", () => {
  const servers = ["127.0.0.1:8001", "127.0.0.1:8002"];

  it.each([
    ["least-busy", {}],
    ["session", { routing: "session", sessionHeader: "X-Conversation.Id_2" }],
    ["prefix", { routing: "prefix" }],
    ["metrics", { routing: "prefix", metricsPort: 9101 }],
  ] as const)("%s: HAProxy accepts the configuration", (_, options) => {
    const file = join(dir, "check.cfg");
    writeFileSync(file, haproxyConfig({ servers, listen: 8000, ...options }));
    expect(execFileSync(requireSystemTool("haproxy"), ["-c", "-f", file], { encoding: "utf8" })).toMatch(
      /Configuration file is valid/,
    );
  });

  it.each([
    [{ routing: "sticky" }, /routing: must be one of least-busy, session, prefix \(given "sticky"\)/],
    [{ routing: "session", sessionHeader: "x session" }, /sessionHeader: must be a header name/],
    [{ routing: "session", sessionHeader: "x#id" }, /sessionHeader: must be a header name/],
    [{ sessionHeader: "x-session-id" }, /sessionHeader: applies to routing 'session' or 'prefix' only/],
    [{ metricsPort: 8000 }, /metricsPort: must differ from listen/],
  ])("refuses %j", (options, message) => {
    expect(() => haproxyConfig({ servers, listen: 8000, ...(options as object) })).toThrow(ServeConfigError);
    expect(() => haproxyConfig({ servers, listen: 8000, ...(options as object) })).toThrow(message);
  });
});

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireSystemTool } from "@finetune-studio/testing";
import { afterAll, describe, expect, it } from "vitest";
import { type HaproxyConfigOptions, haproxyConfig, ServeConfigError } from "../index.js";
import { connectionsWithinFileLimit, defaultMaxConnections } from "./haproxy-config.js";

const dir = mkdtempSync(join(tmpdir(), "haproxy-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Debian's HAProxy checks the text as it would load it (`haproxy -c`): throws with its words if not. */
function checkWithHaproxy(config: string): string {
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  return execFileSync(requireSystemTool("haproxy"), ["-c", "-f", file], { encoding: "utf8" });
}

describe("haproxyConfig", () => {
  const config = haproxyConfig({ servers: ["127.0.0.1:8001", "127.0.0.1:8002"], listen: 8000 });

  it("is a configuration HAProxy itself accepts", () => {
    expect(checkWithHaproxy(config)).toMatch(/Configuration file is valid/);
    const everything = haproxyConfig({
      servers: ["[::1]:8001", "localhost:8000"],
      listen: 80,
      host: "::",
      maxNumSeqs: 64,
      maxConnections: 2000,
      readTimeoutSeconds: 30,
      runtimeSocket: join(dir, "admin.sock"),
    });
    expect(checkWithHaproxy(everything)).toMatch(/Configuration file is valid/);
  });

  it("holds an elastic fleet's spare slots out of service (disabled) until launch readies them", () => {
    const servers = ["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"];
    const spare = haproxyConfig({ servers, listen: 8000, enabledServers: 1, routing: "session" });
    expect(checkWithHaproxy(spare)).toMatch(/Configuration file is valid/);
    expect(spare).toMatch(/^ {4}server vllm-0 127\.0\.0\.1:8001$/m);
    expect(spare).toMatch(/^ {4}server vllm-1 127\.0\.0\.1:8002 disabled$/m);
    expect(spare).toMatch(/^ {4}server vllm-2 127\.0\.0\.1:8003 disabled$/m);
    expect(config).not.toMatch(/disabled/);
    for (const enabledServers of [0, 4, 1.5]) {
      expect(() => haproxyConfig({ servers, listen: 8000, enabledServers })).toThrow(ServeConfigError);
    }
  });

  it("sends each request to the least busy instance, keeps instance connections open, retries refusals elsewhere", () => {
    expect(config).toMatch(/backend vllm\n[\s\S]*balance leastconn/);
    expect(config).not.toMatch(/http-server-close|httpclose|http-reuse never/);
    expect(config).toMatch(/retry-on conn-failure\n/);
    expect(config).toContain("option redispatch 1");
    expect(config).toContain("server vllm-0 127.0.0.1:8001");
    expect(config).toContain("server vllm-1 127.0.0.1:8002");
  });

  it("listens on loopback by default, checks /health, and waits long for slow generations", () => {
    expect(config).toContain("bind 127.0.0.1:8000");
    expect(config).toContain("option httpchk GET /health");
    expect(config).toContain("timeout server 600s");
  });

  it("sizes its limits from the instances and vLLM's --max-num-seqs", () => {
    expect(config).toContain("default-server check inter 2s fall 2 rise 2 maxconn 1024");
    expect(config).toContain(`maxconn ${defaultMaxConnections(2, 1024)}`);
    expect(defaultMaxConnections(2, 1024)).toBe(8192);
    expect(defaultMaxConnections(1, 16)).toBe(4096);
    const small = haproxyConfig({
      servers: ["127.0.0.1:8001"],
      listen: 8000,
      maxNumSeqs: 32,
      maxConnections: 300,
    });
    expect(small).toContain("maxconn 32");
    expect(small).toMatch(/global\n[\s\S]*maxconn 300\n/);
    expect(small).not.toContain("stats socket");
  });

  it("fits the connections to an open-file limit: two descriptors each, after a reserve", () => {
    expect(connectionsWithinFileLimit(20_000, 3)).toBe(9_944);
    expect(connectionsWithinFileLimit(1024, 2)).toBe(458);
    expect(connectionsWithinFileLimit(50, 2)).toBe(0);
  });

  it("opens the runtime API only at admin level on a private socket", () => {
    const text = haproxyConfig({
      servers: ["127.0.0.1:8001"],
      listen: 8000,
      runtimeSocket: "/run/s/haproxy.sock",
    });
    expect(text).toContain("stats socket /run/s/haproxy.sock mode 600 level admin");
  });

  it.each<[string, unknown, string, RegExp]>([
    ["no servers", { servers: [], listen: 8000 }, "servers", /at least one host:port/],
    ["a Unix socket server", { servers: ["unix:/tmp/v.sock"], listen: 8000 }, "servers[0]", /host:port/],
    [
      "config injection",
      { servers: ["127.0.0.1:8001\n    stats enable"], listen: 8000 },
      "servers[0]",
      /host:port/,
    ],
    ["a repeated server", { servers: ["a:1", "a:1"], listen: 8000 }, "servers[1]", /repeat/],
    ["a server that is HAProxy itself", { servers: ["127.0.0.1:8000"], listen: 8000 }, "servers[0]", /loop/],
    ["maxNumSeqs 0", { servers: ["a:1"], listen: 80, maxNumSeqs: 0 }, "maxNumSeqs", /at least 1/],
    [
      "maxConnections 0",
      { servers: ["a:1"], listen: 80, maxConnections: 0 },
      "maxConnections",
      /1 to 1000000/,
    ],
    [
      "a relative runtime socket",
      { servers: ["a:1"], listen: 80, runtimeSocket: "admin.sock" },
      "runtimeSocket",
      /absolute path/,
    ],
    [
      "a runtime socket that adds a directive",
      { servers: ["a:1"], listen: 80, runtimeSocket: "/tmp/a.sock level admin\n    stats enable" },
      "runtimeSocket",
      /absolute path/,
    ],
    [
      "an unknown option",
      { servers: ["a:1"], listen: 80, balance: "roundrobin" },
      "balance",
      /not an option/,
    ],
  ])("refuses %s", (_name, given, field, rule) => {
    let error: unknown;
    try {
      haproxyConfig(given as HaproxyConfigOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServeConfigError);
    expect((error as ServeConfigError).field).toBe(field);
    expect((error as ServeConfigError).message).toMatch(rule);
  });
});

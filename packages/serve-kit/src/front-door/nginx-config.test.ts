import { describe, expect, it } from "vitest";
import { type NginxConfigOptions, nginxConfig, ServeConfigError } from "../index.js";

describe("nginxConfig", () => {
  const config = nginxConfig({ upstreams: ["127.0.0.1:8001", "127.0.0.1:8002"], listen: 8000 });

  it("balances by least connections over every instance", () => {
    expect(config).toMatch(/upstream studio_serve_vllm \{[^}]*least_conn;/);
    expect(config).toContain("server 127.0.0.1:8001;");
    expect(config).toContain("server 127.0.0.1:8002;");
  });

  it("listens on loopback by default", () => {
    expect(config).toContain("listen 127.0.0.1:8000;");
  });

  it("lets streamed responses flow and waits long for slow generations", () => {
    expect(config).toContain("proxy_buffering off;");
    expect(config).toContain("proxy_read_timeout 600s;");
    expect(config).toContain("proxy_http_version 1.1;");
  });

  it("lets go of idle vLLM connections before vLLM's own 5 s keep-alive timeout closes them", () => {
    expect(config).toMatch(/upstream studio_serve_vllm \{[^}]*keepalive_timeout 4s;/);
  });

  it("takes Unix-socket upstreams (local relays), keeps their connections 60 s, and a chosen keep-alive", () => {
    const text = nginxConfig({
      upstreams: ["unix:/run/s/relay-0.sock", "unix:/run/s/relay-1.sock"],
      listen: 8000,
    });
    expect(text).toContain("server unix:/run/s/relay-0.sock;");
    expect(text).toContain("server unix:/run/s/relay-1.sock;");
    expect(text).toContain("keepalive_timeout 60s;");
    const mixed = nginxConfig({ upstreams: ["unix:/run/s/r.sock", "127.0.0.1:8001"], listen: 8000 });
    expect(mixed).toContain("keepalive_timeout 4s;");
    const chosen = nginxConfig({ upstreams: ["127.0.0.1:8001"], listen: 8000, keepaliveTimeoutSeconds: 2 });
    expect(chosen).toContain("keepalive_timeout 2s;");
  });

  it("writes IPv6 addresses in brackets and takes a listen host and timeout", () => {
    const text = nginxConfig({
      upstreams: ["[::1]:8001", "gpu-2.internal:8000"],
      listen: 80,
      host: "::",
      readTimeoutSeconds: 30,
    });
    expect(text).toContain("server [::1]:8001;");
    expect(text).toContain("server gpu-2.internal:8000;");
    expect(text).toContain("listen [::]:80;");
    expect(text).toContain("proxy_read_timeout 30s;");
  });

  it.each<[string, unknown, string, RegExp]>([
    ["no upstreams", { upstreams: [], listen: 8000 }, "upstreams", /at least one/],
    ["upstreams not an array", { upstreams: "127.0.0.1:8001", listen: 8000 }, "upstreams", /at least one/],
    ["an upstream without a port", { upstreams: ["127.0.0.1"], listen: 8000 }, "upstreams[0]", /host:port/],
    ["an upstream port 0", { upstreams: ["127.0.0.1:0"], listen: 8000 }, "upstreams[0]", /1 to 65535/],
    ["an upstream port 70000", { upstreams: ["h:70000"], listen: 8000 }, "upstreams[0]", /1 to 65535/],
    [
      "an unbracketed IPv6 upstream",
      { upstreams: ["::1:8001"], listen: 8000 },
      "upstreams[0]",
      /\[addr\]:port/,
    ],
    [
      "a relative socket path",
      { upstreams: ["unix:relay.sock"], listen: 8000 },
      "upstreams[0]",
      /absolute path/,
    ],
    [
      "a socket path that ends the directive",
      { upstreams: ["unix:/tmp/r.sock; include /etc/passwd"], listen: 8000 },
      "upstreams[0]",
      /absolute path/,
    ],
    [
      "the same socket twice",
      { upstreams: ["unix:/tmp/r.sock", "unix:/tmp/r.sock"], listen: 8000 },
      "upstreams[1]",
      /repeat/,
    ],
    [
      "a keep-alive timeout of 0",
      { upstreams: ["127.0.0.1:8001"], listen: 8000, keepaliveTimeoutSeconds: 0 },
      "keepaliveTimeoutSeconds",
      /1 to 3600/,
    ],
    [
      "config injection",
      { upstreams: ["127.0.0.1:8001; include /etc/passwd"], listen: 8000 },
      "upstreams[0]",
      /host:port/,
    ],
    ["a repeated upstream", { upstreams: ["a:1", "a:1"], listen: 8000 }, "upstreams[1]", /repeat/],
    [
      "an upstream that is nginx itself",
      { upstreams: ["127.0.0.1:8000"], listen: 8000 },
      "upstreams[0]",
      /loop/,
    ],
    [
      "localhost behind a wildcard listen",
      { upstreams: ["localhost:80"], listen: 80, host: "0.0.0.0" },
      "upstreams[0]",
      /loop/,
    ],
    ["a bad listen port", { upstreams: ["a:1"], listen: 0 }, "listen", /1 to 65535/],
    ["a bad listen host", { upstreams: ["a:1"], listen: 80, host: "a b" }, "host", /host name/],
    [
      "a zero timeout",
      { upstreams: ["a:1"], listen: 80, readTimeoutSeconds: 0 },
      "readTimeoutSeconds",
      /from 1 to 2147483/,
    ],
    [
      "an unknown option",
      { upstreams: ["a:1"], listen: 80, method: "round_robin" },
      "method",
      /not an option/,
    ],
  ])("refuses %s", (_name, given, field, rule) => {
    let error: unknown;
    try {
      nginxConfig(given as NginxConfigOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServeConfigError);
    expect((error as ServeConfigError).field).toBe(field);
    expect((error as ServeConfigError).message).toMatch(rule);
  });
});

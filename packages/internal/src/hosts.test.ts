import { describe, expect, it } from "vitest";
import {
  isHostname,
  isIPv4,
  isIPv6,
  isIpAddress,
  isLoopbackHost,
  isThisMachine,
  isWildcardHost,
} from "./hosts.js";

describe("isLoopbackHost", () => {
  it.each([
    "localhost",
    "LOCALHOST",
    "127.0.0.1",
    "127.0.0.2",
    "127.255.255.254",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "[0:0:0:0:0:0:0:1]",
    "::0001",
    "::ffff:127.0.0.1",
    "[::ffff:7f00:1]",
    "[::FFFF:7F12:3456]",
  ])("counts %s as this machine", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    // Resolved through DNS (or /etc/hosts), which may send them anywhere.
    ["a name under .localhost", "app.localhost"],
    ["a deeper name under .localhost", "a.b.localhost"],
    ["localhost with a trailing dot", "localhost."],
    ["a name that starts with localhost", "localhost.example.com"],
    ["a name that ends with localhost", "evil-localhost"],
    ["a name that starts with 127.", "127.0.0.1.example.com"],
    ["an address outside 127/8", "128.0.0.1"],
    ["a shortened IPv4 form a URL parser would rewrite", "127.1"],
    ["an octet out of range", "127.0.0.256"],
    ["the IPv4 wildcard", "0.0.0.0"],
    ["the IPv6 wildcard", "::"],
    ["the bracketed IPv6 wildcard", "[::]"],
    ["an IPv4-mapped address outside 127/8", "::ffff:10.0.0.1"],
    ["another IPv6 address", "::2"],
    ["a public IPv6 address", "[2001:db8::1]"],
    ["an IPv4-compatible (deprecated) form", "::127.0.0.1"],
    ["a private address", "192.168.1.10"],
    ["a remote host", "api.example.com"],
    ["an empty string", ""],
    ["unbalanced brackets", "[::1"],
  ])("does not count %s (%s)", (_name, host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });

  it("agrees with the hostname the URL parser gives for a loopback URL", () => {
    for (const url of [
      "http://localhost:8000",
      "http://127.0.0.1/",
      "http://[::1]:8000",
      "http://[::ffff:127.0.0.1]/",
    ]) {
      expect(isLoopbackHost(new URL(url).hostname)).toBe(true);
    }
    for (const url of [
      "http://app.localhost:8000",
      "http://0.0.0.0:8000",
      "http://[::]:8000",
      "http://10.0.0.1/",
    ]) {
      expect(isLoopbackHost(new URL(url).hostname)).toBe(false);
    }
  });
});

describe("isWildcardHost", () => {
  it.each(["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"])("counts %s as every interface", (host) => {
    expect(isWildcardHost(host)).toBe(true);
  });

  it.each(["127.0.0.1", "::1", "0.0.0.1", "localhost", "", "0"])("does not count %s", (host) => {
    expect(isWildcardHost(host)).toBe(false);
  });
});

describe("isThisMachine", () => {
  it.each(["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]"])("counts %s", (host) => {
    expect(isThisMachine(host)).toBe(true);
  });

  it.each(["10.0.0.1", "app.localhost", "example.com", "0.0.0.1"])("does not count %s", (host) => {
    expect(isThisMachine(host)).toBe(false);
  });
});

describe("address and name checks", () => {
  it.each<[string, { ipv4: boolean; ipv6: boolean; hostname: boolean }]>([
    ["127.0.0.1", { ipv4: true, ipv6: false, hostname: true }],
    ["255.255.255.255", { ipv4: true, ipv6: false, hostname: true }],
    ["256.0.0.1", { ipv4: false, ipv6: false, hostname: true }],
    ["01.2.3.4", { ipv4: false, ipv6: false, hostname: true }],
    ["1.2.3", { ipv4: false, ipv6: false, hostname: true }],
    ["::1", { ipv4: false, ipv6: true, hostname: false }],
    ["2001:db8::1", { ipv4: false, ipv6: true, hostname: false }],
    ["::ffff:192.0.2.1", { ipv4: false, ipv6: true, hostname: false }],
    ["[::1]", { ipv4: false, ipv6: false, hostname: false }],
    ["1:2:3:4:5:6:7:8:9", { ipv4: false, ipv6: false, hostname: false }],
    ["fe80::1%eth0", { ipv4: false, ipv6: false, hostname: false }],
    ["gpu-box.internal", { ipv4: false, ipv6: false, hostname: true }],
    ["-bad.example", { ipv4: false, ipv6: false, hostname: false }],
    ["under_score", { ipv4: false, ipv6: false, hostname: false }],
    ["", { ipv4: false, ipv6: false, hostname: false }],
    [`${"a".repeat(63)}.com`, { ipv4: false, ipv6: false, hostname: true }],
    [`${"a".repeat(64)}.com`, { ipv4: false, ipv6: false, hostname: false }],
  ])("%s", (host, want) => {
    expect({ ipv4: isIPv4(host), ipv6: isIPv6(host), hostname: isHostname(host) }).toEqual(want);
    expect(isIpAddress(host)).toBe(want.ipv4 || want.ipv6);
  });
});

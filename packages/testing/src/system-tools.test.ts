import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { findSystemTool, requireSystemTool, type SystemToolName, systemTools } from "./system-tools.js";

let bin = "";

beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), "system-tools-"));
  // Only this folder on PATH; the sbin folders are searched too, so pick tools Debian puts in /usr/bin.
  vi.stubEnv("PATH", bin);
  for (const tool of Object.values(systemTools)) vi.stubEnv(tool.env, undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(bin, { recursive: true, force: true });
});

function fakeTool(name: string, mode = 0o755): string {
  const path = join(bin, name);
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, mode);
  return path;
}

describe("requireSystemTool", () => {
  it("finds a tool on PATH", () => {
    const path = fakeTool("chromium");
    expect(requireSystemTool("chromium")).toBe(path);
  });

  it("prefers the tool's environment variable", () => {
    const path = fakeTool("my-chromium");
    vi.stubEnv("CHROMIUM_PATH", path);
    expect(findSystemTool("chromium")).toBe(path);
  });

  it.each([
    ["chromium", "chromium"],
    ["promtool", "prometheus"],
    ["ps", "procps"],
  ] as const)(
    "fails for a missing %s with one line naming Debian's %s and how to install it",
    (tool, pkg) => {
      fakeTool(tool, 0o644); // present but not executable: not a tool
      const error = (() => {
        try {
          requireSystemTool(tool as SystemToolName);
        } catch (caught) {
          return caught as Error;
        }
      })();
      expect(error?.message).toContain(`Debian's ${pkg} package`);
      expect(error?.message).toMatch(new RegExp(`apt-get install -y ${pkg}\``));
      expect(error?.stack?.split("\n")).toHaveLength(1);
    },
  );

  it("says when the environment variable points at nothing runnable", () => {
    vi.stubEnv("NGINX_BIN", join(bin, "missing-nginx"));
    expect(() => requireSystemTool("nginx")).toThrow(
      `NGINX_BIN=${join(bin, "missing-nginx")} is not an executable`,
    );
  });
});

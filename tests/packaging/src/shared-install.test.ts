import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installKey, sharedInstall } from "./shared-install.js";

const work = mkdtempSync(join(tmpdir(), "shared-install-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A tarball of a package with no dependencies, as npm packs one. */
function tarball(name: string, version: string): string {
  const dir = mkdtempSync(join(work, "src-"));
  mkdirSync(join(dir, "package"));
  writeFileSync(join(dir, "package", "package.json"), JSON.stringify({ name, version }));
  const file = join(work, `${name}-${version}.tgz`);
  execFileSync("tar", ["-czf", file, "-C", dir, "package"]);
  return file;
}

describe("installKey", () => {
  const a = tarball("a", "1.0.0");
  const b = tarball("b", "1.0.0");
  const day = new Date("2026-11-29T10:00:00Z");

  it("is the same for the same tarballs on the same day, in any order", () => {
    expect(installKey([a, b], day)).toBe(installKey([b, a], new Date("2026-11-29T23:59:00Z")));
  });

  it("changes with a tarball's bytes and with the day", () => {
    const other = tarball("b", "1.0.1");
    expect(installKey([a, other], day)).not.toBe(installKey([a, b], day));
    expect(installKey([a, b], new Date("2026-11-30T00:00:00Z"))).not.toBe(installKey([a, b], day));
  });
});

describe("sharedInstall", { timeout: 120_000 }, () => {
  it("installs with npm, and a second setup with the same tarballs uses that install", async () => {
    const cache = join(work, "cache-reuse");
    const tarballs = [tarball("reuse", "1.0.0")];
    const first = await sharedInstall(tarballs, cache);
    expect(existsSync(join(first, "node_modules", "reuse", "package.json"))).toBe(true);
    writeFileSync(join(first, "node_modules", "marker"), "");
    expect(await sharedInstall(tarballs, cache)).toBe(first);
    expect(existsSync(join(first, "node_modules", "marker"))).toBe(true);
    // No lock and no staging folder is left, only the install.
    expect(readdirSync(cache)).toEqual([installKey(tarballs)]);
  });

  it("waits while another setup holds the lock, then uses what it installed", async () => {
    const cache = join(work, "cache-wait");
    const tarballs = [tarball("wait", "1.0.0")];
    const project = join(cache, installKey(tarballs));
    const lock = `${project}.lock`;
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, "pid"), String(process.pid)); // a holder that is alive
    const waiting = sharedInstall(tarballs, cache);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // The other setup's install, made while the waiter waits: the waiter must not run npm itself.
    mkdirSync(join(project, "node_modules"), { recursive: true });
    writeFileSync(join(project, "node_modules", "made-by-the-other"), "");
    rmSync(lock, { recursive: true });
    expect(await waiting).toBe(project);
    expect(readdirSync(join(project, "node_modules"))).toEqual(["made-by-the-other"]);
  });

  it("takes over a lock whose holder is gone", async () => {
    const cache = join(work, "cache-stale");
    const tarballs = [tarball("stale", "1.0.0")];
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    const lock = join(cache, `${installKey(tarballs)}.lock`);
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, "pid"), String(gone.pid));
    const project = await sharedInstall(tarballs, cache);
    expect(existsSync(join(project, "node_modules", "stale", "package.json"))).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });
});

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../test/cli-process.js";
import { sharedFileMode } from "../test/file-mode.js";
import { FileWriteError, openToAppend, writeFilesTogether, writeFreshFile } from "./safe-files.js";

describe("safe-files", () => {
  it("writeFilesTogether writes none of the files when one target is a directory", () => {
    const dir = tempDir("safe-files-");
    writeFileSync(join(dir, "a.yml"), "old a\n");
    mkdirSync(join(dir, "b.yml"));
    expect(() =>
      writeFilesTogether(dir, [
        { name: "a.yml", text: "new a\n" },
        { name: "b.yml", text: "new b\n" },
      ]),
    ).toThrow(/b\.yml: is a directory, not a file it may replace; nothing was written/);
    expect(readFileSync(join(dir, "a.yml"), "utf8")).toBe("old a\n");
    expect(readdirSync(dir).sort()).toEqual(["a.yml", "b.yml"]);
  });

  it("writeFilesTogether replaces regular files and leaves no temporary file", () => {
    const dir = tempDir("safe-files-");
    writeFileSync(join(dir, "a.yml"), "old\n");
    writeFilesTogether(dir, [
      { name: "a.yml", text: "a\n" },
      { name: "b.yml", text: "b\n" },
    ]);
    expect(readFileSync(join(dir, "a.yml"), "utf8")).toBe("a\n");
    expect(readdirSync(dir).sort()).toEqual(["a.yml", "b.yml"]);
  });

  it("never writes through a planted symbolic link", () => {
    const dir = tempDir("safe-files-");
    const victim = join(dir, "victim");
    writeFileSync(victim, "keep me\n");
    symlinkSync(victim, join(dir, "log"));
    symlinkSync(victim, join(dir, "pid"));
    symlinkSync(victim, join(dir, "out.yml"));
    expect(() => openToAppend(join(dir, "log"))).toThrow(FileWriteError);
    expect(() => openToAppend(join(dir, "log"))).toThrow(/is a symbolic link; it is not followed/);
    expect(() => writeFreshFile(join(dir, "pid"), "123\n")).toThrow(/is a symbolic link/);
    expect(() => writeFilesTogether(dir, [{ name: "out.yml", text: "x" }])).toThrow(/symbolic link/);
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
  });

  it("writeFreshFile replaces a stale regular file", () => {
    const dir = tempDir("safe-files-");
    writeFileSync(join(dir, "pid"), "999\n");
    writeFreshFile(join(dir, "pid"), "123\n");
    expect(readFileSync(join(dir, "pid"), "utf8")).toBe("123\n");
    expect(existsSync(join(dir, `.pid.${process.pid}.tmp`))).toBe(false);
  });

  it("writes private files 0600 by default and shared ones 0644 (less the umask)", () => {
    const dir = tempDir("safe-files-");
    writeFilesTogether(dir, [{ name: "state.json", text: "{}\n" }]);
    writeFilesTogether(dir, [{ name: "prometheus.yml", text: "x\n" }], "shared");
    writeFreshFile(join(dir, "pid"), "1\n");
    expect(statSync(join(dir, "state.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "pid")).mode & 0o777).toBe(0o600);
    expect(sharedFileMode() & 0o044).not.toBe(0); // the umask here lets others read, or the test proves nothing
    expect(statSync(join(dir, "prometheus.yml")).mode & 0o777).toBe(sharedFileMode());
  });
});

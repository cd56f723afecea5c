import { describe, expect, it } from "vitest";
import { parseGpuMemory } from "../shared/nvidia-smi.js";
import { type DoctorProbes, evaluateDoctor, formatDoctorTable } from "./doctor-checks.js";

const healthy: DoctorProbes = {
  python: { command: "python3", version: "Python 3.12.3" },
  vllmPath: "/opt/venv/bin/vllm",
  gpus: { gpus: [{ name: "NVIDIA A100-SXM4-80GB", freeMiB: 80_000, totalMiB: 81_920 }] },
  hubLogin: "HF_TOKEN is set",
  port: { host: "127.0.0.1", port: 8000, state: "free" },
};

const status = (probes: Partial<DoctorProbes>, check: string) =>
  evaluateDoctor({ ...healthy, ...probes }).find((result) => result.check === check);

describe("evaluateDoctor", () => {
  it("passes everything on a ready machine", () => {
    const results = evaluateDoctor(healthy);
    expect(results.map((r) => [r.check, r.status])).toEqual([
      ["python", "pass"],
      ["vllm", "pass"],
      ["gpu", "pass"],
      ["hub login", "pass"],
      ["port", "pass"],
    ]);
    expect(results.find((r) => r.check === "gpu")?.detail).toBe(
      "NVIDIA A100-SXM4-80GB: 78.1 GiB free of 80.0 GiB",
    );
  });

  it.each<[string, Partial<DoctorProbes>, string, "pass" | "warn" | "fail", RegExp]>([
    ["no Python", { python: undefined }, "python", "fail", /no python3 or python/],
    [
      "Python 2.7",
      { python: { command: "python", version: "Python 2.7.18" } },
      "python",
      "fail",
      /3\.8 or newer/,
    ],
    [
      "Python 3.7",
      { python: { command: "python3", version: "Python 3.7.9" } },
      "python",
      "fail",
      /3\.8 or newer/,
    ],
    [
      "Python 3.8",
      { python: { command: "python3", version: "Python 3.8.10" } },
      "python",
      "warn",
      /need 3\.10/,
    ],
    [
      "Python 3.9",
      { python: { command: "python3", version: "Python 3.9.1" } },
      "python",
      "warn",
      /need 3\.10/,
    ],
    [
      "Python 3.10",
      { python: { command: "python3", version: "Python 3.10.0" } },
      "python",
      "pass",
      /3\.10\.0/,
    ],
    [
      "an unreadable version",
      { python: { command: "python3", version: "Python ?" } },
      "python",
      "fail",
      /cannot read/,
    ],
    ["no vllm", { vllmPath: undefined }, "vllm", "fail", /not on PATH/],
    ["no nvidia-smi", { gpus: { missing: true } }, "gpu", "warn", /nvidia-smi not found/],
    [
      "a failing nvidia-smi",
      { gpus: { error: "NVIDIA-SMI has failed" } },
      "gpu",
      "warn",
      /NVIDIA-SMI has failed/,
    ],
    ["no GPU listed", { gpus: { gpus: [] } }, "gpu", "warn", /lists no GPU/],
    ["no hub login", { hubLogin: undefined }, "hub login", "warn", /public repositories only/],
    ["a taken port", { port: { host: "127.0.0.1", port: 8000, state: "in-use" } }, "port", "fail", /in use/],
    [
      "an address of another machine",
      { port: { host: "10.9.9.9", port: 8000, state: "unusable", reason: "EADDRNOTAVAIL" } },
      "port",
      "fail",
      /EADDRNOTAVAIL/,
    ],
  ])("%s", (_name, probes, check, want, detail) => {
    const result = status(probes, check);
    expect(result?.status).toBe(want);
    expect(result?.detail).toMatch(detail);
    if (want !== "pass") expect(result?.fix).toEqual(expect.any(String));
  });
});

describe("parseGpuMemory, the one reading of nvidia-smi's memory query", () => {
  it("reads name, free and total MiB per line, names with commas included", () => {
    expect(parseGpuMemory("NVIDIA A100-SXM4-80GB, 80000, 81920\nNVIDIA L4, 1000, 23034\n\n")).toEqual([
      { name: "NVIDIA A100-SXM4-80GB", freeMiB: 80000, totalMiB: 81920 },
      { name: "NVIDIA L4", freeMiB: 1000, totalMiB: 23034 },
    ]);
    expect(parseGpuMemory("Odd, Name, 5, 10")).toEqual([{ name: "Odd,Name", freeMiB: 5, totalMiB: 10 }]);
    expect(parseGpuMemory("[N/A], [N/A]")).toEqual([]);
  });
});

describe("formatDoctorTable", () => {
  it("escapes what a program printed (a GPU name from nvidia-smi with ESC and C1), so it cannot steer the terminal", () => {
    const table = formatDoctorTable([
      { check: "gpu", status: "pass", detail: "NVIDIA \u001b]0;owned\u0007H100 \u009b2J" },
    ]);
    expect(table).toContain("NVIDIA \\u001b]0;owned\\u0007H100 \\u009b2J");
  });

  it("aligns the rows and puts each fix under its check", () => {
    const table = formatDoctorTable(evaluateDoctor({ ...healthy, vllmPath: undefined }));
    expect(table.split("\n")[1]).toBe("FAIL  vllm       vllm is not on PATH");
    expect(table.split("\n")[2]).toMatch(/^ {17}fix: pip install vllm/);
  });
});

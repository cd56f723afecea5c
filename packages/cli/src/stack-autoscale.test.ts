import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildStackScaledObject, buildStackValues, type ServeOptions } from "@finetune-studio/serve-kit";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runCapture } from "./test/run-cli.js";

const model = ["full", "acme/support-8b", "--served-model-name", "support"];
const config: ServeOptions = { kind: "full", model: "acme/support-8b", servedModelName: "support" };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "studio-stack-autoscale-"));
  dirs.push(dir);
  return dir;
}

describe("studio-serve stack values --replicas MIN..MAX", () => {
  it("writes the KEDA ScaledObject beside values.yaml, and the command that applies it after the chart", async () => {
    const out = join(tempDir(), "deploy");
    const { code, stdout } = await runCapture([
      "stack",
      "values",
      ...model,
      "--replicas",
      "1..4",
      "--scale-on",
      "queue=3,kv=0.7",
      "--prometheus-url",
      "http://prometheus.monitoring.svc:9090",
      "--scale-down-after",
      "2m",
      "--namespace",
      "serving",
      "--out",
      out,
    ]);
    expect(code).toBe(0);
    const options = {
      replicas: { min: 1, max: 4 },
      scaleOn: { queue: 3, kv: 0.7 },
      prometheusUrl: "http://prometheus.monitoring.svc:9090",
      scaleDownAfterSeconds: 120,
      namespace: "serving",
    };
    expect(parse(readFileSync(join(out, "scaledobject.yaml"), "utf8"))).toEqual(
      buildStackScaledObject(config, options),
    );
    expect(parse(readFileSync(join(out, "values.yaml"), "utf8"))).toEqual(buildStackValues(config, options));
    const lines = stdout.split("\n");
    const install = lines.findIndex((line) => line.startsWith("helm install"));
    const apply = lines.indexOf(
      `kubectl apply --namespace serving --filename ${join(out, "scaledobject.yaml")}`,
    );
    expect(install).toBeGreaterThan(-1);
    expect(apply).toBeGreaterThan(install);
  });

  it("without --out prints the values, and says how to print the ScaledObject", async () => {
    const { code, stdout, stderr } = await runCapture(["stack", "values", ...model, "--replicas", "2..5"]);
    expect(code).toBe(0);
    expect(parse(stdout).servingEngineSpec.modelSpec[0].replicaCount).toBe(2);
    expect(stderr).toContain(
      "kubectl apply --filename scaledobject.yaml   # after: studio-serve stack scaledobject full ... > scaledobject.yaml",
    );
  });

  it("stack scaledobject prints it alone, with the defaults the table gives", async () => {
    const { code, stdout } = await runCapture(["stack", "scaledobject", ...model, "--replicas", "1..3"]);
    expect(code).toBe(0);
    const scaled = parse(stdout);
    expect(scaled).toEqual(buildStackScaledObject(config, { replicas: { min: 1, max: 3 } }));
    expect(
      scaled.spec.triggers.map((trigger: { metadata: { threshold: string } }) => trigger.metadata.threshold),
    ).toEqual(["5", "0.8"]);
    const fixed = await runCapture(["stack", "scaledobject", ...model, "--replicas", "2"]);
    expect(fixed.code).toBe(2);
    expect(fixed.stderr).toMatch(/--replicas: give a range MIN\.\.MAX/);
  });

  it.each<[string, string[], RegExp]>([
    [
      "a range that ends below its start",
      ["--replicas", "3..1"],
      /^studio-serve: --replicas: must end at MIN or more/,
    ],
    ["a range from 0", ["--replicas", "0..4"], /^studio-serve: --replicas: must start at 1 or more/],
    [
      "a range of words",
      ["--replicas", "one..four"],
      /^studio-serve: --replicas: must be a whole number N or a range/,
    ],
    [
      "an unknown signal",
      ["--replicas", "1..4", "--scale-on", "cpu=80"],
      /^studio-serve: --scale-on: .*unknown "cpu"/,
    ],
    [
      "a negative threshold",
      ["--replicas", "1..4", "--scale-on", "queue=-2"],
      /^studio-serve: --scale-on: queue must be given a number that is not negative/,
    ],
    [
      "a KV share past 1",
      ["--replicas", "1..4", "--scale-on", "kv=2"],
      /^studio-serve: --scale-on: kv must be above 0 and at most 1/,
    ],
    [
      "a bad Prometheus URL",
      ["--replicas", "1..4", "--prometheus-url", "prometheus:9090"],
      /^studio-serve: --prometheus-url: must be an http/,
    ],
    [
      "a duration that is not one",
      ["--replicas", "1..4", "--scale-down-after", "soon"],
      /^studio-serve: --scale-down-after: must be a duration/,
    ],
    [
      "a scale-down window past the HPA's 1h",
      ["--replicas", "1..4", "--scale-down-after", "2h"],
      /^studio-serve: --scale-down-after: must be at most 1h/,
    ],
    [
      "signals without a range",
      ["--replicas", "2", "--scale-on", "queue=2"],
      /^studio-serve: --scale-on: applies with a range of replicas/,
    ],
  ])("refuses %s with exit code 2, naming the flag, and writes nothing", async (_, flags, message) => {
    const out = join(tempDir(), "deploy");
    const { code, stdout, stderr } = await runCapture(["stack", "values", ...model, ...flags, "--out", out]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe("");
    expect(existsSync(out)).toBe(false);
  });
});

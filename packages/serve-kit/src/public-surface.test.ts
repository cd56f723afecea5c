import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import * as internal from "./internal-entry.js";

const SRC = fileURLToPath(new URL(".", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe("the public surface", () => {
  it("exports exactly the documented runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_DASHBOARD_UID",
      "DEFAULT_HF_CACHE_VOLUME",
      "DEFAULT_PROMETHEUS_RULES_FILE",
      "DEFAULT_SCALE_SIGNALS",
      "DEFAULT_SLO_OBJECTIVE",
      "DEFAULT_VLLM_IMAGE",
      "ENGINE_OPTIONS",
      "ENGINE_OPTION_LIST",
      "FRONT_DOOR_JOB",
      "GPU_MODELS",
      "KNOWN_ARCHITECTURES",
      "KV_CACHE_DTYPES",
      "LORA_ADAPTER_API_VERSION",
      "MAX_LORA_RANKS",
      "MAX_MODELS_SUMMARISED",
      "PROMETHEUS_ALERTS",
      "SLO_BURN_RATE_ALERTS",
      "SLO_WINDOWS",
      "STACK_OPTIONS",
      "STACK_OPTION_LIST",
      "ServeConfigError",
      "VLLM_BUCKETS",
      "VLLM_DTYPES",
      "VLLM_METRICS",
      "VLLM_PLAN_COMMIT",
      "VLLM_STACK_CHART",
      "arrivalTimesMs",
      "buildDockerCommand",
      "buildLoraAdapterResource",
      "buildLoraAdapterResources",
      "buildServeCommand",
      "buildStackCommands",
      "buildStackDashboard",
      "buildStackScaledObject",
      "buildStackValues",
      "capacityFromSweep",
      "computeBenchMetrics",
      "conversationWorkload",
      "findGpuModel",
      "grafanaDashboard",
      "haproxyConfig",
      "latencyChartSvg",
      "maxLoraRankFor",
      "nginxConfig",
      "parseSlo",
      "percentile",
      "planServe",
      "prometheusConfig",
      "prometheusRules",
      "serveConfigFromRecommendations",
      "sloRules",
      "sloSeries",
      "sloTargets",
      "summarizeVllmMetrics",
      "timePerOutputToken",
      "turnMessages",
    ]);
  });

  it("leaves what only the CLI needs to the internal entry, and nothing to both", () => {
    expect(Object.keys(internal).sort()).toEqual([
      "DEFAULT_API_KEY_SECRET",
      "DEFAULT_DASHBOARD_TITLE",
      "DEFAULT_JOB_NAME",
      "DEFAULT_READ_TIMEOUT_SECONDS",
      "DEFAULT_SCALE_DOWN_AFTER_SECONDS",
      "DEFAULT_SCRAPE_INTERVAL_SECONDS",
      "DEFAULT_SECRET_SOURCES",
      "DEFAULT_SESSION_HEADER",
      "HAPROXY_BACKEND",
      "HPA_DEFAULTS",
      "MAX_FRONT_CONNECTIONS",
      "MAX_KEPT_SAMPLES",
      "MAX_STAGED_REQUESTS",
      "MAX_STAGES",
      "MIN_FRONT_CONNECTIONS",
      "ROUTING_POLICIES",
      "THRESHOLD_DEFAULTS",
      "buildTimeline",
      "checkListenAddress",
      "checkObjective",
      "checkRoutingPolicy",
      "checkSessionHeader",
      "connectionsWithinFileLimit",
      "decideHpa",
      "decideScale",
      "defaultMaxConnections",
      "describeFleetSample",
      "durationText",
      "haproxyServerName",
      "hpaSync",
      "isElastic",
      "keepSamples",
      "longestWindowMs",
      "loraRankRefusal",
      "parseDuration",
      "parseScaleSignals",
      "parseScalingRange",
      "parseStages",
      "readInstanceSignals",
      "requestStages",
      "safetensorsHeaderBytes",
      "safetensorsLmHeadBytes",
      "stageBoundariesMs",
      "stageRequests",
      "stagedArrivalTimesMs",
      "summarizeStages",
      "timelineCsv",
      "timelineSvg",
      "vllmDefaultOf",
      "vllmDefaultText",
    ]);
    expect(Object.keys(internal).filter((name) => name in api)).toEqual([]);
  });

  it("keeps the builders free of Node modules, so they run in a browser too (the CLI lives in @finetune-studio/cli)", () => {
    const library = sourceFiles(SRC).filter((file) => !/^test\//.test(relative(SRC, file)));
    expect(library.length).toBeGreaterThan(5);
    for (const file of library) {
      expect(readFileSync(file, "utf8"), relative(SRC, file)).not.toMatch(/from "node:|process\.|require\(/);
    }
  });
});

describe("the package manifest", () => {
  it("depends at run time on the types, yaml and Grafana's SDK only: the client and the CLI are not installed with it", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([
      "@finetune-studio/types",
      "@grafana/grafana-foundation-sdk",
      "yaml",
    ]);
    expect(manifest.bin).toBeUndefined();
  });

  it("exports the public entry and the CLI's internal one", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(Object.keys(manifest.exports)).toEqual([".", "./internal", "./package.json"]);
  });
});

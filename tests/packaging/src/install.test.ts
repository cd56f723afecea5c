import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { repoRoot } from "./published.js";

const consumerDir = inject("consumerDir");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: consumerDir, encoding: "utf8", stdio: "pipe" });
}

const expectedExports = {
  "@finetune-studio/client": [
    "createStudioClient",
    "createChatClient",
    "walkTree",
    "flattenTree",
    "findNodes",
    "StudioError",
    "StudioValidationError",
    "StudioApiError",
    "StudioAuthError",
    "StudioNotFoundError",
    "StudioRateLimitError",
    "StudioServerError",
    "StudioConnectionError",
    "StudioTimeoutError",
    "StudioRecommendationsFailedError",
  ],
  "@finetune-studio/serve-kit": [
    "buildServeCommand",
    "buildDockerCommand",
    "nginxConfig",
    "serveConfigFromRecommendations",
    "grafanaDashboard",
    "sloRules",
  ],
};

describe("installed from the packed tarballs with npm", () => {
  it.each(Object.entries(expectedExports))("%s loads with import", (name, names) => {
    const keys = JSON.parse(
      node([
        "--input-type=module",
        "-e",
        `console.log(JSON.stringify(Object.keys(await import("${name}"))))`,
      ]),
    );
    expect(keys).toEqual(expect.arrayContaining(names));
  });

  it.each(Object.entries(expectedExports))(
    "%s loads with require (Node >= 20.19 require(esm))",
    (name, names) => {
      const keys = JSON.parse(
        node(["--no-warnings", "-e", `console.log(JSON.stringify(Object.keys(require("${name}"))))`]),
      );
      expect(keys).toEqual(expect.arrayContaining(names));
    },
  );

  it("ships both contracts as JSON, for import and require", () => {
    const viaImport = node([
      "--input-type=module",
      "-e",
      'import d from "@finetune-studio/types/chat-completions.openapi.json" with { type: "json" }; console.log(Object.keys(d.paths).join(","))',
    ]);
    // The same document as the workspace's, whatever routes the contract grows.
    const bundled = JSON.parse(
      readFileSync(join(repoRoot, "packages/types/openapi/chat-completions.openapi.json"), "utf8"),
    );
    expect(viaImport.trim()).toBe(Object.keys(bundled.paths).join(","));
    expect(viaImport).toContain("/v1/chat/completions");
    const viaRequire = node([
      "-e",
      'console.log(require("@finetune-studio/types/studio.openapi.json").openapi)',
    ]);
    expect(viaRequire.trim()).toBe("3.1.0");
  });

  it("installs serve-kit as a library that depends on nothing of the client", () => {
    const manifest = JSON.parse(
      node(["-p", 'JSON.stringify(require("@finetune-studio/serve-kit/package.json"))']),
    );
    // yaml writes the Prometheus files; Grafana's foundation SDK builds the dashboard.
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([
      "@finetune-studio/types",
      "@grafana/grafana-foundation-sdk",
      "yaml",
    ]);
    expect(manifest.bin).toBeUndefined();
  });

  it("writes a Prometheus config through the installed serve-kit and its yaml dependency", () => {
    const config = node([
      "--input-type=module",
      "-e",
      'import { prometheusConfig } from "@finetune-studio/serve-kit"; console.log(prometheusConfig({ targets: ["127.0.0.1:8001"] }))',
    ]);
    expect(config).toContain("  - job_name: vllm\n");
    expect(config).toContain("          - 127.0.0.1:8001\n");
  });

  it("builds a Grafana dashboard through the installed serve-kit and Grafana's SDK (CommonJS, imported from ESM)", () => {
    const dashboard = JSON.parse(
      node([
        "--input-type=module",
        "-e",
        'import { grafanaDashboard } from "@finetune-studio/serve-kit"; console.log(JSON.stringify(grafanaDashboard()))',
      ]),
    );
    expect(dashboard.uid).toBe("studio-serve-vllm");
    expect(dashboard.panels.length).toBeGreaterThan(10);
  });

  it("builds a serve command through the installed serve-kit", () => {
    const argv = JSON.parse(
      node([
        "--input-type=module",
        "-e",
        'import { buildServeCommand } from "@finetune-studio/serve-kit"; console.log(JSON.stringify(buildServeCommand({ kind: "full", model: "org/model" }).argv))',
      ]),
    );
    expect(argv.slice(0, 3)).toEqual(["vllm", "serve", "org/model"]);
  });

  it("keeps serve-kit's internal entry apart, throwing the public entry's error class", () => {
    const verdict = node([
      "--input-type=module",
      "-e",
      [
        'import * as api from "@finetune-studio/serve-kit";',
        'import { safetensorsHeaderBytes } from "@finetune-studio/serve-kit/internal";',
        "try { safetensorsHeaderBytes(null, 'header'); } catch (error) {",
        "  console.log(error instanceof api.ServeConfigError, 'safetensorsHeaderBytes' in api); }",
      ].join("\n"),
    ]);
    expect(verdict.trim()).toBe("true false");
  });

  it("installs a working studio-serve bin from @finetune-studio/cli", () => {
    const bin = join(consumerDir, "node_modules", ".bin", "studio-serve");
    expect(realpathSync(bin)).toBe(
      realpathSync(join(consumerDir, "node_modules", "@finetune-studio", "cli", "dist", "main.js")),
    );
    const help = execFileSync(bin, ["--help"], { encoding: "utf8" });
    expect(help).toMatch(/^studio-serve: serve a model/);
    const printed = execFileSync(bin, ["command", "full", "org/model"], { encoding: "utf8" });
    expect(printed).toMatch(/vllm serve org\/model/);
  });

  it.each([
    ["nodenext", { module: "nodenext", moduleResolution: "nodenext" }, ["esm.mts", "cjs.cts"]],
    ["bundler", { module: "esnext", moduleResolution: "bundler" }, ["esm.mts"]],
  ] as const)("type-checks a consumer under moduleResolution %s", (name, options, files) => {
    for (const file of files)
      copyFileSync(join(import.meta.dirname, "consumer", file), join(consumerDir, file));
    const tsconfig = join(consumerDir, `tsconfig.${name}.json`);
    const compilerOptions = {
      ...options,
      target: "es2022",
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    };
    writeFileSync(tsconfig, JSON.stringify({ compilerOptions, files }));
    const result = (() => {
      try {
        return execFileSync(process.execPath, [tsc, "-p", tsconfig], { cwd: consumerDir, encoding: "utf8" });
      } catch (error) {
        return (error as { stdout?: string }).stdout ?? String(error);
      }
    })();
    expect(result).toBe("");
  });
});

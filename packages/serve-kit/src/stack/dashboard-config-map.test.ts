import { describe, expect, it } from "vitest";
import { buildStackDashboard, grafanaDashboard, ServeConfigError } from "../index.js";

/** The dashboard as JSON carries it (fields left undefined drop out). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

const config = { kind: "full", model: "acme/support-8b", servedModelName: "support" } as const;

describe("buildStackDashboard", () => {
  it("ships grafanaDashboard's dashboard in a ConfigMap Grafana's sidecar imports", () => {
    const map = buildStackDashboard(config, { release: "prod", name: "support", namespace: "serving" });
    expect(map).toMatchObject({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "prod-support-dashboard", namespace: "serving", labels: { grafana_dashboard: "1" } },
    });
    const files = Object.keys(map.data);
    expect(files).toEqual(["studio-serve-vllm.json"]);
    const shipped = JSON.parse(map.data["studio-serve-vllm.json"] ?? "");
    // The same dashboard, its queries on the scrape job of the chart's engine Service.
    expect(shipped).toEqual(asJson(grafanaDashboard({ jobName: "prod-support-engine-service" })));
  });

  it("passes the dashboard's own options on, and refuses bad ones naming the field", () => {
    const map = buildStackDashboard(config, {}, { title: "Support", uid: "support-dash", jobName: "vllm" });
    const shipped = JSON.parse(map.data["support-dash.json"] ?? "");
    expect(shipped).toEqual(
      asJson(grafanaDashboard({ title: "Support", uid: "support-dash", jobName: "vllm" })),
    );
    expect(() => buildStackDashboard(config, {}, { uid: "no spaces" })).toThrow(ServeConfigError);
    expect(() => buildStackDashboard(config, {}, { uid: "no spaces" })).toThrow(/uid/);
  });
});

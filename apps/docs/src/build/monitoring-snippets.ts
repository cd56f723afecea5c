import {
  grafanaDashboard,
  PROMETHEUS_ALERTS,
  prometheusConfig,
  SLO_BURN_RATE_ALERTS,
} from "@finetune-studio/serve-kit";
import type { Snippet } from "./markdown.js";
import { studioServe } from "./serving-cli.js";

// The monitoring guide's (content/monitoring.md) commands and tables, from serve-kit and the real CLI: the
// dashboard the guide describes is the one `studio-serve grafana` prints, checked at build time.

const SLO = "ttft=500ms,tpot=50ms";
const LAUNCH_PORT = 8000;
const INSTANCES = 2;

interface Panel {
  type: string;
  title: string;
  description?: string;
}

/** Every panel's title, as the dashboard (with the SLO row) holds them; row headers apart. */
export function dashboardPanels(): { row: string; title: string; description: string }[] {
  const panels = grafanaDashboard({ slo: SLO }).panels as unknown as Panel[];
  let row = "";
  const out: { row: string; title: string; description: string }[] = [];
  for (const panel of panels) {
    if (panel.type === "row") row = panel.title;
    else out.push({ row, title: panel.title, description: panel.description ?? "" });
  }
  return out;
}

/** Every alert the rules of `prometheus --slo` hold. */
export const ALERT_NAMES: readonly string[] = [
  ...PROMETHEUS_ALERTS,
  ...SLO_BURN_RATE_ALERTS.map((pair) => pair.alert),
];

export function monitoringSnippets(): Record<string, Snippet> {
  const cli = studioServe();
  const dashboardArgs = ["grafana", "--slo", SLO];
  const printed = cli.run(dashboardArgs);
  if (printed !== `${JSON.stringify(grafanaDashboard({ slo: SLO }), null, 2)}\n`) {
    throw new Error(`studio-serve ${dashboardArgs.join(" ")} does not print what grafanaDashboard builds`);
  }
  if (!cli.run(["prometheus", "--help"]).includes("--launch P")) {
    throw new Error("studio-serve prometheus takes no --launch P: the guide's second step would fail");
  }
  // What `prometheus --launch 8000` writes for a launch of two instances: ports P+1.., the metrics P+N+1.
  const instances = Array.from({ length: INSTANCES }, (_, i) => `127.0.0.1:${LAUNCH_PORT + 1 + i}`);
  const frontDoor = `127.0.0.1:${LAUNCH_PORT + INSTANCES + 1}`;
  const config = prometheusConfig({ targets: instances, frontDoorTargets: [frontDoor] });
  const fleetPanels = dashboardPanels().filter((panel) => panel.row !== "Per instance");
  const table = [
    "| row | panel | what it shows, and what to do when it turns red |",
    "| --- | --- | --- |",
    ...fleetPanels.map(
      (panel) => `| ${panel.row} | ${panel.title} | ${panel.description.replaceAll("|", "\\|")} |`,
    ),
  ].join("\n");
  return {
    "three-commands": {
      lang: "sh",
      code: [
        `# 1. serve (any launch of --instances N; it prints where its front door's metrics are)`,
        `${cli.binName} launch full your-org/support-assistant --served-model-name support-assistant --instances ${INSTANCES}`,
        `# 2. in another terminal: Prometheus on the launch's instances and front door`,
        `${cli.binName} prometheus --launch ${LAUNCH_PORT} --slo ${SLO} --out ./monitoring`,
        "prometheus --config.file=./monitoring/prometheus.yml",
        "# 3. the dashboard, to import in Grafana (Dashboards > New > Import)",
        `${cli.binName} ${dashboardArgs.join(" ")} --out dashboard.json`,
      ].join("\n"),
    },
    "launch-config": { lang: "yaml", title: "monitoring/prometheus.yml", code: config },
    "panel-table": { lang: "markdown", code: table },
  };
}

import {
  DEFAULT_DASHBOARD_UID,
  type GrafanaDashboardOptions,
  grafanaDashboard,
} from "../monitoring/grafana-dashboard.js";
import type { ServeOptions } from "../serve-options.js";
import { CHART_LONGEST_SUFFIX } from "./chart.js";
import { normalizeStackOptions } from "./normalize-stack.js";
import type { StackOptions } from "./stack-options.js";

/** A ConfigMap that Grafana's dashboard sidecar (the grafana chart's `sidecar.dashboards`) imports. */
export interface DashboardConfigMap {
  apiVersion: "v1";
  kind: "ConfigMap";
  metadata: { name: string; namespace?: string; labels: { grafana_dashboard: "1" } };
  data: Record<string, string>;
}

/**
 * The Grafana dashboard `grafanaDashboard` builds, as a ConfigMap for Grafana's sidecar, which imports every
 * ConfigMap labelled `grafana_dashboard` (the grafana and kube-prometheus-stack charts' default). Its queries
 * read the scrape job Prometheus gives the chart's engines: by default the engine Service's name
 * (`<release>-<name>-engine-service`, what a ServiceMonitor on it names its job). Takes the same serve
 * configuration and options as `buildStackValues`; pure.
 */
export function buildStackDashboard(
  config: ServeOptions,
  options: StackOptions = {},
  dashboard: GrafanaDashboardOptions = {},
): DashboardConfigMap {
  const stack = normalizeStackOptions(config, options);
  const engineService = `${stack.release}-${stack.name}${CHART_LONGEST_SUFFIX}`;
  const built = grafanaDashboard({ jobName: engineService, ...dashboard });
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${stack.release}-${stack.name}-dashboard`,
      ...(stack.namespace === undefined ? {} : { namespace: stack.namespace }),
      labels: { grafana_dashboard: "1" },
    },
    data: { [`${built.uid ?? DEFAULT_DASHBOARD_UID}.json`]: JSON.stringify(built, null, 2) },
  };
}

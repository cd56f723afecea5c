import { readFileSync } from "node:fs";
import { join } from "node:path";
import { autoscalingSnippets } from "./autoscaling-snippets.js";
import type { IndexEntry } from "./index-page.js";
import type { Snippet } from "./markdown.js";
import { monitoringSnippets } from "./monitoring-snippets.js";
import { contentDir } from "./paths.js";
import { servingSnippets } from "./serving-snippets.js";

/** A guide: Markdown prose from content/, plus the snippets generated for it at build time. */
export interface Guide extends IndexEntry {
  readonly navLabel: string;
  markdown(): string;
  snippets(): Record<string, Snippet>;
}

const readContent = (file: string) => () => readFileSync(join(contentDir, file), "utf8");

export const guides: readonly Guide[] = [
  {
    file: "quickstart.html",
    title: "Quickstart",
    navLabel: "Quickstart",
    summary:
      "Install the client; read a project tree and recommendations, update a trace; poll; handle errors.",
    markdown: readContent("quickstart.md"),
    snippets: () => ({}),
  },
  {
    file: "serving.html",
    title: "Serving guide",
    navLabel: "Serving",
    summary:
      "Serve a fine-tuned model with vLLM (full or LoRA), call it with our client or openai, scale it behind a load balancer, update it.",
    markdown: readContent("serving.md"),
    snippets: servingSnippets,
  },
  {
    file: "monitoring.html",
    title: "Monitoring guide",
    navLabel: "Monitoring",
    summary:
      "From a running launch to a Grafana dashboard in three commands: Prometheus on the instances and the front door, SLOs, alerts.",
    markdown: readContent("monitoring.md"),
    snippets: monitoringSnippets,
  },
  {
    file: "autoscaling.html",
    title: "Autoscaling guide",
    navLabel: "Autoscaling",
    summary:
      "As many instances as the load needs, on one machine and on Kubernetes: the thresholds, how to pick them from a measurement, what sleeping instances cost.",
    markdown: readContent("autoscaling.md"),
    snippets: autoscalingSnippets,
  },
];

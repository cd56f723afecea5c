import type { ProjectTree } from "@finetune-studio/types";
import studio from "@finetune-studio/types/studio.openapi.json" with { type: "json" };
import { describe, expect, it } from "vitest";
import { renderTree } from "./render-tree.js";

describe("renderTree", () => {
  it("draws every level with its label and status", () => {
    const tree = studio.components.examples.ProjectTreeFull.value as ProjectTree;
    expect(renderTree(tree.project)).toEqual([
      "Support assistant (project)",
      "└─ Support tickets 2026-Q3 (dataset) [processing]",
      "   └─ Snapshot 2026-10-01 (snapshot)",
      "      └─ LoRA sweep on Llama 3.1 8B (fine-tuning job) [processing]",
      "         ├─ Experiment #1 (experiment) [pending]",
      "         └─ Experiment #2 (experiment) [succeeded]",
    ]);
  });

  it("draws a project with no children as one line", () => {
    expect(
      renderTree({ id: "6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45", type: "project", name: "Empty" }),
    ).toEqual(["Empty (project)"]);
  });
});

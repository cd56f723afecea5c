import type { ProjectTree } from "@finetune-studio/types";
import { describe, expect, it } from "vitest";
import { emptyTree, fullTree } from "./test/fixtures.js";
import { findNodes, flattenTree, walkTree } from "./tree.js";

const labelOf = (node: { name?: string; label?: string }) => node.name ?? node.label;

describe("flattenTree", () => {
  it("lists every node depth first, parents before children, with its ancestors", () => {
    const entries = flattenTree(fullTree);
    expect(entries.map(({ node, path }) => [node.type, path.map((p) => p.type).join(">")])).toEqual([
      ["project", ""],
      ["dataset", "project"],
      ["snapshot", "project>dataset"],
      ["finetuning-job", "project>dataset>snapshot"],
      ["experiment", "project>dataset>snapshot>finetuning-job"],
      ["experiment", "project>dataset>snapshot>finetuning-job"],
    ]);
    expect(entries[5]?.path[0]).toBe(fullTree.project);
  });

  it("gives just the project for a project without children", () => {
    expect(flattenTree(emptyTree).map((e) => e.node)).toEqual([emptyTree.project]);
  });

  it("accepts a node as well as the { project } answer", () => {
    const dataset = fullTree.project.children?.[0];
    if (!dataset) throw new Error("fixture has a dataset");
    expect(flattenTree(dataset)).toHaveLength(5);
  });
});

describe("findNodes", () => {
  it("finds every node of a type", () => {
    expect(findNodes(fullTree, "experiment").map(labelOf)).toEqual(["Experiment #1", "Experiment #2"]);
    expect(findNodes(fullTree, "snapshot").map(labelOf)).toEqual(["Snapshot 2026-10-01"]);
    expect(findNodes(emptyTree, "dataset")).toEqual([]);
  });

  it("ignores a null children list", () => {
    const tree = {
      project: { id: fullTree.project.id, type: "project", name: "p", children: null },
    } as unknown as ProjectTree;
    expect(findNodes(tree, "dataset")).toEqual([]);
  });
});

describe("walkTree", () => {
  it("skips a node's children when visit returns false", () => {
    const seen: string[] = [];
    walkTree(fullTree, (node) => {
      seen.push(node.type);
      return node.type !== "snapshot";
    });
    expect(seen).toEqual(["project", "dataset", "snapshot"]);
  });

  it("does not change the tree", () => {
    const before = structuredClone(fullTree);
    walkTree(fullTree, () => undefined);
    flattenTree(fullTree);
    expect(fullTree).toEqual(before);
  });
});

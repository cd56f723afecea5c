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

/** A chain of `depth` datasets under a project: far deeper than any real tree, as a hostile answer may be. */
function chain(depth: number): ProjectTree {
  const project = { id: fullTree.project.id, type: "project", name: "deep", children: [] as unknown[] };
  let parent: { children: unknown[] } = project;
  for (let level = 1; level < depth; level++) {
    const child = { id: fullTree.project.id, type: "dataset", label: `level ${level}`, children: [] };
    parent.children.push(child);
    parent = child;
  }
  return { project } as unknown as ProjectTree;
}

describe("a tree 100,000 levels deep", () => {
  const deep = chain(100_000);

  it("is walked without overflowing the stack", () => {
    let visited = 0;
    let deepestPath = 0;
    walkTree(deep, (_node, path) => {
      visited++;
      deepestPath = Math.max(deepestPath, path.length);
    });
    expect(visited).toBe(100_000);
    expect(deepestPath).toBe(99_999);
  });

  it("is flattened, each entry's path built when read", () => {
    const entries = flattenTree(deep);
    expect(entries).toHaveLength(100_000);
    const last = entries[99_999];
    expect(last?.path).toHaveLength(99_999);
    expect(last?.path[0]).toBe(deep.project);
    expect(last?.path[99_998]).toBe(entries[99_998]?.node);
  });

  it("is searched", () => {
    expect(findNodes(deep, "dataset")).toHaveLength(99_999);
  });
});

describe("children that are not nodes", () => {
  it("are skipped, not crashed on", () => {
    const tree = {
      project: { ...fullTree.project, children: [null, 7, "x", ...(fullTree.project.children ?? [])] },
    } as unknown as ProjectTree;
    expect(flattenTree(tree).map((entry) => entry.node.type)).toEqual(
      flattenTree(fullTree).map((entry) => entry.node.type),
    );
  });
});

describe("the path walkTree passes", () => {
  it("holds the ancestors during the call, root first", () => {
    const seen: string[] = [];
    walkTree(fullTree, (node, path) => {
      seen.push(`${node.type}<${path.map((p) => p.type).join(">")}`);
    });
    expect(seen).toEqual([
      "project<",
      "dataset<project",
      "snapshot<project>dataset",
      "finetuning-job<project>dataset>snapshot",
      "experiment<project>dataset>snapshot>finetuning-job",
      "experiment<project>dataset>snapshot>finetuning-job",
    ]);
  });
});

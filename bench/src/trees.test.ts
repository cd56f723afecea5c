import { findNodes } from "@finetune-studio/client";
import { describe, expect, it } from "vitest";
import { countNodes, generateTree } from "./trees.js";

describe("generateTree", () => {
  it.each([1_000, 10_000, 12_345])("makes exactly %i nodes", (size) => {
    expect(countNodes(generateTree(size))).toBe(size);
  });

  it("fills every level, experiments most", () => {
    const tree = generateTree(10_000);
    const levels = ["dataset", "snapshot", "finetuning-job", "experiment"] as const;
    const counts = levels.map((type) => findNodes(tree, type).length);
    expect(counts).toEqual([10, 100, 1_000, 10_000 - 1 - 10 - 100 - 1_000]);
  });
});

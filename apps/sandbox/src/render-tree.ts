import type { TreeNode } from "@finetune-studio/types";

const levelNames: Record<TreeNode["type"], string> = {
  project: "project",
  dataset: "dataset",
  snapshot: "snapshot",
  "finetuning-job": "fine-tuning job",
  experiment: "experiment",
};

function describeNode(node: TreeNode): string {
  const title = node.type === "project" ? node.name : node.label;
  const status = node.status ? ` [${node.status}]` : "";
  return `${title} (${levelNames[node.type]})${status}`;
}

function childrenOf(node: TreeNode): readonly TreeNode[] {
  return "children" in node && Array.isArray(node.children) ? node.children : [];
}

/** The tree as indented lines with box-drawing branches, each node with its level and status. */
export function renderTree(root: TreeNode): string[] {
  const lines = [describeNode(root)];
  const visit = (node: TreeNode, prefix: string) => {
    const children = childrenOf(node);
    children.forEach((child, index) => {
      const last = index === children.length - 1;
      lines.push(`${prefix}${last ? "└─ " : "├─ "}${describeNode(child)}`);
      visit(child, `${prefix}${last ? "   " : "│  "}`);
    });
  };
  visit(root, "");
  return lines;
}

import type { ProjectTree, TreeNode, TreeNodeType } from "@finetune-studio/types";

// Pure helpers over a project tree. They read `children` defensively: the contract makes it optional at
// every level, and experiments have none.

/** A node and the nodes above it, root first (empty for the project itself). */
export interface TreeEntry<Node extends TreeNode = TreeNode> {
  readonly node: Node;
  readonly path: readonly TreeNode[];
}

/** The node type whose `type` is `T`: `NodeOfType<'experiment'>` is `ExperimentNode`. */
export type NodeOfType<T extends TreeNodeType> = Extract<TreeNode, { type: T }>;

/**
 * Visits `node` and everything below it, depth first, parents before children, in the order the service
 * sent them. `visit` gets the node and its ancestors (root first); returning `false` skips its children.
 */
export function walkTree(
  node: TreeNode | ProjectTree,
  visit: (node: TreeNode, path: readonly TreeNode[]) => unknown,
): void {
  const visitFrom = (current: TreeNode, path: readonly TreeNode[]) => {
    if (visit(current, path) === false) return;
    const children = childrenOf(current);
    if (children.length === 0) return; // most nodes are leaves: no ancestor list to build for them
    const below = [...path, current];
    for (const child of children) visitFrom(child, below);
  };
  visitFrom(rootOf(node), []);
}

/** Every node of the tree with its ancestors, in `walkTree` order. */
export function flattenTree(tree: ProjectTree | TreeNode): TreeEntry[] {
  const entries: TreeEntry[] = [];
  walkTree(tree, (node, path) => {
    entries.push({ node, path });
  });
  return entries;
}

/** Every node of one type, typed as that level: `findNodes(tree, 'experiment')` is `ExperimentNode[]`. */
export function findNodes<T extends TreeNodeType>(tree: ProjectTree | TreeNode, type: T): NodeOfType<T>[] {
  const found: NodeOfType<T>[] = [];
  walkTree(tree, (node) => {
    if (node.type === type) found.push(node as NodeOfType<T>);
  });
  return found;
}

function rootOf(node: TreeNode | ProjectTree): TreeNode {
  return "project" in node && typeof node.project === "object" && node.project !== null
    ? node.project
    : (node as TreeNode);
}

function childrenOf(node: TreeNode): readonly TreeNode[] {
  const children = (node as { children?: unknown }).children;
  return Array.isArray(children) ? (children as TreeNode[]) : [];
}

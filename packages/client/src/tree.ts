import type { ProjectTree, TreeNode, TreeNodeType } from "@finetune-studio/types";

// Walked with an explicit stack, never by recursion: a hostile answer can nest 100,000 levels. `children`
// is read defensively: the contract makes it optional at every level, and experiments have none.

/** A node and the nodes above it, root first (empty for the project itself). */
export interface TreeEntry<Node extends TreeNode = TreeNode> {
  readonly node: Node;
  /** Built when first read, so that listing a deep tree costs no more than walking it. */
  readonly path: readonly TreeNode[];
}

/** The node type whose `type` is `T`: `NodeOfType<'experiment'>` is `ExperimentNode`. */
export type NodeOfType<T extends TreeNodeType> = Extract<TreeNode, { type: T }>;

/**
 * Visits `node` and everything below it, depth first, parents before children, in the order the service
 * sent them. `visit` gets the node and its ancestors (root first); returning `false` skips its children.
 * `path` is the walk's own stack: read it during the call, and copy it (`[...path]`) to keep it.
 */
export function walkTree(
  node: TreeNode | ProjectTree,
  visit: (node: TreeNode, path: readonly TreeNode[]) => unknown,
): void {
  const root = "project" in node && typeof node.project === "object" && node.project ? node.project : node;
  const path: TreeNode[] = [];
  // Each entry: a node still to visit and its depth. Children go on in reverse, so they come off in order.
  const stack: [unknown, number][] = [[root, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [child, depth] = next;
    // A child that is not an object (`null` in a broken answer) is not a node: skip it, do not crash.
    if (typeof child !== "object" || child === null) continue;
    path.length = depth;
    if (visit(child as TreeNode, path) === false) continue;
    const { children } = child as { children?: unknown };
    if (!Array.isArray(children)) continue;
    path.push(child as TreeNode);
    for (let index = children.length - 1; index >= 0; index--) stack.push([children[index], depth + 1]);
  }
}

/** Every node of the tree with its ancestors, in `walkTree` order. */
export function flattenTree(tree: ProjectTree | TreeNode): TreeEntry[] {
  const entries: Entry[] = [];
  // The last entry made at each depth: at a node's visit, the one above it is its parent's.
  const last: Entry[] = [];
  walkTree(tree, (node, path) => {
    const entry = new Entry(node, last[path.length - 1]);
    last[path.length] = entry;
    entries.push(entry);
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

/** An entry that knows its parent's, so its path is built only when read. */
class Entry implements TreeEntry {
  #path: readonly TreeNode[] | undefined;

  constructor(
    readonly node: TreeNode,
    private readonly parent: Entry | undefined,
  ) {}

  get path(): readonly TreeNode[] {
    if (this.#path === undefined) {
      const path: TreeNode[] = [];
      for (let at = this.parent; at !== undefined; at = at.parent) path.push(at.node);
      this.#path = path.reverse();
    }
    return this.#path;
  }
}

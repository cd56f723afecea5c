import type { ProjectTree, TreeNode, TreeNodeType } from "@finetune-studio/types";

// Pure helpers over a project tree. They walk with an explicit stack, never by recursion, so a tree of any
// depth (a broken or hostile answer can nest 100,000 levels) cannot overflow the call stack, and they read
// `children` defensively: the contract makes it optional at every level, and experiments have none.

/** A node and the nodes above it, root first (empty for the project itself). */
export interface TreeEntry<Node extends TreeNode = TreeNode> {
  readonly node: Node;
  /** Built when first read, so that listing a deep tree costs no more than walking it. */
  readonly path: readonly TreeNode[];
}

/** The node type whose `type` is `T`: `NodeOfType<'experiment'>` is `ExperimentNode`. */
export type NodeOfType<T extends TreeNodeType> = Extract<TreeNode, { type: T }>;

/** A node whose children are being visited: the next child's index and the entry of the node itself. */
interface Frame {
  readonly children: readonly unknown[];
  next: number;
  readonly entry: Entry | undefined;
}

/**
 * Visits `node` and everything below it, depth first, parents before children, in the order the service
 * sent them. `visit` gets the node and its ancestors (root first); returning `false` skips its children.
 * `path` is the walk's own stack: read it during the call, and copy it (`[...path]`) to keep it.
 */
export function walkTree(
  node: TreeNode | ProjectTree,
  visit: (node: TreeNode, path: readonly TreeNode[]) => unknown,
): void {
  walk(rootOf(node), visit, false);
}

/** Every node of the tree with its ancestors, in `walkTree` order. */
export function flattenTree(tree: ProjectTree | TreeNode): TreeEntry[] {
  const entries: TreeEntry[] = [];
  walk(
    rootOf(tree),
    (_node, _ancestors, entry) => {
      entries.push(entry as Entry);
    },
    true,
  );
  return entries;
}

/** Every node of one type, typed as that level: `findNodes(tree, 'experiment')` is `ExperimentNode[]`. */
export function findNodes<T extends TreeNodeType>(tree: ProjectTree | TreeNode, type: T): NodeOfType<T>[] {
  const found: NodeOfType<T>[] = [];
  walk(
    rootOf(tree),
    (node) => {
      if (node.type === type) found.push(node as NodeOfType<T>);
    },
    false,
  );
  return found;
}

/** An entry that knows its parent's entry, so its path is built only when read. */
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

/** Pre-order walk with an explicit stack; `withEntries` builds the parent-linked entries flattenTree keeps. */
function walk(
  root: TreeNode,
  visit: (node: TreeNode, ancestors: readonly TreeNode[], entry: Entry | undefined) => unknown,
  withEntries: boolean,
): void {
  const ancestors: TreeNode[] = [];
  const frames: Frame[] = [];
  const enter = (node: TreeNode, parent: Entry | undefined) => {
    const entry = withEntries ? new Entry(node, parent) : undefined;
    if (visit(node, ancestors, entry) === false) return;
    const children = childrenOf(node);
    if (children.length === 0) return;
    ancestors.push(node);
    frames.push({ children, next: 0, entry });
  };
  enter(root, undefined);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1] as Frame;
    if (frame.next === frame.children.length) {
      frames.pop();
      ancestors.pop();
      continue;
    }
    const child = frame.children[frame.next++];
    // A child that is not an object (`null` in a broken answer) is not a node: skip it, do not crash.
    if (typeof child === "object" && child !== null) enter(child as TreeNode, frame.entry);
  }
}

function rootOf(node: TreeNode | ProjectTree): TreeNode {
  return "project" in node && typeof node.project === "object" && node.project !== null
    ? node.project
    : (node as TreeNode);
}

function childrenOf(node: TreeNode): readonly unknown[] {
  const children = (node as { children?: unknown }).children;
  return Array.isArray(children) ? children : [];
}

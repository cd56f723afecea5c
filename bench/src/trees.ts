// Project trees of a chosen size, shaped like real ones: a project, its datasets, their snapshots, their
// fine-tuning jobs, and experiments below. Each level fans out about size^(1/4) ways, so every level grows
// with the size, and experiments fill up to the exact node count.
import type {
  DatasetNode,
  ExperimentNode,
  FinetuningJobNode,
  ProjectTree,
  SnapshotNode,
} from "@finetune-studio/client";

/** A uuid-shaped id that is unique in the tree and cheap to make. */
function idOf(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** A tree of exactly `size` nodes (at least the 1 + b + b² + b³ nodes above the experiments). */
export function generateTree(size: number): ProjectTree {
  const fanOut = Math.max(1, Math.round(size ** 0.25));
  const jobs: FinetuningJobNode[] = [];
  let next = 0;
  const node = <T extends string>(type: T, label: string) =>
    ({ id: idOf(next++), type, label, status: "succeeded" }) as const;

  const datasets: DatasetNode[] = [];
  for (let d = 0; d < fanOut; d++) {
    const snapshots: SnapshotNode[] = [];
    for (let s = 0; s < fanOut; s++) {
      const snapshotJobs: FinetuningJobNode[] = [];
      for (let j = 0; j < fanOut; j++) {
        const job: FinetuningJobNode = { ...node("finetuning-job", `job ${j}`), children: [] };
        snapshotJobs.push(job);
        jobs.push(job);
      }
      snapshots.push({ ...node("snapshot", `snapshot ${s}`), children: snapshotJobs });
    }
    datasets.push({ ...node("dataset", `dataset ${d}`), children: snapshots });
  }
  const project = { id: idOf(next++), type: "project" as const, name: "generated", children: datasets };

  // Experiments go round-robin over the jobs, so every job gets its share.
  const experiments = size - next;
  for (let e = 0; e < experiments; e++) {
    const job = jobs[e % jobs.length] as FinetuningJobNode;
    const experiment: ExperimentNode = node("experiment", `experiment ${e}`);
    job.children?.push(experiment);
  }
  return { project };
}

export function countNodes(tree: ProjectTree): number {
  let total = 0;
  const visit = (node: { children?: readonly unknown[] }) => {
    total++;
    for (const child of node.children ?? []) visit(child as { children?: readonly unknown[] });
  };
  visit(tree.project);
  return total;
}

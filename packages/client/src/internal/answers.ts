import { describeValue } from "@finetune-studio/internal";
import type { ProjectTree, Recommendations, Trace } from "@finetune-studio/types";
import { StudioError } from "../errors.js";
import type { Call } from "./core.js";
import { isPlainObject } from "./validate.js";

// A 2xx answer is untrusted too: a proxy may answer 200 with something else, a server with another
// resource. Cheap checks (no schema validator) of what a caller relies on: the promised shape, and that
// the answer is the resource asked for.

/** The error for a 2xx answer that breaks `rule`; `got`, when given, is the part that broke it. */
export function wrongAnswer(call: Call, rule: string, ...got: [unknown?]): StudioError {
  const answered = `${call.method} ${call.path} answered ${call.answered?.status ?? "2xx"} with`;
  if (call.answered?.body === null || call.emptyBody)
    return new StudioError(`${answered} an empty body: ${rule}`);
  const given = got.length > 0 ? ` (got ${describeValue(got[0])})` : "";
  return new StudioError(`${answered} a body that breaks the contract: ${rule}${given}`);
}

/** `{ project }` whose every `children`, at any depth, is an array of objects. Walked without recursion. */
export function expectProjectTree(call: Call, tree: ProjectTree | undefined): ProjectTree {
  const data: unknown = tree;
  if (!isPlainObject(data)) throw wrongAnswer(call, "a project tree is an object", data);
  if (!isPlainObject(data.project))
    throw wrongAnswer(call, "a project tree has a project object", data.project);
  const pending = [data.project];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const { children } = node;
    if (children === undefined) continue;
    if (!Array.isArray(children)) throw wrongAnswer(call, "a node's children are an array", children);
    for (const child of children) {
      if (!isPlainObject(child)) throw wrongAnswer(call, "a node's children are objects", child);
      pending.push(child);
    }
  }
  return tree as ProjectTree;
}

/** Recommendations for `snapshotId`, with a string status and lists that are arrays when present. */
export function expectRecommendations(
  call: Call,
  recommendations: Recommendations | undefined,
  snapshotId: string,
): Recommendations {
  const data: unknown = recommendations;
  if (!isPlainObject(data)) throw wrongAnswer(call, "recommendations are an object", data);
  if (typeof data.status !== "string") throw wrongAnswer(call, "status is a string", data.status);
  if (!sameId(data.snapshot_id, snapshotId)) {
    throw wrongAnswer(call, `snapshot_id is the snapshot asked for, ${snapshotId}`, data.snapshot_id);
  }
  for (const list of ["recommended_models", "recommended_experiments"]) {
    const value = data[list];
    if (value != null && !Array.isArray(value)) throw wrongAnswer(call, `${list} is an array or null`, value);
  }
  return recommendations as Recommendations;
}

/** The trace asked for: an object whose id is `traceId`. */
export function expectTrace(call: Call, trace: Trace | undefined, traceId: string): Trace {
  const data: unknown = trace;
  if (!isPlainObject(data)) throw wrongAnswer(call, "a trace is an object", data);
  if (!sameId(data.id, traceId)) throw wrongAnswer(call, `id is the trace asked for, ${traceId}`, data.id);
  return trace as Trace;
}

/** uuids name the same thing in either case. */
function sameId(got: unknown, asked: string): boolean {
  return typeof got === "string" && got.toLowerCase() === asked.toLowerCase();
}

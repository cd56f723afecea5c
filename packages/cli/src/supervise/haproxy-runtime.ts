import { connect } from "node:net";
import { HAPROXY_BACKEND, haproxyServerName } from "@finetune-studio/serve-kit/internal";

// HAProxy's runtime API on its admin socket: one command per connection, answered by text, then closed.
// launch drains and readies instances through it, so the data path never needs a reload.

/** Bounds on what HAProxy answers: `show stat` of one small backend is a few KiB. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const ANSWER_TIMEOUT_MS = 5_000;

/** The server states launch sets: `drain` takes no new request, `maint` none at all, `ready` serves. */
export type ServerState = "ready" | "drain" | "maint";

/** Sends one command; resolves with the answer, rejects when the socket is gone, slow or answers too much. */
export function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (why: string) => {
      connection.destroy();
      reject(new Error(`HAProxy's runtime API ${why}`));
    };
    connection.setTimeout(ANSWER_TIMEOUT_MS, () =>
      fail(`did not answer "${command}" within ${ANSWER_TIMEOUT_MS / 1000} s`),
    );
    connection.once("connect", () => connection.write(`${command}\n`));
    connection.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) fail(`answered more than ${MAX_ANSWER_BYTES} bytes to "${command}"`);
      else chunks.push(chunk);
    });
    connection.once("error", (error) => fail(`is unreachable (${error.message})`));
    connection.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** Sets instance `index`'s state; throws with HAProxy's words when it refuses. */
export async function setServerState(socket: string, index: number, state: ServerState): Promise<void> {
  const server = `${HAPROXY_BACKEND}/${haproxyServerName(index)}`;
  await expectSilence(socket, `set server ${server} state ${state}`);
  // Back in service, it takes requests at once instead of after its health checks pass again.
  if (state === "ready") await expectSilence(socket, `set server ${server} health up`);
}

async function expectSilence(socket: string, command: string): Promise<void> {
  const answer = (await runtimeCommand(socket, command)).trim();
  if (answer !== "") throw new Error(`HAProxy refused "${command}": ${answer.slice(0, 200)}`);
}

/**
 * Requests instance `index` is serving or holds in its own queue, from `show stat`: the instance is one
 * server of the one backend, whatever routing sent each request to it.
 */
export async function openRequests(socket: string, index: number): Promise<number> {
  const name = haproxyServerName(index);
  const row = parseStat(await runtimeCommand(socket, "show stat")).find(
    (entry) => entry.pxname === HAPROXY_BACKEND && entry.svname === name,
  );
  if (row === undefined) throw new Error(`HAProxy's show stat has no server ${name}`);
  return Number(row.scur ?? 0) + Number(row.qcur ?? 0);
}

/** `show stat`'s CSV: a `# name,name,...` header, then one row per proxy and server. */
export function parseStat(text: string): Record<string, string>[] {
  const [header, ...lines] = text.split("\n");
  if (header === undefined || !header.startsWith("# ")) {
    throw new Error(
      `HAProxy's show stat did not start with its header (got ${JSON.stringify(text.slice(0, 60))})`,
    );
  }
  const names = header.slice(2).split(",");
  return lines
    .filter((line) => line.trim() !== "")
    .map((line) => Object.fromEntries(line.split(",").map((value, i) => [names[i] ?? `#${i}`, value])));
}

/**
 * Requests HAProxy holds for a free slot: every instance runs at most --max-num-seqs, so past that the front
 * door queues (in the backend's queue, or a server's own for a request routed to it) where vLLM would have.
 * The sum of `qcur` over the backend's rows, its own and its servers'.
 */
export async function queuedRequests(socket: string): Promise<number> {
  const rows = parseStat(await runtimeCommand(socket, "show stat")).filter(
    (entry) => entry.pxname === HAPROXY_BACKEND,
  );
  return rows.reduce((sum, entry) => sum + (Number(entry.qcur) || 0), 0);
}

// `pnpm bench`: runs every measurement once, prints the tables, and writes them to bench/RESULTS.md.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describeMachine, oneMinuteLoad } from "./machine.js";
import { measureBundleSizes } from "./measure/bundle-size.js";
import { measureCalls } from "./measure/call-overhead.js";
import { measureColdImports } from "./measure/cold-import.js";
import { fullElastic, measureElastic, quickElastic } from "./measure/elastic.js";
import { fullFrontDoor, measureFrontDoor, quickFrontDoor } from "./measure/front-door.js";
import { measureLoadGenerator } from "./measure/load-generator.js";
import { fullRouting, measureRouting, quickRouting } from "./measure/routing.js";
import { fullStreamRun, measureStreaming, quickStreamRun } from "./measure/stream-bench.js";
import { measureTreeHelpers } from "./measure/tree-helpers.js";
import { renderReport, type Section } from "./report.js";
import { chatScenarios } from "./scenarios/chat.js";
import { studioOperations } from "./scenarios/studio.js";
import { IN_PROCESS_URL, withAnswersInProcess } from "./server/in-process-fetch.js";
import { type AnsweringServer, startAnsweringServer } from "./server/start-answering-server.js";
import { type BenchSettings, fullRun, quickRun } from "./settings.js";

const quick = process.argv.includes("--quick");
/** `--front-door`: the front door's sections alone, printed, RESULTS.md left as it is. */
const frontDoorOnly = process.argv.includes("--front-door");
/** `--routing`: the routing section alone, printed, RESULTS.md left as it is. */
const routingOnly = process.argv.includes("--routing");
/** `--elastic`: elastic serving alone (the autoscaler against a fixed fleet and KEDA's policy), printed, RESULTS.md left as it is. */
const elasticOnly = process.argv.includes("--elastic");
/** `--client`: the client's sections alone (all but the load generator, the front door and routing), printed, RESULTS.md left as it is. */
const clientOnly = process.argv.includes("--client");
const settings: BenchSettings = quick ? quickRun : fullRun;
const resultsFile = fileURLToPath(new URL("../RESULTS.md", import.meta.url));

function step(message: string): void {
  console.error(`[bench ${(performance.now() / 1000).toFixed(0)}s] ${message}`);
}

async function callSections(server: AnsweringServer): Promise<Section[]> {
  const { sequential, concurrent, callers } = settings.calls;
  const shape = `${sequential.calls.toLocaleString("en-US")} sequential calls per row after ${sequential.warmupCalls} warm-up calls, in ${sequential.rounds} interleaved rounds; then ${concurrent.calls.toLocaleString("en-US")} calls by ${callers} concurrent callers sharing one client, in ${concurrent.rounds} interleaved rounds: throughput is the median round's rate. Each comparison is taken round by round (the rows ran back to back in each round) and shown as the median over the rounds with its interquartile range in brackets; "vs baseline" compares with the peer given the same timeout as our client.`;
  step("Studio operations");
  const studio = await measureCalls(studioOperations(server.url), settings.calls);
  step("Studio operations, answered in-process");
  const ownTime = await withAnswersInProcess(() =>
    measureCalls(studioOperations(IN_PROCESS_URL), settings.calls),
  );
  step("chat completion");
  const chat = await measureCalls(
    [{ name: "chat completion", scenarios: chatScenarios(server.url) }],
    settings.calls,
  );
  return [
    {
      title: "Per-call overhead: the three Studio operations",
      method: `Each call goes to a local node:http server in its own process that answers with the contract's example (ProjectTreeFull, RecommendationsCompleted, TraceScored). Raw fetch builds the same request by hand; openapi-fetch runs bare, then with a 60 s AbortSignal.timeout per call; @finetune-studio/client runs with validation on, 2 retries and a 60 s per-attempt timeout. ${shape} Target (issue #32): the client's median at most 15 µs above that of openapi-fetch given the same 60 s timeout signal per call (AbortSignal.timeout), on each operation.`,
      table: studio,
    },
    {
      title: "Per-call overhead without the network: the libraries' own time",
      method: `The same three calls, with globalThis.fetch replaced by an in-process function that reads the request and answers with the same bodies: no socket, no server process, none of fetch's own work. What is left is each library's code, so the shared machine's noise, which moves the medians above by ±15 µs from run to run, mostly falls away. ${shape} It explains the table above and is not a target: fetch's work differs by how a library calls it (the client hands fetch its attempt's timeout signal, which fetch then follows).`,
      table: ownTime,
    },
    {
      title: "Chat call: our chat client vs the openai package",
      method: `The same local server answers POST /v1/chat/completions with the ChatCompletionReply example; each package runs with its defaults, and every caller writes the request object as JSON per call. "raw fetch + timeout signal" is raw fetch given AbortSignal.timeout(600 s), our default: the floor for any client that bounds its wait. ${shape} Target (issue #32): our throughput with 64 callers at least 0.9× raw fetch's and above openai's.`,
      table: chat,
    },
  ];
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  const machine = describeMachine();
  const sections: Section[] = [];

  if (routingOnly) {
    console.log(
      renderReport(
        machine,
        [await measureRouting(quick ? quickRouting : fullRouting, step)],
        performance.now() - startedAt,
      ),
    );
    return;
  }
  if (elasticOnly) {
    const elastic = await measureElastic(quick ? quickElastic : fullElastic, step);
    machine.loadAtEnd = oneMinuteLoad();
    console.log(renderReport(machine, elastic, performance.now() - startedAt));
    return;
  }
  if (frontDoorOnly) {
    sections.push(...(await measureFrontDoor(quick ? quickFrontDoor : fullFrontDoor, step)));
    sections.push(await measureRouting(quick ? quickRouting : fullRouting, step));
    console.log(renderReport(machine, sections, performance.now() - startedAt));
    return;
  }

  step("starting the answering server");
  const server = await startAnsweringServer();
  // Stops the server and the run if anything hangs: the bench must always end by itself.
  const abandon = (why: string, code: number) => {
    console.error(`bench: ${why}, stopping`);
    void server.stop().finally(() => process.exit(code));
  };
  const watchdog = setTimeout(
    () => abandon(`still running after ${settings.deadlineMs / 1000} s`, 1),
    settings.deadlineMs,
  );
  watchdog.unref();
  // The server runs in its own process group, so Ctrl-C does not reach it: stop it before leaving.
  const interrupted = () => abandon("interrupted", 130);
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    sections.push(...(await callSections(server)));
  } finally {
    await server.stop();
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
  }

  sections.push(...(await measureStreaming(quick ? quickStreamRun : fullStreamRun, step)));

  if (!clientOnly) {
    sections.push(await measureLoadGenerator(quick, step));
    step("front door");
    sections.push(...(await measureFrontDoor(quick ? quickFrontDoor : fullFrontDoor, step)));
    sections.push(await measureRouting(quick ? quickRouting : fullRouting, step));
  }

  step("bundle sizes");
  sections.push({
    title: "Bundle size",
    method:
      "esbuild bundles a one-line entry that re-exports what an app would import (browser platform, ESM, minified, tree-shaken, es2022); the output is gzipped at level 9. Target (issue #21): the whole client at most 11.5 KiB (under a third of openai's chat entry), createStudioClient alone at most 6.5 KiB, createChatClient alone (streaming included) at most 9.0 KiB.",
    table: await measureBundleSizes(),
  });

  step("cold imports");
  sections.push({
    title: "Cold import time",
    method:
      "A fresh `node --input-type=module -e` per run times `await import(...)` inside itself (Node's own start-up left out); in each round every package is imported once, in a rotating order, after one untimed run each. The ratios to openapi-fetch are taken round by round: their median and interquartile range, wall-clock and in the process's CPU time (which a busy machine's queueing leaves out). Target (issues #10 and #21): our median at most 1.25× openapi-fetch's and at most 0.20× openai's.",
    table: await measureColdImports(settings.coldImportRuns),
  });

  step("tree helpers");
  sections.push({
    title: "Tree helpers",
    method: `Generated project trees (datasets, snapshots, jobs and experiments, each level fanning out about size^(1/4) ways), passed through JSON as a response would be. Median of ${settings.trees.minRuns} to ${settings.trees.maxRuns.toLocaleString("en-US")} runs (about ${settings.trees.targetMs} ms) per row, after a warm-up. Linear growth shows as a per-node time that stops rising and a growth near 10× per step; "time in GC" is the garbage collector's share of the timed runs, which rises once the result (for flattenTree, one entry and one ancestor path per node) outgrows V8's young generation.`,
    table: await measureTreeHelpers(settings.trees),
  });
  clearTimeout(watchdog);

  if (!clientOnly) {
    // After the watchdog: its runs are timed by their stages (about 23 minutes in all), each launch stopped
    // with its whole group whatever happens.
    sections.push(...(await measureElastic(quick ? quickElastic : fullElastic, step)));
  }

  machine.loadAtEnd = oneMinuteLoad();
  const report = renderReport(machine, sections, performance.now() - startedAt);
  console.log(report);
  if (quick || clientOnly) {
    step(`${quick ? "quick" : "client-only"} run: RESULTS.md left as it was`);
  } else {
    writeFileSync(resultsFile, report);
    step(`wrote ${resultsFile}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

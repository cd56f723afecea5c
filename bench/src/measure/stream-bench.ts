// Streaming: how fast each reader parses a long stream, how soon it hands over the first chunk, and what
// streaming adds to the client bundle. The readers run interleaved in rounds, in a rotating order, against
// one streaming server in its own process, so a slow spell of the shared machine falls on all of them.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "esbuild";
import { count, kib, micros, perSecond, ratio } from "../format.js";
import type { Section } from "../report.js";
import { type StreamReader, streamReaders } from "../scenarios/stream.js";
import { type AnsweringServer, startServerProcess } from "../server/start-answering-server.js";
import { median, summarize } from "../stats.js";
import { markdownTable } from "../table.js";
import { bundleSize } from "./bundle-size.js";

export interface StreamSettings {
  /** Token chunks in the long stream. */
  readonly tokens: number;
  /** Long streams read per reader (one per round), after `warmupStreams` untimed ones. */
  readonly rounds: number;
  readonly warmupStreams: number;
  /** First-chunk timings per reader: `firstChunkRounds` rounds of `firstChunkCalls`, after 50 untimed. */
  readonly firstChunkRounds: number;
  readonly firstChunkCalls: number;
}

export const fullStreamRun: StreamSettings = {
  tokens: 10_000,
  rounds: 15,
  warmupStreams: 3,
  firstChunkRounds: 20,
  firstChunkCalls: 50,
};
export const quickStreamRun: StreamSettings = {
  tokens: 10_000,
  rounds: 2,
  warmupStreams: 1,
  firstChunkRounds: 2,
  firstChunkCalls: 20,
};

const rotate = <T>(items: readonly T[], round: number) => {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
};

function startStreamServer(): Promise<AnsweringServer> {
  return startServerProcess(fileURLToPath(new URL("./stream-server.js", import.meta.url)));
}

async function chunksPerSecond(readers: readonly StreamReader[], settings: StreamSettings) {
  for (const reader of readers)
    for (let i = 0; i < settings.warmupStreams; i++) await reader.readAll(settings.tokens);
  const rates = new Map<StreamReader, number[]>(readers.map((reader) => [reader, []]));
  for (let round = 0; round < settings.rounds; round++) {
    for (const reader of rotate(readers, round)) {
      const started = performance.now();
      const chunks = await reader.readAll(settings.tokens);
      rates.get(reader)?.push(chunks / ((performance.now() - started) / 1000));
    }
  }
  return new Map([...rates].map(([reader, samples]) => [reader, median(samples)]));
}

async function firstChunkTimes(readers: readonly StreamReader[], settings: StreamSettings) {
  for (const reader of readers) for (let i = 0; i < 50; i++) await reader.firstChunk(4);
  const times = new Map<StreamReader, number[]>(readers.map((reader) => [reader, []]));
  for (let round = 0; round < settings.firstChunkRounds; round++) {
    for (const reader of rotate(readers, round)) {
      for (let i = 0; i < settings.firstChunkCalls; i++) times.get(reader)?.push(await reader.firstChunk(4));
    }
  }
  return new Map([...times].map(([reader, samples]) => [reader, summarize(samples)]));
}

/** The client's sources: the stream module can be swapped out there, which the single-file dist cannot. */
const clientSources = join(
  dirname(createRequire(import.meta.url).resolve("@finetune-studio/client/package.json")),
  "src",
);

/** Replaces the stream module with an empty class: the client as it would be without streaming. */
const withoutStreaming: Plugin = {
  name: "without-streaming",
  setup(build) {
    build.onLoad({ filter: /[\\/]stream[\\/]chat-completion-stream\.ts$/ }, () => ({
      contents: "export class ChatCompletionStream {}",
      loader: "ts",
    }));
  },
};

async function streamBundleRow(): Promise<string> {
  const entry = `export * from ${JSON.stringify(join(clientSources, "index.ts"))};`;
  const core = await bundleSize(entry, clientSources, [withoutStreaming]);
  const withStream = await bundleSize(entry, clientSources);
  const added = withStream.gzipped - core.gzipped;
  return markdownTable(
    ["bundle", "minified", "minified + gzip", "added by streaming"],
    [
      [
        "@finetune-studio/client, public entry without the stream module",
        kib(core.minified),
        kib(core.gzipped),
        "",
      ],
      ["the same with streaming", kib(withStream.minified), kib(withStream.gzipped), kib(added)],
    ],
    ["left"],
  );
}

export async function measureStreaming(
  settings: StreamSettings,
  step: (message: string) => void,
): Promise<Section[]> {
  const server = await startStreamServer();
  let rates: Map<StreamReader, number>;
  let firsts: Map<StreamReader, ReturnType<typeof summarize>>;
  const readers = streamReaders(server.url);
  try {
    step("streaming: chunks per second");
    rates = await chunksPerSecond(readers, settings);
    step("streaming: time to first chunk");
    firsts = await firstChunkTimes(readers, settings);
  } finally {
    await server.stop();
  }
  const openai = readers.find((reader) => reader.reader === "openai");
  const raw = readers[0] as StreamReader;
  const rateRows = readers.map((reader) => [
    reader.reader,
    perSecond(rates.get(reader) ?? 0),
    openai === undefined ? "" : ratio(rates.get(reader) ?? 0, rates.get(openai) ?? 1),
  ]);
  const rawFirst = firsts.get(raw)?.median ?? 1;
  const firstRows = readers.map((reader) => {
    const summary = firsts.get(reader);
    return [
      reader.reader,
      micros(summary?.median ?? 0),
      micros(summary?.p99 ?? 0),
      ratio(summary?.median ?? 0, rawFirst),
    ];
  });
  step("streaming: bundle size");
  return [
    {
      title: "Streaming: chunks per second over a long stream",
      method: `A local server in its own process streams ${count(settings.tokens)} token chunks in vLLM's framing (16 KiB writes); each reader reads ${settings.rounds} such streams, one per round in a rotating order, after ${settings.warmupStreams} untimed ones. Median chunks per second. Raw fetch only counts body bytes, parsing nothing: the floor. Target: ours at least openai's.`,
      table: markdownTable(["reader", "chunks per second", "vs openai"], rateRows, ["left"]),
    },
    {
      title: "Streaming: time to first chunk",
      method: `From sending the request to holding the first chunk (the first body bytes for raw fetch), on a 6-chunk stream that is then drained so the connection is reused. ${count(settings.firstChunkRounds * settings.firstChunkCalls)} calls per reader in ${settings.firstChunkRounds} interleaved rounds, after 50 untimed. Target: ours within 1.1× raw fetch.`,
      table: markdownTable(["reader", "median", "p99", "median vs raw fetch"], firstRows, ["left"]),
    },
    {
      title: "Streaming: bundle size",
      method:
        "esbuild bundles the client's public entry from its sources, once with the stream module replaced by an empty class and once whole (browser platform, ESM, minified, es2022), gzipped at level 9. What streaming costs an app that imports it (issue #21 sets the targets of the whole bundles, in the bundle size section).",
      table: await streamBundleRow(),
    },
  ];
}

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildServeCommand, ServeConfigError, type ServeOptions } from "./index.js";
import { parseVllmServe, type VllmParse } from "./test/vllm-parser.js";

// The builder's promise, checked against a model of vLLM's own parser (test/vllm-parser.ts): whatever
// extraArgs hold, either the builder refuses them, or vLLM serves exactly the model, served names, adapters,
// host and port the builder was given, with no key in argv. A usage error (vLLM refuses to start with its
// usage line) is loud, so it is allowed; a crash or a config file is not.

const OWNED = [
  "--host",
  "--port",
  "--api-key",
  "--uds",
  "--model",
  "--served-model-name",
  "--enable-lora",
  "--no-enable-lora",
  "--lora-modules",
  "--max-lora-rank",
  "--max-loras",
  "--config",
];
const BENIGN: readonly (readonly string[])[] = [
  ["--max-model-len", "8192"],
  ["--dtype", "bfloat16"],
  ["--gpu-memory-utilization=0.85"],
  ["--enable-prefix-caching"],
  ["--max_num_seqs", "64"],
  ["-tp", "2"],
  ["--hf-overrides.rope_scaling.factor", "2.0"],
  ["--model-impl", "vllm"],
  ["--lora-dtype", "auto"],
  ["--chat-template", "/templates/chat.jinja"],
];

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);

/** One owned option in any spelling vLLM accepts: abbreviated, `_` for `-`, dotted, with `=value` or `+`. */
const ownedSpelling = fc
  .record({
    flag: fc.constantFrom(...OWNED),
    cut: fc.nat({ max: 8 }),
    underscores: fc.boolean(),
    dotted: fc.option(word, { nil: undefined }),
    plus: fc.boolean(),
    inline: fc.option(fc.constantFrom("9000", "0.0.0.0", "sk-secret", "other=/x", "x.yaml", '{"name":"a"}'), {
      nil: undefined,
    }),
  })
  .map(({ flag, cut, underscores, dotted, plus, inline }) => {
    let name = flag.slice(0, Math.max(3, flag.length - cut));
    if (underscores) name = `--${name.slice(2).replaceAll("-", "_")}`;
    if (dotted !== undefined) name = `${name}.${dotted}${plus ? "+" : ""}`;
    return inline === undefined ? name : `${name}=${inline}`;
  });

const hostileWord = fc.oneof(
  { weight: 4, arbitrary: ownedSpelling },
  { weight: 2, arbitrary: fc.constantFrom("-1", "-.5", "-0.5", "-1e3", "-", "-x.y", "9000", "other/model") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("a=b", "/other", "sk-secret", "0.0.0.0", "x.yaml", '{"name":"a","path":"/p"}'),
  },
  { weight: 3, arbitrary: fc.constantFrom(...BENIGN.flat()) },
);

const hostileExtraArgs = fc.oneof(
  fc.array(hostileWord, { minLength: 1, maxLength: 6 }),
  // Benign options around a hostile one, as a real command line would look.
  fc
    .tuple(
      fc.constantFrom(...BENIGN),
      fc.array(hostileWord, { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...BENIGN),
    )
    .map(([before, middle, after]) => [...before, ...middle, ...after]),
);

const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,11}$/);
const path = fc.oneof(
  fc.stringMatching(/^\/[A-Za-z0-9_./=, -]{1,20}$/),
  fc.stringMatching(/^[a-z]{1,8}\/[A-Za-z0-9._-]{1,12}$/),
);
const listen = fc.record({
  host: fc.constantFrom("127.0.0.1", "0.0.0.0", "::1", "localhost"),
  port: fc.integer({ min: 1024, max: 65535 }),
});

const options: fc.Arbitrary<ServeOptions> = fc.oneof(
  fc
    .record({ model: path, servedModelName: fc.option(name, { nil: undefined }), listen })
    .map(({ model, servedModelName, listen }) => ({
      kind: "full" as const,
      model,
      ...(servedModelName === undefined ? {} : { servedModelName }),
      ...listen,
    })),
  fc
    .record({
      baseModel: path,
      adapters: fc.uniqueArray(fc.record({ name, path }), {
        minLength: 1,
        maxLength: 3,
        selector: (a) => a.name,
      }),
      listen,
    })
    .map(({ baseModel, adapters, listen }) => ({ kind: "lora" as const, baseModel, adapters, ...listen })),
);

/** What vLLM must end up serving for these options. */
function expectServes(options: ServeOptions, parsed: VllmParse & { ok: true }): void {
  const { args } = parsed;
  expect(args.host).toBe(options.host);
  expect(args.port).toBe(String(options.port));
  expect(args.apiKey).toBeUndefined();
  expect(args.uds).toBeUndefined();
  expect(args.config).toBeUndefined();
  if (options.kind === "full") {
    expect(args.model).toBe(options.model);
    expect(args.servedNames ?? [args.model]).toEqual([options.servedModelName ?? options.model]);
    expect(args.enableLora).toBe(false);
    expect(args.loraModules).toBeUndefined();
  } else {
    expect(args.model).toBe(options.baseModel);
    expect(args.servedNames).toBeUndefined();
    expect(args.enableLora).toBe(true);
    expect(args.loraModules).toEqual(options.adapters);
  }
}

function build(given: ServeOptions): ReturnType<typeof buildServeCommand> | "refused" {
  try {
    return buildServeCommand(given);
  } catch (error) {
    if (error instanceof ServeConfigError) return "refused";
    throw error;
  }
}

describe("the builder against vLLM's parser", () => {
  it("serves exactly what it was given, with no extra arguments", () => {
    fc.assert(
      fc.property(options, (given) => {
        const built = build(given);
        expect(built).not.toBe("refused");
        if (built === "refused") return;
        const parsed = parseVllmServe(built.argv.slice(2));
        expect(parsed).toMatchObject({ ok: true });
        if (parsed.ok) expectServes(given, parsed);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps benign extra arguments and still serves exactly what it was given", () => {
    const benign = fc
      .array(fc.constantFrom(...BENIGN), { minLength: 1, maxLength: 4 })
      .map((list) => list.flat());
    fc.assert(
      fc.property(options, benign, (given, extraArgs) => {
        const built = build({ ...given, extraArgs });
        expect(built).not.toBe("refused");
        if (built === "refused") return;
        const parsed = parseVllmServe(built.argv.slice(2));
        expect(parsed).toMatchObject({ ok: true });
        if (parsed.ok) expectServes(given, parsed);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses hostile extra arguments, or vLLM still serves exactly what it was given", () => {
    fc.assert(
      fc.property(options, hostileExtraArgs, (given, extraArgs) => {
        const built = build({ ...given, extraArgs });
        if (built === "refused") return;
        const parsed = parseVllmServe(built.argv.slice(2));
        if (!parsed.ok) {
          // vLLM printing its usage and exiting is a loud failure, not a bypass; a crash or a file is not.
          expect(parsed.kind, `${parsed.message} for ${JSON.stringify(extraArgs)}`).toBe("usage");
          return;
        }
        expectServes(given, parsed);
      }),
      { numRuns: 1500 },
    );
  });
});

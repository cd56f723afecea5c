import { describe, expect, it } from "vitest";
import {
  buildServeCommand,
  MAX_LORA_RANKS,
  maxLoraRankFor,
  ServeConfigError,
  type ServeOptions,
} from "./index.js";

const base = "meta-llama/Llama-3.1-8B-Instruct";
const support = { name: "support", path: "/models/adapters/support-lora" };

describe("buildServeCommand: full model", () => {
  it.each<[string, { given: ServeOptions; argv: string[]; model: string }]>([
    [
      "defaults to 127.0.0.1:8000, model right after serve",
      {
        given: { kind: "full", model: "acme/support-8b" },
        argv: ["vllm", "serve", "acme/support-8b", "--host", "127.0.0.1", "--port", "8000"],
        model: "acme/support-8b",
      },
    ],
    [
      "a served model name is what clients send",
      {
        given: {
          kind: "full",
          model: "/ckpt/run-7",
          servedModelName: "support",
          host: "0.0.0.0",
          port: 9000,
        },
        argv: [
          "vllm",
          "serve",
          "/ckpt/run-7",
          "--host",
          "0.0.0.0",
          "--port",
          "9000",
          "--served-model-name",
          "support",
        ],
        model: "support",
      },
    ],
    [
      "extra arguments go last",
      {
        given: { kind: "full", model: "m", extraArgs: ["--max-model-len", "8192", "--dtype=bfloat16"] },
        argv: [
          "vllm",
          "serve",
          "m",
          "--host",
          "127.0.0.1",
          "--port",
          "8000",
          "--max-model-len",
          "8192",
          "--dtype=bfloat16",
        ],
        model: "m",
      },
    ],
  ])("%s", (_name, { given, argv, model }) => {
    const command = buildServeCommand(given);
    expect(command.argv).toEqual(argv);
    expect(command.client.model).toBe(model);
    expect(command.env).toEqual({});
    expect(command.client.apiKey).toBe("EMPTY");
  });
});

describe("buildServeCommand: LoRA", () => {
  it("serves the base model with --enable-lora and one --lora-modules listing every adapter", () => {
    const command = buildServeCommand({
      kind: "lora",
      baseModel: base,
      adapters: [support, { name: "sales.v2", path: "acme/sales-lora" }],
      maxLoraRank: 64,
      maxLoras: 2,
    });
    expect(command.argv).toEqual([
      "vllm",
      "serve",
      base,
      "--host",
      "127.0.0.1",
      "--port",
      "8000",
      "--enable-lora",
      "--lora-modules",
      "support=/models/adapters/support-lora",
      "sales.v2=acme/sales-lora",
      "--max-lora-rank",
      "64",
      "--max-loras",
      "2",
    ]);
    expect(command.argv.filter((word) => word === "--lora-modules")).toHaveLength(1);
    expect(command.client).toEqual({
      baseURL: "http://127.0.0.1:8000/v1",
      rootURL: "http://127.0.0.1:8000",
      model: "support",
      apiKey: "EMPTY",
    });
  });

  it.each([
    ["=", "/models/a=b"],
    [",", "/models/a,b"],
    ["both", "/m/x=1,y=2"],
  ])("passes a path holding %s as a JSON object, which vLLM parses instead of splitting", (_name, path) => {
    const { argv } = buildServeCommand({ kind: "lora", baseModel: base, adapters: [{ name: "a", path }] });
    const value = argv[argv.indexOf("--lora-modules") + 1] ?? "";
    expect(JSON.parse(value)).toEqual({ name: "a", path });
  });
});

describe("buildServeCommand: secrets and exposure", () => {
  const key = "sk-test-0123456789";

  it("passes the API key as VLLM_API_KEY, never in argv or shell text", () => {
    const command = buildServeCommand({ kind: "full", model: "m", apiKey: key });
    expect(command.env).toEqual({ VLLM_API_KEY: key });
    expect(command.argv.join(" ")).not.toContain(key);
    expect(command.shell).not.toContain(key);
    expect(command.argv).not.toContain("--api-key");
    expect(command.client.apiKey).toBe(key);
  });

  it.each<[string, { host: string; apiKey?: string; baseURL: string; warns: RegExp | undefined }]>([
    ["loopback, no key", { host: "127.0.0.1", baseURL: "http://127.0.0.1:8000/v1", warns: undefined }],
    ["localhost", { host: "localhost", baseURL: "http://localhost:8000/v1", warns: undefined }],
    ["IPv6 loopback", { host: "::1", baseURL: "http://[::1]:8000/v1", warns: undefined }],
    [
      "IPv4 wildcard, no key",
      { host: "0.0.0.0", baseURL: "http://127.0.0.1:8000/v1", warns: /every interface.*no API key/ },
    ],
    [
      "IPv6 wildcard, no key",
      { host: "::", baseURL: "http://[::1]:8000/v1", warns: /every interface.*no API key/ },
    ],
    [
      "a LAN address, no key",
      { host: "192.168.1.20", baseURL: "http://192.168.1.20:8000/v1", warns: /no API key/ },
    ],
    [
      "wildcard with a key",
      { host: "0.0.0.0", apiKey: key, baseURL: "http://127.0.0.1:8000/v1", warns: /only the \/v1 routes/ },
    ],
  ])("%s", (_name, { host, apiKey, baseURL, warns }) => {
    const command = buildServeCommand({ kind: "full", model: "m", host, ...(apiKey ? { apiKey } : {}) });
    expect(command.client.baseURL).toBe(baseURL);
    // The root URL is the base URL without /v1, built once by the builder so no caller strips it by hand.
    expect(`${command.client.rootURL}/v1`).toBe(baseURL);
    expect(command.listen).toEqual({ host, port: 8000 });
    if (warns === undefined) expect(command.warnings).toEqual([]);
    else expect(command.warnings).toEqual([expect.stringMatching(warns)]);
  });

  it("warns that ~ is not expanded", () => {
    expect(buildServeCommand({ kind: "full", model: "~/models/x" }).warnings).toEqual([
      expect.stringContaining("'~'"),
    ]);
  });

  it("is JSON-serialisable data", () => {
    const command = buildServeCommand({ kind: "lora", baseModel: base, adapters: [support], apiKey: key });
    expect(JSON.parse(JSON.stringify(command))).toEqual(command);
  });
});

const full = (extra: Record<string, unknown>) =>
  ({ kind: "full", model: "acme/m", ...extra }) as ServeOptions;
const lora = (extra: Record<string, unknown>) =>
  ({ kind: "lora", baseModel: base, adapters: [support], ...extra }) as ServeOptions;

// [name, given, field, rule] for every refusal: each names the field and the rule.
const refusals: [string, unknown, string, RegExp][] = [
  ["no options", undefined, "options", /must be an object/],
  ["unknown kind", { kind: "merged", model: "m" }, "kind", /"full" or "lora"/],
  ["missing kind", { model: "m" }, "kind", /"full" or "lora"/],
  ["an unknown option", full({ servedName: "x" }), "servedName", /not an option/],
  [
    "a LoRA option on a full serve",
    full({ maxLoraRank: 16 }),
    "maxLoraRank",
    /not an option of a full serve/,
  ],
  ["empty model", full({ model: "" }), "model", /empty/],
  ["blank model", full({ model: "   " }), "model", /empty/],
  ["model not a string", full({ model: 42 }), "model", /must be a string/],
  ["model starting with -", full({ model: "--help" }), "model", /start with '-'/],
  ["model holding NUL", full({ model: "a\0b" }), "model", /control characters/],
  ["model holding a newline", full({ model: "a\nb" }), "model", /newlines/],
  ["empty base", lora({ baseModel: "" }), "baseModel", /empty/],
  ["base starting with -", lora({ baseModel: "-x" }), "baseModel", /start with '-'/],
  ["port 0", full({ port: 0 }), "port", /integer from 1 to 65535/],
  ["port 65536", full({ port: 65536 }), "port", /integer from 1 to 65535/],
  ["port 80.5", full({ port: 80.5 }), "port", /integer/],
  ["port as a string", full({ port: "8000" }), "port", /integer/],
  ["port NaN", full({ port: Number.NaN }), "port", /integer/],
  ["empty host", full({ host: "" }), "host", /IPv4 address, an IPv6 address or a host name/],
  ["host with a space", full({ host: "my host" }), "host", /host name/],
  ["bracketed IPv6 host", full({ host: "[::1]" }), "host", /without brackets/],
  ["host option injection", full({ host: "--port" }), "host", /host name/],
  ["served name with a space", full({ servedModelName: "my model" }), "servedModelName", /whitespace/],
  ["served name with a tab", full({ servedModelName: "a\tb" }), "servedModelName", /whitespace/],
  ["empty served name", full({ servedModelName: "" }), "servedModelName", /empty/],
  ["served name starting with -", full({ servedModelName: "-x" }), "servedModelName", /start with '-'/],
  ["no adapters", lora({ adapters: [] }), "adapters", /at least one/],
  ["adapters not an array", lora({ adapters: support }), "adapters", /must be an array/],
  [
    "adapter name with =",
    lora({ adapters: [{ name: "a=b", path: "/p" }] }),
    "adapters[0].name",
    /\[A-Za-z0-9._-\]\+/,
  ],
  [
    "adapter name with ,",
    lora({ adapters: [{ name: "a,b", path: "/p" }] }),
    "adapters[0].name",
    /\[A-Za-z0-9._-\]\+/,
  ],
  [
    "adapter name with a space",
    lora({ adapters: [{ name: "a b", path: "/p" }] }),
    "adapters[0].name",
    /A-Za-z/,
  ],
  ["empty adapter name", lora({ adapters: [{ name: "", path: "/p" }] }), "adapters[0].name", /A-Za-z/],
  [
    "adapter name starting with -",
    lora({ adapters: [{ name: "-a", path: "/p" }] }),
    "adapters[0].name",
    /'-'/,
  ],
  [
    "repeated adapter names",
    lora({ adapters: [support, { name: "support", path: "/other" }] }),
    "adapters[1].name",
    /unique/,
  ],
  ["empty adapter path", lora({ adapters: [{ name: "a", path: "" }] }), "adapters[0].path", /empty/],
  [
    "adapter path starting with -",
    lora({ adapters: [{ name: "a", path: "-rf" }] }),
    "adapters[0].path",
    /'-'/,
  ],
  [
    "adapter path with a newline",
    lora({ adapters: [{ name: "a", path: "/p\n" }] }),
    "adapters[0].path",
    /newlines/,
  ],
  [
    "adapter with an unknown key",
    lora({ adapters: [{ name: "a", path: "/p", rank: 8 }] }),
    "rank",
    /not an option/,
  ],
  ["max LoRA rank 48", lora({ maxLoraRank: 48 }), "maxLoraRank", /use 64, the next allowed value up/],
  ["max LoRA rank 2", lora({ maxLoraRank: 2 }), "maxLoraRank", /use 8, the next allowed value up/],
  ["max LoRA rank 1024", lora({ maxLoraRank: 1024 }), "maxLoraRank", /no allowed value is that large/],
  ["max LoRA rank 0", lora({ maxLoraRank: 0 }), "maxLoraRank", /must be one of 1, 8, 16/],
  ["max LoRA rank as a string", lora({ maxLoraRank: "16" }), "maxLoraRank", /must be one of/],
  ["max LoRAs 0", lora({ maxLoras: 0 }), "maxLoras", /at least 1/],
  ["empty API key", full({ apiKey: "" }), "apiKey", /non-empty/],
  ["API key with a newline", full({ apiKey: "abc\ndef" }), "apiKey", /control characters/],
  ["extra args not an array", full({ extraArgs: "--x" }), "extraArgs", /array of strings/],
  ["extra arg not a string", full({ extraArgs: [8192] }), "extraArgs[0]", /must be a string/],
  [
    "extra args starting with a value",
    full({ extraArgs: ["other/model"] }),
    "extraArgs[0]",
    /must be an option \(--name\): a bare value/,
  ],
  ["extra arg --", full({ extraArgs: ["--x", "--"] }), "extraArgs[1]", /'--'/],
  ["extra arg with a newline", full({ extraArgs: ["--x\n"] }), "extraArgs[0]", /newlines/],
  ...(
    [
      ["--host", "0.0.0.0"],
      ["--port=9000"],
      ["--model", "other"],
      ["--served-model-name", "x"],
      ["--served_model_name", "x"],
      ["--por", "1"],
      ["--api-key", "secret"],
      ["--uds", "/tmp/s"],
      ["--enable-lora"],
      ["--lora-modules", "a=b"],
    ] as const
  ).map((args): [string, unknown, string, RegExp] => [
    `full: extra ${args[0]} overriding an owned flag`,
    full({ extraArgs: ["--dtype", "auto", ...args] }),
    "extraArgs[2]",
    /which the builder writes/,
  ]),
  ...(
    [
      ["--lora-modules", "x=y"],
      ["--max-lora-rank=64"],
      ["--max_loras", "4"],
      ["--no-enable-lora"],
      ["--host", "::"],
    ] as const
  ).map((args): [string, unknown, string, RegExp] => [
    `lora: extra ${args[0]} overriding an owned flag`,
    lora({ extraArgs: [...args] }),
    "extraArgs[0]",
    /which the builder writes/,
  ]),
];

describe("buildServeCommand refuses bad input with a clear error", () => {
  it.each(refusals)("%s", (_name, given, field, rule) => {
    let error: unknown;
    try {
      buildServeCommand(given as ServeOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServeConfigError);
    const { field: actualField, message } = error as ServeConfigError;
    expect(actualField).toBe(field);
    expect(message).toMatch(rule);
    expect(message).toMatch(/\(given .+\)$/);
    expect(message).not.toContain("\n");
  });

  it("never echoes an API key", () => {
    const secret = "sk-live abcdef";
    expect(() => buildServeCommand(full({ apiKey: secret }))).toThrow("(given a 14-character string)");
    expect(() => buildServeCommand(full({ extraArgs: ["--api-key", "sk-live-abcdef"] }))).toThrow(
      "(given an --api-key argument)",
    );
    try {
      buildServeCommand(full({ extraArgs: ["--api-key=sk-live-abcdef"] }));
    } catch (error) {
      expect(String(error)).not.toContain("sk-live");
    }
  });

  it("names a LoRA serve's base model with servedModelName, and refuses it through extraArgs", () => {
    const { argv, client } = buildServeCommand(lora({ servedModelName: "base" }));
    expect(argv.slice(argv.indexOf("--served-model-name"), argv.indexOf("--enable-lora"))).toEqual([
      "--served-model-name",
      "base",
    ]);
    expect(client.model).toBe("support");
    expect(() => buildServeCommand(lora({ extraArgs: ["--served-model-name", "support"] }))).toThrow(
      /must not set --served-model-name.*use the servedModelName option/,
    );
  });

  it("refuses a LoRA base-model served name equal to an adapter's: vLLM answers a name with one model", () => {
    const name = "support";
    expect(() => buildServeCommand(lora({ servedModelName: name }))).toThrow(
      expect.objectContaining({
        field: "servedModelName",
        rule: expect.stringMatching(
          /^must differ from every adapter's name, since vLLM .*: the adapter named "support" could not be reached$/,
        ),
        given: '"support"',
      }),
    );
  });

  it("refuses an adapter named like the base model it serves on when no served name is set, naming both", () => {
    const options: ServeOptions = {
      kind: "lora",
      baseModel: "gpt2",
      adapters: [
        { name: "support", path: "/a" },
        { name: "gpt2", path: "/b" },
      ],
    };
    expect(() => buildServeCommand(options)).toThrow(
      expect.objectContaining({
        field: "adapters[1].name",
        rule: expect.stringMatching(
          /^must differ from the base model's served name "gpt2" \(the base model as given, .*could not be reached$/,
        ),
        given: '"gpt2"',
      }),
    );
    // A served name of its own frees the base model's path for an adapter.
    expect(buildServeCommand({ ...options, servedModelName: "base" }).argv).toContain("gpt2=/b");
  });

  it("allows options that only start like an owned one", () => {
    const { argv } = buildServeCommand(
      full({ extraArgs: ["--model-impl", "vllm", "--max-model-len", "4096"] }),
    );
    expect(argv.slice(-4)).toEqual(["--model-impl", "vllm", "--max-model-len", "4096"]);
  });
});

describe("maxLoraRankFor", () => {
  it.each([
    [1, 1],
    [4, 8],
    [8, 8],
    [9, 16],
    [33, 64],
    [300, 320],
    [512, 512],
    [513, undefined],
    [Number.NaN, undefined],
  ])("rank %s needs --max-lora-rank %s", (rank, want) => {
    expect(maxLoraRankFor(rank)).toBe(want);
  });

  it("accepts every allowed rank in the builder", () => {
    for (const rank of MAX_LORA_RANKS) {
      expect(buildServeCommand(lora({ maxLoraRank: rank })).argv).toContain(String(rank));
    }
  });
});

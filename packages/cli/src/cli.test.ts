import { execFileSync } from "node:child_process";
import {
  buildDockerCommand,
  buildServeCommand,
  ENGINE_OPTION_LIST,
  haproxyConfig,
  nginxConfig,
} from "@finetune-studio/serve-kit";
import { describe, expect, it } from "vitest";
import { runCapture } from "./test/run-cli.js";

describe("studio-serve command", () => {
  it("prints the builder's shell text for a full model, and the client config on stderr", async () => {
    const { code, stdout, stderr } = await runCapture([
      "command",
      "full",
      "acme/support-8b",
      "--served-model-name",
      "support",
      "--port",
      "9000",
    ]);
    expect(code).toBe(0);
    const want = buildServeCommand({
      kind: "full",
      model: "acme/support-8b",
      servedModelName: "support",
      port: 9000,
    });
    expect(stdout).toBe(`${want.shell}\n`);
    expect(stderr).toBe('clients: base URL http://127.0.0.1:9000/v1, model "support"\n');
  });

  it("prints LoRA commands with repeated --adapter, extra vLLM options after --, and paths with = and ,", async () => {
    const { code, stdout } = await runCapture([
      "command",
      "lora",
      "meta-llama/Llama-3.1-8B-Instruct",
      "--adapter",
      "support=/models/support",
      "--adapter",
      "odd=/models/a=b,c d",
      "--max-lora-rank",
      "64",
      "--max-loras",
      "2",
      "--",
      "--max-model-len",
      "8192",
    ]);
    expect(code).toBe(0);
    const want = buildServeCommand({
      kind: "lora",
      baseModel: "meta-llama/Llama-3.1-8B-Instruct",
      adapters: [
        { name: "support", path: "/models/support" },
        { name: "odd", path: "/models/a=b,c d" },
      ],
      maxLoraRank: 64,
      maxLoras: 2,
      extraArgs: ["--max-model-len", "8192"],
    });
    expect(stdout).toBe(`${want.shell}\n`);
  });

  it("takes every engine option of serve-kit's table as a flag, as the builder takes it (and docker too)", async () => {
    const flags = [
      "--max-model-len",
      "8192",
      "--dtype",
      "bfloat16",
      "--gpu-memory-utilization",
      "0.85",
      "--tensor-parallel-size",
      "2",
      "--max-num-seqs",
      "64",
      "--no-enable-prefix-caching",
      "--quantization",
      "awq",
      "--kv-cache-dtype",
      "fp8",
      "--max-num-batched-tokens",
      "16384",
      "--enforce-eager",
    ];
    const options = {
      maxModelLen: 8192,
      dtype: "bfloat16",
      gpuMemoryUtilization: 0.85,
      tensorParallelSize: 2,
      maxNumSeqs: 64,
      enablePrefixCaching: false,
      quantization: "awq",
      kvCacheDtype: "fp8",
      maxNumBatchedTokens: 16384,
      enforceEager: true,
    } as const;
    const plain = await runCapture(["command", "full", "m", ...flags, "--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual(buildServeCommand({ kind: "full", model: "m", ...options }));
    const docker = await runCapture(["command", "full", "m", ...flags, "--docker", "--json"]);
    expect(JSON.parse(docker.stdout).argv.join(" ")).toContain(
      "--max-model-len 8192 --dtype bfloat16 --gpu-memory-utilization 0.85 --tensor-parallel-size 2 --max-num-seqs 64 --no-enable-prefix-caching --quantization awq --kv-cache-dtype fp8 --max-num-batched-tokens 16384 --enforce-eager",
    );
    const lora = await runCapture([
      "command",
      "lora",
      "b",
      "--adapter",
      "a=/a",
      "--served-model-name",
      "base",
      "--max-loras",
      "2",
      "--max-cpu-loras",
      "8",
      "--json",
    ]);
    expect(JSON.parse(lora.stdout).argv).toEqual(
      buildServeCommand({
        kind: "lora",
        baseModel: "b",
        adapters: [{ name: "a", path: "/a" }],
        servedModelName: "base",
        maxLoras: 2,
        maxCpuLoras: 8,
      }).argv,
    );
  });

  it("--json prints the whole builder output", async () => {
    const { code, stdout } = await runCapture(["command", "full", "m", "--host", "0.0.0.0", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(buildServeCommand({ kind: "full", model: "m", host: "0.0.0.0" }));
  });

  it("references the key's variable and never reads its value", async () => {
    const env = { MY_KEY: "sk-never-printed" };
    const text = await runCapture(["command", "full", "m", "--api-key-env", "MY_KEY"], env);
    const json = await runCapture(["command", "full", "m", "--api-key-env", "MY_KEY", "--json"], env);
    expect(text.stdout).toBe(`VLLM_API_KEY="\${MY_KEY}" vllm serve m --host 127.0.0.1 --port 8000\n`);
    expect(JSON.parse(json.stdout)).toMatchObject({
      env: { VLLM_API_KEY: "$" + "{MY_KEY}" },
      client: { apiKey: "$" + "{MY_KEY}" },
    });
    for (const output of [text, json])
      expect(output.stdout + output.stderr).not.toContain("sk-never-printed");
  });

  it("reflects an inherited VLLM_API_KEY the way launch does, without printing it", async () => {
    const env = { VLLM_API_KEY: "sk-inherited-secret" };
    const text = await runCapture(["command", "full", "m"], env);
    const json = await runCapture(["command", "full", "m", "--json"], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`VLLM_API_KEY="\${VLLM_API_KEY}" vllm serve m --host 127.0.0.1 --port 8000\n`);
    expect(text.stderr).toContain("using the API key in VLLM_API_KEY");
    expect(text.stderr).toContain("key from $VLLM_API_KEY");
    // client.apiKey no longer says EMPTY while the server demands the key.
    expect(JSON.parse(json.stdout)).toMatchObject({ client: { apiKey: "$" + "{VLLM_API_KEY}" } });
    for (const output of [text, json]) expect(output.stdout + output.stderr).not.toContain("sk-inherited");
  });

  it("the printed line, run by a shell, gives vLLM the key from the variable and the builder's argv", async () => {
    const { stdout } = await runCapture([
      "command",
      "lora",
      "b",
      "--adapter",
      "a=/x y",
      "--api-key-env",
      "MY_KEY",
    ]);
    // Replace `vllm` by a probe that prints its key and arguments, then let /bin/sh run the line.
    const line = stdout.trim().replace(" vllm serve ", " probe serve ");
    const out = execFileSync("/bin/sh", ["-c", `probe() { printf '%s\\0' "$VLLM_API_KEY" "$@"; }; ${line}`], {
      env: { MY_KEY: "sk-from-env", PATH: process.env.PATH },
      encoding: "utf8",
    });
    const [key, ...argv] = out.split("\0").slice(0, -1);
    expect(key).toBe("sk-from-env");
    expect(argv).toEqual(
      buildServeCommand({ kind: "lora", baseModel: "b", adapters: [{ name: "a", path: "/x y" }] }).argv.slice(
        1,
      ),
    );
  });

  it("--docker prints the docker run command, with the Hugging Face home as the cache", async () => {
    const { code, stdout } = await runCapture(
      ["command", "full", "acme/m", "--docker", "--image", "vllm/vllm-openai:v0.11.0"],
      { HF_HOME: "/data/hf" },
    );
    expect(code).toBe(0);
    const want = buildDockerCommand(
      { kind: "full", model: "acme/m" },
      { image: "vllm/vllm-openai:v0.11.0", hfCacheDir: "/data/hf" },
    );
    expect(stdout).toBe(`${want.shell}\n`);
  });

  it("prints warnings on stderr", async () => {
    const { code, stderr } = await runCapture(["command", "full", "m", "--host", "0.0.0.0"]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^warning: the server listens on every interface/m);
  });
});

describe("studio-serve nginx", () => {
  it("prints the builder's config", async () => {
    const { code, stdout } = await runCapture([
      "nginx",
      "--upstream",
      "127.0.0.1:8001",
      "--upstream",
      "127.0.0.1:8002",
      "--listen",
      "8000",
      "--read-timeout",
      "900",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      nginxConfig({ upstreams: ["127.0.0.1:8001", "127.0.0.1:8002"], listen: 8000, readTimeoutSeconds: 900 }),
    );
  });
});

describe("studio-serve haproxy", () => {
  it("prints the builder's config, with the limits given", async () => {
    const flags = ["--upstream", "127.0.0.1:8001", "--upstream", "127.0.0.1:8002", "--listen", "8000"];
    const { code, stdout } = await runCapture([
      "haproxy",
      ...flags,
      "--max-num-seqs",
      "64",
      "--max-connections",
      "900",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      haproxyConfig({
        servers: ["127.0.0.1:8001", "127.0.0.1:8002"],
        listen: 8000,
        maxNumSeqs: 64,
        maxConnections: 900,
        routing: "session",
      }),
    );
  });

  it("takes launch's routing and metrics flags, and refuses a session header without a key to read", async () => {
    const flags = ["--upstream", "127.0.0.1:8001", "--listen", "8000"];
    const { code, stdout } = await runCapture([
      "haproxy",
      ...flags,
      "--routing",
      "prefix",
      "--metrics-port",
      "9101",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      haproxyConfig({ servers: ["127.0.0.1:8001"], listen: 8000, routing: "prefix", metricsPort: 9101 }),
    );
    expect(stdout).toMatch(/^frontend metrics$/m);
    const refused = await runCapture([
      "haproxy",
      ...flags,
      "--routing",
      "least-busy",
      "--session-header",
      "x-id",
    ]);
    expect(refused.stderr).toMatch(/--session-header: applies to routing 'session' or 'prefix' only/);
    expect(refused.code).toBe(2);
  });

  it("refuses a bad limit by the library's rule, naming the flag", async () => {
    const { code, stderr } = await runCapture([
      "haproxy",
      "--upstream",
      "a:1",
      "--listen",
      "80",
      "--max-num-seqs",
      "0",
    ]);
    expect(stderr).toMatch(/--max-num-seqs: must be an integer of at least 1/);
    expect(code).toBe(2);
  });
});

describe("studio-serve help", () => {
  it.each([
    [["--help"], /^studio-serve: serve a model/],
    [["-h"], /^studio-serve: serve a model/],
    [["help"], /^studio-serve: serve a model/],
    [["help", "launch"], /^studio-serve launch:/],
    [["command", "--help"], /^studio-serve command:/],
    [["command", "lora", "--help"], /^studio-serve command:/],
    [["launch", "-h"], /^studio-serve launch:/],
    [["doctor", "--help"], /^studio-serve doctor:/],
    [["nginx", "--help"], /^studio-serve nginx:/],
    [["haproxy", "--help"], /^studio-serve haproxy:/],
    [["stop", "--help"], /^studio-serve stop:/],
  ])("%j prints help on stdout and exits 0", async (args, want) => {
    const { code, stdout, stderr } = await runCapture(args);
    expect(code).toBe(0);
    expect(stdout).toMatch(want);
    expect(stderr).toBe("");
  });

  it.each([["command"], ["launch"]])(
    "%s --help names the fit check's --gpu and --strict",
    async (command) => {
      const { stdout } = await runCapture([command, "--help"]);
      expect(stdout).toMatch(/^ {2}--gpu NAME +the GPU to plan for/m);
      expect(stdout).toMatch(/^ {2}--strict +refuse to start when it will not fit/m);
    },
  );

  it("plan --help lists every engine option of serve-kit's table", async () => {
    const { stdout } = await runCapture(["plan", "--help"]);
    for (const option of ENGINE_OPTION_LIST) expect(stdout).toContain(option.flag.slice(2));
  });

  it("--version prints the package version", async () => {
    const { code, stdout } = await runCapture(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("prints usage on stderr and exits 2 without arguments", async () => {
    const { code, stdout, stderr } = await runCapture([]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^studio-serve: serve a model/);
  });
});

// Every bad command line: exit code 2, one line on stderr naming the flag, nothing on stdout.
const usageErrors: [string, string[], RegExp][] = [
  ["an unknown command", ["serve", "m"], /unknown command "serve"/],
  ["no kind", ["command"], /say what to serve/],
  ["an unknown kind", ["command", "merged", "m"], /unknown kind "merged"/],
  ["no model", ["command", "full"], /missing <model>/],
  ["no base", ["command", "lora"], /missing <base>/],
  [
    "a stray argument",
    ["command", "full", "m", "extra"],
    /unexpected argument "extra"; put vLLM's own options after --/,
  ],
  [
    "an unknown flag",
    ["command", "full", "m", "--gpu-index", "0"],
    /unknown option "--gpu-index" \(see studio-serve command --help\)/,
  ],
  ["a flag without value", ["command", "full", "m", "--port"], /--port/],
  [
    "a port that is not a number",
    ["command", "full", "m", "--port", "http"],
    /^studio-serve: --port: must be an integer from 1 to 65535 \(given "http"\)/,
  ],
  [
    "port 0",
    ["command", "full", "m", "--port", "0"],
    /--port: must be an integer from 1 to 65535 \(given 0\)/,
  ],
  ["port 70000", ["command", "full", "m", "--port", "70000"], /--port: .* \(given 70000\)/],
  ["a bad host", ["command", "full", "m", "--host", "my host"], /--host: must be an IPv4/],
  ["a model that is an option", ["command", "full", "-x"], /unknown option "-x"/],
  [
    "a served name with a space",
    ["command", "full", "m", "--served-model-name", "a b"],
    /--served-model-name: must not hold whitespace/,
  ],
  ["an adapter on a full model", ["command", "full", "m", "--adapter", "a=/a"], /--adapter: is for lora/],
  [
    "a rank on a full model",
    ["command", "full", "m", "--max-lora-rank", "16"],
    /--max-lora-rank: is for lora/,
  ],
  [
    "a LoRA base-model name equal to an adapter's",
    ["command", "lora", "b", "--adapter", "a=/a", "--served-model-name", "a"],
    /--served-model-name: must differ from every adapter's name/,
  ],
  [
    "a dtype vLLM does not know",
    ["command", "full", "m", "--dtype", "fp8"],
    /--dtype: must be one of auto, half/,
  ],
  [
    "a GPU memory share above 1",
    ["command", "full", "m", "--gpu-memory-utilization", "1.5"],
    /--gpu-memory-utilization: must be a number above 0 and at most 1 \(the share of each GPU's memory\) \(given 1\.5\)/,
  ],
  [
    "a LoRA-only engine option on a full serve",
    ["command", "full", "m", "--max-loras", "2"],
    /--max-loras: is for lora/,
  ],
  [
    "a switch and its negation",
    ["command", "full", "m", "--enable-prefix-caching", "--no-enable-prefix-caching"],
    /--enable-prefix-caching and --no-enable-prefix-caching: give one/,
  ],
  [
    "an engine option set twice, as a flag and after --",
    ["command", "full", "m", "--max-model-len", "8192", "--", "--max-model-len", "4096"],
    /must not set --max-model-len, which the builder writes/,
  ],
  ["no adapter", ["command", "lora", "b"], /--adapter: must list at least one adapter/],
  [
    "an adapter without =",
    ["command", "lora", "b", "--adapter", "support"],
    /--adapter #1: must be name=path/,
  ],
  [
    "an adapter without a name",
    ["command", "lora", "b", "--adapter", "=/a"],
    /--adapter #1: must be name=path/,
  ],
  [
    "an adapter name with a space",
    ["command", "lora", "b", "--adapter", "a b=/a"],
    /--adapter #1 name: must match/,
  ],
  [
    "repeated adapter names",
    ["command", "lora", "b", "--adapter", "a=/a", "--adapter", "a=/b"],
    /--adapter #2 name: must be unique/,
  ],
  [
    "an empty adapter path",
    ["command", "lora", "b", "--adapter", "a="],
    /--adapter #1 path: must not be empty/,
  ],
  [
    "rank 48",
    ["command", "lora", "b", "--adapter", "a=/a", "--max-lora-rank", "48"],
    /--max-lora-rank: .*use 64, the next allowed value up \(given 48\)/,
  ],
  [
    "rank 2k",
    ["command", "lora", "b", "--adapter", "a=/a", "--max-lora-rank", "2k"],
    /--max-lora-rank: must be one of .* \(given "2k"\)/,
  ],
  [
    "max LoRAs 0",
    ["command", "lora", "b", "--adapter", "a=/a", "--max-loras", "0"],
    /--max-loras: must be an integer of at least 1/,
  ],
  [
    "a key instead of a variable name",
    ["command", "full", "m", "--api-key-env", "sk-123"],
    /--api-key-env: must name an environment variable.*\(given a 6-character value\)/,
  ],
  [
    "an owned flag after --",
    ["command", "full", "m", "--", "--port", "1"],
    /argument 1 after --: must not set --port/,
  ],
  [
    "a key after --",
    ["command", "full", "m", "--", "--api-key", "sk-1"],
    /argument 1 after --: must not set --api-key.*\(given an --api-key argument\)/,
  ],
  ["--image without --docker", ["command", "full", "m", "--image", "x"], /--image: only goes with --docker/],
  [
    "a host name for docker",
    ["command", "full", "m", "--docker", "--host", "localhost"],
    /--host: must be an IP address for docker -p/,
  ],
  [
    "a home-relative cache for docker",
    ["command", "full", "m", "--docker", "--hf-cache", "~/hf"],
    /--hf-cache: must be an absolute directory or a volume name/,
  ],
  ["nginx without upstreams", ["nginx", "--listen", "8000"], /--upstream: must list at least one host:port/],
  [
    "nginx without listen",
    ["nginx", "--upstream", "a:1"],
    /--listen: must be an integer from 1 to 65535 \(given nothing\)/,
  ],
  [
    "nginx with a bad upstream",
    ["nginx", "--upstream", "a:1", "--upstream", "b", "--listen", "80"],
    /--upstream #2: must be host:port/,
  ],
  ["nginx with a positional", ["nginx", "a:1"], /unexpected argument "a:1"/],
  ["doctor with a bad port", ["doctor", "--port", "x"], /--port: must be an integer/],
];

describe("bad command lines", () => {
  it.each(usageErrors)("%s: exit 2 and one clear line", async (_name, args, message) => {
    const { code, stdout, stderr } = await runCapture(args, { MY_KEY: "k" });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^studio-serve: /);
  });
});

describe("terminal safety", () => {
  // Anything a terminal acts on: ESC (an OSC title change), BEL, C1 CSI, NEL, a right-to-left override.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it.each([
    ["an unknown command", ["\u001b]0;pwned\u0007"]],
    ["an unknown option", ["command", "full", "m", "--\u001b[2Jx"]],
    ["an unexpected argument", ["doctor", "\u009b31mred"]],
    ["a served name with U+202E", ["command", "full", "m", "--served-model-name", "a\u202Eb"]],
    ["a served name with U+0085", ["command", "full", "m", "--served-model-name", "a\u0085b"]],
    ["an adapter name with ESC", ["command", "lora", "b", "--adapter", "\u001b[31m=/x"]],
    ["a kind with ESC", ["launch", "\u001b]0;x\u0007", "m"]],
  ])("%s is refused and echoed escaped", async (_name, args) => {
    const { code, stdout, stderr } = await runCapture(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/\\u00(1b|9b|85)|\\u202e/);
    expect(stderr).not.toMatch(UNSAFE);
  });

  it("the nginx read timeout is bounded by the library, whatever the digits", async () => {
    for (const value of ["1000000000000", "1000000000000000000000", "2147484"]) {
      const { code, stderr } = await runCapture([
        "nginx",
        "--upstream",
        "127.0.0.1:8001",
        "--listen",
        "8000",
        "--read-timeout",
        value,
      ]);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /^studio-serve: --read-timeout: must be a whole number of seconds from 1 to 2147483 \(given /,
      );
    }
  });

  it("docker refuses / and a whole home as the Hugging Face cache", async () => {
    for (const dir of ["/", "/home/me"]) {
      const { code, stderr } = await runCapture(["command", "full", "m", "--docker", "--hf-cache", dir]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^studio-serve: --hf-cache: must not be/);
    }
  });
});

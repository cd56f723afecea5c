import { describe, expect, it } from "vitest";
import {
  buildDockerCommand,
  buildServeCommand,
  nginxConfig,
  ServeConfigError,
  type ServeOptions,
} from "./index.js";

// Names that would steer a terminal, docker mounts too wide for a root container, one bound for
// nginx's read timeout, and a key that cannot travel in an HTTP header. Each is refused by the library, so
// the CLI (which only passes values on) refuses it too.

function refused(run: () => unknown): ServeConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServeConfigError) return error;
    throw error;
  }
  throw new Error("accepted");
}

const full = (more: Partial<ServeOptions>): ServeOptions =>
  ({ kind: "full", model: "acme/m", ...more }) as ServeOptions;

describe("terminal controls in names", () => {
  it.each([
    ["a right-to-left override", "support\u202Egpj.exe"],
    ["NEL (U+0085)", "support\u0085x"],
    ["the C1 CSI (U+009B)", "a\u009b31m"],
    ["an isolate", "a\u2066b"],
    ["DEL", "a\u007f"],
    ["ESC", "a\u001b]0;pwned\u0007"],
  ])("%s in servedModelName, a model and an adapter path is refused and shown escaped", (_name, text) => {
    for (const run of [
      () => buildServeCommand(full({ servedModelName: text })),
      () => buildServeCommand(full({ model: `acme/${text}` })),
      () =>
        buildServeCommand({ kind: "lora", baseModel: "b", adapters: [{ name: "a", path: `/m/${text}` }] }),
    ]) {
      const error = refused(run);
      expect(error.message).toMatch(/control characters|whitespace/);
      // Nothing a terminal acts on reaches the message.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
      expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
  });

  it("keeps non-Latin names", () => {
    expect(buildServeCommand(full({ model: "/models/модель", servedModelName: "模型" })).client.model).toBe(
      "模型",
    );
  });
});

describe("docker mount sources", () => {
  it.each([
    ["/", "host's whole file system"],
    ["//", "host's whole file system"],
    ["/./", "host's whole file system"],
    ["/root", "whole home directory"],
    ["/home/me", "whole home directory"],
    ["/home/me/", "whole home directory"],
    ["/Users/me", "whole home directory"],
  ])("--hf-cache %s is refused", (dir, reason) => {
    const error = refused(() => buildDockerCommand(full({}), { hfCacheDir: dir }));
    expect(error.field).toBe("docker.hfCacheDir");
    expect(error.rule).toContain(reason);
  });

  it.each([["/"], ["/home/me"]])("a model or adapter at %s is refused", (path) => {
    expect(refused(() => buildDockerCommand(full({ model: path }))).field).toBe("model");
    const lora: ServeOptions = { kind: "lora", baseModel: "b", adapters: [{ name: "a", path }] };
    expect(refused(() => buildDockerCommand(lora)).field).toBe("adapters[0].path");
  });

  it("still mounts a directory inside a home, and the default cache", () => {
    const docker = buildDockerCommand(full({ model: "/home/me/models/m" }), {
      hfCacheDir: "/home/me/.cache/huggingface",
    });
    expect(docker.argv).toContain("/home/me/models/m:/home/me/models/m:ro");
    expect(docker.argv).toContain("/home/me/.cache/huggingface:/root/.cache/huggingface");
  });
});

describe("nginx read timeout", () => {
  it.each([[1e12], [1e21], [0], [1.5], [2_147_484]])("%s is refused by the one bound", (value) => {
    const error = refused(() =>
      nginxConfig({ upstreams: ["127.0.0.1:8001"], listen: 8000, readTimeoutSeconds: value }),
    );
    expect(error.field).toBe("readTimeoutSeconds");
    expect(error.rule).toBe("must be a whole number of seconds from 1 to 2147483");
  });
});

describe("API key", () => {
  it("refuses a key with a character outside Latin-1, without echoing it", () => {
    const error = refused(() => buildServeCommand(full({ apiKey: "sk-ключ" })));
    expect(error.field).toBe("apiKey");
    expect(error.rule).toMatch(/Latin-1/);
    expect(error.message).not.toContain("ключ");
  });
});

// Run by plan-example.ts in a child process: a stand-in for the model hub on 127.0.0.1 that serves the
// plan's test data (serve-kit's fixtures: config.json and model.safetensors.index.json of real models) at
// the hub's paths, and copies of some in a temporary directory as local models; then the real
// `studio-serve` for each run, in that directory, against the stand-in. Prints each run's output and exit
// code as JSON on stdout. No token is read or sent: HF_TOKEN is unset and HF_HOME points nowhere.
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [cliEntry, fixturesDir, casesJson] = process.argv.slice(2);
/**
 * repos: { "owner/name": "fixture-directory" }; local: { "directory-name": "fixture-directory" };
 * runs: the arguments of each studio-serve run.
 */
const { repos, local, runs } = JSON.parse(casesJson);

const RESOLVE = /^\/([^/]+\/[^/]+)\/resolve\/main\/(config\.json|model\.safetensors\.index\.json)$/;
const server = createServer(async (request, response) => {
  const match = RESOLVE.exec(request.url ?? "");
  const directory = match ? repos[match[1]] : undefined;
  if (!match || !directory) return response.writeHead(404).end();
  const body = await readFile(join(fixturesDir, directory, match[2]));
  response.writeHead(200, { "content-type": "application/json" }).end(body);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const env = {
  PATH: process.env.PATH,
  HF_ENDPOINT: `http://127.0.0.1:${server.address().port}`,
  HF_HOME: join(fixturesDir, "no-such-directory"),
};

const cwd = await mkdtemp(join(tmpdir(), "plan-example-"));
const run = (args) =>
  new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cliEntry, ...args],
      { cwd, env, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(new Error(`${error.message}\n${stderr}`));
        resolve({ args, code: error ? error.code : 0, stdout, stderr });
      },
    ),
  );
try {
  for (const [name, directory] of Object.entries(local)) {
    await cp(join(fixturesDir, directory), join(cwd, name), { recursive: true });
  }
  const results = [];
  for (const args of runs) results.push(await run(args));
  process.stdout.write(JSON.stringify(results));
} finally {
  server.close();
  await rm(cwd, { recursive: true, force: true });
}

import { execFile } from "node:child_process";

// The paced-stream client (stream-client.c): the time to each stream's first event, which wrk cannot see.

export interface StreamClientResult {
  streams: number;
  events: number;
  failures: number;
  durationUs: number;
  firstP50Us: number;
  firstP99Us: number;
}

export function runStreamClient(
  binary: string,
  port: number,
  connections: number,
  seconds: number,
  model: string,
): Promise<StreamClientResult> {
  const args = [String(port), String(connections), String(seconds), model];
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      { timeout: (seconds + 60) * 1000, maxBuffer: 64 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          return reject(new Error(`stream-client ${args.join(" ")} failed: ${error.message} ${stderr}`));
        try {
          resolve(JSON.parse(stdout.trim()) as StreamClientResult);
        } catch {
          reject(new Error(`stream-client printed no result line: ${stdout.slice(-300)}`));
        }
      },
    );
  });
}

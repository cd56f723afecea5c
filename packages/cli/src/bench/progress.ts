import type { BenchRequestRecord } from "@finetune-studio/serve-kit";
import type { CliIo } from "../shared/io.js";

/**
 * A live line on stderr: requests done, failed, the rate so far and p50 TTFT. On a terminal it redraws in
 * place at most once a second; elsewhere (a log) it is a new line at most every five seconds.
 */
export function progressLine(label: string, io: CliIo) {
  const started = performance.now();
  let shown = started;
  const tty = io.errIsTerminal === true;
  const line = (records: readonly BenchRequestRecord[]) => {
    const seconds = (performance.now() - started) / 1000;
    const ok = records.filter((record) => record.ok);
    const ttft = [...ok.map((record) => record.ttftMs)].sort((a, b) => a - b)[Math.floor(ok.length / 2)];
    return `bench: ${label}: ${records.length} done, ${records.length - ok.length} failed, ${(records.length / Math.max(seconds, 1e-3)).toFixed(1)} req/s, TTFT p50 ${ttft === undefined ? "-" : `${Math.round(ttft)} ms`}`;
  };
  let last: readonly BenchRequestRecord[] = [];
  return {
    update(records: readonly BenchRequestRecord[]) {
      last = records;
      const now = performance.now();
      if (now - shown < (tty ? 1000 : 5000)) return;
      shown = now;
      io.err(tty ? `\r${line(records)}\u001b[K` : `${line(records)}\n`);
    },
    done() {
      io.err(tty ? `\r${line(last)}\u001b[K\n` : `${line(last)}\n`);
    },
  };
}

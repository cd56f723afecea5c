import type { BenchRequestRecord } from "@finetune-studio/serve-kit";
import type { CliIo } from "../shared/io.js";

/** The live line of a level: it follows each record, says where the run is, and ends with the totals. */
export interface ProgressLine {
  update(records: readonly BenchRequestRecord[]): void;
  /**
   * A line of its own above the live one (a stage starting, a warning); with `where`, the live line names
   * that place from then on (`stage 2 of 3`).
   */
  note(text: string, where?: string): void;
  done(): void;
}

/**
 * A live line on stderr: requests done, failed, the rate so far and p50 TTFT. On a terminal it redraws in
 * place at most once a second; elsewhere (a log) it is a new line at most every five seconds.
 */
export function progressLine(label: string, io: CliIo): ProgressLine {
  const started = performance.now();
  let shown = started;
  let place = "";
  const tty = io.errIsTerminal === true;
  const line = (records: readonly BenchRequestRecord[]) => {
    const seconds = (performance.now() - started) / 1000;
    const ok = records.filter((record) => record.ok);
    const ttft = [...ok.map((record) => record.ttftMs)].sort((a, b) => a - b)[Math.floor(ok.length / 2)];
    return `bench: ${label}${place}: ${records.length} done, ${records.length - ok.length} failed, ${(records.length / Math.max(seconds, 1e-3)).toFixed(1)} req/s, TTFT p50 ${ttft === undefined ? "-" : `${Math.round(ttft)} ms`}`;
  };
  let last: readonly BenchRequestRecord[] = [];
  return {
    update(records) {
      last = records;
      const now = performance.now();
      if (now - shown < (tty ? 1000 : 5000)) return;
      shown = now;
      io.err(tty ? `\r${line(records)}\u001b[K` : `${line(records)}\n`);
    },
    note(text, where) {
      if (where !== undefined) place = ` (${where})`;
      // On a terminal the note takes the live line's place, and the live line is drawn again under it.
      io.err(tty ? `\r${text}\u001b[K\n${line(last)}\u001b[K` : `${text}\n`);
    },
    done() {
      io.err(tty ? `\r${line(last)}\u001b[K\n` : `${line(last)}\n`);
    },
  };
}

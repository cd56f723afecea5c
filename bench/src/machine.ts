import { cpus, loadavg, platform, release, totalmem } from "node:os";

export interface MachineDescription {
  readonly date: string;
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly os: string;
  readonly loadAtStart: string;
  loadAtEnd: string;
}

export function oneMinuteLoad(): string {
  return (loadavg()[0] ?? 0).toFixed(2);
}

/** What a reader needs to compare these numbers with their own. */
export function describeMachine(): MachineDescription {
  const processors = cpus();
  return {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    cpu: processors[0]?.model.trim() ?? "unknown CPU",
    cores: processors.length,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB RAM`,
    os: `${platform()} ${release()}`,
    loadAtStart: oneMinuteLoad(),
    loadAtEnd: "",
  };
}

// How numbers are written in the results: units a reader compares at a glance, without false precision.

/** Milliseconds as microseconds: local calls take tens to hundreds of µs. */
export function micros(ms: number): string {
  return `${Math.round(ms * 1000).toLocaleString("en-US")} µs`;
}

export function millis(ms: number): string {
  return `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
}

/** `1.08×`: how many times the reference this is. */
export function ratio(value: number, reference: number): string {
  return `${(value / reference).toFixed(2)}×`;
}

export function perSecond(rate: number): string {
  return `${Math.round(rate).toLocaleString("en-US")}/s`;
}

export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export function count(n: number): string {
  return n.toLocaleString("en-US");
}

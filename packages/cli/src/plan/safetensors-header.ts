/** The largest safetensors header the plan reads (real ones are a few hundred KiB). */
export const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/** The header's length from a safetensors file's first 8 bytes (little-endian), checked against the cap. */
export function headerLength(first8: Uint8Array, file: string): number {
  if (first8.length < 8) throw new Error(`${file}: too short to be a safetensors file`);
  const length = Number(new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true));
  if (length < 2 || length > MAX_HEADER_BYTES) {
    throw new Error(
      `${file}: its header claims ${length} bytes; a safetensors header holds 2 to ${MAX_HEADER_BYTES}`,
    );
  }
  return length;
}

import { createHash } from "node:crypto";

// How the prefix-cache stand-in and the oracle see a prompt, as vLLM's prefix cache does in kind: the
// prompt's tokens cut into blocks of BLOCK_TOKENS, each block named by a hash of its tokens and of the block
// before it, so a block matches only with its whole prefix; a partial last block is never cached. A token
// here is a word (or a role marker), not a real tokenizer's: the routing is what is measured.

export const BLOCK_TOKENS = 16;

export interface PromptMessage {
  role: string;
  content: string;
}

export function promptTokens(messages: readonly PromptMessage[]): string[] {
  return messages.flatMap((message) => [`<${message.role}>`, ...message.content.split(" ")]);
}

/** The chained hashes of the prompt's full blocks. */
export function blockHashes(tokens: readonly string[]): string[] {
  const hashes: string[] = [];
  let previous = "";
  for (let end = BLOCK_TOKENS; end <= tokens.length; end += BLOCK_TOKENS) {
    previous = createHash("sha1")
      .update(previous)
      .update(tokens.slice(end - BLOCK_TOKENS, end).join(" "))
      .digest("base64");
    hashes.push(previous);
  }
  return hashes;
}

/** How many leading blocks of `hashes` the cache holds. */
export function cachedBlocks(hashes: readonly string[], has: (hash: string) => boolean): number {
  let count = 0;
  while (count < hashes.length && has(hashes[count] as string)) count += 1;
  return count;
}

// Types of limits.mjs, for the tests that call it.
export declare const LIMIT_KEYWORDS: readonly string[];
export type Limits = Readonly<Record<string, unknown>>;
export interface DocumentLimits {
  operations: Record<string, Partial<Record<"path" | "query", Record<string, Limits>>>>;
  schemas: Record<string, Record<string, Limits>>;
}
export declare function limitsFromDocument(document: unknown): DocumentLimits;
export declare function renderLimitsModule(
  header: string,
  limitsByExport: Record<string, { source: string; limits: DocumentLimits }>,
): string;

// The limits a client checks before it sends anything, read from a bundled OpenAPI document, so that a
// number the contract holds (a maximum length, a score range, an id format) is written in one place only.

/** The JSON Schema keywords that bound a value. A schema's other keywords are not limits. */
export const LIMIT_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "multipleOf",
];

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * `{ operations, schemas }` for one bundled document: every operation's path and query parameters keyed by
 * `operationId`, and every component schema's properties, each with only the limit keywords it carries.
 */
export function limitsFromDocument(document) {
  const schemas = {};
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    const properties = {};
    for (const [property, propertySchema] of Object.entries(schema.properties ?? {})) {
      const limits = limitsOf(resolve(document, propertySchema));
      if (limits) properties[property] = limits;
    }
    if (Object.keys(properties).length > 0) schemas[name] = properties;
  }
  const operations = {};
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation?.operationId) continue;
      const byLocation = {};
      for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
        const { in: location, name, schema } = resolve(document, parameter);
        if (location !== "path" && location !== "query") continue;
        const limits = limitsOf(resolve(document, schema ?? {}));
        if (limits) byLocation[location] = { ...byLocation[location], [name]: limits };
      }
      if (Object.keys(byLocation).length > 0) operations[operation.operationId] = byLocation;
    }
  }
  return { operations: sortKeys(operations), schemas: sortKeys(schemas) };
}

/**
 * The TypeScript module that holds the documents' limits as `as const` objects: one export per operation
 * (`getProjectTreeLimits`) and per schema (`traceUpdateLimits`), so a bundler keeps only those a client
 * reads, and one per document (`studioLimits`) made of them, which costs nothing when unused.
 */
export function renderLimitsModule(header, limitsByExport) {
  const names = new Set();
  const part = (source, name, limits) => {
    const exportName = `${name[0].toLowerCase()}${name.slice(1)}Limits`;
    if (names.has(exportName)) throw new Error(`two limits would be exported as ${exportName}`);
    names.add(exportName);
    const json = JSON.stringify(limits, null, 2);
    return [
      exportName,
      `/** The limits of ${name} in ${source}. */\nexport const ${exportName} = ${json} as const;\n`,
    ];
  };
  const body = Object.entries(limitsByExport)
    .map(([exportName, { source, limits }]) => {
      const parts = {};
      const text = [];
      for (const group of ["operations", "schemas"]) {
        parts[group] = Object.entries(limits[group]).map(([name, value]) => {
          const [partName, code] = part(source, name, value);
          text.push(code);
          return `${JSON.stringify(name)}: ${partName}`;
        });
      }
      const group = (name) =>
        `  ${name}: {${parts[name].map((entry) => `\n    ${entry},`).join("")}${parts[name].length ? "\n  " : ""}},`;
      return `${text.join("\n")}\n/** The limits of ${source}: per operation parameter and per schema property. */\nexport const ${exportName} = {\n${group("operations")}\n${group("schemas")}\n} as const;\n`;
    })
    .join("\n");
  return `${header}${body}`;
}

function limitsOf(schema) {
  if (typeof schema !== "object" || schema === null) return undefined;
  const picked = {};
  for (const keyword of LIMIT_KEYWORDS) {
    if (schema[keyword] !== undefined) picked[keyword] = schema[keyword];
  }
  if (Object.keys(picked).length === 0) return undefined;
  // A bound on an integer holds for whole numbers only: the check needs to know.
  if ([schema.type].flat().includes("integer")) picked.type = "integer";
  return picked;
}

/** Follows local `$ref`s (`#/components/...`), as a bundled document has them. */
function resolve(document, node) {
  let current = node;
  for (
    let hops = 0;
    typeof current?.$ref === "string" && current.$ref.startsWith("#/") && hops < 32;
    hops++
  ) {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce((at, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
  }
  return current;
}

function sortKeys(record) {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

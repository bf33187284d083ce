// `npm run codegen`: TypeScript types generated from schema.graphql with GraphQL Code Generator
// (its programmatic API, @graphql-codegen/core), into src/graphql/__generated__/ (git-ignored;
// written again by `npm install` and before every `npm run typecheck`, like the Prisma clients):
//
// - resolvers.ts: the schema's types and a resolver type for every field (`Resolvers`,
//   `QueryResolvers`, ...), with our Context and, as each object type's parent, the row its
//   resolvers receive (src/graphql/data/parents.ts).
// - operations.ts: the result and variables type of every document the REST shim runs, and of
//   each of their fragments (typescript-operations + typed-document-node).
// - rest-routes.ts: `RouteResults`, each route-table row's operation name -> its document's
//   result type, which types the row's `body` (src/rest/route-row.ts).
//
// The shim's documents are strings in the route table (src/rest/routes), built from the fragments
// the legacy shapes beside them read (src/rest/shapes); they are collected by importing that table,
// as scripts/docs.ts does, so there is no second copy of them to keep in step.
// `--root <dir>` generates for another checkout (test/operability/codegen.test.ts uses a copy);
// `--if-installed` (postinstall) skips quietly when the generator, a dev dependency, is absent.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { CodegenPlugin } from "@graphql-codegen/plugin-helpers";
import {
  buildSchema,
  Kind,
  parse,
  print,
  validate,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
} from "graphql";

/** Where the generated files go, relative to the checkout. */
export const OUT = "src/graphql/__generated__";

const HEADER = "// GENERATED from schema.graphql by scripts/codegen.ts (`npm run codegen`) - do not edit\n";

/** What every generated file shares: custom scalars as resolvers see them and as JSON carries them. */
const scalars = {
  resolvers: {
    DateTime: { input: "Date", output: "Date" },
    Time: "string",
    Upload: { input: "unknown", output: "never" },
  },
  results: { DateTime: "string", Time: "string", Upload: "unknown" },
};

/**
 * The value resolvers get as parent for each object type: the row its producing resolver returns,
 * one `export type <Type>Parent` each in src/graphql/data/parents.ts (read from there, so the list has
 * one home); types not listed are plain objects shaped as the schema says.
 */
function parentMappers(root: string, schema: GraphQLSchema): Record<string, string> {
  const text = readFileSync(join(root, "src/graphql/data/parents.ts"), "utf8");
  const names = [...text.matchAll(/^export type (\w+)Parent\b/gm)].map((m) => m[1]);
  for (const name of names)
    if (!schema.getType(name))
      throw new Error(`src/graphql/data/parents.ts: ${name}Parent names no type of schema.graphql`);
  return Object.fromEntries(names.map((name) => [name, `../data/parents.ts#${name}Parent`]));
}

type RouteRow = { operation: string; method: string; path: string; document: string };

/** Each fragment and operation once (rows share fragments and aliases share documents); a name used twice for different text is refused. */
function uniqueDefinitions(
  schema: GraphQLSchema,
  routes: RouteRow[],
): { document: DocumentNode; operationOf: Map<string, string> } {
  const byName = new Map<string, { text: string; node: DefinitionNode }>();
  const operationOf = new Map<string, string>();
  for (const route of routes) {
    const parsed = parse(route.document);
    // Named here, a document the schema no longer accepts says which route it is.
    const errors = validate(schema, parsed);
    if (errors.length)
      throw new Error(
        `REST route "${route.operation}" (${route.method} ${route.path}): ${errors.map((e) => e.message).join("; ")}`,
      );
    for (const node of parsed.definitions) {
      if (node.kind !== Kind.OPERATION_DEFINITION && node.kind !== Kind.FRAGMENT_DEFINITION) continue;
      const name = node.name?.value;
      if (!name)
        throw new Error(`REST route "${route.operation}": its operation needs a name (its types are named after it)`);
      const key = `${node.kind === Kind.FRAGMENT_DEFINITION ? "fragment" : "operation"} ${name}`;
      const text = print(node);
      const seen = byName.get(key);
      if (seen && seen.text !== text) throw new Error(`REST documents: two different definitions of ${key}`);
      byName.set(key, { text, node });
      if (node.kind === Kind.OPERATION_DEFINITION) {
        const suffix =
          node.operation === "query" ? "Query" : node.operation === "mutation" ? "Mutation" : "Subscription";
        operationOf.set(route.operation, `${name}${suffix}`);
      }
    }
  }
  return { document: { kind: Kind.DOCUMENT, definitions: [...byName.values()].map((d) => d.node) }, operationOf };
}

/** The generator and its plugins: dev dependencies, loaded only when generating. */
async function loadCodegen() {
  const [core, typescript, typescriptResolvers, typescriptOperations, typedDocumentNode] = await Promise.all([
    import("@graphql-codegen/core"),
    import("@graphql-codegen/typescript"),
    import("@graphql-codegen/typescript-resolvers"),
    import("@graphql-codegen/typescript-operations"),
    import("@graphql-codegen/typed-document-node"),
  ]);
  const pluginMap: Record<string, CodegenPlugin> = {
    typescript,
    typescriptResolvers,
    typescriptOperations,
    typedDocumentNode,
  };
  return { codegen: core.codegen, pluginMap };
}

type Codegen = Awaited<ReturnType<typeof loadCodegen>>;
type Input = { schema: GraphQLSchema; schemaDocument: DocumentNode };

async function generateFile(
  tools: Codegen,
  input: Input,
  filename: string,
  plugins: Record<string, object>[],
  config: object,
  documents: DocumentNode[] = [],
) {
  return (
    HEADER +
    (await tools.codegen({
      filename,
      schema: input.schemaDocument,
      schemaAst: input.schema,
      documents: documents.map((document) => ({ document, location: "src/rest/routes" })),
      plugins,
      pluginMap: tools.pluginMap,
      config: { useTypeImports: true, enumsAsTypes: true, ...config },
    }))
  );
}

/** The generated files' text by file name, for the checkout at `root`. */
export async function generate(root: string): Promise<Record<string, string>> {
  const schemaText = readFileSync(join(root, "schema.graphql"), "utf8");
  const input = { schema: buildSchema(schemaText), schemaDocument: parse(schemaText) };
  const { routes } = (await import(pathToFileURL(join(root, "src/rest/routes/index.ts")).href)) as {
    routes: RouteRow[];
  };
  const { document, operationOf } = uniqueDefinitions(input.schema, routes);
  const tools = await loadCodegen();

  const resolvers = await generateFile(
    tools,
    input,
    "resolvers.ts",
    [{ typescript: {} }, { typescriptResolvers: {} }],
    {
      scalars: scalars.resolvers,
      contextType: "../data/context.ts#Context",
      mappers: parentMappers(root, input.schema),
      // Resolvers of the fields graphql-js would read straight off the parent are optional.
      avoidOptionals: false,
    },
  );
  const operations = await generateFile(
    tools,
    input,
    "operations.ts",
    // typescript-operations writes the input and enum types its documents use itself.
    [{ typescriptOperations: {} }, { typedDocumentNode: {} }],
    { scalars: scalars.results, skipTypename: true },
    [document],
  );
  const rows = [...operationOf].map(([row, type]) => `  ${JSON.stringify(row)}: Operations.${type};`);
  const restRoutes = `${HEADER}// Each REST route-table row (by its \`operation\` name) -> the result type of the GraphQL document it runs.
import type * as Operations from "./operations.ts";

export type RouteResults = {
${rows.join("\n")}
};
`;
  return { "resolvers.ts": resolvers, "operations.ts": operations, "rest-routes.ts": restRoutes };
}

/** Writes the files; only those whose text changed, so tools watching them see no needless change. */
export async function writeGenerated(root: string): Promise<string[]> {
  const files = await generate(root);
  const dir = join(root, OUT);
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    let old: string | null = null;
    try {
      old = readFileSync(path, "utf8");
    } catch {}
    if (old !== text) {
      writeFileSync(path, text);
      written.push(name);
    }
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--root");
  const root = at >= 0 ? process.argv[at + 1] : fileURLToPath(new URL("..", import.meta.url));
  try {
    await writeGenerated(root);
  } catch (error) {
    // `npm install --omit=dev` (postinstall passes --if-installed): the types only serve tsc.
    const missing =
      (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && /@graphql-codegen\//.test(String(error));
    if (!(missing && process.argv.includes("--if-installed"))) throw error;
    console.warn("GraphQL Code Generator is not installed (dev dependency): no generated types.");
  }
}

// Compiled execution for documents that repeat. graphql-jit turns an operation into a JavaScript
// function that resolves exactly its selection, skipping graphql-js's per-field interpretation
// (argument coercion, field look-ups, promise bookkeeping) and building plain result objects,
// which JSON.stringify writes faster than graphql-js's prototype-less ones. Compiling costs far
// more than one execution, so a document is compiled only once it has been executed `after` times
// (the REST shim's and a frontend's documents repeat; a one-off or hostile document runs on
// graphql-js and never pays for, or makes us pay for, a compilation), and at most
// MAX_COMPILED documents stay compiled (least recently used first out). Compiling blocks the event
// loop (about 0.08 ms per field; a big document of 600 fields took 40 to 90 ms here), so only
// documents of at most MAX_COMPILED_FIELDS fields compile, and at most `perMinute` compilations
// run a minute: a client sending many documents twice each cannot make compiling its weapon.
//
// The resolvers, the schema's directive wrappers and the response ceiling are the same functions
// either way. Where graphql-jit's words could differ from graphql-js's (variables that do not
// coerce: nothing has run yet), the operation is handed to graphql-js, so clients always read
// graphql-js's messages.
import {
  execute,
  getOperationAST,
  GraphQLError,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";

/** Most documents kept compiled; each holds a generated function and its closures (tens of kB). */
export const MAX_COMPILED = 256;
/** Largest document compiled, in fields (the REST shim's largest has 52). */
export const MAX_COMPILED_FIELDS = 200;

export type CompileOptions = {
  /** Executions of the same operation after which it runs compiled; 0 never compiles. */
  after: number;
  /** Most compilations a minute; past that, operations due wait on graphql-js for the next minute. */
  perMinute: number;
  /** Told of every execution (how it ran) and of the number of operations compiled now (metrics). */
  observe?: { executed(mode: "compiled" | "interpreted"): void; compiled(count: number): void };
};

export type Execution = {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  context: unknown;
  /** A subscription's event (subscriptions never compile: they run on graphql-js). */
  rootValue?: unknown;
};

export type Executor = (execution: Execution) => Promise<ExecutionResult> | ExecutionResult;

/** `interpreted`: never compiled (a subscription, too many fields, or graphql-jit declined it). */
type Entry = { runs: number; compiled?: CompiledQuery; interpreted?: boolean };

/** One compiled function for one operation of a document (a document may hold several operations). */
function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): CompiledQuery | undefined {
  const compiled = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
  return isCompiledQuery(compiled) ? compiled : undefined;
}

/**
 * graphql-jit's errors imitate graphql-js's but may lack `extensions`, on which Apollo Server's
 * error formatting relies: each becomes a graphql-js GraphQLError with the same message, path,
 * locations and original error.
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const copy = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: error.extensions,
  });
  (copy as { locations?: GraphQLError["locations"] }).locations = error.locations;
  return copy;
}

/** Runs a compiled operation; a request error (no `data`: nothing ran) is answered by graphql-js instead. */
async function runCompiled(
  schema: GraphQLSchema,
  compiled: CompiledQuery,
  execution: Execution,
): Promise<ExecutionResult> {
  const result = await compiled.query(undefined, execution.context, execution.variables ?? {});
  if (!("data" in result)) return runInterpreted(schema, execution);
  return result.errors ? { ...result, errors: result.errors.map(asGraphqlJsError) } : result;
}

const runInterpreted = (schema: GraphQLSchema, execution: Execution) =>
  execute({
    schema,
    document: execution.document,
    operationName: execution.operationName,
    variableValues: execution.variables,
    contextValue: execution.context,
    rootValue: execution.rootValue,
  });

function fieldCount(document: DocumentNode): number {
  let fields = 0;
  visit(document, { Field: () => void fields++ });
  return fields;
}

const compilable = (document: DocumentNode, operation: OperationDefinitionNode | null | undefined) =>
  (operation?.operation === "query" || operation?.operation === "mutation") &&
  fieldCount(document) <= MAX_COMPILED_FIELDS;

/**
 * An executor that compiles an operation on its `after`-th execution. Documents are keyed by
 * identity: Apollo Server hands the same parsed document for the same text (its document cache),
 * and the REST shim parsed each route's once.
 */
export function compilingExecutor(schema: GraphQLSchema, { after, perMinute, observe }: CompileOptions): Executor {
  const interpreted = (execution: Execution) => {
    observe?.executed("interpreted");
    return runInterpreted(schema, execution);
  };
  const compiled = (entry: Entry, execution: Execution) => {
    observe?.executed("compiled");
    return runCompiled(schema, entry.compiled!, execution);
  };
  if (after <= 0) return interpreted;
  const byDocument = new WeakMap<DocumentNode, Map<string, Entry>>();
  // Insertion order is recency order: a hit moves its entry to the end.
  const recent = new Map<Entry, () => void>();
  // Compilations in the current minute (a fixed window: simple, and bounded all the same).
  let windowStart = 0;
  let compiledInWindow = 0;
  function mayCompile(): boolean {
    const now = Date.now();
    if (now - windowStart >= 60_000) [windowStart, compiledInWindow] = [now, 0];
    if (compiledInWindow >= perMinute) return false;
    compiledInWindow++;
    return true;
  }

  function entryFor(document: DocumentNode, operationName: string): Entry {
    let operations = byDocument.get(document);
    if (!operations) byDocument.set(document, (operations = new Map()));
    let entry = operations.get(operationName);
    if (!entry) operations.set(operationName, (entry = { runs: 0 }));
    return entry;
  }

  function keep(entry: Entry, forget: () => void) {
    recent.set(entry, forget);
    if (recent.size > MAX_COMPILED) {
      const [oldest, forgetOldest] = recent.entries().next().value!;
      recent.delete(oldest);
      forgetOldest();
    }
    observe?.compiled(recent.size);
  }

  return (execution) => {
    const operationName = execution.operationName ?? "";
    const entry = entryFor(execution.document, operationName);
    if (entry.compiled) {
      const forget = recent.get(entry)!;
      recent.delete(entry);
      recent.set(entry, forget);
      return compiled(entry, execution);
    }
    if (entry.interpreted || ++entry.runs < after) return interpreted(execution);
    if (!compilable(execution.document, getOperationAST(execution.document, execution.operationName))) {
      entry.interpreted = true;
      return interpreted(execution);
    }
    if (!mayCompile()) return interpreted(execution);
    entry.compiled = compileOperation(schema, execution.document, execution.operationName);
    if (!entry.compiled) {
      entry.interpreted = true;
      return interpreted(execution);
    }
    // The forgetting closure holds the document alone, not this execution (its context, its variables).
    const { document } = execution;
    keep(entry, () => byDocument.get(document)?.delete(operationName));
    return compiled(entry, execution);
  };
}

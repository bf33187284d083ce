// The one admission path every transport uses: HTTP GraphQL (Apollo, through its hooks), the REST
// shim, graphql-ws and graphql-sse. Each operation passes the same steps in the same order:
//
//   1. charge the caller (its token, else its address): before a byte of the document is read;
//   2. take the text (as sent, or named by an id: src/graphql/persisted) and parse it, with the token limit;
//   3. trust (TRUSTED_DOCUMENTS=enforce runs only the manifests' texts), then validate:
//      graphql-js's rules, depth, aliases, directives, repeated fields, @expensive max;
//   4. pick the operation the transport may run; cost it with its variables and defaults; charge each
//      @expensive root field beyond the first;
//   5. execute (compiled once it repeats), then the response ceiling; errors mapped once.
//
// A transport adds only its own framing. HTTP requests are charged one request on arrival by the
// rate-limit hook (it covers every route, GraphQL or not), so they arrive here prepaid; a
// WebSocket message is charged here. The REST shim's documents are the server's own: parsed and
// validated once at start-up, then checked from step 4 on for each request: always trusted.
import {
  getOperationAST,
  GraphQLError,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from "graphql";
import type { ClientError } from "../../contract/errors.ts";
import type { Viewer } from "../../domain/accounts/tokens.ts";
import type { DocumentText, PersistedDocuments } from "../persisted/persisted-documents.ts";
import type { SentDocument } from "../persisted/document-id.ts";
import { formatError as formatClientError, toClientError } from "./client-errors.ts";
import { withoutSuggestions } from "./suggestions.ts";
import { sharedDocuments } from "./shared-documents.ts";
import type { Executor } from "./compiled-execution.ts";
import { clientKeyOf, type Context } from "../data/context.ts";
import { asRequester } from "../../db/share/requester.ts";
import { operationCost, costLimitError } from "../policy/cost.ts";
import { expensiveFieldCount, expensiveFieldLimitRule } from "../policy/expensive.ts";
import type { OperationLimits } from "../policy/limits.ts";
import { ceilingCrossed } from "../policy/response-ceiling.ts";
import { cacheControlHeader, cachePolicies } from "../policy/cache-control.ts";

/** What a client sends: the document's text (or its id: document-id.ts), the operation to run, its variables. */
export type OperationText = SentDocument & { operationName?: unknown; variables?: unknown };

/** Who pays: `prepaid` when the transport charged the one request already (HTTP's rate-limit hook). */
export type Caller = { chargeRequests(units: number): Promise<void>; prepaid: boolean };

/** An operation that passed steps 1 to 4, ready to run. */
export type Admitted = {
  /** The document's text (the one its id named, when it came by id). */
  text: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  /** The cost step 4 computed (live subscriptions are budgeted by it). */
  cost: number;
};

/** Refused before anything ran: the errors, in the client-safe shape every transport sends. */
export type Refused = { errors: GraphQLError[] };

export type OperationRunner = ReturnType<typeof operationRunner>;

const refusal = (code: string, message: string): Refused => ({
  errors: [new GraphQLError(message, { extensions: { code } })],
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The error GraphQL's own steps raise, or the RATE_LIMITED (and other domain) errors charging throws. */
function asGraphqlError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  return new GraphQLError(error instanceof Error ? error.message : "The operation was refused.", {
    originalError: error instanceof Error ? error : undefined,
  });
}

/**
 * `documents`: what ids name and which texts are trusted (src/graphql/persisted); without it (the
 * REST route checks of tests) any text is trusted and ids name nothing.
 */
export function operationRunner(
  schema: GraphQLSchema,
  limits: OperationLimits,
  executor: Executor,
  documents?: PersistedDocuments,
) {
  const expensiveMax = expensiveFieldLimitRule(schema);
  /** Ours, on top of graphql-js's `specifiedRules` (Apollo adds those itself). */
  const ownRules: readonly ValidationRule[] = [...limits.validationRules, expensiveMax];
  const validationRules: readonly ValidationRule[] = [...specifiedRules, ...ownRules];
  /** The server's own documents (REST routes) are not a client's: only the rules about what may run together. */
  const serverRules: readonly ValidationRule[] = [...specifiedRules, expensiveMax];
  const parseOptions = limits.parseOptions;
  /** Subscriptions that send the same text hold one tree (shared-documents.ts); validated once per tree. */
  const parsed = sharedDocuments(parseOptions);
  const maxCost = limits.maxCost;
  const cachePolicy = cachePolicies(schema, limits.cacheMaxAge);

  /** Step 4, for a document already validated: the cost (throws past the limit) and the charge of extra @expensive fields. */
  async function check(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: unknown,
    caller: Caller,
  ): Promise<number> {
    const cost = operationCost(
      schema,
      document,
      operationName,
      isRecord(variables) ? variables : undefined,
      limits.maxRepresentations,
    );
    if (cost !== undefined && cost > maxCost) throw costLimitError(cost, maxCost);
    const extra = expensiveFieldCount(schema, document, operationName) - 1;
    if (extra > 0) await caller.chargeRequests(extra);
    return cost ?? 0;
  }

  /** Step 2's first half: the text a request runs (the one its id names), and whether to register it once admitted. */
  const textOf = (sent: SentDocument): DocumentText | Promise<DocumentText> =>
    documents ? documents.textOf(sent) : { text: sent.query };

  /** Step 3's first half: the refusal of a text the viewer may not run (TRUSTED_DOCUMENTS=enforce), or undefined. */
  const trust = (text: string, viewer: Viewer | null): GraphQLError | undefined =>
    documents?.trusted.refusal(text, viewer);

  /** After step 4: keeps an admitted text under the hash it came with (automatic persisted queries); never fails the request. */
  function register(hash: string, text: string, context: Context): void {
    void documents?.register(hash, text, clientKeyOf(context.viewer, context.guards.clientAddress)).catch(() => {});
  }

  /**
   * Steps 1 to 4 for a document sent as text or named by id (WebSocket, Server-Sent Events): the
   * admitted operation, or the errors that refuse it. `only`: the one kind of operation this
   * transport runs; `viewer`: who sends it (an admin may send any text under TRUSTED_DOCUMENTS=enforce).
   * Texts are not registered here: automatic persisted queries register over HTTP.
   */
  async function admit(
    sent: OperationText,
    caller: Caller,
    {
      only,
      transport,
      viewer,
    }: { only?: "query" | "mutation" | "subscription"; transport: string; viewer: Viewer | null },
  ): Promise<Admitted | Refused> {
    try {
      if (!caller.prepaid) await caller.chargeRequests(1);
    } catch (error) {
      return { errors: [asGraphqlError(error)] };
    }
    // Awaited only when it has to ask Redis: a text sent as such keeps the order answers went out in.
    const looked = textOf(sent);
    const found = looked instanceof Promise ? await looked : looked;
    if ("refused" in found) return { errors: [found.refused] };
    const text = { ...sent, query: found.text };
    if (typeof text.query !== "string" || text.query.length === 0)
      return refusal("BAD_USER_INPUT", "Send the operation's text as `query`.");
    if (text.operationName != null && typeof text.operationName !== "string")
      return refusal("BAD_USER_INPUT", "`operationName` must be a string.");
    if (text.variables != null && !isRecord(text.variables))
      return refusal("BAD_USER_INPUT", "`variables` must be an object.");
    let document: DocumentNode;
    try {
      document = parsed(text.query);
    } catch (error) {
      return {
        errors: [error instanceof GraphQLError ? error : new GraphQLError("The operation could not be parsed.")],
      };
    }
    const untrusted = trust(text.query, viewer);
    if (untrusted) return { errors: [untrusted] };
    const invalid = validated(document);
    if (invalid.length > 0) return { errors: [...invalid] };
    const operationName = text.operationName ?? undefined;
    const operation = getOperationAST(document, operationName);
    if (!operation)
      return refusal(
        "BAD_USER_INPUT",
        "Name the operation to run (operationName): the document holds none or several.",
      );
    if (only && operation.operation !== only) {
      return refusal(
        "BAD_USER_INPUT",
        `Only ${only === "subscription" ? "subscriptions" : `${only} operations`} run over ${transport}; send ${operation.operation === "query" ? "queries" : "mutations"} with POST /graphql.`,
      );
    }
    const variables = text.variables ?? undefined;
    try {
      const cost = await check(document, operationName, variables, caller);
      return { text: text.query, document, operation, operationName, variables, cost };
    } catch (error) {
      return { errors: [asGraphqlError(error)] };
    }
  }

  /**
   * Step 5: runs an admitted operation (`rootValue`: a subscription's event); a crossed response
   * ceiling answers with its one error instead of partial data.
   */
  async function execute(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
    context: Context,
    rootValue?: unknown,
  ): Promise<ExecutionResult> {
    // Its searches count against its client's share of the searches' readers (src/db/share/fair-share.ts).
    const client = clientKeyOf(context.viewer, context.guards.clientAddress);
    const result = await asRequester(client, () =>
      executor({ document, operationName, variables, context, rootValue }),
    );
    const crossed = ceilingCrossed(context);
    if (!crossed) return result;
    return {
      errors: [new GraphQLError(crossed.message, { extensions: { code: crossed.code, http: { status: 400 } } })],
    };
  }

  /** The error as a client may see it: "did you mean" suggestions cut when the schema is hidden (suggestions.ts). */
  const hideSuggestions = (known: ClientError): ClientError =>
    limits.hideSuggestions ? withoutSuggestions(known) : known;

  /** What a client may see of an error (null: an internal one, to be logged, never shown). */
  const clientError = (error: unknown): ClientError | null => {
    const known = toClientError(error);
    return known && hideSuggestions(known);
  };

  /**
   * The error in the shape every transport sends: code, a message that helps, locations and path; an
   * internal error becomes INTERNAL_SERVER_ERROR and goes to `onInternal` (the log) instead.
   */
  const formatError = (
    onInternal: (error: unknown) => void,
  ): ((formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError) =>
    formatClientError(onInternal, { hideSuggestions: limits.hideSuggestions });

  /** Step 3: the errors that refuse the document (none: valid). A rule that throws (repeated-fields.ts) refuses it too. */
  function validateWith(rules: readonly ValidationRule[], document: DocumentNode): readonly GraphQLError[] {
    try {
      return validate(schema, document, rules);
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
  }

  /** Validation outcomes by parsed document: Apollo hands the same object for the same text (its document cache), and so does `parsed`. */
  const outcomes = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  /** Step 3 for a document a transport parsed itself (Apollo): its errors, none when valid; remembered per document. */
  function validated(document: DocumentNode): readonly GraphQLError[] {
    let errors = outcomes.get(document);
    if (!errors) outcomes.set(document, (errors = validateWith(validationRules, document)));
    return errors;
  }

  /**
   * Start-up: the errors of a document of the server's own (a REST route's). The limits on
   * clients' documents (depth, aliases, repeats) do not apply: an operator's GRAPHQL_MAX_DEPTH
   * must not take legacy routes away.
   */
  const validateOwn = (document: DocumentNode) => validateWith(serverRules, document);

  /**
   * The Cache-Control of a clean answer (anything else is NO_STORE): the same on every transport, from
   * the document's @cacheControl hints and whether the request sent a token (cache-control.ts).
   */
  const cacheControl = (document: DocumentNode, operationName: string | null | undefined, context: Context) =>
    cacheControlHeader(cachePolicy(document, operationName), context.auth.state === "none");

  return {
    schema,
    parseOptions,
    textOf,
    trust,
    register,
    admit,
    validated,
    check,
    execute,
    clientError,
    hideSuggestions,
    formatError,
    validateOwn,
    cacheControl,
  };
}

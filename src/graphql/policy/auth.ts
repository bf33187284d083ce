// Auth as a declared rule: @requireAuth / @public on every root field, checked here once.
// `@requireAuth(anonymousReads: true)` marks the reads a request without any token may call when
// ANONYMOUS_READS is on (legacy clients of the original service read without one); the REST shim
// reads the same declaration (anonymouslyReadable) to decide which routes need a token.
import { getDirective, MapperKind, mapSchema } from "@graphql-tools/utils";
import {
  defaultFieldResolver,
  Kind,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { forbidden, signInRequired, type DomainError } from "../../contract/errors.ts";
import type { Context } from "../data/context.ts";

const ROOT_TYPES = new Set(["Query", "Mutation", "Subscription"]);

export type AuthRule = { role?: "USER" | "ADMIN"; anonymousReads?: boolean };

/** Who may run a document, from its root fields' declarations (the REST shim's routes are documents). */
export type DocumentAccess = "public" | "anonymousReads" | "signedIn";

/**
 * The refusal for a caller who must be signed in and is not, or null: a field or document that
 * is `anonymousReads` lets a caller without any token through when ANONYMOUS_READS is on.
 */
export function signInRefusal(ctx: Context, anonymousReads: boolean): DomainError | null {
  if (ctx.viewer || (anonymousReads && readsAnonymously(ctx))) return null;
  return ctx.auth.state === "invalid" ? signInRequired(true, ctx.auth.reason) : signInRequired(false);
}

/** The refusal a caller gets from a field declaring `rule` (@requireAuth's arguments), or null. */
export function ruleRefusal(ctx: Context, rule: AuthRule, fieldName: string): DomainError | null {
  const refusal = signInRefusal(ctx, Boolean(rule.anonymousReads));
  if (refusal) return refusal;
  return rule.role === "ADMIN" && ctx.viewer?.role !== "ADMIN" ? forbidden(`${fieldName} is for admins only.`) : null;
}

/**
 * Whether this request may call an anonymousReads field without being signed in: the setting is
 * on and it sent no token at all (an invalid, expired or revoked token still gets 401, so a
 * client learns to sign in again).
 */
export const readsAnonymously = (ctx: Context) => ctx.settings.anonymousReads && ctx.auth.state === "none";

/** "Query.restaurant" and the like: the root fields declared @requireAuth(anonymousReads: true). */
export function anonymouslyReadable(schema: GraphQLSchema): Set<string> {
  const fields = new Set<string>();
  const query = schema.getQueryType();
  for (const field of Object.values(query?.getFields() ?? {})) {
    const rule = getDirective(schema, field, "requireAuth")?.[0] as AuthRule | undefined;
    if (rule?.anonymousReads) fields.add(`${query!.name}.${field.name}`);
  }
  return fields;
}

/** Whether every root field a document's operation selects is declared anonymousReads (plain fields only). */
export function anonymouslyReadableDocument(schema: GraphQLSchema, document: DocumentNode): boolean {
  const readable = anonymouslyReadable(schema);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operation?.operation !== "query") return false;
  const selections = operation.selectionSet.selections;
  return (
    selections.length > 0 && selections.every((s) => s.kind === Kind.FIELD && readable.has(`Query.${s.name.value}`))
  );
}

/** Whether every root field a document's operation selects is declared @public (plain fields only). */
function publicDocument(schema: GraphQLSchema, document: DocumentNode): boolean {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const root = operation && schema.getRootType(operation.operation);
  const selections = operation?.selectionSet.selections ?? [];
  return (
    Boolean(root) &&
    selections.length > 0 &&
    selections.every((s) => {
      const field = s.kind === Kind.FIELD ? root!.getFields()[s.name.value] : undefined;
      return Boolean(field && getDirective(schema, field, "public")?.[0]);
    })
  );
}

/** Who may run `document`: read from the same declarations that guard its fields. */
export function documentAccess(schema: GraphQLSchema, document: DocumentNode): DocumentAccess {
  if (publicDocument(schema, document)) return "public";
  return anonymouslyReadableDocument(schema, document) ? "anonymousReads" : "signedIn";
}

export function applyAuthDirectives(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const rule = getDirective(schema, field, "requireAuth")?.[0] as AuthRule | undefined;
      const isPublic = Boolean(getDirective(schema, field, "public")?.[0]);
      if (ROOT_TYPES.has(typeName) && !rule && !isPublic) {
        throw new Error(`${typeName}.${fieldName} declares neither @requireAuth nor @public`);
      }
      if (!rule) return field;
      if (rule.anonymousReads && (typeName !== "Query" || rule.role === "ADMIN")) {
        throw new Error(`${typeName}.${fieldName}: anonymousReads is for reads (Query fields) open to every user`);
      }
      const check = (ctx: Context) => {
        const refusal = ruleRefusal(ctx, rule, fieldName);
        if (refusal) throw refusal;
      };
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx: Context, info) => {
        check(ctx);
        return resolve(source, args, ctx, info);
      };
      // A subscription is refused when it starts (subscribe), and each event is checked again (resolve).
      const subscribe = field.subscribe;
      if (subscribe) {
        field.subscribe = (source, args, ctx: Context, info) => {
          check(ctx);
          return subscribe(source, args, ctx, info);
        };
      }
      return field;
    },
  });
}

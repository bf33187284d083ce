// A hard ceiling on the objects one response may hold, behind the cost estimate (cost.ts), which
// cannot know how many parents a nested page will really have, nor how long an unpaged list is.
// Counted at run time, at two kinds of fields only (never per field, so a normal query pays one
// extra call per list):
// - a paged field (one with `first`) that asks for its items (`nodes`, `edges`) counts the page it
//   may hold, BEFORE it reads it, so a nested page under 10,000 parents stops the execution before
//   thousands of pages are read;
// - any other list of objects (badges, opening hours) counts its items once resolved.
// Once crossed, every later page or list fails at once, so execution winds down without reading
// more, and the client gets one clear error instead of partial data (operation.ts, for every
// transport). An operation under the cost limit never reaches the ceiling through pages.
import { MapperKind, mapSchema } from "@graphql-tools/utils";
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  GraphQLError,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  responsePathAsArray,
  type FieldNode,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";
import { pageItems } from "./cost.ts";
import type { ClientError } from "../../contract/errors.ts";
import type { Context } from "../data/context.ts";

/** `stop`: the one error thrown by every field after the crossing (see stopped()). */
type Tally = { objects: number; crossed: boolean; stop?: GraphQLError };

/** Per request (context), so nothing is added to the context every resolver sees. */
const tallies = new WeakMap<object, Tally>();

function tallyOf(context: object): Tally {
  let tally = tallies.get(context);
  if (!tally) tallies.set(context, (tally = { objects: 0, crossed: false }));
  return tally;
}

const message = (max: number) =>
  `The response would hold more than ${max} objects (GRAPHQL_MAX_RESPONSE_OBJECTS); its execution was stopped. ` +
  "Ask for smaller pages (`first`) or fewer nested lists.";

/**
 * Thousands of fields may fail after the crossing: they all throw the same error, which carries a
 * path so graphql-js passes it on as it is instead of building (and capturing a stack for) a new one.
 */
function stopped(tally: Tally, max: number, info: GraphQLResolveInfo): GraphQLError {
  tally.crossed = true;
  return (tally.stop ??= new GraphQLError(message(max), {
    path: responsePathAsArray(info.path),
    extensions: { code: "BAD_USER_INPUT" },
  }));
}

/** The ceiling error when this request's execution crossed it, else null. */
export function ceilingCrossed(context: Context): ClientError | null {
  return tallies.get(context)?.crossed
    ? { code: "BAD_USER_INPUT", message: message(context.settings.maxResponseObjects) }
    : null;
}

function add(tally: Tally, max: number, objects: number, info: GraphQLResolveInfo): void {
  tally.objects += objects;
  if (tally.objects > max) throw stopped(tally, max, info);
}

const isListOfObjects = (type: GraphQLOutputType) =>
  isListType(getNullableType(type)) && isCompositeType(getNamedType(type));

/** Whether a paged field's selection (fragments included) reads its items, not only `totalCount` or `pageInfo`. */
const selectsItemsCache = new WeakMap<FieldNode, boolean>();
function selectsItems(info: GraphQLResolveInfo): boolean {
  const key = info.fieldNodes[0];
  const known = selectsItemsCache.get(key);
  if (known !== undefined) return known;
  const connection = getNamedType(info.returnType);
  const fields = isObjectType(connection) ? connection.getFields() : {};
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>): boolean =>
    !!set?.selections.some((s) => {
      if (s.kind === Kind.FIELD) return !!fields[s.name.value] && isListOfObjects(fields[s.name.value].type);
      if (s.kind === Kind.INLINE_FRAGMENT) return visit(s.selectionSet, seen);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return visit(info.fragments[s.name.value]?.selectionSet, seen);
    });
  const answer = info.fieldNodes.some((node) => visit(node.selectionSet, new Set()));
  selectsItemsCache.set(key, answer);
  return answer;
}

export function applyResponseCeiling(schema: GraphQLSchema): GraphQLSchema {
  // Types returned by paged fields: their lists hold the page already counted at the paged field.
  const pageTypes = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.some((arg) => arg.name === "first")) pageTypes.add(getNamedType(field.type).name);
    }
  }
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, _name, typeName) => {
      const paged = !!field.args && "first" in field.args;
      const counted = !paged && !pageTypes.has(typeName) && isListOfObjects(field.type);
      if (!paged && !counted) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      const wrapped: GraphQLFieldResolver<unknown, Context> = (source, args, context, info) => {
        const max = context.settings.maxResponseObjects;
        const tally = tallyOf(context);
        if (tally.crossed) throw stopped(tally, max, info);
        if (paged) {
          if (selectsItems(info)) add(tally, max, pageItems(args.first), info);
          return resolve(source, args, context, info);
        }
        const count = (list: unknown) => {
          if (Array.isArray(list)) add(tally, max, list.length, info);
          return list;
        };
        const value = resolve(source, args, context, info);
        return value instanceof Promise ? value.then(count) : count(value);
      };
      return { ...field, resolve: wrapped };
    },
  });
}

// Federation's `_entities(representations:)`: a gateway sends `{ __typename, id }` for each entity
// another subgraph pointed at, and gets the entities back in order. It is a new way in, so each
// representation is answered exactly as the Query field that reads its type by id answers that
// id: the same resolver, behind the same rule (@requireAuth, anonymous reads), with the same
// look-ahead and per-request loaders (a batch of one type's representations is one statement,
// as a page's references are), and its refusals (null with the error) are the same. What it may
// cost, and how many representations an operation may send, is checked before anything runs
// (policy/cost.ts). A representation that is malformed or names no entity of ours gets null
// with BAD_USER_INPUT; the others are answered.
import {
  addResolversToSchema,
  entitiesResolver,
  type GraphQLReferenceResolver,
  type GraphQLResolverMap,
} from "@apollo/subgraph";
import { GraphQLID, type GraphQLFieldResolver, type GraphQLSchema } from "graphql";
import { badInput } from "../../contract/errors.ts";
import type { Context } from "../data/context.ts";

/**
 * The entities: each type another subgraph may extend or point at by `@key(fields: "id")`, and
 * the Query field that reads one by id. Only types with such a field: its rule is the entity's.
 */
export const ENTITY_READS = { Restaurant: "restaurant", Grocery: "grocery", User: "user" } as const;

type EntityType = keyof typeof ENTITY_READS;

/** A representation we can answer: an entity type of ours and its key. */
type Representation = { __typename: EntityType; id: string };

const isEntityType = (name: unknown): name is EntityType =>
  typeof name === "string" && Object.hasOwn(ENTITY_READS, name);

const EXAMPLE = '{"__typename": "Restaurant", "id": "…"}';

/** The representation as we answer it, or throws BAD_USER_INPUT saying what is wrong with it. */
function checked(value: unknown): Representation {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badInput(`A representation is an object with \`__typename\` and \`id\`, e.g. ${EXAMPLE}.`);
  const { __typename: typename, id } = value as Record<string, unknown>;
  if (typeof typename !== "string")
    throw badInput(`A representation names its type in \`__typename\`, e.g. ${EXAMPLE}.`);
  if (!isEntityType(typename))
    throw badInput(`\`__typename\` must name an entity of this service (${Object.keys(ENTITY_READS).join(", ")}).`);
  let key: string;
  try {
    key = GraphQLID.parseValue(id);
  } catch {
    throw badInput(`A ${typename} representation carries its key \`id\`: a string, e.g. ${EXAMPLE}.`);
  }
  return { __typename: typename, id: key };
}

/** Each representation as the entity, or the reason it is not (a rejected item: null with its error). */
const entities: GraphQLFieldResolver<unknown, Context, { representations: unknown[] }> = (
  _,
  { representations },
  context,
  info,
) =>
  representations.map(async (value) => {
    const representation = checked(value);
    const [entity] = entitiesResolver({ representations: [representation], context, info });
    return entity;
  });

/** A representation read as `Query.<field>(id:)` reads its id: that field's resolver, rule and look-ahead. */
const readAsQueryField =
  (field: string): GraphQLReferenceResolver<Context> =>
  (reference, context, info) => {
    const query = info.schema.getQueryType()!;
    const read = query.getFields()[field];
    const { id } = reference as Representation;
    // The selection under `_entities` seen as this type's (its fragments on the type apply).
    return read.resolve!(undefined, { id }, context, {
      ...info,
      fieldName: field,
      parentType: query,
      returnType: read.type,
    });
  };

/**
 * Installs `_entities` and each entity's reference resolver on a schema built by subgraph.ts
 * (in place, before the rules are wrapped around the fields). Throws at start-up when an
 * entity's read is not a Query field taking one `id`.
 */
export function resolveEntities(schema: GraphQLSchema): GraphQLSchema {
  const resolvers: GraphQLResolverMap<Context> = { Query: { _entities: entities } };
  for (const [type, field] of Object.entries(ENTITY_READS)) {
    const read = schema.getQueryType()?.getFields()[field];
    if (!read || read.args.map((a) => a.name).join() !== "id")
      throw new Error(`federation: ${type} is read by Query.${field}(id:), which the schema lacks`);
    // The library's map types every entry as a field resolver; `__resolveReference` takes (reference, context, info).
    resolvers[type] = {
      __resolveReference: readAsQueryField(field) as unknown as GraphQLFieldResolver<unknown, Context>,
    };
  }
  addResolversToSchema(schema, resolvers);
  return schema;
}

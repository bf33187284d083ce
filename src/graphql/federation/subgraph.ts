// The service as a Federation v2 subgraph (FEDERATION_SUBGRAPH=true): a gateway (Hive Gateway,
// Apollo Router, @apollo/gateway) reads its schema from `_service { sdl }` and asks it for the
// entities other subgraphs extend through `_entities(representations:)`.
//
// schema.graphql stays plain GraphQL (codegen, the IDE and client compilers read it as it is):
// the `@link` to Federation and the `@key` of each entity are added here, to its parsed document,
// and @apollo/subgraph adds the Federation definitions, `_service` and `_entities`. The rules of
// those two root fields are declared here as schema.graphql's fields declare theirs, so auth.ts
// wraps them like any other.
import { buildSubgraphSchema } from "@apollo/subgraph";
import {
  executeSync,
  Kind,
  parse,
  type ConstDirectiveNode,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
} from "graphql";
import { ENTITY_READS } from "./entities.ts";

export const FEDERATION_LINK = "https://specs.apollo.dev/federation/v2.3";

/** Value types other subgraphs commonly define too (a Relay page's): resolvable by any of them. */
const SHAREABLE_TYPES = new Set(["PageInfo"]);

const LINK = parse(`extend schema @link(url: "${FEDERATION_LINK}", import: ["@key", "@shareable"])`).definitions;

const directivesOf = (sdl: string): readonly ConstDirectiveNode[] => {
  const [definition] = parse(sdl).definitions;
  return definition.kind === Kind.OBJECT_TYPE_DEFINITION ? (definition.directives ?? []) : [];
};
const KEY = directivesOf(`type T @key(fields: "id")`);
const SHAREABLE = directivesOf(`type T @shareable`);

/** schema.graphql's document with the `@link` to Federation, each entity's `@key` and the shareable types marked. */
export function subgraphDocument(typeDefs: string): DocumentNode {
  const document = parse(typeDefs);
  const definitions = document.definitions.map((definition) => {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION) return definition;
    const name = definition.name.value;
    const added = Object.hasOwn(ENTITY_READS, name) ? KEY : SHAREABLE_TYPES.has(name) ? SHAREABLE : [];
    return added.length ? { ...definition, directives: [...(definition.directives ?? []), ...added] } : definition;
  });
  for (const name of Object.keys(ENTITY_READS)) {
    if (!document.definitions.some((d) => d.kind === Kind.OBJECT_TYPE_DEFINITION && d.name.value === name))
      throw new Error(`federation: the entity ${name} is no object type of schema.graphql`);
  }
  return { ...document, definitions: [...LINK, ...definitions] };
}

/**
 * The subgraph schema without our resolvers (makeExecutableSchema adds them, as for the plain
 * schema): Federation's definitions, `_service` and `_entities`, with the rules of both declared.
 * `_service` is public like introspection, and refused with it (hiddenSubgraphSdlRule);
 * `_entities` is read by anonymous callers where ANONYMOUS_READS lets them read, and each
 * representation then meets the rule of the field that reads its type by id (entities.ts).
 */
export function subgraphSchema(typeDefs: string): GraphQLSchema {
  const schema = buildSubgraphSchema(subgraphDocument(typeDefs));
  const { _service: service, _entities: entities } = schema.getQueryType()!.getFields();
  if (!service || !entities) throw new Error("federation: @apollo/subgraph added no _service or _entities field");
  // The library prints the SDL on every call (12 ms of CPU here); it never changes while we run.
  const printed = service.resolve!;
  let answer: unknown;
  service.resolve = (...args) => (answer ??= printed(...args));
  declare(service, { public: [{}] });
  declare(entities, { requireAuth: [{ anonymousReads: true }] });
  return schema;
}

/** Directives as graphql-tools' getDirective reads them (from `extensions.directives` before the AST). */
function declare(field: GraphQLField<unknown, unknown>, directives: Record<string, object[]>) {
  field.extensions = { ...field.extensions, directives };
}

/** The SDL a gateway composes (what `_service { sdl }` answers), without a server: `npm run subgraph-sdl`. */
export function subgraphSdl(typeDefs: string): string {
  const result = executeSync({ schema: subgraphSchema(typeDefs), document: parse("{ _service { sdl } }") });
  const sdl = (result.data?._service as { sdl?: unknown } | undefined)?.sdl;
  if (typeof sdl !== "string")
    throw new Error(`federation: no SDL (${result.errors?.map((e) => e.message).join("; ")})`);
  return sdl;
}

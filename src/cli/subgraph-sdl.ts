// `npm run --silent subgraph-sdl`: prints the SDL this service answers to `_service { sdl }` as a
// Federation subgraph, for composing a supergraph from a file (Apollo's `rover supergraph compose`,
// Hive's schema registry), e.g. where GRAPHQL_INTROSPECTION=false refuses `_service`. No database,
// no settings: the SDL is schema.graphql's, with Federation's additions.
import "../node-guard.ts"; // first: an unsupported Node says so and how to run this instead
import { readFileSync } from "node:fs";
import { subgraphSdl } from "../graphql/federation/subgraph.ts";
import { SCHEMA_PATH } from "../graphql/schema.ts";

process.stdout.write(`${subgraphSdl(readFileSync(SCHEMA_PATH, "utf8"))}\n`);

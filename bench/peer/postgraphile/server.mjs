// The bench's peer baseline: PostGraphile 5 on the database the bench seeded, in its own process
// (Node >= 22; the bench starts it with its own Node). Settings come from the environment, as for the
// bench's other services: DATABASE_URL, HOST, PORT. Answers GET /healthz for the bench's
// readiness check; everything else is PostGraphile's (POST /graphql).
//
// Preset: Amber alone (PostGraphile 5's defaults). It names things as issue 16's documents do:
// the primary key `id` becomes `rowId` (`id` is the global node id), `restaurantByRowId(rowId:)`,
// `allRestaurants(orderBy: [CREATED_AT_DESC, PRIMARY_KEY_ASC])`. No simplify-inflection, so
// relations keep their long names (`userByOwnerId`, `commentsByRestaurantId`). The Relay preset
// would hide `rowId` and the by-key look-ups.
//
// Plus postgraphile-plugin-connection-filter (with relations): PostGraphile's `condition` tests
// the table's own columns only, and the filtered search scenario asks for restaurants with a
// cuisine tag (a related row), as `filter: { restaurantTagsByRestaurantId: { some: ... } }`.
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { PostGraphileConnectionFilterPreset } from "postgraphile-plugin-connection-filter";

const connectionString = process.env.DATABASE_URL;
if (!connectionString) throw new Error("DATABASE_URL must name the seeded PostgreSQL database");
const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 5678);

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
  schema: { connectionFilterRelations: true },
  pgServices: [makePgService({ connectionString, schemas: ["public"] })],
  grafserv: { graphqlPath: "/graphql", graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
// The request handler rather than serv.addTo(): the bench needs no websockets, and /healthz must
// be answered by us alone (addTo's handler would answer every other path with a 404 as well).
const graphql = serv.createHandler();
const server = createServer((req, res) => {
  if (req.url === "/healthz") res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  else graphql(req, res);
});
// Build the schema before answering /healthz, so the bench's first request is not the one that waits.
await pgl.getSchema();
server.listen(port, host);

const stop = async () => {
  server.close();
  await pgl.release();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

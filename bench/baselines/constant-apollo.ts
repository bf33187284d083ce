// Baseline "ceiling": Apollo Server behind Fastify, wired as src/graphql/transport/http.ts does, with
// resolvers that answer constants. Whatever our server does on top of this (auth, database,
// loaders, limits, metrics) costs throughput, so this bounds the restaurant-by-id scenario.
// Run: PORT=4100 node --import tsx bench/baselines/constant-apollo.ts
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginCacheControlDisabled } from "@apollo/server/plugin/disabled";
import fastifyApollo, { fastifyApolloDrainPlugin } from "@as-integrations/fastify";
import Fastify from "fastify";

// The fields the "restaurant by id" scenario selects, with the same names and nesting.
const typeDefs = `#graphql
  type User { id: ID! username: String! firstName: String! avatar: String }
  type Comment { id: ID! title: String! body: String! rating: Int! createdAt: String! author: User! }
  type Restaurant {
    id: ID!
    title: String!
    rating: Float
    commentCount: Int!
    owner: User!
    latestComment: Comment
  }
  type Query { restaurant(id: ID!): Restaurant }
`;

const owner = { id: "seed-u-0001", username: "maria.silva", firstName: "Maria", avatar: null };
const comment = {
  id: "seed-c-00001-01",
  title: "Would come back",
  body: "The Char siu bao was excellent. The owner came by to ask how we liked it.",
  rating: 4,
  createdAt: "2025-01-08T01:56:45.493Z",
  author: owner,
};
const resolvers = {
  Query: {
    restaurant: (_: unknown, { id }: { id: string }) => ({
      id,
      title: "The Lotus Noodle Bar",
      rating: 4.27,
      commentCount: 11,
      owner,
      latestComment: comment,
    }),
  },
};

const app = Fastify({ logger: false });
// The same Apollo plugins the service's GraphQL layer always has (src/graphql/transport/http.ts).
const apollo = new ApolloServer({
  typeDefs,
  resolvers,
  plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginCacheControlDisabled()],
});
await apollo.start();
await app.register(fastifyApollo(apollo), { path: "/graphql" });
app.get("/healthz", async () => ({ status: "ok" }));

const port = Number(process.env.PORT ?? 4100);
const address = await app.listen({ port, host: process.env.HOST ?? "127.0.0.1" });
console.log(`constant Apollo baseline listening at ${address}`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
process.on("SIGINT", () => void app.close().then(() => process.exit(0)));

// The recipe's app: signs in as the demo user (npm run seed) and lists the first restaurants.
// Run: GRAPHQL_URL=http://127.0.0.1:4000/graphql npx tsx src/main.ts
import { RestaurantPage, SignIn } from "./documents";
import { execute } from "./execute";

const url = process.env.GRAPHQL_URL ?? "http://127.0.0.1:4000/graphql";
const { login } = await execute({ url }, SignIn, { username: "demo", password: "demo-password" });
const { restaurants } = await execute({ url, token: login.accessToken }, RestaurantPage, { first: 3 });
console.log(`${restaurants.totalCount} restaurants, the first ${restaurants.nodes.length}:`);
for (const restaurant of restaurants.nodes) console.log(`- ${restaurant.title} (${restaurant.id})`);

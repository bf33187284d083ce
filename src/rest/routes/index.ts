// The whole REST route table. Rows sharing a method + path are tried in this order (the first
// whose `when` accepts the request); a static path such as /restaurants/order wins over
// /restaurants/:restaurant_id in Fastify's router whatever the order.
import type { RestRoute } from "../route-row.ts";
import { accountRoutes } from "./accounts.ts";
import { groceryRoutes } from "./groceries.ts";
import { restaurantRoutes } from "./restaurants.ts";

export const routes: RestRoute[] = [...accountRoutes, ...restaurantRoutes, ...groceryRoutes];

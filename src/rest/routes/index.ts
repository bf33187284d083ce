// The whole REST route table, in match order (a specific path such as /restaurants/order
// comes before /restaurants/:restaurant_id).
import type { RestRoute } from "../route.ts";
import { accountRoutes } from "./accounts.ts";

export const routes: RestRoute[] = [...accountRoutes];

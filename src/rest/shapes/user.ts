// The legacy (snake_case, _id) shape of a user.
import type { LoginMutation } from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";

/** USER_FIELDS as codegen types them (Register and Sign in select the same). */
export type GraphqlUser = LoginMutation["login"]["user"];

export const USER_FIELDS = `id username firstName avatar role createdAt`;

export const userSchema = s.answer({
  _id: s.string(),
  username: s.string(),
  first_name: s.string(),
  avatar: s.nullable(s.string()),
  role: s.string({ enum: ["user", "admin"] }),
  created_at: s.string({ format: "date-time" }),
});

export const legacyUser = (u: GraphqlUser) => ({
  _id: u.id,
  username: u.username,
  first_name: u.firstName,
  avatar: u.avatar ?? null,
  ...(u.role ? { role: u.role.toLowerCase() } : {}),
  ...(u.createdAt ? { created_at: u.createdAt } : {}),
});

// Accounts and tokens (docs/rest-contract.md, "Tokens"): POST /users, POST /auth/token, DELETE /auth/token,
// and the original documentation's spellings of the last two: POST /signin, GET /signout.
import { text } from "../requests/fields.ts";
import * as s from "../openapi/json-schema.ts";
import { inBody } from "../requests/params.ts";
import { aliasOf, type RestRoute, type RestRouteOf } from "../route-row.ts";
import type { LoginMutation } from "../../graphql/__generated__/operations.ts";
import { legacyUser, userSchema, USER_FIELDS } from "../shapes/user.ts";

const SESSION_FIELDS = `accessToken expiresAt user { ${USER_FIELDS} }`;

const sessionSchema = s.answer({
  user: userSchema,
  access_token: s.string({ description: "send it as Authorization: Bearer <token>, or as access_token" }),
  token_type: s.string({ enum: ["Bearer"] }),
  expires_at: s.string({ format: "date-time" }),
});

const session = (payload: LoginMutation["login"]) => ({
  user: legacyUser(payload.user),
  access_token: payload.accessToken,
  token_type: "Bearer",
  expires_at: payload.expiresAt,
});

const credentials = [
  inBody("username", text, { required: true, to: "username", description: "the account's username" }),
  inBody("password", text, { required: true, to: "password", description: "at least 8 characters" }),
];

const register: RestRouteOf<"Register"> = {
  operation: "Register",
  summary: "Creates an account and answers a token for it.",
  tag: "accounts",
  method: "POST",
  path: "/users",
  params: [
    inBody("username", text, {
      required: true,
      to: "input.username",
      description: "3 to 40 letters, digits, '_', '.' or '-'",
    }),
    inBody("password", text, { required: true, to: "input.password", description: "8 to 200 characters" }),
    inBody("first_name", text, {
      required: true,
      aliases: ["firstName"],
      to: "input.firstName",
      description: "the name other users see",
    }),
    inBody("avatar", text, { to: "input.avatar", description: "URL or file name of a picture" }),
  ],
  document: `mutation Register($input: RegisterInput!) { register(input: $input) { ${SESSION_FIELDS} } }`,
  status: 201,
  response: sessionSchema,
  body: (data) => session(data.register),
};

const signIn: RestRouteOf<"Sign in"> = {
  operation: "Sign in",
  summary: "Answers a new access token for a username and password.",
  tag: "accounts",
  method: "POST",
  path: "/auth/token",
  params: credentials,
  document: `mutation Login($username: String!, $password: String!) { login(username: $username, password: $password) { ${SESSION_FIELDS} } }`,
  status: 200,
  response: sessionSchema,
  body: (data) => session(data.login),
};

const signOut: RestRouteOf<"Sign out"> = {
  operation: "Sign out",
  summary: "Revokes the access token sent with this request.",
  tag: "accounts",
  method: "DELETE",
  path: "/auth/token",
  params: [],
  document: `mutation Logout { logout }`,
  status: 204,
};

export const accountRoutes: RestRoute[] = [
  register,
  signIn,
  signOut,
  aliasOf(signIn, { method: "POST", path: "/signin" }),
  // The original documentation answers 200 here; a small body for clients that parse every answer.
  aliasOf(signOut, {
    method: "GET",
    path: "/signout",
    status: 200,
    response: s.answer({ signed_out: s.boolean({ enum: [true] }) }),
    body: () => ({ signed_out: true }),
  }),
];

// Accounts and tokens (DESIGN.md "Tokens"): POST /users, POST /auth/token, DELETE /auth/token.
import type { RestRoute } from "../route.ts";
import { legacyUser } from "../shapes/user.ts";

const SESSION_FIELDS = `accessToken expiresAt user { id username firstName avatar role createdAt }`;

const session = (payload: { accessToken: string; expiresAt: string; user: Parameters<typeof legacyUser>[0] }) => ({
  user: legacyUser(payload.user),
  access_token: payload.accessToken,
  token_type: "Bearer",
  expires_at: payload.expiresAt,
});

export const accountRoutes: RestRoute[] = [
  {
    operation: "Register",
    method: "POST",
    path: "/users",
    document: `mutation Register($input: RegisterInput!) { register(input: $input) { ${SESSION_FIELDS} } }`,
    variables: (req) => ({
      input: {
        username: req.field("username"),
        password: req.field("password"),
        firstName: req.field("first_name") ?? req.field("firstName"),
        avatar: req.field("avatar"),
      },
    }),
    status: 201,
    body: (data) => session(data.register),
  },
  {
    operation: "Sign in",
    method: "POST",
    path: "/auth/token",
    document: `mutation Login($username: String!, $password: String!) { login(username: $username, password: $password) { ${SESSION_FIELDS} } }`,
    variables: (req) => ({ username: req.field("username"), password: req.field("password") }),
    status: 200,
    body: (data) => session(data.login),
  },
  {
    operation: "Sign out",
    method: "DELETE",
    path: "/auth/token",
    document: `mutation Logout { logout }`,
    variables: () => ({}),
    status: 204,
  },
];

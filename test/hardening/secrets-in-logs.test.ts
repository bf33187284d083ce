// Issue 13, item 8: no log line at LOG_LEVEL=info holds a password or token, whatever accepted
// place it came in: header, query string (any percent-encoding or case of the name), form or
// JSON body field, multipart field, GraphQL variables (POST or GET) or the GraphQL document.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("secrets never reach the logs", () => {
  let s: TestServer;
  let token: string;
  let username: string;
  const password = "Pw-secret-4f1c9e7d";
  beforeAll(async () => {
    s = await startServer({ LOG_LEVEL: "info" });
    const res = await s.fetch("/users", { method: "POST", json: { username: "logsecret", password, first_name: "L" } });
    expect(res.status).toBe(201);
    token = ((await res.json()) as any).access_token;
    username = "logsecret";
  });
  afterAll(async () => s?.close());

  const form = (fields: string) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fields,
  });
  const graphqlGet = (query: string, variables: unknown) =>
    s.fetch(`/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, {
      headers: { "apollo-require-preflight": "1" },
    });

  it("tokens, in every place they are accepted or may be sent", async () => {
    const accepted = async (res: Response) => expect(res.status).toBe(200);
    await accepted(await s.fetch("/restaurants", { token }));
    await accepted(await s.fetch(`/restaurants?access_token=${token}`));
    await accepted(await s.fetch(`/restaurants?access%5Ftoken=${token}`));
    await accepted(await s.fetch(`/restaurants?%61ccess_token=${token}`));
    await accepted(await s.fetch(`/restaurants?%61ccess%5ftoken=${token}&limit=1`));
    await s.fetch(`/restaurants?ACCESS_TOKEN=${token}`);
    await s.fetch(`/restaurants?Access%5FToken=${token}`);
    await s.fetch(`/restaurants?token=${token}`);
    await s.fetch(`/restaurants?tags[access_token]=${token}`);
    await accepted(
      await s.fetch(`/graphql?access%5Ftoken=${token}`, { method: "POST", json: { query: "{ me { id } }" } }),
    );
    await accepted(
      await s.fetch(`/graphql?query=${encodeURIComponent("{ me { id } }")}&%61ccess_token=${token}`, {
        headers: { "apollo-require-preflight": "1" },
      }),
    );
    await s.fetch("/restaurants", form(`title=x&access_token=${token}`));
    await s.fetch("/restaurants", { method: "POST", json: { title: "x", access_token: token } });
    await s.fetch("/auth/token", { method: "DELETE", headers: { authorization: `Bearer ${token}x` } });
    const all = s.logs.join("\n");
    expect(all).toContain("/restaurants"); // the requests were logged...
    expect(all).not.toContain(token); // ...without the token
  });

  it("passwords, in every place they are accepted or may be sent", async () => {
    const ok = async (res: Response) => expect(res.status).toBe(200);
    await ok(await s.fetch("/auth/token", form(`username=${username}&pass%77ord=${password}`)));
    await ok(await s.fetch(`/auth/token?username=${username}&pass%77ord=${password}`, { method: "POST" }));
    await ok(await s.fetch(`/auth/token?username=${username}&%70assword=${password}`, { method: "POST" }));
    await s.fetch(`/auth/token?username=${username}&PASSWORD=${password}`, { method: "POST" });
    await ok(await s.fetch("/auth/token", { method: "POST", json: { username, password } }));
    const multipart = new FormData();
    multipart.set("username", username);
    multipart.set("password", password);
    await ok(await s.fetch("/auth/token", { method: "POST", body: multipart }));
    // GraphQL: variables (POST and GET), literals in the document (GET), invalid variables echoed in errors.
    const login = "mutation($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }";
    await s.graphql(login, { u: username, p: password });
    await graphqlGet(login, { u: username, p: password });
    await graphqlGet("query($p: String) { __typename }", { p: password, password });
    await s.fetch(
      `/graphql?query=${encodeURIComponent(`mutation { login(username: "${username}", password: "${password}") { accessToken } }`)}`,
      {
        headers: { "apollo-require-preflight": "1" },
      },
    );
    await s.graphql("mutation($input: RegisterInput!) { register(input: $input) { accessToken } }", {
      input: { username: "other-user", password, bogus: 1 },
    });
    await s.graphql("mutation($u: String!, $p: Int!) { login(username: $u, password: $p) { accessToken } }", {
      u: username,
      p: password,
    });
    await s.fetch("/users", { method: "POST", json: { username: "x", password } });
    await s.fetch("/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"username":"y","password":"${password}",`,
    });
    const all = s.logs.join("\n");
    expect(all).toContain("/auth/token");
    expect(all).not.toContain(password);
  });
});

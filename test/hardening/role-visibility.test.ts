// Issue 13, item 8: an account's role is shown to the account itself and to admins only; any
// other signed-in user reads null (the field is nullable so the owner or author around it stays).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

const USER = `query($id: ID!) { user(id: $id) { id role } }`;

describe("User.role visibility", () => {
  it("shows an account its own role (me, user(id), register and login payloads)", async () => {
    const ann = await s.signUp("ann");
    expect((await s.graphql(`{ me { role } }`, {}, ann.token)).data.me.role).toBe("USER");
    expect((await s.graphql(USER, { id: ann.id }, ann.token)).data.user.role).toBe("USER");
    const login = await s.graphql(
      `mutation($u: String!) { login(username: $u, password: "correct-horse") { user { role } } }`,
      { u: ann.username },
    );
    expect(login.data.login.user.role).toBe("USER");
    const rest = await s.fetch("/users", {
      method: "POST",
      json: { username: "restrole", password: "correct-horse", first_name: "R" },
    });
    expect(((await rest.json()) as any).user.role).toBe("user");
  });

  it("hides other accounts' roles from users, wherever the account appears", async () => {
    const admin = await s.signUp("boss", "ADMIN");
    const bob = await s.signUp("bob");
    const seen = await s.graphql(USER, { id: admin.id }, bob.token);
    expect(seen.errors).toBeUndefined();
    expect(seen.data.user).toEqual({ id: admin.id, role: null });

    const restaurant = await s.db.prisma.restaurant.create({
      data: { title: "Boss place", titleSearch: "boss place", ownerId: admin.id },
    });
    const owner = await s.graphql(
      `query($id: ID!) { restaurant(id: $id) { title owner { id role } } }`,
      { id: restaurant.id },
      bob.token,
    );
    expect(owner.data.restaurant).toEqual({ title: "Boss place", owner: { id: admin.id, role: null } });
  });

  it("shows admins every account's role", async () => {
    const admin = await s.signUp("chief", "ADMIN");
    const carol = await s.signUp("carol");
    const other = await s.signUp("otheradmin", "ADMIN");
    expect((await s.graphql(USER, { id: carol.id }, admin.token)).data.user.role).toBe("USER");
    expect((await s.graphql(USER, { id: other.id }, admin.token)).data.user.role).toBe("ADMIN");
  });
});

// Requests arriving together read their restaurants and users in one statement
// (src/graphql/data/shared-batches.ts); each still gets its own answer, whatever the others asked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;
const ids: string[] = [];

const WITH_RELATED = `query($id: ID!) { restaurant(id: $id) { id title owner { username } latestComment { title author { username } } } }`;
const ROW_ONLY = `query($id: ID!) { restaurant(id: $id) { id title } }`;

beforeAll(async () => {
  s = await startServer();
  const owner = await s.signUp("sharer");
  token = owner.token;
  for (let i = 0; i < 16; i++) {
    const r = await s.graphql(
      `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
      { input: { title: `Shared ${i}`, categories: ["x"] } },
      token,
    );
    ids.push(r.data.createRestaurant.id);
  }
  await s.graphql(
    `mutation($id: ID!, $input: CommentInput!) { addComment(restaurantId: $id, input: $input) { id } }`,
    { id: ids[3], input: { title: "Newest", body: "Good", rating: 4 } },
    (await s.signUp("critic")).token,
  );
});

afterAll(() => s?.close());

/** Sends every request at once; answers them with the statements that read restaurants meanwhile. */
async function together(query: string, asked: string[]) {
  const before = s.sql.length;
  const answers = await Promise.all(asked.map((id) => s.graphql(query, { id }, token)));
  const statements = s.sql.slice(before).filter((sql) => /FROM "Restaurant"/.test(sql));
  return { answers, statements };
}

describe.each([
  ["with its owner and latest comment", WITH_RELATED],
  ["its row alone", ROW_ONLY],
])("restaurants by id asked together, %s", (_, query) => {
  it("reads them in fewer statements than requests, each request answered with its own", async () => {
    // Whether requests arrive in the same turn of the event loop is up to the machine (here the
    // client shares the server's process): up to 5 rounds, one of which must share statements.
    // Each request had a statement of its own before: every round sent 16.
    const sent: number[] = [];
    for (let round = 0; round < 5 && !sent.some((n) => n < ids.length); round++) {
      const { answers, statements } = await together(query, ids);
      answers.forEach((answer, i) => {
        expect(answer.errors).toBeUndefined();
        expect(answer.data.restaurant).toMatchObject({ id: ids[i], title: `Shared ${i}` });
      });
      sent.push(statements.length);
    }
    expect(Math.min(...sent)).toBeLessThan(ids.length);
  });

  it("answers an unknown id with null and a malformed one with a 400-class error, beside the others", async () => {
    const asked = [ids[0], "no-such-restaurant", "x".repeat(5000), ids[3]];
    const { answers } = await together(query, asked);
    expect(answers[0].data.restaurant.title).toBe("Shared 0");
    expect(answers[1].errors).toBeUndefined();
    expect(answers[1].data.restaurant).toBeNull();
    expect(answers[2].errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(answers[3].data.restaurant.title).toBe("Shared 3");
    if (query === WITH_RELATED) {
      expect(answers[3].data.restaurant.latestComment.title).toBe("Newest");
      expect(answers[0].data.restaurant.latestComment).toBeNull();
    }
  });

  it("sees a write made just before it asked", async () => {
    await s.graphql(
      `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`,
      { id: ids[5], input: { title: "Renamed" } },
      token,
    );
    const { answers } = await together(query, [ids[5], ids[6]]);
    expect(answers[0].data.restaurant.title).toBe("Renamed");
    await s.graphql(
      `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`,
      { id: ids[5], input: { title: "Shared 5" } },
      token,
    );
  });
});

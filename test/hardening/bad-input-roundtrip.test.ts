// Stored text comes back byte for byte as sent: every stored text field (restaurant title and
// description, comment title and body, grocery title, description and alsoKnownAs, report
// reason, order recipe, first name), written through GraphQL and through the REST shim (JSON,
// form and multipart), read back through GraphQL, REST and the database row. Values with leading
// and trailing spaces, emoji, RTL marks, combining characters, invisible characters, controls and
// injection-shaped text. Blank-only values are still refused as empty; NUL bytes and lone
// surrogates are refused with BAD_USER_INPUT naming the field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { formBody, sendJson, type Answer } from "../rest/legacy.ts";
import { multipartText } from "./corpus.ts";
import { newGrocery, newRestaurant, signUpWorld, type World } from "./mutation-calls.ts";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startServer();
  w = await signUpWorld(s);
});
afterAll(async () => s?.close());

/** At most 100 characters each (the shortest limit, reasonType's). */
const VALUES: Record<string, string> = {
  "leading and trailing spaces": "  spaced out \t ",
  emoji: "Pho 🍜 for 👩‍👩‍👧 🇫🇷",
  "RTL override and marks": "\u202Eexe.txt\u202C \u200Fmark\u200E",
  "combining characters": "Cafe\u0301 cre\u0300me bru\u0302le\u0301e z\u0336\u0311",
  "invisible characters": "zero\u200Bwidth\u200Djoiner\u2060\uFEFF",
  "injection-shaped text": `' OR 1=1 --"; DROP TABLE "User"; <script>alert(1)</script>`,
  "line breaks and controls": "line\nbreak\r\nbell\u0007 tab\t",
  "astral characters": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠜎 and NFD e\u0301 vs NFC é",
};

const gql = async (query: string, variables: Record<string, unknown>, token = w.owner.token) => {
  const res = await s.graphql(query, variables, token);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data;
};
const rest = async (answer: Promise<Answer>, status: number) => {
  const a = await answer;
  expect(a.status, JSON.stringify(a.body).slice(0, 300)).toBe(status);
  return a.body;
};
const restGet = (path: string) => rest(sendJson(s, "GET", path, undefined, w.owner.token), 200);

/** How a value is written; returns the id of what holds it. */
type Write = (value: string) => Promise<string>;
/** Every way to read a field back, by where it is read. */
type Reads = Record<string, (id: string) => Promise<unknown>>;
type Field = { name: string; writes: Record<string, Write>; reads: Reads };

const restaurantReads = (field: "title" | "description"): Reads => ({
  graphql: async (id) =>
    (await gql(`query($id: ID!) { restaurant(id: $id) { title description } }`, { id })).restaurant[field],
  "REST Get Comments": async (id) => (await restGet(`/restaurants/${id}/comments`))[field],
  ...(field === "title"
    ? { "REST Get Restaurant": async (id: string) => (await restGet(`/restaurants/${id}`)).title }
    : {}),
  database: async (id) => (await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id } }))[field],
});

const groceryReads = (field: "title" | "description" | "alsoKnownAs", legacy: string): Reads => ({
  graphql: async (id) =>
    (await gql(`query($id: ID!) { grocery(id: $id) { title description alsoKnownAs } }`, { id })).grocery[field],
  "REST Get grocery": async (id) => (await restGet(`/groceries/${id}`))[legacy],
  database: async (id) => (await s.db.prisma.grocery.findUniqueOrThrow({ where: { id } }))[field],
});

const commentReads = (field: "title" | "body"): Reads => ({
  graphql: async (id) => {
    const c = await s.db.prisma.comment.findUniqueOrThrow({ where: { id } });
    const data = await gql(
      `query($id: ID!) { restaurant(id: $id) { comments(first: 100) { nodes { id title body } } } }`,
      { id: c.restaurantId },
    );
    return data.restaurant.comments.nodes.find((n: { id: string }) => n.id === id)[field];
  },
  "REST Get Comments": async (id) => {
    const c = await s.db.prisma.comment.findUniqueOrThrow({ where: { id } });
    return (await restGet(`/restaurants/${c.restaurantId}/comments`)).comments.find(
      (n: { _id: string }) => n._id === id,
    )[field];
  },
  database: async (id) => (await s.db.prisma.comment.findUniqueOrThrow({ where: { id } }))[field],
});

const reportReads = (field: "reasonType" | "reasonBody"): Reads => ({
  "graphql (admin list)": async (id) => {
    const data = await gql(`{ reports(first: 100) { nodes { id reasonType reasonBody } } }`, {}, w.admin.token);
    return data.reports.nodes.find((n: { id: string }) => n.id === id)[field];
  },
  database: async (id) => (await s.db.prisma.report.findUniqueOrThrow({ where: { id } }))[field],
});

const REPORT_RESTAURANT = `mutation($id: ID!, $input: ReportInput!) { reportRestaurant(id: $id, input: $input) { report { id reasonType reasonBody } } }`;
const REPORT_GROCERY = `mutation($id: ID!, $input: ReportInput!) { reportGrocery(id: $id, input: $input) { report { id reasonType reasonBody } } }`;

/** A fresh reporter per report (one report per user and target). */
const reporter = async () => (await s.signUp("reporter")).token;

const FIELDS: Field[] = [
  {
    name: "restaurant title",
    writes: {
      "GraphQL createRestaurant": async (v) =>
        (await gql(`mutation($t: String!) { createRestaurant(input: { title: $t }) { id } }`, { t: v }))
          .createRestaurant.id,
      "GraphQL updateRestaurant": async (v) => {
        const r = await newRestaurant(w);
        return (
          await gql(`mutation($id: ID!, $t: String) { updateRestaurant(id: $id, input: { title: $t }) { id } }`, {
            id: r.id,
            t: v,
          })
        ).updateRestaurant.id;
      },
      "REST Add restaurant (JSON)": async (v) =>
        (await rest(sendJson(s, "POST", "/restaurants", { title: v }, w.owner.token), 201))._id,
      "REST Add restaurant (form)": async (v) => {
        const res = await s.fetch("/restaurants", {
          method: "POST",
          token: w.owner.token,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: formBody({ title: v }),
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as any)._id;
      },
      "REST Edit Restaurant": async (v) => {
        const r = await newRestaurant(w);
        return (await rest(sendJson(s, "PUT", `/restaurants/${r.id}`, { title: v }, w.owner.token), 200))._id;
      },
    },
    reads: restaurantReads("title"),
  },
  {
    name: "restaurant description",
    writes: {
      "GraphQL createRestaurant": async (v) =>
        (
          await gql(`mutation($d: String) { createRestaurant(input: { title: "T", description: $d }) { id } }`, {
            d: v,
          })
        ).createRestaurant.id,
      "REST Add restaurant (JSON)": async (v) =>
        (await rest(sendJson(s, "POST", "/restaurants", { title: "T", description: v }, w.owner.token), 201))._id,
      "REST Edit Restaurant": async (v) => {
        const r = await newRestaurant(w);
        return (await rest(sendJson(s, "PUT", `/restaurants/${r.id}`, { description: v }, w.owner.token), 200))._id;
      },
    },
    reads: restaurantReads("description"),
  },
  ...(["title", "body"] as const).map((field): Field => ({
    name: `comment ${field}`,
    writes: {
      "GraphQL addComment": async (v) => {
        const r = await newRestaurant(w);
        const input = { title: "t", body: "b", rating: 5, [field]: v };
        return (
          await gql(
            `mutation($id: ID!, $input: CommentInput!) { addComment(restaurantId: $id, input: $input) { id } }`,
            { id: r.id, input },
          )
        ).addComment.id;
      },
      "REST Comment Restaurant": async (v) => {
        const r = await newRestaurant(w);
        return (
          await rest(
            sendJson(
              s,
              "PUT",
              `/restaurants/${r.id}/comments`,
              { title: "t", body: "b", rating: 5, [field]: v },
              w.owner.token,
            ),
            201,
          )
        )._id;
      },
    },
    reads: commentReads(field),
  })),
  ...(
    [
      ["title", "title"],
      ["description", "description"],
      ["alsoKnownAs", "also_known_as"],
    ] as const
  ).map(([field, legacy]): Field => ({
    name: `grocery ${field}`,
    writes: {
      "GraphQL createGrocery": async (v) =>
        (
          await gql(`mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id } }`, {
            input: { title: "g", [field]: v },
          })
        ).createGrocery.id,
      "GraphQL updateGrocery": async (v) => {
        const g = await newGrocery(w);
        return (
          await gql(
            `mutation($id: ID!, $input: UpdateGroceryInput!) { updateGrocery(id: $id, input: $input) { id } }`,
            { id: g.id, input: { [field]: v } },
          )
        ).updateGrocery.id;
      },
      "REST Add grocery (JSON)": async (v) =>
        (await rest(sendJson(s, "POST", "/groceries", { title: "g", [legacy]: v }, w.owner.token), 201))._id,
      // Built by hand: FormData (like browsers) would turn "\n" into "\r\n" before sending.
      "REST Add grocery (multipart)": async (v) => {
        const parts =
          legacy === "title"
            ? [{ name: "title", value: v }]
            : [
                { name: "title", value: "g" },
                { name: legacy, value: v },
              ];
        const body = multipartText("rt-boundary", parts);
        const res = await s.fetch("/groceries", {
          method: "POST",
          token: w.owner.token,
          headers: { "content-type": "multipart/form-data; boundary=rt-boundary" },
          body,
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as any)._id;
      },
      "REST Edit grocery": async (v) => {
        const g = await newGrocery(w);
        return (await rest(sendJson(s, "PATCH", "/groceries", { _id: g.id, [legacy]: v }, w.owner.token), 201))._id;
      },
    },
    reads: groceryReads(field, legacy),
  })),
  ...(
    [
      ["reasonType", "reason_type"],
      ["reasonBody", "reason_body"],
    ] as const
  ).map(([field, legacy]): Field => ({
    name: `report ${field}`,
    writes: {
      "GraphQL reportRestaurant": async (v) => {
        const r = await newRestaurant(w);
        const input = { reasonType: "spam", [field]: v };
        return (await gql(REPORT_RESTAURANT, { id: r.id, input }, await reporter())).reportRestaurant.report.id;
      },
      "GraphQL reportGrocery": async (v) => {
        const g = await newGrocery(w);
        const input = { reasonType: "spam", [field]: v };
        return (await gql(REPORT_GROCERY, { id: g.id, input }, await reporter())).reportGrocery.report.id;
      },
      "REST Report Restaurant": async (v) => {
        const r = await newRestaurant(w);
        const body = await rest(
          sendJson(s, "PUT", `/restaurants/${r.id}`, { reason_type: "spam", [legacy]: v }, await reporter()),
          201,
        );
        expect(body[legacy]).toBe(v);
        return body._id;
      },
      "REST Report grocery": async (v) => {
        const g = await newGrocery(w);
        const body = await rest(
          sendJson(s, "PUT", `/groceries/${g.id}`, { reason_type: "spam", [legacy]: v }, await reporter()),
          200,
        );
        expect(body[legacy]).toBe(v);
        return body._id;
      },
    },
    reads: reportReads(field),
  })),
  {
    name: "order recipe",
    writes: {
      "GraphQL orderRecipe": async (v) => {
        const r = await newRestaurant(w);
        return (
          await gql(`mutation($input: OrderRecipeInput!) { orderRecipe(input: $input) { id } }`, {
            input: { restaurantId: r.id, recipe: v },
          })
        ).orderRecipe.id;
      },
      "REST Order Recipe": async (v) => {
        const r = await newRestaurant(w);
        const body = await rest(
          sendJson(s, "PUT", "/restaurants/order", { restaurant_id: r.id, recipe: v }, w.owner.token),
          201,
        );
        expect(body.recipe).toBe(v);
        return body._id;
      },
    },
    reads: {
      graphql: async (id) =>
        (await gql(`{ myOrders(first: 100) { nodes { id recipe } } }`, {})).myOrders.nodes.find(
          (n: { id: string }) => n.id === id,
        ).recipe,
      database: async (id) => (await s.db.prisma.order.findUniqueOrThrow({ where: { id } })).recipe,
    },
  },
  {
    name: "first name",
    writes: {
      "GraphQL register": async (v) => {
        const input = {
          username: `fn${Math.random().toString(36).slice(2, 10)}`,
          password: "correct-horse",
          firstName: v,
        };
        return (await gql(`mutation($input: RegisterInput!) { register(input: $input) { user { id } } }`, { input }))
          .register.user.id;
      },
      "REST Register": async (v) => {
        const body = await rest(
          sendJson(s, "POST", "/users", {
            username: `fn${Math.random().toString(36).slice(2, 10)}`,
            password: "correct-horse",
            first_name: v,
          }),
          201,
        );
        expect(body.user.first_name).toBe(v);
        return body.user._id;
      },
    },
    reads: {
      graphql: async (id) => (await gql(`query($id: ID!) { user(id: $id) { firstName } }`, { id })).user.firstName,
      database: async (id) => (await s.db.prisma.user.findUniqueOrThrow({ where: { id } })).firstName,
    },
  },
];

describe("stored text comes back byte for byte", () => {
  const cases = FIELDS.flatMap((f) => Object.keys(f.writes).map((how) => [f.name, how, f] as const));
  it.each(cases)("%s written by %s reads back exactly, everywhere", async (_name, how, field) => {
    for (const [label, value] of Object.entries(VALUES)) {
      const id = await field.writes[how](value);
      for (const [where, read] of Object.entries(field.reads)) {
        expect(await read(id), `${label} read back through ${where}`).toBe(value);
      }
    }
  });

  it("keeps search keys normalised: a title with spaces and capitals is found by its trimmed, lower-cased words", async () => {
    const id = (await gql(`mutation { createRestaurant(input: { title: "  Chez ÉMILE  " }) { id } }`, {}))
      .createRestaurant.id;
    expect((await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id } })).titleSearch).toBe("chez émile");
    const found = await gql(`{ restaurants(filter: { text: "chez émile" }) { nodes { id title } } }`, {});
    expect(found.restaurants.nodes).toEqual([{ id, title: "  Chez ÉMILE  " }]);
  });
});

/** Each required stored text field, as GraphQL and REST name it, with a call that sets only it. */
const REQUIRED: { field: string; graphql: (v: string) => Promise<any>; rest: (v: string) => Promise<Answer> }[] = [
  {
    field: "title",
    graphql: (v) =>
      s.graphql(`mutation($t: String!) { createRestaurant(input: { title: $t }) { id } }`, { t: v }, w.owner.token),
    rest: (v) => sendJson(s, "POST", "/restaurants", { title: v }, w.owner.token),
  },
  {
    field: "body",
    graphql: async (v) =>
      s.graphql(
        `mutation($id: ID!, $b: String!) { addComment(restaurantId: $id, input: { title: "t", body: $b, rating: 3 }) { id } }`,
        { id: (await newRestaurant(w)).id, b: v },
        w.owner.token,
      ),
    rest: async (v) =>
      sendJson(
        s,
        "PUT",
        `/restaurants/${(await newRestaurant(w)).id}/comments`,
        { title: "t", body: v, rating: 3 },
        w.owner.token,
      ),
  },
  {
    field: "recipe",
    graphql: async (v) =>
      s.graphql(
        `mutation($id: ID!, $r: String!) { orderRecipe(input: { restaurantId: $id, recipe: $r }) { id } }`,
        { id: (await newRestaurant(w)).id, r: v },
        w.owner.token,
      ),
    rest: async (v) =>
      sendJson(
        s,
        "PUT",
        "/restaurants/order",
        { restaurant_id: (await newRestaurant(w)).id, recipe: v },
        w.owner.token,
      ),
  },
  {
    field: "reason_type",
    graphql: async (v) =>
      s.graphql(REPORT_GROCERY, { id: (await newGrocery(w)).id, input: { reasonType: v } }, w.owner.token),
    rest: async (v) => sendJson(s, "PUT", `/groceries/${(await newGrocery(w)).id}`, { reason_type: v }, w.owner.token),
  },
  {
    field: "first_name",
    graphql: (v) =>
      s.graphql(
        `mutation($f: String!) { register(input: { username: "blankname", password: "correct-horse", firstName: $f }) { accessToken } }`,
        { f: v },
      ),
    rest: (v) => sendJson(s, "POST", "/users", { username: "blankname2", password: "correct-horse", first_name: v }),
  },
];

const BLANKS = { spaces: "   ", "tabs and line breaks": "\t\n\r\n", "no-break and em spaces": "\u00A0\u2003\u3000" };

describe("values that cannot be kept as sent are refused, naming the field", () => {
  it.each(REQUIRED.map((r) => [r.field, r] as const))(
    "%s: blank-only values are refused as empty, NUL and lone surrogates as unstorable",
    async (field, call) => {
      const graphqlName = field
        .replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())
        .replace("first_name", "firstName");
      const cases: [string, string, RegExp][] = [
        // (REST reads a blank reason_type as no reason at all: "reason_type is required".)
        ...Object.entries(BLANKS).map(
          ([label, v]) => [label, v, /must not be empty|is required/] as [string, string, RegExp],
        ),
        ["a NUL byte", "a\u0000b", /NUL/],
        ["a lone surrogate", "a\ud83db", /unpaired surrogate/],
      ];
      for (const [label, value, why] of cases) {
        const before = await s.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "User"`);
        const g = await call.graphql(value);
        expect(g.errors?.[0]?.extensions?.code, `${label} through GraphQL`).toBe("BAD_USER_INPUT");
        expect(g.errors[0].message).toContain(graphqlName);
        expect(g.errors[0].message).toMatch(why);
        const r = await call.rest(value);
        expect(r.status, `${label} through REST`).toBe(400);
        expect(r.body.error.message).toContain(field);
        expect(r.body.error.message).toMatch(why);
        const after = await s.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "User"`);
        expect(String(after[0].n)).toBe(String(before[0].n));
      }
    },
  );

  it("stores nothing for those refusals", async () => {
    const texts = [
      ...(await s.db.prisma.restaurant.findMany({ select: { title: true } })).map((r) => r.title),
      ...(await s.db.prisma.comment.findMany({ select: { body: true } })).map((c) => c.body),
      ...(await s.db.prisma.order.findMany({ select: { recipe: true } })).map((o) => o.recipe),
      ...(await s.db.prisma.report.findMany({ select: { reasonType: true } })).map((r) => r.reasonType),
      ...(await s.db.prisma.user.findMany({ select: { firstName: true } })).map((u) => u.firstName),
    ];
    for (const t of texts) {
      expect(t.trim(), JSON.stringify(t)).not.toBe("");
      expect(t).not.toMatch(/\u0000|\uFFFD/);
    }
    expect(await s.db.prisma.user.count({ where: { username: { in: ["blankname", "blankname2"] } } })).toBe(0);
  });
});

// The OpenAPI document served at /openapi.json: valid OpenAPI 3.1, derived from the route table
// (every row appears), with path parameters, request fields and response schemas.
import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageManifest } from "../../src/package-manifest.mjs";
import { routes } from "../../src/rest/routes/index.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let doc: any;

beforeAll(async () => {
  s = await startServer();
  const res = await s.fetch("/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  doc = await res.json();
});
afterAll(async () => s?.close());

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("is also served under /v1 and needs no token", async () => {
    const v1 = await s.fetch("/v1/openapi.json");
    expect(v1.status).toBe(200);
    expect(await v1.json()).toEqual(doc);
  });

  it("has every row of the route table, under its method and path", () => {
    expect(routes).toHaveLength(22);
    for (const row of routes) {
      const operation = doc.paths[openApiPath(row.path)]?.[row.method.toLowerCase()];
      expect(operation, `${row.method} ${row.path}`).toBeDefined();
      expect(operation["x-legacy-operations"]).toContain(row.operation);
      expect(operation.description).toContain(row.operation);
      expect(operation.responses[String(row.status)], `${row.operation} ${row.status}`).toBeDefined();
      if (row.response)
        expect(operation.responses[String(row.status)].content["application/json"].schema).toBeDefined();
      else expect(operation.responses[String(row.status)].content).toBeUndefined();
    }
    const documented = Object.values(doc.paths).flatMap((ops: any) =>
      Object.values(ops).flatMap((op: any) => op["x-legacy-operations"]),
    );
    expect(documented.sort()).toEqual(routes.map((r) => r.operation).sort());
  });

  it("declares path parameters as required strings", () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values<any>(ops)) {
        for (const name of names) {
          expect(op.parameters.find((p: any) => p.name === name)).toMatchObject({
            in: "path",
            required: true,
            schema: { type: "string" },
          });
        }
      }
    }
  });

  it("describes every parameter where Swagger UI shows it: on the parameter, not in its schema", () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const p of op.parameters) {
          expect(p.description, `${method} ${path} ${p.name}`).toMatch(/\w/);
          expect(p.schema.description, `${method} ${path} ${p.name}`).toBeUndefined();
        }
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
          for (const schema of media.schema.anyOf ?? [media.schema])
            for (const [name, property] of Object.entries<any>(schema.properties))
              expect(property.description, `${method} ${path} ${type} ${name}`).toMatch(/\w/);
        }
      }
    }
  });

  it("carries a request from the demo data for every operation that takes anything, and the package's version", () => {
    expect(doc.info.version).toBe(packageManifest.version);
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const takes = op.parameters.length > 0 || op.requestBody;
        if (!takes) continue;
        const exampled =
          op.parameters.some((p: any) => p.example !== undefined) ||
          Object.values<any>(op.requestBody?.content ?? {}).some((m) => m.example || m.examples);
        expect(exampled, `${method} ${path}`).toBe(true);
        for (const p of op.parameters.filter((q: any) => q.in === "path"))
          expect(p.example, `${method} ${path} ${p.name}`).toMatch(/^seed-[rg]-\d{5}$/);
      }
    }
    const search = doc.paths["/restaurants"].get.parameters;
    expect(search.find((p: any) => p.name === "search").example).toBe("pastel de nat");
    const put = doc.paths["/restaurants/{restaurant_id}"].put.requestBody.content["application/json"];
    expect(Object.keys(put.examples)).toEqual(["reportRestaurant", "editRestaurant"]);
  });

  it("describes request fields with their types and places", () => {
    const search = doc.paths["/restaurants"].get;
    const param = (name: string) => search.parameters.find((p: any) => p.name === name);
    expect(param("can_home_delever")).toMatchObject({ in: "query", schema: { type: "boolean" } });
    expect(param("sort").schema.enum).toEqual(["relevance", "distance", "rating", "title", "newest"]);
    expect(param("limit")).toMatchObject({ in: "query", schema: { type: "integer", default: 20 } });

    const add = doc.paths["/restaurants"].post.requestBody.content["application/json"].schema;
    expect(add.required).toEqual(["title"]);
    expect(add.properties.star_rating.type).toBe("number");
    expect(add.properties.categories).toMatchObject({ type: "array", items: { type: "string" } });
    expect(add.properties.opening_hours.items.properties.open.type).toBe("string");

    const grocery = doc.paths["/groceries"].post.requestBody.content;
    expect(grocery["multipart/form-data"].schema.properties.cover.contentMediaType).toBe("application/octet-stream");
    expect(grocery["application/json"].schema.properties.cover).toBeUndefined();
  });

  it("documents both operations of a shared method + path and the rule between them", () => {
    const put = doc.paths["/restaurants/{restaurant_id}"].put;
    expect(put["x-legacy-operations"]).toEqual(["Report Restaurant", "Edit Restaurant"]);
    expect(put.description).toMatch(/reason_type or reason_body/);
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(["200", "201"]));
    expect(put.requestBody.content["application/json"].schema.anyOf).toHaveLength(2);
    const del = doc.paths["/groceries/{grocery_id}"].delete;
    expect(del["x-legacy-operations"]).toEqual(["Remove grocery from shopping list", "Remove grocery"]);
    expect(del.parameters.find((p: any) => p.name === "from")).toMatchObject({ in: "query", required: false });
    expect(del.parameters.find((p: any) => p.name === "from").schema.enum).toEqual(
      expect.arrayContaining(["shopping_list", "catalogue"]),
    );
  });

  it("gives the legacy response schemas, spelling included", () => {
    const detail = doc.paths["/restaurants/{restaurant_id}"].get.responses["200"].content["application/json"].schema;
    expect(detail.properties.can_home_delever.type).toBe("boolean");
    expect(detail.properties.accepts_reservations.enum).toEqual(["true", "false"]);
    expect(detail.properties.badges.items.required).toContain("recieved");
    const search = doc.paths["/restaurants"].get.responses["200"].content["application/json"].schema;
    expect(search.type).toBe("array");
    expect(search.items.properties.rating.type).toEqual(["number", "null"]);
    expect(doc.paths["/restaurants/{restaurant_id}"].delete.responses["204"]).toEqual({
      description: "Remove Restaurant",
    });
    expect(doc.paths["/restaurants"].post.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthenticated" });
    expect(doc.paths["/users"].post.security).toEqual([]);
  });
});

// Tracing (TRACING=otlp|console): with an in-memory exporter, one GraphQL request gives a request
// span, a child span for its root field and SQL statement spans under that. Real server, real
// database, the real OpenTelemetry SDK; only the exporter is swapped for one that keeps spans.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { startTracing } from "../../src/observability/tracing.ts";
import { buildServer } from "../../src/server.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import type { FastifyInstance } from "fastify";

const exporter = new InMemorySpanExporter();
let database: TestDatabase;
let uploads: string;
let db: Db;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  database = await createTestDatabase();
  uploads = mkdtempSync(path.join(tmpdir(), "gw-uploads-"));
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    UPLOAD_DIR: uploads,
    RATE_LIMIT_MAX: "0",
    TRACING: "otlp",
    DATABASE_URL: database.url,
  });
  await migrate(config.database);
  const tracing = await startTracing(config, { spanProcessors: [new SimpleSpanProcessor(exporter)] });
  db = createDb({ ...config.database, onQuery: tracing.statement });
  app = await buildServer({ config, db, tracing });
  url = await app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await app?.close();
  await db?.close();
  await database?.drop();
  rmSync(uploads, { recursive: true, force: true });
});

const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url + p, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("tracing", () => {
  it("one GraphQL request: request span > root field span > SQL statement spans", async () => {
    const signUp = await post("/users", { username: "tracy", password: "password-1", first_name: "Tracy" });
    const { access_token: token } = (await signUp.json()) as any;
    exporter.reset();

    const res = await post(
      "/graphql",
      { query: "query Mine { me { username } }", operationName: "Mine" },
      { authorization: `Bearer ${token}` },
    );
    expect(res.status).toBe(200);
    const spans = exporter.getFinishedSpans();

    const request = spans.find((s) => s.name === "POST /graphql");
    expect(request, spans.map((s) => s.name).join(", ")).toBeDefined();
    expect(parentOf(request!)).toBeUndefined();
    expect(request!.attributes).toMatchObject({
      "http.route": "/graphql",
      "http.response.status_code": 200,
      "graphql.operation.name": "Mine",
    });

    const resolve = spans.find((s) => s.name === "Query.me");
    expect(resolve).toBeDefined();
    expect(parentOf(resolve!)).toBe(request!.spanContext().spanId);
    expect(resolve!.spanContext().traceId).toBe(request!.spanContext().traceId);

    const statements = spans.filter((s) => s.attributes["db.query.text"] !== undefined);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((s) => parentOf(s) === resolve!.spanContext().spanId)).toBe(true);
    for (const s of statements) {
      expect(s.spanContext().traceId).toBe(request!.spanContext().traceId);
      expect(s.attributes["db.system.name"]).toBe(database.provider === "sqlite" ? "sqlite" : "postgresql");
    }
  });

  it("continues a caller's trace from traceparent, and REST routes trace the same way", async () => {
    exporter.reset();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await post(
      "/auth/token",
      { username: "tracy", password: "password-1" },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(res.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === "POST /auth/token");
    expect(request?.spanContext().traceId).toBe(traceId);
    expect(spans.find((s) => s.name === "Mutation.login")).toBeDefined();
  });

  it("health probes and /metrics are not traced", async () => {
    exporter.reset();
    expect((await fetch(url + "/healthz")).status).toBe(200);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

// A transaction that could not start or ran out of time (Prisma's P2028) is the server's condition
// under load, not the request's fault: it must answer 503 like any unavailable database, never 500.
// The fan-out bench met it on PostgreSQL (comment writes waiting behind 20,000 subscriber reads a
// second). Here Prisma itself raises a real P2028 (a transaction used after its time ran out).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { databaseFailure } from "../../src/db/health/failures.ts";
import { toClientError } from "../../src/graphql/execution/client-errors.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

describe("a transaction past its time", () => {
  it("is an unavailable database (503 SERVICE_UNAVAILABLE), not an internal error", async () => {
    const error = await s.db.prisma
      .$transaction(
        async (tx) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.user.count();
        },
        { timeout: 50 },
      )
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("P2028");
    expect(databaseFailure(error)).toBe("UNAVAILABLE");
    expect(toClientError(error)?.code).toBe("SERVICE_UNAVAILABLE");
  });
});

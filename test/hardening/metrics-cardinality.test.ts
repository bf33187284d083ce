// Issue 13, item 7: GraphQL operation names are chosen by clients, so as metric labels they must
// stay a bounded set: only names of operations the document really holds, at most a fixed number
// of distinct ones, the rest counted together. Through the real server and its /metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_OPERATION_LABELS } from "../../src/http/observability/metrics.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const series = (text: string) => text.split("\n").filter((l) => l && !l.startsWith("#"));
const operationsIn = (text: string) =>
  new Set(series(text).flatMap((l) => [...l.matchAll(/operation="([^"]*)"/g)].map((m) => m[1])));

describe("metric labels stay bounded whatever clients send", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => s?.close());

  it("an operationName that names no operation of the document is not a label", async () => {
    const res = await s.fetch("/graphql", {
      method: "POST",
      json: { query: "query Real { __typename }", operationName: "Invented" },
    });
    expect(res.status).toBe(400); // Apollo refuses an unknown operationName
    await s.fetch("/graphql", { method: "POST", json: { query: "{ __typename }", operationName: "AlsoInvented" } });
    await s.fetch(`/graphql?query=${encodeURIComponent("{ __typename }")}&operationName=ViaGet`, {
      headers: { "apollo-require-preflight": "1" },
    });
    const text = await (await s.fetch("/metrics")).text();
    expect(text).not.toContain("Invented");
    expect(text).not.toContain("ViaGet");
  });

  it("the name of the operation run is the label", async () => {
    await s.fetch("/graphql", {
      method: "POST",
      json: { query: "query A { __typename } query B { __typename }", operationName: "B" },
    });
    const text = await (await s.fetch("/metrics")).text();
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/graphql",operation="B",status="200"\} 1/);
    expect(text).not.toMatch(/operation="A"/);
  });

  it("2,000 distinct operation names: /metrics and its series stay bounded", async () => {
    const baseline = await (await s.fetch("/metrics")).text();
    const names = Array.from({ length: 2000 }, (_, i) => `Op${i}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(
        names.slice(i, i + 50).map((name) =>
          s.fetch("/graphql", {
            method: "POST",
            json: { query: `query ${name} { __typename }`, operationName: name },
          }),
        ),
      );
    }
    const text = await (await s.fetch("/metrics")).text();
    const added = series(text).length - series(baseline).length;
    console.log(`2,000 names: ${series(text).length} series (+${added}), /metrics ${text.length} bytes`);
    const labels = operationsIn(text);
    expect(labels.size).toBeLessThanOrEqual(MAX_OPERATION_LABELS + 3); // + "", "anonymous", "other"
    expect(labels.has("other")).toBe(true);
    // Every request is still counted: the ones past the bound under "other".
    const other = /http_requests_total\{method="POST",route="\/graphql",operation="other",status="200"\} (\d+)/.exec(
      text,
    );
    expect(Number(other?.[1])).toBeGreaterThanOrEqual(2000 - MAX_OPERATION_LABELS);
    // Bounded: each admitted name costs one counter and one histogram (16 series); nothing per extra name.
    expect(added).toBeLessThanOrEqual((MAX_OPERATION_LABELS + 2) * 16);
    expect(text.length).toBeLessThan(2_000_000);
  });
});

// What a PostgreSQL restore writes and replaces: only the gateway's objects (ownership.ts).
// - The archive's table of contents (`pg_restore --list`) is filtered down to the gateway's
//   entries, and pg_restore writes only those (`--use-list`): an archive of a database shared with
//   another program (or made before backups left such objects out) adds nothing of that program's.
// - Before it, the target's own gateway objects are dropped, without CASCADE: another program's
//   view or foreign key on a gateway table makes PostgreSQL refuse, and the restore changes nothing.
import type { DataConnection, DbObject } from "../data-connection.ts";
import { gatewayNames } from "../ownership.ts";

/** The kinds of entry pg_restore lists, longest first (some hold spaces). */
const KINDS = [
  "MATERIALIZED VIEW DATA",
  "SEQUENCE OWNED BY",
  "MATERIALIZED VIEW",
  "CHECK CONSTRAINT",
  "FK CONSTRAINT",
  "FOREIGN TABLE",
  "SEQUENCE SET",
  "ROW SECURITY",
  "TABLE DATA",
  "CONSTRAINT",
  "EXTENSION",
  "AGGREGATE",
  "PROCEDURE",
  "SEQUENCE",
  "FUNCTION",
  "TRIGGER",
  "DEFAULT",
  "COMMENT",
  "DOMAIN",
  "POLICY",
  "SCHEMA",
  "INDEX",
  "TABLE",
  "RULE",
  "TYPE",
  "VIEW",
];
/** Entries that belong to a table, whose tag is "<table> <name>". */
const OF_A_TABLE = new Set([
  "CHECK CONSTRAINT",
  "FK CONSTRAINT",
  "ROW SECURITY",
  "CONSTRAINT",
  "TRIGGER",
  "DEFAULT",
  "POLICY",
  "RULE",
]);
const ROUTINES = new Set(["FUNCTION", "PROCEDURE", "AGGREGATE"]);

type Entry = { line: string; kind: string; schema: string; tag: string };

function parseEntry(line: string): Entry | undefined {
  const match = /^\d+; \d+ \d+ (.*)$/.exec(line);
  if (!match) return undefined;
  const kind = KINDS.find((k) => match[1]!.startsWith(`${k} `));
  if (!kind) return { line, kind: "?", schema: "", tag: match[1]! };
  const rest = match[1]!.slice(kind.length + 1);
  const schema = rest.slice(0, rest.indexOf(" "));
  const tag = rest.slice(schema.length + 1, rest.lastIndexOf(" ")); // the owner (maybe empty) ends the line
  return { line, kind, schema, tag };
}

/** Whether a listed entry is the gateway's, in the archive whose gateway objects were in `schema`. */
function isGateways(entry: Entry, schema: string): boolean {
  const { objects, extensions } = gatewayNames("postgres");
  const table = (name: string) => objects.has(name);
  if (entry.kind === "EXTENSION") return extensions.has(entry.tag);
  if (entry.kind === "COMMENT") {
    const [what, ...name] = entry.tag.split(" ");
    if (what === "EXTENSION") return extensions.has(name.join(" "));
    return entry.schema === schema && table(name.join(" ").split(/[ (]/)[0]!);
  }
  if (entry.schema !== schema) return false;
  if (OF_A_TABLE.has(entry.kind)) return table(entry.tag.split(" ")[0]!);
  if (ROUTINES.has(entry.kind)) return table(entry.tag.slice(0, entry.tag.indexOf("(")));
  if (entry.kind.startsWith("SEQUENCE"))
    // A sequence a gateway table's column owns: "<table>_<column>_seq".
    return table(entry.tag) || [...objects].some((t) => entry.tag.startsWith(`${t}_`) && entry.tag.endsWith("_seq"));
  if (entry.kind === "SCHEMA" || entry.kind === "?") return false;
  return table(entry.tag);
}

/**
 * The archive's listing (`pg_restore --list`) kept to the gateway's entries; `leftOut`: the others,
 * as "KIND name" (the public schema pg_dump may list is left out quietly: it exists already).
 */
export function gatewayEntries(listing: string, schema: string): { list: string; leftOut: string[] } {
  const kept: string[] = [];
  const leftOut: string[] = [];
  for (const line of listing.split("\n")) {
    const entry = parseEntry(line);
    if (!entry) continue; // comments and blank lines
    if (isGateways(entry, schema)) kept.push(line);
    else if (!(entry.kind === "SCHEMA" || (entry.kind === "COMMENT" && entry.tag.startsWith("SCHEMA "))))
      leftOut.push(`${entry.kind} ${entry.schema === "-" ? "" : `${entry.schema}.`}${entry.tag}`);
  }
  return { list: `${kept.join("\n")}\n`, leftOut };
}

/** Statements dropping the gateway's objects of a target (ownership.ts), dependents before what they need. */
export function dropGatewayObjects(objects: DbObject[]): string {
  const of = (...kinds: string[]) => objects.filter((o) => kinds.includes(o.kind)).map((o) => o.identity!);
  const statements: string[] = [];
  const drop = (what: string, identities: string[]) => {
    if (identities.length) statements.push(`DROP ${what} IF EXISTS ${identities.join(", ")};`);
  };
  drop("VIEW", of("view"));
  drop("MATERIALIZED VIEW", of("materialized view"));
  drop("TABLE", of("table"));
  drop("SEQUENCE", of("sequence"));
  drop("ROUTINE", of("function", "procedure", "aggregate"));
  drop("DOMAIN", of("domain"));
  drop("TYPE", of("type"));
  return statements.join("\n");
}

/**
 * Another program's views and foreign keys that depend on the gateway's tables ("user_names (view)
 * on User"): dropping the gateway's tables would have to drop them, which restore never does.
 */
export async function dependentsOnGateway(conn: DataConnection, gateway: DbObject[]): Promise<string[]> {
  const relations = gateway.filter((o) => /table|view/.test(o.kind)).map((o) => o.identity!);
  if (!relations.length) return [];
  const rows = await conn.rows(
    `WITH ours AS (SELECT to_regclass(name)::oid AS oid FROM unnest($1::text[]) name)
     SELECT DISTINCT v.oid::regclass::text || ' (view) on ' || t.oid::regclass::text
       FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class
       JOIN pg_class t ON t.oid = d.refobjid
      WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_class'::regclass
        AND t.oid IN (SELECT oid FROM ours) AND v.oid NOT IN (SELECT oid FROM ours)
     UNION
     SELECT DISTINCT c.conrelid::regclass::text || ' (foreign key ' || c.conname || ') on ' || c.confrelid::regclass::text
       FROM pg_constraint c
      WHERE c.contype = 'f' AND c.confrelid IN (SELECT oid FROM ours) AND c.conrelid NOT IN (SELECT oid FROM ours)
     ORDER BY 1`,
    [relations],
  );
  return rows.map(([line]) => String(line));
}

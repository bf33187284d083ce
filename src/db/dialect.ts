// Which database a URL names: the one place that tells SQLite from PostgreSQL. The settings, the
// service's client and the data commands ask here.

export type Dialect = "sqlite" | "postgres";

/** `file:` is SQLite, `postgres://` or `postgresql://` PostgreSQL; anything else is neither. */
export const dialectOf = (url: string): Dialect | undefined =>
  url.startsWith("file:") ? "sqlite" : /^postgres(ql)?:\/\//.test(url) ? "postgres" : undefined;

// `local_time(zone, epochMs)` for SQLite, which has no time zone database: the wall-clock time
// ("HH:MM", 24-hour) at an instant in an IANA zone, e.g. local_time('Europe/Lisbon',
// 1764270000000) = '19:00'. Open-now searches compare it with opening hours (searches.ts);
// PostgreSQL computes the same with AT TIME ZONE. Registered on every SQLite connection that runs
// searches: the service's own and its reader threads' (sqlite-read-worker.mjs). Plain JavaScript,
// so a worker thread can load it without a TypeScript loader.

const formats = new Map();

function formatOf(zone) {
  let format = formats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    } catch {
      format = null; // not a zone this runtime knows: never open
    }
    if (formats.size > 1000) formats.clear();
    formats.set(zone, format);
  }
  return format;
}

/** One search asks the same instant for many rows of few zones: the last answers are kept. */
const recent = new Map();

export function localTime(zone, epochMs) {
  if (typeof zone !== "string" || (typeof epochMs !== "number" && typeof epochMs !== "bigint")) return null;
  const key = `${zone}@${epochMs}`;
  let time = recent.get(key);
  if (time === undefined) {
    time = formatOf(zone)?.format(Number(epochMs)) ?? null;
    if (recent.size > 2000) recent.clear();
    recent.set(key, time);
  }
  return time;
}

export function registerLocalTime(db) {
  db.function("local_time", { deterministic: true }, localTime);
}

// `open_pattern(zone, epochMs, periods)` for SQLite, which has no time zone database: whether one
// of an opening pattern's periods ("HH:MM-HH:MM,...", 24-hour) holds the wall-clock time at an
// instant in an IANA zone (localTime('Europe/Lisbon', 1764270000000) = '19:00'). Open-now searches
// test it once per pattern (search/engine.ts); PostgreSQL computes the same with AT TIME ZONE.
// Registered on every SQLite connection that runs searches: the service's own and its reader
// threads' (read-worker.mjs). Plain JavaScript, so a worker thread can load it without a
// TypeScript loader.

const formats = new Map();

function formatOf(zone) {
  let format = formats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      });
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

/**
 * Whether an opening period ("HH:MM" to "HH:MM") holds the local time: one that opens and closes
 * at the same time is open all day; one that closes earlier than it opens runs past midnight.
 */
export function openDuring(time, open, close) {
  if (open === close) return true;
  return open < close ? open <= time && time < close : time >= open || time < close;
}

/** Whether a pattern's periods ("HH:MM-HH:MM" joined by commas) hold the instant in the zone: 1 or 0. */
export function openPattern(zone, epochMs, periods) {
  const time = localTime(zone, epochMs);
  if (time === null || typeof periods !== "string") return 0;
  for (const period of periods.split(",")) {
    const [open, close] = period.split("-");
    if (open !== undefined && close !== undefined && openDuring(time, open, close)) return 1;
  }
  return 0;
}

export function registerLocalTime(db) {
  db.function("open_pattern", { deterministic: true }, openPattern);
}

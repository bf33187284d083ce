// The bulk seed's opening patterns (migration 20261126080000_opening_patterns): the load sets the
// triggers that derive a restaurant's pattern aside, so it names each pattern itself, the way the
// triggers do (zone + distinct periods "HH:MM-HH:MM", sorted, comma-separated), and writes each
// restaurant's pattern id with the restaurant: no second pass over a million rows to derive it.
type Period = { open: string; close: string };
export type PatternRow = { id: number; timeZone: string; periods: string };

export class SeedOpeningPatterns {
  private readonly ids = new Map<string, number>();
  private readonly fresh: PatternRow[] = [];
  private next: number;

  /** `existing`: the patterns the database holds already (their ids are kept). */
  constructor(existing: PatternRow[]) {
    for (const p of existing) this.ids.set(`${p.timeZone}\u0000${p.periods}`, p.id);
    this.next = existing.reduce((max, p) => Math.max(max, p.id), 0) + 1;
  }

  /** The pattern id of a zone and its periods; none without either (never open). */
  idOf(timeZone: string | null | undefined, hours: Period[]): number | null {
    if (!timeZone || hours.length === 0) return null;
    const periods = [...new Set(hours.map((h) => `${h.open}-${h.close}`))].sort().join(",");
    const key = `${timeZone}\u0000${periods}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(key, id);
      this.fresh.push({ id, timeZone, periods });
    }
    return id;
  }

  /** The patterns named since the start, to be written with the load. */
  added(): PatternRow[] {
    return this.fresh;
  }
}

/**
 * After the load: the patterns no restaurant uses (a second run's restaurants were there already
 * and kept theirs). The same SQL on both databases.
 */
export const UNUSED_PATTERNS = `DELETE FROM "OpeningPattern" WHERE "id" NOT IN (SELECT DISTINCT "openingPattern" FROM "Restaurant" WHERE "openingPattern" IS NOT NULL)`;

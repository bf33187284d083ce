// A backup's covers put into the cover store, all or nothing. Planned first (before anything is
// written): a cover already there with the same content stays; one there under the same name with
// other content is refused unless --overwrite, which replaces it and keeps the old content aside
// until the restore succeeded. On any failure (a full disk, an interruption, the database write)
// `undo` deletes the covers added, puts back those replaced, and removes the folder if it made it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CoverStore } from "../../storage/cover-store.ts";
import { refuseStrangers } from "../bucket-checks.ts";
import { checkpoint } from "../interruption.ts";
import type { Progress } from "../progress.ts";
import { TargetNotEmpty } from "../connection/tables.ts";

export type CoverPlan = { add: string[]; replace: string[]; alreadyThere: number };

/** What placing `expected` (name -> SHA-256) would do; refuses to replace covers unless `overwrite`. */
export async function planCovers(
  store: CoverStore,
  expected: Map<string, string>,
  overwrite: boolean,
): Promise<CoverPlan> {
  await refuseStrangers(store, new Set(expected.keys()), overwrite);
  const plan: CoverPlan = { add: [], replace: [], alreadyThere: 0 };
  for (const [name, sha256] of expected) {
    checkpoint();
    const found = await store.read(name);
    if (!found) plan.add.push(name);
    else if (found.sha256 !== sha256) plan.replace.push(name);
    else plan.alreadyThere++;
  }
  if (plan.replace.length && !overwrite)
    throw new TargetNotEmpty(
      `${store.label} holds ${plan.replace.length} files under the names of the backup's covers, with other content (e.g. ${plan.replace[0]}): add --overwrite to replace them`,
    );
  return plan;
}

export type PlacedCovers = {
  /** Carries out the plan. */
  run(): Promise<void>;
  added(): number;
  replaced(): number;
  /** Puts the store back as it was (after a failure, of this or of what followed). */
  undo(): Promise<void>;
  /** Drops the replaced covers' old content (the restore succeeded). */
  done(): Promise<void>;
};

/** Carrying out `plan`, copying from the backup's `from` folder, each cover checked against `expected`. */
export function coverPlacement(
  from: string,
  store: CoverStore,
  plan: CoverPlan,
  expected: Map<string, string>,
  progress: Progress,
): PlacedCovers {
  let prepared: { undo(): void } | undefined;
  let aside: string | undefined;
  const added: string[] = [];
  const replaced = new Map<string, string>(); // name -> the old content's SHA-256
  const dropAside = async () => {
    if (aside) await rm(aside, { recursive: true, force: true });
  };
  return {
    async run() {
      progress.phase("covers", plan.add.length + plan.replace.length, "files");
      prepared = await store.prepare();
      if (plan.replace.length) aside = await mkdtemp(path.join(tmpdir(), "gw-restore-replaced-"));
      for (const name of plan.replace) {
        checkpoint();
        const old = await store.copyTo(name, aside!);
        await store.put(name, path.join(from, name), expected.get(name)!);
        if (old) replaced.set(name, old.sha256);
        progress.advance(1);
      }
      for (const name of plan.add) {
        checkpoint();
        await store.put(name, path.join(from, name), expected.get(name)!);
        added.push(name);
        progress.advance(1);
      }
    },
    added: () => added.length,
    replaced: () => replaced.size,
    async undo() {
      const failures: string[] = [];
      for (const name of added) await store.delete(name).catch(() => failures.push(name));
      for (const [name, sha256] of replaced)
        await store.put(name, path.join(aside!, name), sha256).catch(() => failures.push(name));
      prepared?.undo();
      if (failures.length)
        throw new Error(`${failures.length} covers could not be put back as they were (e.g. ${failures[0]})`);
      await dropAside();
    },
    done: dropAside,
  };
}

// Groceries: validation, who may change them, create / update / delete (with their cover files),
// the legacy "remove from list or catalogue" rule, and search. Lists are tag rows (string-lists.ts).
// Cover files: a new file is saved before the database write and removed again if that write
// fails; a replaced or removed file is deleted only after the change is committed.
import { checkTitlePart } from "./title-parts.ts";
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import type { Prisma, PrismaClient } from "../../db/prisma.ts";
import type { EventBus } from "../../events/bus.ts";
import type { GroceryRow } from "../../db/rows.ts";
import { groceryPage, type Facets } from "../../db/search/searches.ts";
import {
  deleteUpload,
  discardUpload,
  quotaExceeded,
  saveImage,
  type IncomingFile,
  type SavedFile,
  type UploadSettings,
} from "../../storage/image-files.ts";
import { badInput, notFound } from "../../contract/errors.ts";
import {
  exactTotal,
  pageWindow,
  readWindow,
  toSearchConnection,
  type PageArgs,
  type SearchConnection,
} from "../pagination.ts";
import { isRecordNotFound } from "../prisma-errors.ts";
import { removeFromShoppingList } from "../orders/shopping-list.ts";
import { listRows, searchKey, stringList } from "./string-lists.ts";
import { checkId, optionalText, requiredText, storable } from "../text.ts";
import type { Viewer } from "../accounts/tokens.ts";
import { editable } from "../ownership.ts";
import { parseInput } from "../validation.ts";
import { searchWords } from "../../db/search/words.ts";

/** The string lists of a grocery, each stored as tag rows of one kind. */
export const LIST_KINDS = { metricUnits: "METRIC_UNIT", categories: "CATEGORY" } as const;
export type ListField = keyof typeof LIST_KINDS;
export type TagKind = (typeof LIST_KINDS)[ListField];

// ---- Validation ------------------------------------------------------------------------------

const title = requiredText("title", 200, "title must be text of 1 to 200 characters (it cannot be removed)");
/** Text of at most `max` characters, stored as sent; blank means none, stored "" (the columns are never null). */
const text = (field: string, max: number) => optionalText(field, max).transform((v) => (v.trim() ? v : ""));

export const createGroceryInput = z.object({
  title,
  description: text("description", 5000)
    .nullish()
    .transform((v) => v ?? ""),
  alsoKnownAs: text("alsoKnownAs", 200)
    .nullish()
    .transform((v) => v ?? ""),
  metricUnits: stringList.nullish().transform((v) => v ?? []),
  categories: stringList.nullish().transform((v) => v ?? []),
});

/** Only the fields given change; null empties a text or a list (title cannot be emptied). */
export const updateGroceryInput = z.object({
  title: title.optional(),
  description: text("description", 5000)
    .nullish()
    .transform((v) => (v === null ? "" : v)),
  alsoKnownAs: text("alsoKnownAs", 200)
    .nullish()
    .transform((v) => (v === null ? "" : v)),
  metricUnits: stringList.nullish().transform((v) => (v === null ? [] : v)),
  categories: stringList.nullish().transform((v) => (v === null ? [] : v)),
  removeCover: z.boolean().nullish(),
});

// ---- Who may change it -----------------------------------------------------------------------

/** Finds the grocery and checks the viewer may change it: NOT_FOUND, then FORBIDDEN. */
async function editableGrocery(db: Db, viewer: Viewer, id: string) {
  checkId(id, "id");
  return editable(
    "Grocery",
    id,
    await db.prisma.grocery.findUnique({ where: { id }, select: { id: true, ownerId: true } }),
    viewer,
  );
}

/**
 * Deletes a cover file once the database no longer points at it. The change is committed by then:
 * a file left behind is harmless, an error here would wrongly report the change as failed.
 */
const dropFile = (uploads: UploadSettings, name: string | null) => deleteUpload(uploads, name).catch(() => {});

// ---- Upload quota ----------------------------------------------------------------------------

/** Bytes of cover files the user's groceries hold (each row records its cover's size). */
async function storedBytes(db: PrismaClient | Prisma.TransactionClient, ownerId: string): Promise<number> {
  const { _sum } = await db.grocery.aggregate({ where: { ownerId }, _sum: { coverBytes: true } });
  return _sum.coverBytes ?? 0;
}

/**
 * Inside a write's transaction: takes the owner's row lock, so concurrent uploads of one owner
 * are counted one after the other (PostgreSQL; SQLite has one writer anyway), then refuses a
 * cover of `bytes` that would take the owner past the quota, counting `freedBytes` (the cover it
 * replaces) as gone.
 */
async function reserveQuota(
  tx: Prisma.TransactionClient,
  uploads: UploadSettings,
  ownerId: string,
  bytes: number,
  freedBytes = 0,
) {
  if (uploads.quotaBytes <= 0 || bytes <= freedBytes) return;
  await tx.$executeRaw`UPDATE "User" SET "id" = "id" WHERE "id" = ${ownerId}`;
  const used = await storedBytes(tx, ownerId);
  if (used - freedBytes + bytes > uploads.quotaBytes) throw quotaExceeded("cover", uploads.quotaBytes, used);
}

/**
 * Runs `write` with a newly saved cover (if any); the file is removed again when `write` fails.
 * The file is refused while streaming once it outgrows what is left of the owner's quota
 * (`freedBytes` being the size of the cover it replaces); `write` checks again under a lock.
 */
async function withNewCover<T>(
  db: Db,
  uploads: UploadSettings,
  owner: { id: string; freedBytes?: number },
  cover: IncomingFile | null | undefined,
  write: (saved: SavedFile | null) => Promise<T>,
) {
  let saved: SavedFile | null = null;
  if (cover) {
    const quota =
      uploads.quotaBytes > 0
        ? await storedBytes(db.prisma, owner.id).then((used) => ({
            used,
            left: uploads.quotaBytes - used + (owner.freedBytes ?? 0),
          }))
        : null;
    saved = await saveImage(
      uploads,
      cover.open(),
      "cover",
      quota ? { leftBytes: quota.left, usedBytes: quota.used } : undefined,
    );
  }
  try {
    return await write(saved);
  } catch (error) {
    await discardUpload(uploads, saved?.name ?? null).catch(() => {});
    throw error;
  }
}

// ---- Writing ---------------------------------------------------------------------------------

export async function createGrocery(
  db: Db,
  uploads: UploadSettings,
  viewer: Viewer,
  input: unknown,
  cover?: IncomingFile | null,
): Promise<GroceryRow> {
  const data = parseInput(createGroceryInput, input);
  const { rows } = listRows(LIST_KINDS, data);
  const row = (saved: SavedFile | null) => ({
    title: data.title,
    titleSearch: searchKey(data.title),
    description: data.description,
    alsoKnownAs: data.alsoKnownAs,
    cover: saved?.name ?? null,
    coverBytes: saved?.bytes ?? 0,
    ownerId: viewer.id,
    tags: { createMany: { data: rows } },
  });
  return withNewCover(db, uploads, { id: viewer.id }, cover, (saved) =>
    saved
      ? db.prisma.$transaction(async (tx) => {
          await reserveQuota(tx, uploads, viewer.id, saved.bytes);
          return tx.grocery.create({ data: row(saved) });
        })
      : // One nested create: Prisma writes the row and its lists in one transaction.
        db.prisma.grocery.create({ data: row(null) }),
  );
}

/** Thrown inside the update transaction when the cover changed under it; the update is retried. */
class CoverChanged extends Error {}

export async function updateGrocery(
  db: Db,
  uploads: UploadSettings,
  viewer: Viewer,
  id: string,
  input: unknown,
  cover?: IncomingFile | null,
): Promise<GroceryRow> {
  const data = parseInput(updateGroceryInput, input);
  if (cover && data.removeCover)
    throw badInput("give either cover (a new file) or removeCover: true, not both", { field: "cover" });
  const { ownerId } = await editableGrocery(db, viewer, id);
  const { kinds, rows } = listRows(LIST_KINDS, data);
  const columns: Prisma.GroceryUncheckedUpdateManyInput = { updatedAt: new Date() };
  if (data.title !== undefined) Object.assign(columns, { title: data.title, titleSearch: searchKey(data.title) });
  if (data.description !== undefined) columns.description = data.description;
  if (data.alsoKnownAs !== undefined) columns.alsoKnownAs = data.alsoKnownAs;
  const coverChanges = cover != null || data.removeCover === true;

  const replaced = cover ? await db.prisma.grocery.findUnique({ where: { id }, select: { coverBytes: true } }) : null;
  const owner = { id: ownerId, freedBytes: replaced?.coverBytes ?? 0 };
  const { grocery, oldCover } = await withNewCover(db, uploads, owner, cover, async (saved) => {
    if (coverChanges) Object.assign(columns, { cover: saved?.name ?? null, coverBytes: saved?.bytes ?? 0 });
    // Optimistic check on the cover: the file to delete afterwards is exactly the one replaced,
    // even when two updates race (the loser sees the winner's cover and tries again).
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.prisma.$transaction(async (tx) => {
          const current = await tx.grocery.findUnique({
            where: { id },
            select: { cover: true, coverBytes: true, ownerId: true },
          });
          if (!current) throw notFound("Grocery", id);
          if (saved) await reserveQuota(tx, uploads, current.ownerId, saved.bytes, current.coverBytes);
          const { count } = await tx.grocery.updateMany({ where: { id, cover: current.cover }, data: columns });
          if (count === 0) throw new CoverChanged();
          if (kinds.length > 0) await tx.groceryTag.deleteMany({ where: { groceryId: id, kind: { in: kinds } } });
          if (rows.length > 0) await tx.groceryTag.createMany({ data: rows.map((r) => ({ ...r, groceryId: id })) });
          return { grocery: await tx.grocery.findUniqueOrThrow({ where: { id } }), oldCover: current.cover };
        });
      } catch (error) {
        if (!(error instanceof CoverChanged) || attempt === 50) throw error;
      }
    }
  });
  if (coverChanges && oldCover !== grocery.cover) await dropFile(uploads, oldCover);
  return grocery;
}

/**
 * Removes the grocery (its lists and shopping-list entries go with it), then its cover file. The
 * users whose shopping lists held it are told their list changed, once the removal committed.
 */
export async function deleteGrocery(
  db: Db,
  events: EventBus,
  uploads: UploadSettings,
  viewer: Viewer,
  id: string,
): Promise<string> {
  await editableGrocery(db, viewer, id);
  let deleted: { cover: string | null };
  let holders: { userId: string }[];
  try {
    // The deleted row tells which cover it had at that moment, whatever changed since we looked.
    [holders, deleted] = await db.prisma.$transaction([
      db.prisma.shoppingListEntry.findMany({ where: { groceryId: id }, select: { userId: true } }),
      db.prisma.grocery.delete({ where: { id }, select: { cover: true } }),
    ]);
  } catch (error) {
    if (isRecordNotFound(error)) throw notFound("Grocery", id);
    throw error;
  }
  for (const { userId } of holders) events.publish({ topic: "shoppingListChanged", userId });
  await dropFile(uploads, deleted.cover);
  return id;
}

export type RemovalScope = "SHOPPING_LIST" | "CATALOGUE" | "SHOPPING_LIST_OR_CATALOGUE";

/**
 * The legacy DELETE /groceries/:id/ rule. SHOPPING_LIST takes it off the caller's list (whether or
 * not it was there; NOT_FOUND if no such grocery exists); CATALOGUE deletes it (owner or admin);
 * SHOPPING_LIST_OR_CATALOGUE takes it off the list if it is there, and otherwise deletes it.
 */
export async function removeGrocery(
  db: Db,
  events: EventBus,
  uploads: UploadSettings,
  viewer: Viewer,
  id: string,
  from: RemovalScope = "SHOPPING_LIST_OR_CATALOGUE",
): Promise<{ groceryId: string; removedFrom: "SHOPPING_LIST" | "CATALOGUE" }> {
  checkId(id, "id");
  if (from !== "CATALOGUE") {
    const wasOnList = await removeFromShoppingList(db, events, viewer, id);
    if (wasOnList) return { groceryId: id, removedFrom: "SHOPPING_LIST" };
    if (from === "SHOPPING_LIST") {
      if (!(await db.prisma.grocery.findUnique({ where: { id }, select: { id: true } }))) throw notFound("Grocery", id);
      return { groceryId: id, removedFrom: "SHOPPING_LIST" };
    }
  }
  await deleteGrocery(db, events, uploads, viewer, id);
  return { groceryId: id, removedFrom: "CATALOGUE" };
}

// ---- Reading by id, and the lists that follow a page ------------------------------------------

// No rule applies to these reads (who may ask, and which fields they see, is the schema's directives), so the domain hands
// out the raw reads of src/db/reads/ as they are; loaders batch them.

// ---- Search ----------------------------------------------------------------------------------

const filterText = (field: string) =>
  storable(z.string().trim().max(200, `filter.${field} must have at most 200 characters`), `filter.${field}`).nullish();
const valueList = (field: string, max: number) =>
  z
    .array(storable(z.string().trim().max(200, `${field} values must have at most 200 characters`), field))
    .max(max, `${field} takes at most ${max} values`)
    .nullish();

export const groceryFilter = z
  .object({
    search: filterText("search"),
    title: filterText("title"),
    category: filterText("category"),
    categories: z
      .object({ anyOf: valueList("filter.categories.anyOf", 20), allOf: valueList("filter.categories.allOf", 5) })
      .nullish(),
  })
  .nullish();

export type GrocerySort = "RELEVANCE" | "NEWEST";

/** Groceries matching every filter given, best match first with words, else newest first (the id breaks ties). An empty value matches everything. */
export async function searchGroceries(
  db: Db,
  args: { filter?: unknown; sort?: GrocerySort | null } & PageArgs,
  { anyTextLength = false }: { anyTextLength?: boolean } = {},
): Promise<SearchConnection<GroceryRow, Facets>> {
  const filter = parseInput(groceryFilter, args.filter);
  checkTitlePart("filter.title", filter?.title, anyTextLength);
  const words = filter?.search ? searchWords(filter.search) : [];
  const keys = (values: string[] | null | undefined) => [...new Set((values ?? []).map(searchKey).filter(Boolean))];
  const any = keys(filter?.categories?.anyOf);
  const tags = [
    ...(filter?.category ? [{ kind: "CATEGORY" as const, keys: [searchKey(filter.category)] }] : []),
    ...(any.length ? [{ kind: "CATEGORY" as const, keys: any }] : []),
    ...keys(filter?.categories?.allOf).map((key) => ({ kind: "CATEGORY" as const, keys: [key] })),
  ];
  const q = {
    words: words.length ? words : undefined,
    titleKey: filter?.title ? searchKey(filter.title) : undefined,
    tags,
    sort: args.sort ?? (words.length ? ("RELEVANCE" as const) : ("NEWEST" as const)),
  };
  // Counted from the end (`last` without `before`): a page of one row asked for the total first.
  const total = async () => (await groceryPage(db, q, { skip: 0, take: 1 })).count();
  const window = await pageWindow(args, () => exactTotal(total, db.searchLimits.exactCountLimit));
  const page = await groceryPage(db, q, readWindow(window));
  return toSearchConnection(page.rows, window, page);
}

/** Path where a cover file is served. */
export const coverUrl = (cover: string | null) => (cover ? `/uploads/${cover}` : null);

-- ---- Map cells in the restaurants' search documents (written by hand) -----------------------
-- Derived data, like 20261125165728_search. Each restaurant's document gains a fourth column,
-- "place": the map cells holding its coordinates at five levels (src/db/search-cells.ts: cells of
-- 1/32, 1/8, 1/2, 2 and 8 degrees, one token a level, `g<level>y<row>x<column>`, row =
-- floor((latitude + 90) / size), column = floor((longitude + 180) / size); sizes are powers of two,
-- so SQLite computes exactly the cells the server names). A search with words and near then asks
-- FTS5 for the words AND one of the cells covering the circle, and reads only those rows to test
-- the circle ("pizza" near Lisbon, 5 km, at 1,000,000 restaurants: 19,414 search rows read to keep
-- 2,208 within it). Restaurants without coordinates get no cell.
--
-- Users' words never reach "place": the server puts them under the column filter
-- {title tags body} (a user typing "g1y10" would otherwise find every restaurant whose cell
-- starts so). bm25 weighs "place" 0.
--
-- FTS5 cannot add a column: the table is made again and filled from the documents. Its keys
-- (rowids) are the search rows', as before.

DROP TABLE "RestaurantSearchTerms";
DROP TABLE "RestaurantSearch";
CREATE VIRTUAL TABLE "RestaurantSearch" USING fts5(
    "title", "tags", "body", "place",
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE VIRTUAL TABLE "RestaurantSearchTerms" USING fts5vocab("RestaurantSearch", 'row');

DROP VIEW "RestaurantSearchDocument";
CREATE VIEW "RestaurantSearchDocument" AS
SELECT s."rowid", s."restaurantId", r."title", r."titleSearch",
    COALESCE((SELECT group_concat(t."value", ' ') FROM "RestaurantTag" t
        WHERE t."restaurantId" = r."id" AND t."kind" IN ('CUISINE', 'CATEGORY')), '') AS "tags",
    COALESCE(r."description", '') || ' ' || COALESCE((SELECT group_concat(t."value", ' ') FROM "RestaurantTag" t
        WHERE t."restaurantId" = r."id" AND t."kind" = 'DISH'), '') AS "body",
    CASE WHEN s."latitude" IS NOT NULL AND s."longitude" IS NOT NULL THEN
        'g0y' || CAST((s."latitude" + 90.0) / 0.03125 AS INTEGER) || 'x' || CAST((s."longitude" + 180.0) / 0.03125 AS INTEGER)
        || ' g1y' || CAST((s."latitude" + 90.0) / 0.125 AS INTEGER) || 'x' || CAST((s."longitude" + 180.0) / 0.125 AS INTEGER)
        || ' g2y' || CAST((s."latitude" + 90.0) / 0.5 AS INTEGER) || 'x' || CAST((s."longitude" + 180.0) / 0.5 AS INTEGER)
        || ' g3y' || CAST((s."latitude" + 90.0) / 2.0 AS INTEGER) || 'x' || CAST((s."longitude" + 180.0) / 2.0 AS INTEGER)
        || ' g4y' || CAST((s."latitude" + 90.0) / 8.0 AS INTEGER) || 'x' || CAST((s."longitude" + 180.0) / 8.0 AS INTEGER)
    END AS "place"
FROM "RestaurantSearchRow" s JOIN "Restaurant" r ON r."id" = s."restaurantId";

-- Every trigger that writes a document writes its cells too.
DROP TRIGGER "Restaurant_search_insert";
CREATE TRIGGER "Restaurant_search_insert" AFTER INSERT ON "Restaurant" BEGIN
    INSERT INTO "RestaurantSearchRow" ("restaurantId", "latitude", "longitude") VALUES (NEW."id", NEW."latitude", NEW."longitude");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
    INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

DROP TRIGGER "Restaurant_search_update";
CREATE TRIGGER "Restaurant_search_update" AFTER UPDATE OF "title", "titleSearch", "description" ON "Restaurant" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    DELETE FROM "RestaurantTitleTrigrams" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
    INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

DROP TRIGGER "RestaurantTag_search_insert";
CREATE TRIGGER "RestaurantTag_search_insert" AFTER INSERT ON "RestaurantTag"
WHEN NEW."kind" IN ('CUISINE', 'CATEGORY', 'DISH') BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."restaurantId");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."restaurantId";
END;

DROP TRIGGER "RestaurantTag_search_delete";
CREATE TRIGGER "RestaurantTag_search_delete" AFTER DELETE ON "RestaurantTag"
WHEN OLD."kind" IN ('CUISINE', 'CATEGORY', 'DISH') BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = OLD."restaurantId");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = OLD."restaurantId";
END;

DROP TRIGGER "RestaurantTag_search_update";
CREATE TRIGGER "RestaurantTag_search_update" AFTER UPDATE ON "RestaurantTag" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" IN (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" IN (OLD."restaurantId", NEW."restaurantId"));
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" IN (OLD."restaurantId", NEW."restaurantId");
END;

-- A move moves the search row's coordinates, the R*Tree's point and the document's cells (the
-- document is written again: FTS5 changes a row only whole). Only when a coordinate changed.
DROP TRIGGER "Restaurant_place_update";
CREATE TRIGGER "Restaurant_place_update" AFTER UPDATE OF "latitude", "longitude" ON "Restaurant"
WHEN OLD."latitude" IS NOT NEW."latitude" OR OLD."longitude" IS NOT NEW."longitude" BEGIN
    UPDATE "RestaurantSearchRow" SET "latitude" = NEW."latitude", "longitude" = NEW."longitude" WHERE "restaurantId" = NEW."id";
    DELETE FROM "RestaurantPlace" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
        SELECT s."rowid", NEW."latitude", NEW."latitude", NEW."longitude", NEW."longitude", NEW."latitude", NEW."longitude"
        FROM "RestaurantSearchRow" s WHERE s."restaurantId" = NEW."id" AND NEW."latitude" IS NOT NULL AND NEW."longitude" IS NOT NULL;
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

-- The documents already there, with their cells.
INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
    SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument";

SELECT "Restaurant"."id" AS "id", "Restaurant"."title" AS "title", "Restaurant"."ratingAvg" AS "ratingAvg" FROM "Restaurant" WHERE "Restaurant"."titleSearch" LIKE ? ESCAPE '!' ORDER BY "Restaurant"."ratingAvg" DESC NULLS LAST, "Restaurant"."id" ASC LIMIT 21;
SELECT COUNT(*) AS "n" FROM (SELECT "rowid" AS "key" FROM "RestaurantTitleTrigrams" WHERE "RestaurantTitleTrigrams" MATCH ? LIMIT 2) "t";

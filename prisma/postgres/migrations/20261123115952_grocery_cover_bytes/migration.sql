-- AlterTable
ALTER TABLE "Grocery" ADD COLUMN     "coverBytes" INTEGER NOT NULL DEFAULT 0;


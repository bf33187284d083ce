-- AlterTable
ALTER TABLE "Restaurant" ADD COLUMN     "description" TEXT;


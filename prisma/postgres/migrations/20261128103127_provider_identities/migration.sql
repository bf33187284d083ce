-- CreateTable
CREATE TABLE "ProviderIdentity" (
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProviderIdentity_pkey" PRIMARY KEY ("issuer","subject")
);

-- CreateIndex
CREATE UNIQUE INDEX "ProviderIdentity_userId_key" ON "ProviderIdentity"("userId");

-- AddForeignKey
ALTER TABLE "ProviderIdentity" ADD CONSTRAINT "ProviderIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;


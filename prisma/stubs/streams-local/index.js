throw new Error("@prisma/streams-local is not installed in this project (only `prisma dev` uses it).");

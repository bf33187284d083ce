// `npm run admin -- <command>`: account administration from the command line.
// Works on the database DATABASE_URL names (migrating it first, like the server).
import { randomBytes } from "node:crypto";
import { ConfigError, loadConfig } from "../config.ts";
import { createDb } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { DomainError } from "../domain/errors.ts";
import { revokeAllTokens } from "../domain/tokens.ts";
import { register, setRole } from "../domain/users.ts";

const HELP = `Usage: npm run admin -- <command> [arguments]

Commands:
  create <username> [--password P] [--first-name NAME]
        Creates an admin account. Without --password (or ADMIN_PASSWORD in the
        environment) a random password is generated and printed once.
  promote <username>        Makes an existing user an admin.
  demote <username>         Makes an admin a plain user.
  revoke-tokens <username>  Signs a user out everywhere (revokes all their tokens).
  help                      Shows this text.

The database is the one DATABASE_URL names (default: the SQLite file under ./data).`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    console.log(HELP);
    return command ? 0 : 2;
  }
  const username = args[0];
  if (!username || username.startsWith("--")) {
    console.error(`"${command}" needs a username.\n\n${HELP}`);
    return 2;
  }
  const config = loadConfig();
  await migrate(config.database);
  const db = createDb(config.database);
  try {
    switch (command) {
      case "create": {
        const given = option(args, "--password") ?? process.env.ADMIN_PASSWORD;
        const password = given ?? randomBytes(12).toString("base64url");
        await register(db, { username, password, firstName: option(args, "--first-name") ?? username }, config.tokenTtlMs, "ADMIN");
        console.log(`admin "${username}" created${given ? "" : `; password: ${password}`}`);
        return 0;
      }
      case "promote":
      case "demote":
        await setRole(db, username, command === "promote" ? "ADMIN" : "USER");
        console.log(`"${username}" is now ${command === "promote" ? "an admin" : "a user"}`);
        return 0;
      case "revoke-tokens": {
        const user = await db.user.findUnique({ where: { username }, select: { id: true } });
        if (!user) throw new DomainError("NOT_FOUND", `user "${username}" does not exist`);
        console.log(`revoked ${await revokeAllTokens(db, user.id)} token(s) of "${username}"`);
        return 0;
      }
      default:
        console.error(`unknown command "${command}"\n\n${HELP}`);
        return 2;
    }
  } finally {
    await db.$disconnect();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof DomainError || error instanceof ConfigError) {
    console.error(`error: ${error.message}`);
    process.exitCode = 1;
  } else throw error;
}

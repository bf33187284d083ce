// `npm run admin -- <command>`: administration from the command line (accounts, badges, reports,
// backup, restore, copy-data).
// Works on the database DATABASE_URL names, migrating it first like the server. Each command
// group lives in src/cli/admin/; this file reads the command line, prints help and errors.
// Exit codes: 0 done; 1 refused by the data (unknown user, restaurant or report, a taken name,
// an unreachable database); 2 a wrong command line or setting. Errors are one line, no stack trace.
import "../node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { exitCodeOf, interruptedBy } from "../backup/interruption.ts";
import { refuseForeignDatabase } from "../backup/connection/foreign-database.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { createDb } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { createEventBus } from "../events/create-bus.ts";
import { DomainError } from "../contract/errors.ts";
import { accountCommands } from "./admin/accounts.ts";
import { badgeCommands } from "./admin/badges.ts";
import { dataCommands } from "./admin/data.ts";
import { commandHelp, parseCommandLine, usage, UsageError, type Command } from "./admin/command.ts";
import { reportCommands } from "./admin/reports.ts";

const GROUPS: [title: string, commands: Command[]][] = [
  ["Accounts", accountCommands],
  ["Badges", badgeCommands],
  ["Reports", reportCommands],
  ["Data (backup, restore, moving to another database)", dataCommands],
];
const COMMANDS = new Map(GROUPS.flatMap(([, commands]) => commands.map((c) => [c.name, c] as const)));

const HELP = `Usage: npm run admin -- <command> [arguments] [options]

${GROUPS.map(([title, commands]) => `${title}:\n${commands.map((c) => `  ${usage(c)}\n      ${c.summary}`).join("\n")}`).join("\n\n")}

  help [command]    this text, or one command's options (also: <command> --help)

The database is the one DATABASE_URL names (default: the SQLite file under ./data).
Exit codes: 0 done; 1 refused by the data (e.g. an unknown user, restaurant or report);
2 a wrong command line or setting.`;

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";

function commandNamed(name: string): Command {
  const command = COMMANDS.get(name);
  if (!command) throw new UsageError(`unknown command "${name}"; commands: ${[...COMMANDS.keys()].join(", ")}`);
  return command;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    console.error(HELP);
    return 2;
  }
  if (isHelp(name)) {
    console.log(rest[0] ? commandHelp(commandNamed(rest[0])) : HELP);
    return 0;
  }
  const command = commandNamed(name);
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(commandHelp(command));
    return 0;
  }
  const input = parseCommandLine(command, rest);
  const config = loadConfig();
  const print = (line: string) => console.log(line);
  if (command.data) {
    await command.run({ config, print, interactive: Boolean(process.stdout.isTTY) }, input);
    return 0;
  }
  // Migrating creates the gateway's tables: never in another program's database.
  await refuseForeignDatabase(config.database.url);
  await migrate(config.database);
  const db = createDb(config.database);
  // Running servers hear of what is done here (revocations, role changes, badges) at once when the
  // bus crosses processes (PostgreSQL, or REDIS_URL); on SQLite alone it reaches no other process.
  const events = await createEventBus(config, { publishOnly: true });
  try {
    await command.run({ db, config, events, print }, input);
    return 0;
  } catch (error) {
    // An option checked while running (e.g. --limit): name the command in the usage hint.
    if (error instanceof UsageError && !error.command) throw new UsageError(error.message, command);
    throw error;
  } finally {
    await events.close(); // sends what is still waiting
    await db.close();
  }
}

/** The last meaningful line of an unexpected error (Prisma puts the reason at the end). */
function reason(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; errors?: unknown[] };
  const lines = String(e?.message ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length) return lines.at(-1)!;
  if (Array.isArray(e?.errors) && e.errors.length) return reason(e.errors[0]); // e.g. ECONNREFUSED on every address
  return String(e?.code ?? error);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(
      `error: ${error.message}${error.command ? ` (usage: npm run admin -- ${usage(error.command)})` : " (npm run admin -- help)"}`,
    );
    process.exitCode = 2;
  } else if (error instanceof ConfigError) {
    console.error(`error: invalid setting: ${error.problems.join("; ")}`);
    process.exitCode = 2;
  } else if (error instanceof DomainError) {
    console.error(`error: ${error.message}`);
    process.exitCode = error.code === "BAD_USER_INPUT" ? 2 : 1;
  } else {
    console.error(`error: ${reason(error)}`);
    const signal = interruptedBy();
    process.exitCode = signal ? exitCodeOf(signal) : 1;
  }
}

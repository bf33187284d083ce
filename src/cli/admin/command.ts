// What an admin command is (name, arguments, options, help, action) and how its command line is
// read. A wrong command line is a UsageError: one line saying what to fix, exit code 2.
import type { Config } from "../../config.ts";
import type { Db } from "../../db/db.ts";
import type { EventBus } from "../../events/bus.ts";

export type OptionSpec = {
  /** Placeholder of the option's value (e.g. "USER"); absent for a flag such as --all. */
  value?: string;
  required?: boolean;
  help: string;
};

export type CommandInput = {
  /** Positional arguments by their name in `args`. */
  args: Record<string, string>;
  /** Given options by name (without dashes): their value, or true for a flag. */
  options: Record<string, string | true | undefined>;
};

/** `events`: where commands announce committed changes (running servers drop cached sessions on them). */
export type RunContext = { db: Db; config: Config; events: EventBus; print(line: string): void };

/**
 * For commands that take the database as it is (backup, restore, copy-data): no migration first,
 * no Prisma client. `interactive`: stdout is a terminal (a readable report; otherwise one JSON line).
 */
export type DataContext = { config: Config; print(line: string): void; interactive: boolean };

type CommandBase = {
  name: string;
  /** Required positional arguments, in order. */
  args: string[];
  options?: Record<string, OptionSpec>;
  summary: string;
  /** More lines for `help <command>`. */
  details?: string;
};

export type Command = CommandBase &
  (
    | { data?: false; run(ctx: RunContext, input: CommandInput): Promise<void> }
    | { data: true; run(ctx: DataContext, input: CommandInput): Promise<void> }
  );

/** The command line is wrong (exit code 2); the message says what to fix. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export function usage(command: Command): string {
  const args = command.args.map((a) => `<${a}>`);
  const options = Object.entries(command.options ?? {}).map(([name, o]) => {
    const text = `--${name}${o.value ? ` ${o.value}` : ""}`;
    return o.required ? text : `[${text}]`;
  });
  return [command.name, ...args, ...options].join(" ");
}

export function commandHelp(command: Command): string {
  const options = Object.entries(command.options ?? {});
  const width = Math.max(0, ...options.map(([name, o]) => `--${name}${o.value ? ` ${o.value}` : ""}`.length));
  return [
    `Usage: npm run admin -- ${usage(command)}`,
    "",
    command.summary,
    ...(command.details ? ["", command.details] : []),
    ...(options.length
      ? [
          "",
          "Options:",
          ...options.map(([name, o]) => `  ${`--${name}${o.value ? ` ${o.value}` : ""}`.padEnd(width)}  ${o.help}`),
        ]
      : []),
  ].join("\n");
}

/** Reads `argv` (what follows the command's name) against the command's arguments and options. */
export function parseCommandLine(command: Command, argv: string[]): CommandInput {
  const specs = command.options ?? {};
  const positional: string[] = [];
  const options: CommandInput["options"] = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const spec = specs[name];
    if (!spec) {
      const known = Object.keys(specs).map((o) => `--${o}`);
      throw new UsageError(
        `${command.name} has no option --${name}${known.length ? ` (it takes ${known.join(", ")})` : ""}`,
        command,
      );
    }
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`, command);
      options[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      throw new UsageError(`--${name} needs a value: --${name} ${spec.value}`, command);
    }
    options[name] = value;
  }
  if (positional.length < command.args.length) {
    throw new UsageError(`${command.name} needs <${command.args[positional.length]}>`, command);
  }
  if (positional.length > command.args.length) {
    const extra = positional[command.args.length]!;
    throw new UsageError(`unexpected argument "${extra}" (quote a value that contains spaces)`, command);
  }
  const empty = command.args.findIndex((_, i) => !positional[i]!.trim());
  if (empty >= 0) throw new UsageError(`<${command.args[empty]}> must not be empty`, command);
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.required && options[name] === undefined)
      throw new UsageError(`${command.name} needs --${name} ${spec.value}`, command);
  }
  return { args: Object.fromEntries(command.args.map((name, i) => [name, positional[i]!])), options };
}

/** A whole number option within bounds (else a UsageError naming the option). */
export function wholeNumber(input: CommandInput, name: string, fallback: number, min: number, max: number): number {
  const given = input.options[name];
  if (given === undefined) return fallback;
  const n = Number(given);
  if (typeof given !== "string" || !/^\d+$/.test(given) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

// Reads the examples out of Markdown (README.md, docs/**/*.md) and runs them the way a reader
// would paste them: shell blocks through sh (curl and all), GraphQL blocks one operation at a time
// through POST /graphql. test/operability/examples.test.ts states the convention; this is its
// machinery. Each run returns what went wrong, in words that name the file and line.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Kind, parse, print, type DocumentNode, type OperationDefinitionNode } from "graphql";

export type Block = {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  /** The reason given by a `<!-- example: not run (reason) -->` marker just above the fence. */
  notRun?: string;
  /** The test file a `<!-- example: run by test/x.test.ts (how) -->` marker names: it runs the block. */
  runBy?: string;
};

const FENCE = /^(\s*)(```+|~~~+)\s*([\w-]*)\s*$/;
const MARKER = /^<!--\s*example:\s*(?:not run\s*\((.+)\)|run by (test\/\S+\.test\.ts)\s*\((.+)\))\s*-->$/;

/** The fenced blocks of a Markdown file, with their language and any marker above them. */
export function blocksOf(file: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  let previous = ""; // the last non-empty line outside a block
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) {
      if (lines[i]!.trim()) previous = lines[i]!.trim();
      // A marker is an HTML comment on a line of its own (prose may quote one in backticks).
      if (/^<!--\s*example\b/.test(lines[i]!.trim()) && !MARKER.test(lines[i]!.trim()))
        throw new Error(
          `${file}:${i + 1}: an example marker reads <!-- example: not run (why) --> or <!-- example: run by test/x.test.ts (how) -->`,
        );
      continue;
    }
    const [, indent, fence] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const closing = lines[j]!.trim();
      if (closing.startsWith(fence!) && /^(`+|~+)$/.test(closing)) break;
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!);
    }
    const marker = MARKER.exec(previous);
    blocks.push({
      file,
      line: i + 1,
      lang: open[3]!.toLowerCase(),
      text: body.join("\n"),
      notRun: marker?.[1],
      runBy: marker?.[2],
    });
    previous = "";
    i = j;
  }
  return blocks;
}

export const SHELL = new Set(["sh", "bash", "shell", "console"]);

export type ShellStep =
  | { kind: "curl"; line: number; text: string; expect?: number }
  | { kind: "assign"; line: number; text: string; name: string; expect?: number }
  | { kind: "start"; line: number; text: string; settings: Record<string, string> };

const ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=(\$\([\s\S]*\)|'[^']*'|"[^"]*"|[^\s#]*)\s*(#.*)?$/;
const START = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)+)npm start\b/;
/** A comment naming the status the command before it answers: `# 201`, `# 404, ...`. */
const STATUS = /(?:^|\s)#\s*(\d{3})\b/;

/** The steps of a shell block that run: curl commands, variable assignments, `SETTINGS npm start`. */
export function shellSteps(block: Block): ShellStep[] {
  const lines = block.text.split("\n");
  const steps: ShellStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = block.line + 1 + i;
    let text = lines[i]!;
    while (text.endsWith("\\") && i + 1 < lines.length) text += "\n" + lines[++i]!;
    const trimmed = text.trim();
    const status = STATUS.exec(trimmed.split("\n").at(-1)!);
    if (trimmed.startsWith("#")) {
      // A comment line right after a command may name the status it answers.
      const last = steps.at(-1);
      if (status && last && last.kind !== "start" && last.expect === undefined) last.expect = Number(status[1]);
      continue;
    }
    const expect = status ? Number(status[1]) : undefined;
    const assignment = ASSIGNMENT.exec(trimmed);
    const start = START.exec(trimmed);
    if (trimmed.startsWith("curl ")) steps.push({ kind: "curl", line, text: trimmed, expect });
    else if (assignment) steps.push({ kind: "assign", line, text: trimmed, name: assignment[1]!, expect });
    else if (start)
      steps.push({
        kind: "start",
        line,
        text: trimmed,
        settings: Object.fromEntries(
          start[1]!
            .trim()
            .split(/\s+/)
            .map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
        ),
      });
  }
  return steps;
}

/** The service's address as the documentation writes it, pointed at the server under test. */
export const toServer = (text: string, url: string) =>
  text.replace(/(https?:\/\/)?(localhost|127\.0\.0\.1):4000\b/g, url);

export type HttpAnswer = { status: number; headers: string; body: string; line: number; text: string };

export type ShellRun = {
  answers: { step: ShellStep; answer?: HttpAnswer; exitCode: number; stderr: string; value?: string }[];
};

/**
 * Runs a block's steps in one sh, with the variables earlier blocks set (`variables`, updated in
 * place). Each curl's headers are captured through a curlrc (dump-header), its body from stdout.
 */
export async function runShell(steps: ShellStep[], url: string, variables: Record<string, string>): Promise<ShellRun> {
  const dir = mkdtempSync(path.join(tmpdir(), "gw-doc-example-"));
  try {
    const headers = path.join(dir, "headers");
    writeFileSync(path.join(dir, ".curlrc"), `dump-header = "${headers}"\nmax-time = 30\n`);
    const script = steps
      .map((step, i) => {
        const out = path.join(dir, String(i));
        const command = toServer(step.text, url);
        const keepHeaders = `[ -f '${headers}' ] && mv '${headers}' '${out}.headers'`;
        if (step.kind === "curl")
          return `{\n${command}\n} > '${out}.out' 2> '${out}.err'; echo $? > '${out}.rc'; ${keepHeaders}`;
        if (step.kind === "assign")
          return `${command}\necho $? > '${out}.rc'; printf '%s' "$${step.name}" > '${out}.value'; ${keepHeaders}`;
        return ":";
      })
      .join("\n");
    // Not spawnSync: the server under test answers on this process's event loop.
    const child = spawn("sh", ["-c", script], {
      cwd: dir,
      env: { ...process.env, ...variables, CURL_HOME: dir, HOME: dir },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    await new Promise((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    const read = (name: string) => (existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), "utf8") : "");
    return {
      answers: steps.map((step, i) => {
        const head = read(`${i}.headers`);
        // Redirects and 100-continue write several heads: the last one is the answer's.
        const statuses = [...head.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((m) => Number(m[1]));
        const exitCode = Number(read(`${i}.rc`).trim() || "-1");
        let value: string | undefined;
        if (step.kind === "assign") variables[step.name] = value = read(`${i}.value`);
        const body = read(`${i}.out`);
        return {
          step,
          exitCode,
          stderr: read(`${i}.err`) + (i === steps.length - 1 ? stderr : ""),
          value,
          answer: statuses.length
            ? { status: statuses.at(-1)!, headers: head, body, line: step.line, text: step.text }
            : undefined,
        };
      }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The variables a command uses ($NAME, ${NAME}), leaving out the shell's own. */
export function variablesUsed(text: string): string[] {
  const outsideSingleQuotes = text.replace(/'[^']*'/g, "");
  return [...new Set([...outsideSingleQuotes.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g)].map((m) => m[1]!))].filter(
    (name) => !["HOME", "PATH", "PWD", "USER"].includes(name),
  );
}

/** The operations of a GraphQL block, each as a document of its own (with the block's fragments). */
export function graphqlOperations(block: Block): { name: string; document: string; node: OperationDefinitionNode }[] {
  const document: DocumentNode = parse(block.text);
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((node, i) => ({
      name: node.name?.value ?? `operation ${i + 1}`,
      node,
      document: print({ kind: Kind.DOCUMENT, definitions: [node, ...fragments] }),
    }));
}

/** The same document printed the one way graphql-js prints it (for comparing documents). */
export const normalGraphql = (text: string) => print(parse(text));

/**
 * What makes an answer not count as one: errors, a null where a result should be, an empty list
 * of results (`nodes`, `edges`, a top-level array) or a total of 0.
 */
export function emptiness(value: unknown): string[] {
  const problems: string[] = [];
  if (value === null || value === undefined) return ["the answer is empty"];
  if (Array.isArray(value)) return value.length ? [] : ["the answer is an empty list"];
  if (typeof value !== "object") return [];
  const answer = value as Record<string, unknown>;
  if (Object.keys(answer).length === 0) return ["the answer is an empty object"];
  if (answer.errors) problems.push(`errors: ${JSON.stringify(answer.errors).slice(0, 300)}`);
  if (answer.error) problems.push(`error: ${JSON.stringify(answer.error).slice(0, 300)}`);
  if ("data" in answer) {
    if (!answer.data) return [...problems, "data is null"];
    for (const [field, result] of Object.entries(answer.data as object))
      if (result === null) problems.push(`${field} is null`);
  }
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}[${i}]`));
    if (!node || typeof node !== "object") return;
    for (const [key, child] of Object.entries(node)) {
      if ((key === "nodes" || key === "edges") && Array.isArray(child) && child.length === 0)
        problems.push(`${at}.${key} is empty`);
      if (key === "totalCount" && child === 0) problems.push(`${at}.totalCount is 0`);
      walk(child, `${at}.${key}`);
    }
  };
  walk(answer, "answer");
  return problems;
}

/** The titles a search answered: a REST array's items, or the first root field's nodes. */
export function titlesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => (item as { title: string }).title);
  const data = (value as { data?: Record<string, { nodes?: { title: string }[] }> }).data ?? {};
  return Object.values(data)[0]?.nodes?.map((n) => n.title) ?? [];
}

export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

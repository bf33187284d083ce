// What a bench run must undo on its way out (servers to stop, databases to drop), also when it is
// interrupted (Ctrl-C, SIGTERM): pushed as they are made, undone last first.
export function cleanupsOnExit(log: (text: string) => void, what: string) {
  const cleanups: (() => Promise<void>)[] = [];
  async function cleanUp() {
    while (cleanups.length) await cleanups.pop()!().catch((error) => log(`cleanup failed: ${error}`));
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`\n${signal}: ${what}`);
      void cleanUp().then(() => process.exit(130));
    });
  }
  return { cleanups, cleanUp };
}

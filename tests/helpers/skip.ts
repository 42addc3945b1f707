/**
 * How a test that cannot run here says so: `ignore: !!why` and this tail on its name, so the run
 * reports it as ignored with the reason instead of a pass that checked nothing.
 */
export function skipNote(why: string | undefined): string {
  return why ? ` (skipped: ${why})` : "";
}

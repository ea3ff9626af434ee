/**
 * The demo's live progress: a listr2 task list — spinners and a live status line per step on a
 * terminal, plain `[STARTED]` / `[OUTPUT]` / `[COMPLETED]` lines when stdout is not a TTY (logs, CI,
 * tests). Steps run in order; a step that throws fails the list and the error reaches the caller.
 */
import { Listr } from 'listr2';

export interface DemoStep {
  title: string;
  /** `status` replaces the step's live line; the returned string, if any, becomes its final title. */
  run(status: (line: string) => void): Promise<string | undefined>;
}

export async function runSteps(steps: readonly DemoStep[]): Promise<void> {
  const list = new Listr(
    steps.map((step) => ({
      title: step.title,
      task: async (_ctx: unknown, task: { output: string; title: string }) => {
        const done = await step.run((line) => {
          task.output = line;
        });
        if (done) task.title = done;
      },
      // On a terminal the last status line stays under a finished step, so the run reads as a log.
      rendererOptions: { persistentOutput: false, outputBar: 1 },
    })),
    {
      concurrent: false,
      exitOnError: true,
      renderer: 'default',
      fallbackRenderer: 'verbose',
      fallbackRendererOptions: { logTitleChange: true },
    },
  );
  await list.run();
}

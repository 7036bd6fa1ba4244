// Apart from runs.ts, so the history view can watch run folders without loading the model at activation.
export const RUNS_DIR = '.nodeflame';

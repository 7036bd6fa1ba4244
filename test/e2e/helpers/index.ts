// The end-to-end toolkit: a real VS Code (code-server) in Debian Chromium, driven by playwright-core.
export { startVSCode, withVSCode, VSCode, type StartOptions, type LogFile } from './vscode';
export type { ActiveEditor, RunningExtension } from './workbench';
export { repoRoot, artifactsRoot, extensionId, defaultVsix } from './paths';
export { eventually } from './poll';
export { dragOnGraph } from './timeline';
export { chartView, describeView, expectHotPathVisible, type ChartView, type HotFrames } from './flameBoxes';

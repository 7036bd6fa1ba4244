// Browser side of the flame graph viewer; filled in by the webview work.
export {};

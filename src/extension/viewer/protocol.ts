// The viewer protocol lives in core, so the offline HTML export can answer the webview too.
export * from '../../core/viewer/protocol';

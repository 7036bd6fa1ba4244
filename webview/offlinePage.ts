// The offline HTML export's script (dist/webview-offline.js): the page answers its own messages (offline.ts
// installs that host before the viewer asks for one), then the same viewer as in VS Code. Only this bundle
// carries the model; the in-editor webview.js never does.
import './offline';
import './main';

// The strings live in core: the offline HTML export embeds them too.
export { webviewStrings } from '../../core/viewer/strings';

// The sample-type picker of a pprof with several types (cpu and wall, alloc and inuse bytes and objects):
// the host reads the file again by the chosen type and loads the page afresh.
import type { ProfileInfo, WebviewMessage } from '../src/core/viewer/protocol';

/** A labelled drop-down of the profile's sample types, or undefined when it has one or none. */
export function sampleTypePicker(info: ProfileInfo | undefined, label: string, post: (m: WebviewMessage) => void): HTMLElement | undefined {
  const types = info?.sampleTypes ?? [];
  if (types.length < 2) return undefined;
  const picker = document.createElement('vscode-single-select') as unknown as HTMLElement & { value: string };
  picker.classList.add('sample-type');
  picker.setAttribute('aria-label', label);
  picker.setAttribute('label', label);
  picker.append(
    ...types.map((t) => {
      const option = document.createElement('vscode-option');
      option.setAttribute('value', t);
      option.toggleAttribute('selected', t === info?.sampleType);
      option.textContent = t;
      return option;
    }),
  );
  picker.addEventListener('change', () => {
    if (picker.value !== info?.sampleType) post({ type: 'sampleType', sampleType: picker.value });
  });
  const wrap = document.createElement('label');
  wrap.className = 'inline sample-type-label';
  wrap.append(label, picker);
  return wrap;
}

import * as vscode from 'vscode';
import {
  canSignalInspector,
  connectAddress,
  formatAddress,
  inspectorOfProcess,
  listNodeProcesses,
  parseAddress,
  probeLocalInspectors,
  targetsAt,
  type AttachTarget,
  type InspectorTarget,
  type NodeProcess,
} from '../../launch/inspector';

export type { AttachTarget };

type Item = vscode.QuickPickItem & { run?: () => Promise<AttachTarget | undefined> };

const shorten = (s: string, n = 160) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** One target from an address: the only one, or the user's choice when the inspector lists several. */
export async function targetAt(address: string): Promise<AttachTarget | undefined> {
  const targets = await targetsAt(address);
  if (targets.length === 1) return targets[0];
  const picked = await vscode.window.showQuickPick(
    targets.map((t) => ({ label: t.title || t.id, description: t.url, target: t })),
    { title: vscode.l10n.t('Several targets on {0}', address), placeHolder: vscode.l10n.t('Pick the one to profile') },
  );
  return picked?.target;
}

async function askAddress(initial?: string): Promise<AttachTarget | undefined> {
  const address = await vscode.window.showInputBox({
    title: vscode.l10n.t('Profile Running Process: inspector address'),
    prompt: vscode.l10n.t("host:port of a Node.js inspector, e.g. 127.0.0.1:9229 or a container's published port"),
    placeHolder: '127.0.0.1:9229',
    value: initial,
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        parseAddress(v);
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  return address ? targetAt(address) : undefined;
}

function fromProcess(p: NodeProcess, endpoints: InspectorTarget[]): Promise<AttachTarget | undefined> {
  return inspectorOfProcess(p, {
    endpoints,
    confirm: async (p) => {
      const enable = vscode.l10n.t('Enable Inspector');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('Enable the inspector of process {0}?', String(p.pid)),
        {
          modal: true,
          detail: vscode.l10n.t(
            '{0}\n\nNode Flame sends it SIGUSR1: the process starts listening for debuggers on 127.0.0.1 (port 9229 unless it was started with --inspect-port) until it exits. Anyone on this machine can then connect to that port.',
            shorten(p.command, 300),
          ),
        },
        enable,
      );
      return answer === enable;
    },
    enabling: (p, work) =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Enabling the inspector of process {0}…', String(p.pid)) },
        work,
      ),
  });
}

/**
 * The target picker: local Node processes, inspectors listening on 127.0.0.1:9229–9239, and an
 * address the user types (typing `host:port` into the filter offers it directly).
 */
export async function pickAttachTarget(): Promise<AttachTarget | undefined> {
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = vscode.l10n.t('Profile Running Process');
  qp.placeholder = vscode.l10n.t('Pick a Node.js process or inspector, or type host:port');
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  const enterItem: Item = {
    label: `$(edit) ${vscode.l10n.t('Enter address…')}`,
    detail: vscode.l10n.t('host:port of an inspector, e.g. a container started with --inspect=0.0.0.0:9229'),
    alwaysShow: true,
    run: () => askAddress(),
  };
  let found: Item[] = [];
  const typed = (): Item[] => {
    try {
      const v = qp.value.trim();
      if (!/[:\d]/.test(v)) return [];
      const hp = parseAddress(v);
      const address = formatAddress(hp);
      return [{ label: `$(plug) ${vscode.l10n.t('Connect to {0}', address)}`, alwaysShow: true, run: () => targetAt(address) }];
    } catch {
      return [];
    }
  };
  const refresh = () => (qp.items = [...typed(), enterItem, ...found]);
  refresh();
  qp.onDidChangeValue(refresh);

  void (async () => {
    const [endpoints, procs] = await Promise.all([
      probeLocalInspectors().catch(() => []),
      listNodeProcesses().catch(() => [] as NodeProcess[]),
    ]);
    const owned = new Set<string>();
    const procItems: Item[] = procs.map((p) => {
      const ports = endpoints.filter((t) => p.listening?.includes(Number(t.address.split(':').pop())));
      for (const t of ports) owned.add(t.address);
      return {
        label: `$(server-process) ${p.name} ${p.pid}`,
        description: ports.length
          ? vscode.l10n.t('inspector on {0}', ports[0].address)
          : p.inspector?.on && p.inspector.address.port
            ? vscode.l10n.t('inspector on {0}', formatAddress(connectAddress(p.inspector.address)))
            : p.inspectFlag
              ? p.inspectFlag
              : canSignalInspector
                ? vscode.l10n.t('inspector off: will ask to enable it')
                : '',
        detail: shorten(p.command),
        run: () => fromProcess(p, endpoints),
      };
    });
    const endpointItems: Item[] = endpoints
      .filter((t) => !owned.has(t.address))
      .map((t) => ({ label: `$(debug) ${t.title || t.id}`, description: t.address, detail: t.url, run: async () => t }));
    found = [];
    if (endpointItems.length)
      found.push({ label: vscode.l10n.t('Inspector endpoints'), kind: vscode.QuickPickItemKind.Separator }, ...endpointItems);
    if (procItems.length)
      found.push({ label: vscode.l10n.t('Local Node.js processes'), kind: vscode.QuickPickItemKind.Separator }, ...procItems);
    qp.busy = false;
    refresh();
  })();

  const chosen = await new Promise<Item | undefined>((resolve) => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0]));
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  return chosen?.run?.();
}

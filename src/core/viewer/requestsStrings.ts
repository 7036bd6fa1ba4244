import * as l10n from '@vscode/l10n';

/** The Requests tab's text. */
export function requestsStrings(): Record<string, string> {
  const t = l10n.t;
  return {
    tabRequests: t('Requests'),
    rqLoading: t('Reading the requests…'),
    rqNone: t('No HTTP request was recorded in this range and these processes.'),
    rqRoute: t('Route'),
    rqCount: t('Requests'),
    rqCpu: t('CPU per request'),
    rqShare: t('Share of samples'),
    rqPick: t('Show only the samples of {0}'),
    rqAll: t('All routes'),
    rqHint: t(
      'Tick routes to see only their samples in the flame graph, tables, CodeLens and heat. "(no request)" holds start-up, timers and idle time; its CPU column is its total.',
    ),
    rqLateTicks: t(
      "A V8 tick log stamps each tick when V8's profiler thread writes it, not when it was sampled: on a busy machine a short request can hold ticks of the one before it. cpu-prof and perf runs stamp samples when they are taken.",
    ),
    rqSlowest: t('Slowest requests'),
    rqStatus: t('Status'),
    rqLatency: t('Latency'),
    rqAt: t('Started at'),
    rqSpanHint: t("Select this request's time span on the Timeline"),
    rqTotals: t('{0} requests, p50 {1} ms, p99 {2} ms'),
    rqCountAborted: t('{0} ({1} aborted)'),
    rqAbortedHint: t('The client closed the connection before the response ended: latency is the time until then.'),
    rqAborted: t('aborted'),
  };
}

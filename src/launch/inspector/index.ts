export { parseAddress, formatAddress, DEFAULT_INSPECTOR_PORT, type HostPort } from './address';
export { InspectorError, type InspectorErrorCode } from './errors';
export { listTargets, probeLocalInspectors, nodeVersionOf, type InspectorTarget } from './endpoints';
export { listNodeProcesses, canSignalInspector, type NodeProcess } from './processes';
export { enableInspector, existingInspector } from './enable';
export { AttachSession, type AttachOptions, type AttachResult } from './session';
export { mergeCpuProfiles, sampleCount, type CpuProfile, type CpuProfileNode } from './cpuprofile';
export { makeRunDir, runStamp, saveAttachRun, type StoppedBy, type SavedAttachRun } from './runFolder';

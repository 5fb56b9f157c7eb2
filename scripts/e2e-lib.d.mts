// Types of scripts/e2e-lib.mjs for the TypeScript end-to-end test.
export declare const root: string;
export declare const CHROMIUM_ARGS: string[];
export declare const FAST_JVM: string[];
export declare const USER_SETTINGS: Record<string, unknown>;
export declare function chromiumPath(): string | undefined;
export declare function findCodeServer(o?: { install?: boolean }): { bin?: string; reason?: string };
export declare function packageVsix(outFile: string, o?: { stage?: string }): Promise<string>;
export declare function installExtension(bin: string, vsix: string, extensionsDir: string, configFile: string): void;
export declare function sampleCommand(main: string): string[];
export declare function prepareWorkspace(o: {
  dir: string;
  sample?: string;
  runs?: number;
  jobs?: number;
  noise?: number;
  include?: string[];
  copyTraces?: string;
  recordSettings?: Record<string, unknown>;
  log?: (m: string) => void;
}): { dir: string; main: string; pkg: string; runs: number; failed: number; passed: number };
export interface CodeServer {
  url: string;
  folderUrl: string;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
  output(): string;
}
export declare function startCodeServer(o: {
  bin: string;
  folder: string;
  dataDir: string;
  extensionsDir: string;
  configFile: string;
  logFile: string;
  port?: number;
  userSettings?: Record<string, unknown>;
  timeoutMs?: number;
}): Promise<CodeServer>;

// `npm run demo -- --open` (called by scripts/demo.mjs after recording): opens the recorded sample
// in a real VS Code in the browser. Packages the extension, installs it into code-server (installing
// code-server first when needed), prepares .braid/demo/workspace (the sample's sources, its classes
// in out/ and the demo's traces), starts code-server on 127.0.0.1 without authentication and prints
// the URL. Runs until Ctrl-C. See docs/e2e.md.
//
//   node scripts/open-demo.mjs --sample vectorcopy.VectorCopy --traces .braid/demo/traces [--port 8080]
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findCodeServer, installExtension, packageVsix, prepareWorkspace, root, sampleCommand, startCodeServer, USER_SETTINGS } from './e2e-lib.mjs';

export async function openDemo({ sample = 'vectorcopy.VectorCopy', traces, port = 0, include } = {}) {
  const demoDir = path.join(root, '.braid', 'demo');
  mkdirSync(demoDir, { recursive: true });
  const found = findCodeServer({ install: true });
  if (!found.bin) throw new Error(`${found.reason}\nInstall it with: bash ../shared/tools/install-code-server.sh (or set BRAID_CODE_SERVER to a code-server launcher)`);
  console.log('\n== Opening the result in VS Code (code-server) ==');
  const vsix = await packageVsix(path.join(demoDir, 'braid.vsix'));
  const configFile = path.join(demoDir, 'code-server.yaml');
  const extensionsDir = path.join(demoDir, 'vscode-extensions');
  installExtension(found.bin, vsix, extensionsDir, configFile);
  console.log(`installed ${path.relative(root, vsix)} into ${path.relative(root, extensionsDir)}`);
  const ws = prepareWorkspace({
    dir: path.join(demoDir, 'workspace'),
    sample,
    include,
    // Record Runs then records the sample without asking (the command printed below)
    recordSettings: { 'braid.record.command': sampleCommand(sample).join(' ') },
    ...(traces && existsSync(traces) ? { copyTraces: traces } : { runs: 60 }),
    log: (m) => console.log(m),
  });
  console.log(`workspace ${path.relative(root, ws.dir)}: ${ws.runs} runs (${ws.failed} failed)`);
  const server = await startCodeServer({
    bin: found.bin,
    folder: ws.dir,
    dataDir: path.join(demoDir, 'vscode-data'),
    extensionsDir,
    configFile,
    logFile: path.join(demoDir, 'code-server.log'),
    port,
    userSettings: { ...USER_SETTINGS, 'security.workspace.trust.startupPrompt': 'once' },
  });
  console.log(`
Braid in VS Code: ${server.folderUrl}

  Open it in a browser (code-server listens on 127.0.0.1 only, without a password).
  Trust the folder to record more runs: "Braid: Record Runs" with the command
    ${sampleCommand(sample).join(' ')}
  code-server log: ${path.relative(root, server.logFile)}
  Ctrl-C stops code-server.`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping code-server…');
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const k = args.indexOf(name);
    return k >= 0 && args[k + 1] ? args[k + 1] : fallback;
  };
  const traces = option('--traces', undefined);
  openDemo({ sample: option('--sample', 'vectorcopy.VectorCopy'), traces: traces && path.resolve(traces), port: Number(option('--port', '0')) }).catch((e) => {
    console.error(`demo --open: ${e.message}`);
    process.exit(1);
  });
}


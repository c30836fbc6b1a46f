// Finding the compactd binary: the compactd.path setting, else the one bundled in the VSIX
// for this platform, else PATH.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { EditorInfo } from './wire';

export interface ServerBinary {
  path: string;
  from: 'setting' | 'bundled' | 'PATH';
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Where the build script puts the binary inside the extension: bin/<platform>-<arch>/. */
export function bundledPath(extensionPath: string, platform = process.platform, arch = process.arch): string {
  return path.join(extensionPath, 'bin', `${platform}-${arch}`, platform === 'win32' ? 'compactd.exe' : 'compactd');
}

export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', ''] : [''];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (executable(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * findServer resolves the binary, or explains what was tried in one sentence (thrown).
 * A relative setting is taken from the first workspace folder.
 */
export function findServer(setting: string, extensionPath: string, workspaceFolder?: string): ServerBinary {
  if (setting) {
    const p = path.isAbsolute(setting) || !workspaceFolder ? setting : path.join(workspaceFolder, setting);
    if (executable(p)) return { path: p, from: 'setting' };
    throw new Error(`compactd.path is set to "${setting}", but no executable file is there.`);
  }
  const bundled = bundledPath(extensionPath);
  if (executable(bundled)) return { path: bundled, from: 'bundled' };
  const onPath = findOnPath('compactd');
  if (onPath) return { path: onPath, from: 'PATH' };
  throw new Error(
    `No compactd binary found: this extension bundles none for ${process.platform}-${process.arch} and there is none on PATH. Install compactd or set "compactd.path".`,
  );
}

/**
 * What the server owns and the editor needs before it starts it: the transcript file patterns
 * (doublestar globs), the recall-handle syntax, the agents a conversation continues in and the
 * agents' watch switches. `compactd editor-info` prints it; the server advertises the same in
 * initialize's capabilities.experimental.compactd. Its type is wire.ts's, generated from the Go
 * type; a field an older binary lacks is absent.
 */
export type { EditorInfo };

/** editorInfo asks the binary for its EditorInfo; it rejects with one sentence. */
export function editorInfo(binary: string): Promise<EditorInfo> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['editor-info'], { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${binary} editor-info failed (${stderr.trim() || err.message}): this compactd is older than the extension`));
        return;
      }
      try {
        const info = JSON.parse(stdout) as EditorInfo;
        if (!Array.isArray(info.documentPatterns) || typeof info.recallHandle !== 'string' || typeof info.recallMark !== 'string') {
          throw new Error('fields missing');
        }
        resolve(info);
      } catch (e) {
        reject(new Error(`${binary} editor-info printed what the extension cannot read (${e instanceof Error ? e.message : String(e)})`));
      }
    });
  });
}

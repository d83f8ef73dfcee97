// Scratch folders for the node tests (wasm and browser suites alike): one
// place that makes a folder in the system's temporary directory and removes
// it, even when an assertion fails first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after} from 'node:test';

// A new folder named PREFIX plus random letters, removed after test `t` ends,
// or after the file's last test when no test is given (call it at the top
// level of the file then, not inside a hook).
export function scratchDir(prefix, t = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => fs.rmSync(dir, {recursive: true, force: true});
  if (t) {
    t.after(remove);
  } else {
    after(remove);
  }
  return dir;
}

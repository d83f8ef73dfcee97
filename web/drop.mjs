// The page-wide drop zone: a file dropped anywhere on the page is recognised
// by its content (sniff.mjs) and opened in its tab with that tab's own loader
// (its file input's change handler, or the lab module's openFile export when
// it has no input). An overlay shows while a file is dragged over the page;
// every tab says that files can be dropped; a file no tab reads gets one line.
// Installed once by app.mjs; the labs install no drop handlers of their own.
import {KINDS, KNOWN_TEXT, sniffFile} from './sniff.mjs';

const TAB_NAMES = {
  sharding: 'Sharding',
  pipeline: 'Pipeline',
  teach: 'Teach',
  plan: 'Plan'
};

function hasFiles(event) {
  return event.dataTransfer && [...event.dataTransfer.types].includes('Files');
}

/** Hands `file` to the lab's loader: its file input, or its module's openFile. */
async function deliver(opened, kind, file) {
  const {module, section} = opened;
  const {input} = KINDS[kind];
  const field = input && section.querySelector(`#${input}`);
  if (field) {
    const transfer = new DataTransfer();
    transfer.items.add(file);
    field.files = transfer.files;
    field.dispatchEvent(new Event('change', {bubbles: true}));
    return;
  }
  if (typeof module.openFile !== 'function') {
    throw new Error(`the ${kind} loader of the ${opened.lab} tab is missing`);
  }
  await module.openFile(file, kind);
}

/**
 * Installs the drop zone. shell.open(lab) shows a tab and resolves, once it
 * is mounted, to {lab, module, section}.
 */
export function installDropZone(shell) {
  const overlay = document.getElementById('drop-overlay');
  const message = document.getElementById('drop-message');
  const messageText = document.getElementById('drop-message-text');
  let depth = 0;  // dragenter/dragleave pairs: children fire them too

  const say = (text, bad) => {
    messageText.textContent = text;
    message.classList.toggle('bad', bad);
    message.hidden = false;
  };
  document.getElementById('drop-message-close').addEventListener('click', () => {
    message.hidden = true;
  });

  // Capture on window: runs before anything in the page and stops there.
  window.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (++depth === 1) overlay.hidden = false;
  }, true);
  window.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    if (--depth <= 0) {
      depth = 0;
      overlay.hidden = true;
    }
  }, true);
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  }, true);
  window.addEventListener('drop', async (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.stopPropagation();
    depth = 0;
    overlay.hidden = true;
    const files = [...e.dataTransfer.files];
    if (!files.length) return;
    const file = files[0];
    const sniffed = await sniffFile(file);
    if (sniffed.error) return say(sniffed.error, true);
    const {lab, label} = KINDS[sniffed.kind];
    const more = files.length > 1 ? ` (the first of ${files.length} files)` : '';
    say(`Opened ${file.name}${more} as ${label} in the ${TAB_NAMES[lab]} tab.`, false);
    try {
      await deliver(await shell.open(lab), sniffed.kind, sniffed.file);
    } catch (error) {
      say(`${file.name}: the ${TAB_NAMES[lab]} tab could not open it: ${error.message}`, true);
    }
  }, true);
}

/** The line each tab shows about dropping files. */
export function dropHint(lab) {
  const hint = document.createElement('p');
  hint.className = 'drop-hint';
  hint.dataset.testid = `drop-hint-${lab}`;
  hint.textContent = `Drop a file anywhere on the page: ${KNOWN_TEXT}. ` +
      'ShardLab reads it here, in this browser, and opens it in the right tab.';
  return hint;
}

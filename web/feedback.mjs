// Feedback next to the control that caused it, on every tab (issue 26): a
// small polite live region right after the control ("Copied", a refusal, a
// failed export), a disabled button's reason (title and aria-describedby),
// copying with a fallback, and click handlers whose errors land beside their
// button instead of the page's top. Used by web/teach/lab.mjs,
// web/pipeline/exports.mjs and web/sharding/lab.mjs; checked by
// tests/browser/feedback.test.mjs.

// How long a confirmation stays; a refusal stays until the control speaks again.
export const CLEAR_AFTER_MS = 4000;

// The few rules the regions need, in one place (they belong to this module,
// not to a lab's stylesheet); colours follow the page's variables, so a dark
// palette applies to them too.
const STYLE = `
.feedback { margin-left: 6px; font-size: 0.85em; color: var(--muted, #555); }
.feedback:empty { display: none; }
.feedback[data-kind=ok] { color: #15803d; }
.feedback[data-kind=error] { color: var(--bad, #b91c1c); font-weight: 600; }
.feedback-why { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
[aria-invalid=true] { border-color: var(--bad, #b91c1c); }
`;

function ensureStyle(doc) {
  if (doc.querySelector('style[data-feedback]')) return;
  const style = doc.createElement('style');
  style.dataset.feedback = '';
  style.textContent = STYLE;
  doc.head.append(style);
}

// The element the region follows: the control, or the label that wraps it
// (a region inside a <label> would become part of the control's name).
function anchorOf(control) {
  const label = control.closest('label');
  return label && label.contains(control) ? label : control;
}

function idOf(control) {
  if (!control.id) control.id = `fb-${Math.random().toString(36).slice(2, 10)}`;
  return control.id;
}

function describe(control, id, on) {
  const ids =
      new Set((control.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean));
  if (on)
    ids.add(id);
  else
    ids.delete(id);
  if (ids.size)
    control.setAttribute('aria-describedby', [...ids].join(' '));
  else
    control.removeAttribute('aria-describedby');
}

/**
 * The control's live region (created on first use, right after the control
 * or its label): <span class="feedback" role="status" aria-live="polite">,
 * data-testid "<control's testid or id>-feedback". Call it when wiring a
 * control, so the region exists before its first message (screen readers
 * announce changes of regions they already know).
 */
export function feedbackRegion(control) {
  const doc = control.ownerDocument;
  const id = `${idOf(control)}-feedback`;
  let region = doc.getElementById(id);
  if (region) return region;
  ensureStyle(doc);
  region = doc.createElement('span');
  region.id = id;
  region.className = 'feedback';
  region.setAttribute('role', 'status');
  region.setAttribute('aria-live', 'polite');
  region.dataset.testid = `${control.dataset.testid || control.id}-feedback`;
  anchorOf(control).after(region);
  describe(control, id, true);
  return region;
}

const timers = new WeakMap();

/**
 * Shows text next to control. kind: 'ok' (a confirmation, cleared after
 * CLEAR_AFTER_MS), 'info' (cleared likewise) or 'error' (a refusal: stays
 * until the next message or clearNear, and marks an input aria-invalid).
 */
export function showNear(control, text, kind = 'info', {clearAfterMs} = {}) {
  const region = feedbackRegion(control);
  clearTimeout(timers.get(region));
  region.dataset.kind = kind;
  region.textContent = text;
  if (control.matches('input, textarea, select')) {
    if (kind === 'error')
      control.setAttribute('aria-invalid', 'true');
    else
      control.removeAttribute('aria-invalid');
  }
  const after = clearAfterMs ?? (kind === 'error' ? 0 : CLEAR_AFTER_MS);
  if (after > 0) timers.set(region, setTimeout(() => clearNear(control), after));
  return region;
}

/** Empties the control's region and drops its invalid mark. */
export function clearNear(control) {
  const region = control.ownerDocument.getElementById(`${idOf(control)}-feedback`);
  if (region) {
    clearTimeout(timers.get(region));
    region.textContent = '';
    delete region.dataset.kind;
  }
  control.removeAttribute('aria-invalid');
}

/**
 * Enables a button, or disables it with its reason: the title (a tooltip)
 * and a visually hidden text that aria-describedby points at, so that a
 * screen reader says why too. reason: '' or null to enable.
 */
export function setReason(button, reason) {
  const doc = button.ownerDocument;
  const id = `${idOf(button)}-why`;
  let why = doc.getElementById(id);
  if (!reason) {
    button.disabled = false;
    if (why) {
      why.remove();
      describe(button, id, false);
    }
    if (button.dataset.reasonTitle !== undefined) {
      button.title = button.dataset.reasonTitle;
      delete button.dataset.reasonTitle;
    }
    return;
  }
  ensureStyle(doc);
  if (!why) {
    why = doc.createElement('span');
    why.id = id;
    why.className = 'feedback-why';
    why.dataset.testid = `${button.dataset.testid || button.id}-why`;
    // After the live region, which stays right beside the button.
    (doc.getElementById(`${id.slice(0, -4)}-feedback`) || anchorOf(button)).after(why);
  }
  why.textContent = reason;
  describe(button, id, true);
  if (button.dataset.reasonTitle === undefined) button.dataset.reasonTitle = button.title;
  button.title = reason;
  button.disabled = true;
}

// document.execCommand('copy') from an off-screen text area: for pages
// without the asynchronous clipboard (plain http on another host, older
// browsers, a refused permission).
function copyBySelection(doc, text) {
  const area = doc.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.left = '-10000px';
  doc.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = doc.execCommand('copy');
  } catch (error) {
    copied = false;
  }
  area.remove();
  return copied;
}

// Selects the element's text, so that the user can copy it by hand.
function selectText(element) {
  if (element.matches('textarea, input')) {
    element.focus();
    element.select();
    return;
  }
  const range = element.ownerDocument.createRange();
  range.selectNodeContents(element);
  const selection = element.ownerDocument.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

/**
 * Copies text to the clipboard and says so next to the button: "Copied",
 * or, when neither the clipboard nor execCommand works, selects `source`
 * (the element showing the text) and asks for Ctrl+C. Resolves to true when
 * copied.
 */
export async function copyText(button, text, {source = null, what = ''} = {}) {
  const doc = button.ownerDocument;
  const done = what ? `Copied ${what}` : 'Copied';
  const clipboard = doc.defaultView.navigator.clipboard;
  if (clipboard && clipboard.writeText) {
    try {
      await clipboard.writeText(text);
      showNear(button, done, 'ok');
      return true;
    } catch (error) {
      // No permission or no focus: fall back to a selection.
    }
  }
  if (copyBySelection(doc, text)) {
    showNear(button, done, 'ok');
    return true;
  }
  if (source) {
    selectText(source);
    showNear(button, 'Selected: press Ctrl+C (⌘C) to copy', 'info');
  } else {
    showNear(button, 'The browser refused to copy', 'error');
  }
  return false;
}

/**
 * A click handler that runs action (sync or async) and shows its error
 * next to the button, and `done` (a text, or a function of the action's
 * value returning one) when it succeeds.
 */
export function nearby(button, action, done = '') {
  return async (event) => {
    try {
      const value = await action(event);
      const text = typeof done === 'function' ? done(value) : done;
      if (text)
        showNear(button, text, 'ok');
      else
        clearNear(button);
    } catch (error) {
      showNear(button, error.message || String(error), 'error');
    }
  };
}

// The page's option controls, built from the option schema the CLI and the
// engines read (core/options_table.h: [{name, kind, default, min, max, flag,
// help}], from the module's optionsSchema() and pipelinePlanOptionsSchema()),
// so the page's ranges never disagree with the table. A control is an input
// marked data-option="NAME"; applySchema() gives it its type, range, step,
// help and default, and readOption() reads it back within the row's range.
// Pure functions over DOM-like objects: node-tested (tests/web/options_form.test.mjs).

/** The schema's row of an option; throws when the schema has none. */
export function rowOf(schema, name) {
  const row = schema.find((r) => r.name === name);
  if (!row) throw new Error(`the option schema has no '${name}'`);
  return row;
}

/** Makes an input the control of its row: number, range, step, help and default. */
export function applyRow(input, row) {
  input.type = 'number';
  input.min = String(row.min);
  input.max = String(row.max);
  input.step = row.kind === 'int' ? '1' : 'any';
  input.title = `${row.help} (${row.flag}, ${row.min} to ${row.max})`;
  input.dataset.option = row.name;
  if (input.value === '' || input.value === undefined) input.value = String(row.default);
}

/** Every input[data-option] under root, from the schema. */
export function applySchema(root, schema) {
  for (const input of root.querySelectorAll('input[data-option]')) {
    applyRow(input, rowOf(schema, input.dataset.option));
  }
}

/** The value of text for a row, or null when it is not a value the table accepts. */
export function parseOption(text, row) {
  const trimmed = String(text ?? '').trim();
  if (trimmed === '') return null;
  const v = Number(trimmed);
  if (!Number.isFinite(v) || v < row.min || v > row.max) return null;
  if (row.kind === 'int' && !Number.isInteger(v)) return null;
  return v;
}

/** An input's value within its row's range, else the fallback (the row's default). */
export function readOption(input, row, fallback = row.default) {
  const v = parseOption(input.value, row);
  return v === null ? fallback : v;
}

/** A value clamped into the row's range (integers rounded), for values from links. */
export function clampOption(value, row) {
  let v = Number(value);
  if (!Number.isFinite(v)) return row.default;
  if (row.kind === 'int') v = Math.round(v);
  return Math.min(row.max, Math.max(row.min, v));
}

// Edits of a teaching model's text behind the page's controls (batch size,
// mesh shape, device memory): parse, change the one field, write it back in
// the examples' layout (one line per tensor and per op). Pure module: lab.mjs
// uses it and tests/web/teach_model_edit.test.mjs checks it. The model's batch
// letter and the tensors that carry it come from teachGenerate's "model".
import {grouped} from '../format.mjs';

/** The model object, or throws an Error naming the JSON problem. */
export function parseModel(text) {
  const model = JSON.parse(text);
  if (!model || typeof model !== 'object' || Array.isArray(model)) {
    throw new Error('the model is not a JSON object');
  }
  return model;
}

// JSON on one line with a space after ',' and ':' ({"shape": [8, 4]}).
function inline(value) {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${
        Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

const KEY_ORDER = [
  'name', 'description', 'mesh', 'training', 'dtype_bytes', 'optimizer_state_bytes', 'zero',
  'cost_model', 'batch', 'tensors', 'ops'
];

/** The examples' layout: the mesh on two lines, a line per tensor and per op. */
export function formatModel(model) {
  const keys = [
    ...KEY_ORDER.filter((k) => k in model),
    ...Object.keys(model).filter((k) => !KEY_ORDER.includes(k))
  ];
  const lines = ['{'];
  keys.forEach((key, i) => {
    const comma = i < keys.length - 1 ? ',' : '';
    const value = model[key];
    if (key === 'mesh' && value && typeof value === 'object') {
      const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`);
      const half = Math.min(entries.length, 4);
      lines.push(`  "mesh": {${entries.slice(0, half).join(', ')}${
          entries.length > half ? ',' : '}' + comma}`);
      if (entries.length > half)
        lines.push(`           ${entries.slice(half).join(', ')}}${comma}`);
    } else if (key === 'tensors' && value && typeof value === 'object' && !Array.isArray(value)) {
      const names = Object.keys(value);
      const width = Math.max(...names.map((name) => JSON.stringify(name).length + 1));
      lines.push('  "tensors": {');
      names.forEach((name, j) => {
        const key = `${JSON.stringify(name)}:`.padEnd(width);
        lines.push(`    ${key} ${inline(value[name])}${j < names.length - 1 ? ',' : ''}`);
      });
      lines.push(`  }${comma}`);
    } else if (key === 'ops' && Array.isArray(value)) {
      lines.push('  "ops": [');
      value.forEach((op, j) => {
        lines.push(`    ${inline(op)}${j < value.length - 1 ? ',' : ''}`);
      });
      lines.push(`  ]${comma}`);
    } else {
      lines.push(`  ${JSON.stringify(key)}: ${inline(value)}${comma}`);
    }
  });
  lines.push('}');
  return lines.join('\n') + '\n';
}

/** Sets the size of the batch letter in every declared tensor that carries it. */
export function setBatch(model, info, size) {
  if (!Number.isInteger(size) || size < 1)
    throw new Error(`batch size ${size} is not a positive integer`);
  for (const [name, dim] of info.batch_tensors || []) {
    const tensor = model.tensors && model.tensors[name];
    if (tensor && Array.isArray(tensor.shape) && dim < tensor.shape.length)
      tensor.shape[dim] = size;
  }
  return model;
}

/**
 * A new mesh shape ([8], [2, 4], ...). Per-axis arrays keep their values
 * where the axis stays and repeat their last value for new axes; axis
 * names keep theirs and get x, y, z, w otherwise.
 */
export function setMesh(model, shape) {
  if (!Array.isArray(shape) || shape.length < 1 || shape.length > 4 ||
      !shape.every((n) => Number.isInteger(n) && n >= 1)) {
    throw new Error('a mesh shape is 1 to 4 positive integers, such as 8 or 2x4');
  }
  const mesh = model.mesh || (model.mesh = {});
  const names = ['x', 'y', 'z', 'w'];
  const resize = (values, fill) => shape.map(
      (_, i) => (Array.isArray(values) && i < values.length ? values[i] : fill(values, i)));
  mesh.shape = shape.slice();
  mesh.axes = resize(mesh.axes, (values, i) => {
    let name = names[i];
    while (Array.isArray(values) && values.includes(name)) name += '_';
    return name;
  });
  for (const key of ['bandwidth_GBps', 'latency_us']) {
    const value = mesh[key];
    if (Array.isArray(value)) mesh[key] = resize(value, (values) => values[values.length - 1]);
  }
  return model;
}

// The core's limits (core/teach/model.h kMaxMeshRank, model_reader.cpp).
export const MAX_MESH_AXES = 4;
export const MAX_MESH_DEVICES = 65536;

/**
 * "2x4", "8", "2×4", "2,4", "[2, 4]" -> [2, 4]; anything else throws an
 * Error whose message says what is wrong ("3x" has an empty second axis),
 * so the page refuses it next to the input instead of guessing.
 */
export function parseMeshShape(text) {
  const raw = String(text).trim();
  const body = raw.replace(/^\[(.*)\]$/, '$1').replace(/\s+/g, '');
  const example = 'write the devices per axis, such as 8 or 4x2';
  if (body === '') throw new Error(`the mesh is empty: ${example}`);
  const parts = body.split(/[x×,*]/i);
  if (parts.length > MAX_MESH_AXES) {
    throw new Error(`"${raw}" has ${parts.length} axes; a mesh has 1 to ${MAX_MESH_AXES}`);
  }
  const shape = parts.map((part, i) => {
    const where = parts.length > 1 ? `axis ${i + 1} of "${raw}"` : `"${raw}"`;
    if (part === '') throw new Error(`${where} has no size: ${example}`);
    if (!/^\d+$/.test(part))
      throw new Error(`${where} is "${part}", not a whole number: ${example}`);
    const n = Number(part);
    if (n < 1) throw new Error(`${where} is 0: every axis has at least 1 device`);
    return n;
  });
  const devices = shape.reduce((a, b) => a * b, 1);
  if (devices > MAX_MESH_DEVICES) {
    throw new Error(
        `"${raw}" is ${grouped(devices)} devices; a mesh has at most ` +
        `${grouped(MAX_MESH_DEVICES)}`);
  }
  return shape;
}

export function setMemory(model, gigabytes) {
  if (!(gigabytes > 0)) throw new Error(`device memory ${gigabytes} GB is not positive`);
  (model.mesh || (model.mesh = {})).device_memory_GB = gigabytes;
  return model;
}

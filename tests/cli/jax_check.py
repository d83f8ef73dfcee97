"""Checks a JAX script exported by `shardlab teach --jax` (or the page's teach tab).

Used by tests/cli/teach_jax.sh and tests/browser/teach_exports.test.mjs; not a
test itself. The machine has no JAX (nor numpy), so the script is checked in
two ways: its syntax and structure with Python's ast module (one Mesh, one
NamedSharding(mesh, P(...)) per tensor, axis names of the mesh), and by
running it against small stand-ins for jax and numpy that raise where JAX
raises (a mesh whose device array does not match its axis names, an unknown
or repeated axis in a PartitionSpec, a spec longer than the array's rank, a
dimension its shards do not divide). Prints one JSON line: {"mesh_shape",
"axes", "specs": {tensor: [entry, ...]}, "who": {tensor: comment},
"header": [comment lines], "printed": lines the script printed}.
Usage: python3 jax_check.py SCRIPT.py [DEVICES]
"""
import ast
import contextlib
import io
import json
import math
import os
import sys
import tempfile

NUMPY_STUB = '''
class ndarray:
    def __init__(self, items, shape):
        self.items, self.shape = list(items), tuple(shape)
    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        size = 1
        for n in shape:
            size *= n
        if size != len(self.items):
            raise ValueError(f'cannot reshape array of size {len(self.items)} into shape {shape}')
        return ndarray(self.items, shape)
def array(items):
    items = list(items)
    return ndarray(items, (len(items),))
'''

JAX_STUB = '''
import numpy as np
from . import numpy, sharding
class Device:
    def __init__(self, i):
        self.id = i
def devices():
    return [Device(i) for i in range(DEVICES)]
class Array:
    def __init__(self, shape, dtype, sharding):
        self.shape, self.dtype, self.sharding = tuple(shape), dtype, sharding
def jit(fn, out_shardings=None, in_shardings=None):
    def run(*args):
        value = fn(*args)
        if out_shardings is not None:
            out_shardings.check(value.shape)
        return Array(value.shape, value.dtype, out_shardings)
    return run
'''

JAX_NUMPY_STUB = '''
class dtype:
    def __init__(self, name):
        self.name = name
int8, bfloat16, float32, float64 = (dtype(n) for n in ('int8', 'bfloat16', 'float32', 'float64'))
class Zeros:
    def __init__(self, shape, dtype):
        if not isinstance(dtype, globals()['dtype']):
            raise TypeError(f'not a dtype: {dtype!r}')
        self.shape, self.dtype = tuple(shape), dtype
def zeros(shape, dtype):
    return Zeros(shape, dtype)
'''

JAX_SHARDING_STUB = '''
import numpy as np
class PartitionSpec(tuple):
    def __new__(cls, *entries):
        return super().__new__(cls, entries)
class Mesh:
    def __init__(self, devices, axis_names):
        if not isinstance(devices, np.ndarray):
            raise TypeError('Mesh takes an array of devices')
        if not isinstance(axis_names, tuple) or len(axis_names) != len(devices.shape):
            raise ValueError(f'{len(devices.shape)} mesh axes but axis names {axis_names!r}')
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f'repeated axis names {axis_names!r}')
        self.devices, self.axis_names = devices, axis_names
        self.shape = dict(zip(axis_names, devices.shape))
class NamedSharding:
    def __init__(self, mesh, spec):
        if not isinstance(mesh, Mesh) or not isinstance(spec, PartitionSpec):
            raise TypeError('NamedSharding(mesh, PartitionSpec(...))')
        used = []
        for entry in spec:
            names = () if entry is None else entry if isinstance(entry, tuple) else (entry,)
            for name in names:
                if name not in mesh.shape:
                    raise ValueError(f'{name!r} is not an axis of the mesh {mesh.axis_names}')
                if name in used:
                    raise ValueError(f'axis {name!r} used twice in {spec!r}')
                used.append(name)
        self.mesh, self.spec = mesh, spec
    def check(self, shape):
        if len(self.spec) > len(shape):
            raise ValueError(f'{self.spec!r} is longer than the rank of {shape}')
        for size, entry in zip(shape, self.spec):
            names = () if entry is None else entry if isinstance(entry, tuple) else (entry,)
            ways = 1
            for name in names:
                ways *= self.mesh.shape[name]
            if size % ways:
                raise ValueError(f'dimension {size} does not divide into {ways} shards')
'''


def literal(node):
    return ast.literal_eval(node)


def structure(tree):
    """The mesh, the specs and the shapes, read from the syntax tree."""
    imports = set()
    mesh_shape = axes = None
    specs, shapes, who = {}, {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == 'jax.sharding':
            imports |= {(a.name, a.asname) for a in node.names}
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
            if target == 'mesh':
                assert isinstance(value, ast.Call) and value.func.id == 'Mesh', 'mesh = Mesh(...)'
                reshape = value.args[0]
                assert reshape.func.attr == 'reshape', 'the devices reshaped to the mesh'
                mesh_shape = [literal(a) for a in reshape.args]
                axes = list(literal(value.args[1]))
            if target == 'shardings':
                for key, call in zip(value.keys, value.values):
                    assert call.func.id == 'NamedSharding', 'a NamedSharding per tensor'
                    assert call.args[0].id == 'mesh'
                    spec = call.args[1]
                    assert spec.func.id == 'P', 'NamedSharding(mesh, P(...))'
                    specs[literal(key)] = [literal(a) for a in spec.args]
            if target == 'shapes':
                for key, entry in zip(value.keys, value.values):
                    shapes[literal(key)] = list(literal(entry.elts[0]))
    assert {('Mesh', None), ('NamedSharding', None), ('PartitionSpec', 'P')} <= imports, imports
    assert mesh_shape and axes and len(mesh_shape) == len(axes), (mesh_shape, axes)
    assert specs and set(specs) == set(shapes), (sorted(specs), sorted(shapes))
    for name, spec in specs.items():
        assert len(spec) == len(shapes[name]), (name, spec, shapes[name])
        for entry in spec:
            for axis in ([] if entry is None else [entry] if isinstance(entry, str) else entry):
                assert axis in axes, (name, axis, axes)
    return mesh_shape, axes, specs


def comments(text):
    header, who = [], {}
    for line in text.splitlines():
        if line.startswith('#'):
            header.append(line[1:].strip())
        elif line.startswith("    '") and '#' in line:
            who[line.split("'")[1]] = line.split('#', 1)[1].strip()
    return header, who


def run(text, devices):
    """Runs the script against the stand-ins; returns what it printed."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'jax'))
        files = {
            'numpy.py': NUMPY_STUB,
            'jax/__init__.py': JAX_STUB.replace('DEVICES', str(devices)),
            'jax/numpy.py': JAX_NUMPY_STUB,
            'jax/sharding.py': JAX_SHARDING_STUB,
        }
        for name, body in files.items():
            with open(os.path.join(root, name), 'w') as f:
                f.write(body)
        sys.path.insert(0, root)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(text, 'script.py', 'exec'), {'__name__': '__main__'})
        finally:
            sys.path.remove(root)
            for name in [m for m in sys.modules if m == 'numpy' or m.split('.')[0] == 'jax']:
                del sys.modules[name]
        return out.getvalue().splitlines()


def main():
    text = open(sys.argv[1]).read()
    tree = ast.parse(text)
    mesh_shape, axes, specs = structure(tree)
    devices = int(sys.argv[2]) if len(sys.argv) > 2 else math.prod(mesh_shape)
    header, who = comments(text)
    printed = run(text, devices)
    print(json.dumps({'mesh_shape': mesh_shape, 'axes': axes, 'specs': specs, 'who': who,
                      'header': header, 'printed': printed}))


if __name__ == '__main__':
    main()

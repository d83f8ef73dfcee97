// Prepended to the wasm unit-test runner: node 20 has fetch(), and emscripten
// 3.1.6 would try to fetch() the .wasm by file path; without it, it reads the file.
var fetch = undefined;

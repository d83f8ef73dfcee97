// The classic half of the one worker shell: a lab's worker (a classic
// script, so that importScripts can load the Embind module, which is not an
// ES module) loads this file first. It installs onmessage at once, as a
// classic worker must before anything asynchronous (messages that arrive
// while modules load are kept, not lost), then imports the shell proper
// (worker_shell.mjs) and hands it the lab's spec and the kept messages.
//
//   importScripts('../worker_boot.js');
//   shardlabWorker({name: 'the planner', root: '../', scripts, modules, boot, runs, ops});
//
// A shell that cannot load answers every request with the reason.
(() => {
  const kept = [];
  self.onmessage = (event) => kept.push(event);
  self.shardlabWorker = (spec) => {
    const shell = new URL(`${spec.root || '../'}worker_shell.mjs`, self.location.href).href;
import(shell).then((module) => module.serve(self, spec, kept)).catch((error) => {const message = `${spec.name} could not start: ${(error && error.message) || error}`; const fail = (id) => self.postMessage({type : 'error', id, error : {code : 'Internal', message}}); fail(0); for (const event of kept) fail(event.data && event.data.id > 0 ? event.data.id : 0); self.onmessage = (event) => fail(event.data && event.data.id > 0 ? event.data.id : 0);});
  };
})();

// Unit tests of web/markdown.mjs's parser (the DOM part is exercised by
// tests/browser/onboarding.test.mjs): blocks, inline spans, and that every
// course hand-out parses into headings, paragraphs and lists without
// leftover Markdown syntax.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.');
const M = await import(pathToFileURL(path.join(SOURCE, 'web/markdown.mjs')).href);

test('inline spans: code, strong, emphasis, links', () => {
  assert.deepEqual(M.parseInline('a `x*y` **b** *c* _d_ [e](f.md) snake_case'), [
    {tag: '#text', text: 'a '}, {tag: 'code', text: 'x*y'}, {tag: '#text', text: ' '},
    {tag: 'strong', children: [{tag: '#text', text: 'b'}]}, {tag: '#text', text: ' '},
    {tag: 'em', children: [{tag: '#text', text: 'c'}]}, {tag: '#text', text: ' '},
    {tag: 'em', children: [{tag: '#text', text: 'd'}]}, {tag: '#text', text: ' '},
    {tag: 'a', href: 'f.md', children: [{tag: '#text', text: 'e'}]},
    {tag: '#text', text: ' snake_case'}
  ]);
});

test('blocks: headings, paragraphs joined, lists with continuations, code, tables', () => {
  const blocks = M.parseBlocks(
      '# Title\n\nOne\ntwo.\n\n- a\n  more\n- b\n\n1. x\n2. y\n\n```sh\nrun <x>\n```\n\n' +
      '| h | i |\n|---|---|\n| 1 | `2` |\n');
  assert.deepEqual(blocks.map((b) => b.tag), ['h1', 'p', 'ul', 'ol', 'pre', 'table']);
  assert.deepEqual(blocks[1].inline, [{tag: '#text', text: 'One two.'}]);
  assert.deepEqual(
      blocks[2].items, [[{tag: '#text', text: 'a more'}], [{tag: '#text', text: 'b'}]]);
  assert.equal(blocks[4].text, 'run <x>');
  assert.deepEqual(blocks[5].head, [[{tag: '#text', text: 'h'}], [{tag: '#text', text: 'i'}]]);
  assert.deepEqual(blocks[5].rows, [[[{tag: '#text', text: '1'}], [{tag: 'code', text: '2'}]]]);
});

test('every hand-out parses, with no Markdown syntax left in its text', () => {
  const dirs = ['examples/teach', 'examples/plan'];
  const texts = (nodes) => nodes.map((n) => n.text || texts(n.children || [])).join('');
  for (const dir of dirs) {
    for (const name of fs.readdirSync(path.join(SOURCE, dir)).filter((f) => f.endsWith('.md'))) {
      const blocks = M.parseBlocks(fs.readFileSync(path.join(SOURCE, dir, name), 'utf8'));
      assert.equal(blocks[0].tag, 'h1', `${dir}/${name} opens with its title`);
      for (const block of blocks) {
        const inline = block.inline || (block.items || []).flat();
        assert.doesNotMatch(texts(inline), /\*\*|^#|```/, `${dir}/${name}`);
      }
    }
  }
});

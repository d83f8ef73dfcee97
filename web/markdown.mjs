// A small Markdown renderer for the hand-outs (examples/teach/*.md,
// examples/plan/*.md) shown in the page by intro.mjs: headings, paragraphs,
// emphasis, inline code, fenced code, lists, tables and links. It builds DOM
// nodes (never innerHTML), so nothing in a hand-out can run in the page.
// Links resolve against the hand-out's own address; only http(s) and
// relative links become anchors. tests/web/markdown.test.mjs checks it.

// Inline spans: `code`, **strong**, *em* or _em_, [text](href).
const INLINE =
    /`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** Inline Markdown as an array of {tag, text|children, href} nodes (pure). */
export function parseInline(text) {
  const out = [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) out.push({tag: '#text', text: text.slice(at, m.index)});
    if (m[1] !== undefined)
      out.push({tag: 'code', text: m[1]});
    else if (m[2] !== undefined)
      out.push({tag: 'strong', children: parseInline(m[2])});
    else if (m[3] !== undefined)
      out.push({tag: 'em', children: parseInline(m[3])});
    else if (m[4] !== undefined)
      out.push({tag: 'em', children: parseInline(m[4])});
    else
      out.push({tag: 'a', href: m[6], children: parseInline(m[5])});
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({tag: '#text', text: text.slice(at)});
  return out;
}

const cells = (line) =>
    line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());

/** Block structure of a Markdown text (pure): [{tag, ...}]. */
export function parseBlocks(source) {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks = [];
  let i = 0;
  const isBlockStart = (line) => /^(#{1,6}\s|```|\s*[-*]\s|\s*\d+\.\s|\|)/.test(line);
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      ++i;
    } else if (line.startsWith('```')) {
      const code = [];
      for (++i; i < lines.length && !lines[i].startsWith('```'); ++i) code.push(lines[i]);
      ++i;
      blocks.push({tag: 'pre', text: code.join('\n')});
    } else if (/^#{1,6}\s/.test(line)) {
      const level = /^#+/.exec(line)[0].length;
      blocks.push({tag: `h${level}`, inline: parseInline(line.slice(level).trim())});
      ++i;
    } else if (/^\|/.test(line)) {
      const rows = [];
      for (; i < lines.length && /^\|/.test(lines[i]); ++i) rows.push(lines[i]);
      const body = rows.filter((r, n) => !(n === 1 && /^[\s|:-]+$/.test(r)));
      blocks.push({
        tag: 'table',
        head: cells(body[0]).map(parseInline),
        rows: body.slice(1).map((r) => cells(r).map(parseInline)),
      });
    } else if (/^\s*([-*]|\d+\.)\s/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      for (; i < lines.length && lines[i].trim(); ++i) {
        const item = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
        if (item) {
          items.push(item[2]);
        } else if (items.length) {
          items[items.length - 1] += ` ${lines[i].trim()}`;
        }
      }
      blocks.push({tag: ordered ? 'ol' : 'ul', items: items.map(parseInline)});
    } else {
      const text = [];
      for (; i < lines.length && lines[i].trim() && !isBlockStart(lines[i]); ++i) {
        text.push(lines[i].trim());
      }
      blocks.push({tag: 'p', inline: parseInline(text.join(' '))});
    }
  }
  return blocks;
}

function inlineNodes(doc, nodes, base) {
  return nodes.map((node) => {
    if (node.tag === '#text') return doc.createTextNode(node.text);
    if (node.tag === 'code') {
      const code = doc.createElement('code');
      code.textContent = node.text;
      return code;
    }
    if (node.tag === 'a') {
      let url = null;
      try {
        url = new URL(node.href, base);
      } catch (error) {
        url = null;
      }
      if (!url || !/^https?:$/.test(url.protocol)) {
        const span = doc.createElement('span');
        span.append(...inlineNodes(doc, node.children, base));
        return span;
      }
      const a = doc.createElement('a');
      a.href = url.href;
      if (url.origin !== new URL(base).origin) a.rel = 'noopener';
      a.append(...inlineNodes(doc, node.children, base));
      return a;
    }
    const el = doc.createElement(node.tag);
    el.append(...inlineNodes(doc, node.children, base));
    return el;
  });
}

/** Renders Markdown into a DocumentFragment; base: the hand-out's URL. */
export function renderMarkdown(doc, source, base) {
  const fragment = doc.createDocumentFragment();
  for (const block of parseBlocks(source)) {
    let el;
    if (block.tag === 'pre') {
      el = doc.createElement('pre');
      const code = doc.createElement('code');
      code.textContent = block.text;
      el.append(code);
    } else if (block.tag === 'table') {
      el = doc.createElement('table');
      const head = el.createTHead().insertRow();
      for (const cell of block.head) {
        const th = doc.createElement('th');
        th.append(...inlineNodes(doc, cell, base));
        head.append(th);
      }
      const body = el.createTBody();
      for (const row of block.rows) {
        const tr = body.insertRow();
        for (const cell of row) tr.insertCell().append(...inlineNodes(doc, cell, base));
      }
    } else if (block.tag === 'ul' || block.tag === 'ol') {
      el = doc.createElement(block.tag);
      for (const item of block.items) {
        const li = doc.createElement('li');
        li.append(...inlineNodes(doc, item, base));
        el.append(li);
      }
    } else {
      // Hand-out headings sit below the card's own heading levels.
      const tag = /^h\d$/.test(block.tag) ? `h${Math.min(6, Number(block.tag[1]) + 2)}` : 'p';
      el = doc.createElement(tag);
      el.append(...inlineNodes(doc, block.inline, base));
    }
    fragment.append(el);
  }
  return fragment;
}

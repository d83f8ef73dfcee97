// UTF-8 checks and message quoting for the readers (see utf8.h). The ranges
// are RFC 3629's table of well-formed byte sequences.
#include "core/utf8.h"

#include <cstdint>
#include <cstdio>

namespace shardlab::utf8 {

std::string hex_byte(unsigned char c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02x", c);
  return buffer;
}

size_t char_length(std::string_view text, size_t at, std::string* why) {
  const auto byte = [&](size_t i) -> int {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : -1;
  };
  const int c = byte(0);
  if (c < 0) return 0;
  if (c < 0x80) return 1;
  size_t length = 0;
  int lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    if (why) {
      *why = "the byte " + hex_byte(static_cast<unsigned char>(c)) +
             (c <= 0xbf                ? " (a UTF-8 continuation byte without its lead byte)"
              : c == 0xc0 || c == 0xc1 ? " (the start of an overlong UTF-8 form)"
                                       : " (no UTF-8 character starts with it)");
    }
    return 0;
  }
  for (size_t i = 1; i < length; ++i) {
    const int next = byte(i);
    const int want_lo = i == 1 ? lo : 0x80;
    const int want_hi = i == 1 ? hi : 0xbf;
    if (next >= want_lo && next <= want_hi) continue;
    if (why) {
      std::string bytes;
      for (size_t k = 0; k < i; ++k) {
        bytes += (k ? " " : "") + hex_byte(static_cast<unsigned char>(text[at + k]));
      }
      if (i == 1 && next >= 0x80 && next <= 0xbf) {
        *why = "the bytes " + bytes + " " + hex_byte(static_cast<unsigned char>(next)) +
               (c == 0xed   ? " (a UTF-16 surrogate written as UTF-8, which UTF-8 forbids)"
                : c == 0xf4 ? " (beyond U+10FFFF, the last Unicode character)"
                            : " (an overlong UTF-8 form)");
      } else if (next < 0) {
        *why = (i == 1 ? "the byte " : "the bytes ") + bytes +
               " (a UTF-8 character cut short by the end of the text)";
      } else {
        *why = "the bytes " + bytes + " " + hex_byte(static_cast<unsigned char>(next)) +
               " (an incomplete UTF-8 character)";
      }
    }
    return 0;
  }
  return length;
}

std::string describe_char(std::string_view text, size_t at) {
  const size_t length = char_length(text, at);
  if (length == 0) {
    std::string why;
    char_length(text, at, &why);
    return why;
  }
  uint32_t code = static_cast<unsigned char>(text[at]);
  if (length > 1) {
    code &= 0xffu >> (length + 1);
    for (size_t i = 1; i < length; ++i) code = (code << 6) | (text[at + i] & 0x3f);
  }
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", code);
  if (code == 0xfeff) return std::string("a byte-order mark (") + name + ")";
  // Spaces that look like ' ' but are not JSON whitespace, shown by name.
  if (code == 0xa0 || code == 0x1680 || (code >= 0x2000 && code <= 0x200f) || code == 0x2028 ||
      code == 0x2029 || code == 0x202f || code == 0x205f || code == 0x3000) {
    return std::string("the invisible character ") + name + " (not a JSON space)";
  }
  if (code < 0x20 || code == 0x7f) return "the byte " + hex_byte(static_cast<unsigned char>(code));
  return "'" + std::string(text.substr(at, length)) + "' (" + name + ")";
}

bool has_bom(std::string_view text) { return text.substr(0, 3) == "\xef\xbb\xbf"; }

std::string foreign_encoding(std::string_view text) {
  using namespace std::string_view_literals;
  const auto starts = [&](std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
  };
  if (starts("\xff\xfe\x00\x00"sv)) return "a UTF-32 (little-endian) byte-order mark";
  if (starts("\x00\x00\xfe\xff"sv)) return "a UTF-32 (big-endian) byte-order mark";
  if (starts("\xff\xfe"sv)) return "a UTF-16 (little-endian) byte-order mark";
  if (starts("\xfe\xff"sv)) return "a UTF-16 (big-endian) byte-order mark";
  const auto ascii = [](char c) { return c > 0 && static_cast<unsigned char>(c) < 0x80; };
  if (text.size() >= 4 && ascii(text[0]) && text[1] == 0 && ascii(text[2]) && text[3] == 0) {
    return "UTF-16 (little-endian) text (every other byte is 0x00)";
  }
  if (text.size() >= 4 && text[0] == 0 && ascii(text[1]) && text[2] == 0 && ascii(text[3])) {
    return "UTF-16 (big-endian) text (every other byte is 0x00)";
  }
  return "";
}

namespace {

std::string escaped(std::string_view text, size_t limit, bool quotes) {
  std::string out;
  size_t at = 0;
  while (at < text.size() && at < limit) {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    if (c >= 0x80) {
      const size_t length = char_length(text, at);
      if (length == 0) {
        out += "\\x" + hex_byte(c).substr(2);
        ++at;
      } else {
        out.append(text.substr(at, length));
        at += length;
      }
      continue;
    }
    if (quotes && (c == '"' || c == '\\')) {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out.push_back(static_cast<char>(c));
    }
    ++at;
  }
  if (at < text.size()) out += "...";
  return out;
}

}  // namespace

std::string quote(std::string_view text, size_t limit) {
  return "\"" + escaped(text, limit, true) + "\"";
}

std::string printable(std::string_view text, size_t limit) { return escaped(text, limit, false); }

}  // namespace shardlab::utf8
